import AdDecisioning
import HLSInterstitials
import HLSPlaylist

/// Turns a VAST decision into a break's asset list (pure): the InLine ads in the order the ad
/// server gave them, each linear creative's HLS media file as an asset of the creative's duration,
/// with its tracking as SVTA2053-2 Ad Creative Signaling (`X-AD-CREATIVE-SIGNALING`, slot level on
/// each asset, pod level on the list).
///
/// An ad whose only media files are progressive MP4 plays once it is conditioned into HLS
/// (``Conditioned``, from ``CreativeConditioner``): until then it is left out, without an error. An ad
/// with no usable media file at all is left out and reported to its `<Error>` URLs with VAST error
/// 403, "Couldn't find MediaFile that is supported by this media player". Ads fill what is left of
/// the break after the viewer's start offset (R11); one that would overrun it by more than
/// ``AdDecision/slack`` is left out (not an error: the break is full).
enum VASTFill {
    /// The asset list and what the server must do with it.
    struct Result: Sendable {
        /// The asset list to answer.
        var list: AssetList
        /// The ads left out for want of a playable media file, with their reports.
        var rejected: [VASTErrorReport] = []
        /// With `tracking: server`, the impression URLs the server fires itself.
        var impressions: [String] = []
        /// How many ads the list plays.
        var adCount: Int { list.assets.count }
    }

    /// What the conditioning cache says of a progressive creative.
    enum Conditioned: Sendable {
        /// Ready: the URI of its HLS asset.
        case ready(String)
        /// Being made (or failed lately): left out of this answer.
        case pending
        /// Nothing conditions creatives here: the ad has no usable media file (VAST error 403).
        case unavailable
    }

    /// The asset list for `ads` in a break of `duration` joined `startOffset` into; `conditioned`
    /// answers for creatives that have progressive media files only: ``prepare(ads:conditioned:)``
    /// then ``assetList(_:duration:startOffset:tracking:skipControl:podTracking:relay:stitched:)``.
    static func assetList(
        ads: [ResolvedAd], duration: MediaTime, startOffset: MediaTime, tracking: AdServerSettings.Tracking,
        skipControl: SkipControl?, podTracking: [AdCreativeSignaling.Tracking] = [],
        relay: ((_ url: String, _ type: String) -> String)? = nil,
        conditioned: (CreativeSelection) -> Conditioned = { _ in .unavailable }
    ) -> Result {
        let prepared = prepare(ads: ads, conditioned: conditioned)
        var result = assetList(
            prepared, duration: duration, startOffset: startOffset, tracking: tracking, skipControl: skipControl,
            podTracking: podTracking, relay: relay)
        result.rejected = prepared.rejected
        return result
    }

    /// What a decision's `ads` give, made when the ad server answers: the playable ads in the ad
    /// server's order, each with its URI, duration and slot (tracking whole), and the ads left out
    /// for want of a playable media file with their reports. `conditioned` answers for creatives
    /// that have progressive media files only (a pending one is left out and counted).
    static func prepare(
        ads: [ResolvedAd], conditioned: (CreativeSelection) -> Conditioned = { _ in .unavailable }
    ) -> PreparedDecision {
        var prepared = PreparedDecision()
        for resolved in ads {
            let selection = CreativeSelection(ad: resolved)
            let base = resolved.requestURLs.last ?? ""
            var uri: String?
            if let file = selection.hlsFiles.first {
                uri = URIReference.resolve(file.url, against: base)
            } else if !selection.progressiveFiles.isEmpty {
                switch conditioned(selection) {
                case .ready(let asset): uri = asset
                case .pending:
                    prepared.pending += 1
                    continue
                case .unavailable: break
                }
            }
            guard let uri, ServerConfiguration.origin(of: uri) != nil, let length = selection.duration, length > .zero,
                let slot = AdCreativeSignaling.Slot(resolved, duration: length)
            else {
                prepared.rejected.append(
                    VASTErrorReport(
                        code: .noSupportedMediaFile, urls: resolved.ad.errorURLs, depth: resolved.depth,
                        url: resolved.requestURLs.last, reason: .noHLSMediaFile,
                        message: "ad \"\(resolved.ad.id ?? "-")\" has no usable media file with a duration"))
                continue
            }
            let stitching = StitchedAdInfo(selection, base: base)
            prepared.entries.append(
                PreparedDecision.Entry(
                    uri: uri, duration: length, slot: slot, stitching: stitching.isEmpty ? nil : stitching))
        }
        return prepared
    }

    /// The asset list of a prepared decision for a viewer who joined a break of `duration` at
    /// `startOffset`, made when the viewer asks: the ads that fit what is left of the break, with
    /// `tracking: server` impressions taken out to be fired now, and `tracking: relay` URLs made by
    /// `relay` for this viewer. The ``Result/rejected`` reports stay with the prepared decision.
    /// `stitched`: the list is the stitched form's (``StitchedService``), each asset with its
    /// ``StitchedAdInfo`` (conditioning source, `<Error>` URLs) under ``StitchedAdInfo/key``.
    static func assetList(
        _ prepared: PreparedDecision, duration: MediaTime, startOffset: MediaTime,
        tracking: AdServerSettings.Tracking, skipControl: SkipControl?,
        podTracking: [AdCreativeSignaling.Tracking] = [], relay: ((_ url: String, _ type: String) -> String)? = nil,
        stitched: Bool = false
    ) -> Result {
        // `tracking: relay`: every URL the player is given goes through the server's relay.
        func relayed(_ entries: [AdCreativeSignaling.Tracking]) -> [AdCreativeSignaling.Tracking] {
            guard tracking == .relay, let relay else { return entries }
            return entries.map { entry in
                var entry = entry
                entry.urls = entry.urls.map { relay($0, entry.type) }
                return entry
            }
        }
        let offset = min(max(startOffset, .zero), duration)
        var remaining = duration - offset
        var assets: [AssetList.Asset] = []
        var slots: [AdCreativeSignaling.Slot] = []
        var result = Result(list: AssetList(assets: []))
        for entry in prepared.entries {
            let length = entry.duration
            guard length <= remaining + AdDecision.slack else { continue }
            var slot = entry.slot
            if tracking == .server {
                result.impressions += slot.tracking.filter { $0.type == "impression" }.flatMap(\.urls)
                slot.tracking.removeAll { $0.type == "impression" }
            }
            remaining = remaining - length
            slot.tracking = relayed(slot.tracking)
            slots.append(slot)
            var keys = [AdCreativeSignaling.key: AdCreativeSignaling.slot(slot).json]
            if stitched, let info = entry.stitching { keys[StitchedAdInfo.key] = info.json }
            assets.append(AssetList.Asset(uri: entry.uri, duration: length, otherKeys: keys))
        }
        var otherKeys: [String: JSONValue] = [:]
        if !slots.isEmpty {
            otherKeys[AdCreativeSignaling.key] = AdCreativeSignaling.pod(slots, tracking: relayed(podTracking)).json
        }
        result.list = AssetList(
            assets: AdDecision.joined(assets, at: offset), skipControl: skipControl, otherKeys: otherKeys)
        return result
    }
}
