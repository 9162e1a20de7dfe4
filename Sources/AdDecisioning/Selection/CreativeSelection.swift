import HLSPlaylist

/// Which media files of a linear creative can become an HLS interstitial asset, and how.
///
/// A `MediaFile` whose type is an HLS playlist (`application/x-mpegURL` or
/// `application/vnd.apple.mpegurl`, compared case-insensitively, RFC 8216 §4) is used as it is; a
/// progressive MP4 (`video/mp4`) must first be conditioned into HLS. Everything else (VPAID
/// JavaScript, WebM, Flash…) is not usable, and a creative with nothing usable is VAST error 403.
public struct CreativeSelection: Hashable, Sendable {
    /// How a media file can be used.
    public enum Usability: String, Hashable, Sendable {
        /// An HLS playlist: playable as it is.
        case hls
        /// A progressive MP4: playable once conditioned into HLS.
        case needsConditioning = "needs-conditioning"
        /// Not usable by an HLS interstitial.
        case unusable
    }

    /// The ad.
    public var ad: ResolvedAd
    /// The linear creative used (the first with media files).
    public var creative: VASTCreative?
    /// The HLS media files, in document order.
    public var hlsFiles: [VASTMediaFile]
    /// The progressive MP4 files, highest bitrate (then largest area) first: the conditioning source.
    public var progressiveFiles: [VASTMediaFile]
    /// The creative's key for a conditioning cache: its first Universal Ad ID (`registry:value`),
    /// else the URL of the chosen source file.
    public var creativeKey: String?

    /// Selects from the first linear creative of `ad` that has a usable media file.
    public init(ad: ResolvedAd) {
        self.ad = ad
        self.hlsFiles = []
        self.progressiveFiles = []
        for candidate in ad.ad.linearCreatives {
            let files = candidate.linear?.mediaFiles ?? []
            let hls = files.filter { Self.usability(of: $0) == .hls }
            let progressive = files.filter { Self.usability(of: $0) == .needsConditioning }
                .sorted { lhs, rhs in
                    let left = (lhs.bitrate ?? lhs.maxBitrate ?? 0, (lhs.width ?? 0) * (lhs.height ?? 0))
                    let right = (rhs.bitrate ?? rhs.maxBitrate ?? 0, (rhs.width ?? 0) * (rhs.height ?? 0))
                    return left > right
                }
            if !hls.isEmpty || !progressive.isEmpty {
                creative = candidate
                hlsFiles = hls
                progressiveFiles = progressive
                break
            }
        }
        if let creative, let id = creative.universalAdIds.first(where: { $0.value != "unknown" }) {
            creativeKey = "\(id.idRegistry):\(id.value)"
        } else {
            creativeKey = hlsFiles.first?.url ?? progressiveFiles.first?.url
        }
    }

    /// What the conditioner makes renditions from (one rule for both forms): the creative's first
    /// `<Mezzanine>` that is an MP4 (VAST 4.0: the high quality source "for ad stitching"), else its
    /// best progressive MP4 (``progressiveFiles``); nil when it has neither.
    public var conditioningSource: VASTMediaFile? {
        let mezzanines = creative?.linear?.mezzanines ?? []
        return mezzanines.first { Self.usability(of: $0) == .needsConditioning } ?? progressiveFiles.first
    }

    /// The linear duration of the chosen creative.
    public var duration: MediaTime? { creative?.linear?.duration }

    /// Whether nothing is usable: VAST error 403, "Couldn't find MediaFile that is supported".
    public var isEmpty: Bool { hlsFiles.isEmpty && progressiveFiles.isEmpty }

    /// How `file` can be used, from its `type` (and, without a type, its URL's extension).
    public static func usability(of file: VASTMediaFile) -> Usability {
        if file.apiFramework != nil { return .unusable }
        let type = (file.type ?? "").lowercased()
        switch type {
        case "application/x-mpegurl", "application/vnd.apple.mpegurl", "audio/mpegurl", "audio/x-mpegurl":
            return .hls
        case "video/mp4":
            return file.delivery?.lowercased() == "streaming" ? .unusable : .needsConditioning
        case "":
            let path = file.url.split(separator: "?").first.map(String.init)?.lowercased() ?? ""
            if path.hasSuffix(".m3u8") { return .hls }
            if path.hasSuffix(".mp4") { return .needsConditioning }
            return .unusable
        default:
            return .unusable
        }
    }
}
