import AdDecisioning
import HLSInterstitials
import HLSPlaylist

/// Ad tracking: the machine reads each played asset's `X-AD-CREATIVE-SIGNALING` (SVTA2053-2) and
/// asks the driver to send each beacon once, at the playback time ``BeaconTracker`` finds it due.
extension PlaybackStateMachine {
    /// Asset `index` of the current member started at the run's asset position: reads its
    /// signaling (slot level on the asset, else the pod's slot at the same index when the pod lists
    /// one per asset) and the asset list's pod-level tracking, and fires what is due at once.
    mutating func trackAssetStart(_ index: Int, media: AssetMedia) {
        guard let run, let list = playList(for: run.event) else { return }
        let id = run.eventID
        let key = AdCreativeSignaling.key
        let podStarts = beacons.pod?.eventID != id
        let pod = signaling(list.otherKeys[key], path: key, eventID: id, warns: podStarts).flatMap {
            $0.kind == .pod ? $0 : nil
        }
        var slot: AdCreativeSignaling.Slot?
        if list.assets.indices.contains(index) {
            slot =
                signaling(
                    list.assets[index].otherKeys[key], path: "ASSETS[\(index)].\(key)", eventID: id, warns: true)?
                .slots.first
        }
        if slot == nil, let pod, pod.slots.count == list.assets.count, pod.slots.indices.contains(index) {
            slot = pod.slots[index]
        }
        var played = media.duration - min(media.duration, run.assetPosition)
        if let limit = playoutLimit(of: run.event) { played = min(played, limit - min(limit, run.elapsed)) }
        fire(
            beacons.assetStarted(
                eventID: id, assetIndex: index, slot: slot, pod: pod?.podTracking ?? [], at: run.assetPosition,
                playing: played))
    }

    /// Fires the beacons the asset playing has passed (called as each step of time settles, before
    /// the asset can end).
    mutating func trackAssetProgress() {
        guard mode == .interstitial, let run, let index = run.assetIndex else { return }
        fire(beacons.advanced(eventID: run.eventID, assetIndex: index, to: run.assetPosition))
    }

    /// The media distance to the next beacon of the asset playing: playback stops there, so each
    /// beacon fires at its own time.
    var beaconDistance: MediaTime? {
        guard let run, let index = run.assetIndex else { return nil }
        return beacons.nextDistance(eventID: run.eventID, assetIndex: index, from: run.assetPosition)
    }

    /// The current member ends: a skip fires the asset's `skip`, any other cut fires nothing more;
    /// the pod's end entries fire.
    mutating func trackMemberEnd(skipped: Bool) {
        guard let run else { return }
        if run.assetIndex != nil { fire(beacons.assetCut(skipped: skipped, at: run.assetPosition)) }
        fire(beacons.eventEnded(run.eventID))
    }

    /// The signaling in `value`; nil when there is none or it cannot be read (then a warning says why).
    mutating func signaling(_ value: JSONValue?, path: String, eventID: String, warns: Bool) -> AdCreativeSignaling? {
        guard let value else { return nil }
        do {
            return try AdCreativeSignaling(json: value, path: path)
        } catch {
            if warns {
                emit(
                    .warning,
                    [("id", .string(eventID)), ("message", .string("ad tracking ignored: \(error.description)"))])
            }
            return nil
        }
    }

    /// Asks the driver to send each URL of `firings`.
    mutating func fire(_ firings: [BeaconTracker.Firing]) {
        for firing in firings {
            for url in firing.urls {
                actions.append(
                    .fire(
                        TrackingBeacon(
                            time: clock, eventID: firing.eventID, assetIndex: firing.assetIndex, type: firing.type,
                            url: url, adPlayhead: firing.adPlayhead, mediaPlayhead: position)))
            }
        }
    }
}
