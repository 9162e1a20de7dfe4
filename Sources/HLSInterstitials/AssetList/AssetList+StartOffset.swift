import HLSPlaylist

extension AssetList {
    /// Where playback starts when it joins `offset` seconds into the interstitial (profile R11):
    /// the first asset that is not wholly before the offset, and how far into it. Nil when the offset
    /// is at or past the end of the last asset.
    public func startPosition(at offset: MediaTime) -> (index: Int, offset: MediaTime)? {
        var start = MediaTime.zero
        for (index, asset) in assets.enumerated() {
            let end = start + asset.duration
            if offset < end { return (index, max(.zero, offset - start)) }
            start = end
        }
        return nil
    }

    /// The `_HLS_start_offset` query item for joining `offset` seconds into an interstitial, with
    /// millisecond precision (App. D.4; profile R11).
    public static func startOffsetQuery(_ offset: MediaTime) -> String {
        "_HLS_start_offset=" + max(.zero, offset).formatted(fractionDigits: 3)
    }

    /// `uri` with `_HLS_start_offset` added (replacing none), for an X-ASSET-LIST request made when
    /// playback starts inside the interstitial.
    public static func addingStartOffset(_ offset: MediaTime, to uri: String) -> String {
        QueryParameters.appending("_HLS_start_offset", max(.zero, offset).formatted(fractionDigits: 3), to: uri)
    }
}
