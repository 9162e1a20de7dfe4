import AdDecisioning
import HLSPlaylist

/// Which ad tracking beacons are due as interstitial assets play: the engine's walk over each
/// played asset's ``BeaconSchedule``, as a value.
///
/// The rules of when each beacon fires are ``BeaconSchedule``'s (VAST 4.3 §3.14.1: impression and
/// start with the first frame, quartiles of the played duration, complete at its end); this type
/// adds what playback needs on top of them:
/// - the played duration of an asset is what plays of it from where playback entered it (a live
///   join or a seek into the event enters late) up to its end or the event's playout limit
///   (X-PLAYOUT-LIMIT, or the template's maximum), whichever comes first;
/// - each beacon fires at most once per event and asset: a seek back, or the event playing again,
///   does not fire it again (a rebound asset list is a new decision and starts afresh, ``forget(eventID:)``);
/// - after a skip only `skip` fires; an asset cut otherwise (cancelled, a seek out of the event)
///   fires nothing more;
/// - the pod-level entries of the asset list fire at the pod's start (`breakStart`, with its
///   first asset) and end (`breakEnd`, when the event ends after it began).
package struct BeaconTracker: Sendable {
    /// Beacons that became due: one tracking entry of one asset (or of the pod).
    package struct Firing: Sendable, Hashable {
        /// The event.
        package var eventID: String
        /// The asset's index; nil for the pod.
        package var assetIndex: Int?
        /// The VAST event name.
        package var type: String
        /// The URLs to request.
        package var urls: [String]
        /// Where in the ad playback was; nil for the pod.
        package var adPlayhead: MediaTime?
    }

    /// The asset being tracked.
    struct Playing: Sendable {
        var eventID: String
        var assetIndex: Int
        var schedule: BeaconSchedule
        /// The position in the asset's media where playback entered it: played time counts from here.
        var origin: MediaTime
        /// The played time last seen; nil before the first frame.
        var reached: MediaTime?
    }

    /// The pod-level tracking of the event being played.
    struct Pod: Sendable {
        var eventID: String
        var tracking: [AdCreativeSignaling.Tracking]
    }

    struct Key: Hashable, Sendable {
        var eventID: String
        var assetIndex: Int?
        var type: String
        var time: MediaTime?
    }

    /// The types fired at the pod's start and end.
    static let podStartTypes: Set<String> = ["breakStart"]
    /// See ``podStartTypes``.
    static let podEndTypes: Set<String> = ["breakEnd"]

    /// The asset being tracked.
    private(set) var playing: Playing?
    /// The pod-level tracking of the event being played.
    private(set) var pod: Pod?
    /// The beacons fired, once each.
    private(set) var fired: Set<Key> = []

    /// Creates a tracker with nothing played.
    package init() {}

    /// An asset of `eventID` began at `position` of its media and will play for `duration` (its
    /// remaining media, cut to the playout limit); `slot` is its signaling (nil: none), `pod` the
    /// asset list's pod-level tracking. Returns what is due at its first frame.
    package mutating func assetStarted(
        eventID: String, assetIndex: Int, slot: AdCreativeSignaling.Slot?,
        pod podTracking: [AdCreativeSignaling.Tracking],
        at position: MediaTime, playing duration: MediaTime
    ) -> [Firing] {
        var firings: [Firing] = []
        if pod?.eventID != eventID {
            pod = Pod(eventID: eventID, tracking: podTracking)
            firings += fire(pod: Self.podStartTypes)
        }
        guard let slot else {
            playing = nil
            return firings
        }
        playing = Playing(
            eventID: eventID, assetIndex: assetIndex, schedule: BeaconSchedule(slot: slot, duration: duration),
            origin: position, reached: nil)
        return firings + advanced(eventID: eventID, assetIndex: assetIndex, to: position)
    }

    /// Playback of asset `assetIndex` of `eventID` reached `position` of its media: the timed
    /// beacons passed since the last call are due.
    package mutating func advanced(eventID: String, assetIndex: Int, to position: MediaTime) -> [Firing] {
        guard var current = playing, current.eventID == eventID, current.assetIndex == assetIndex else { return [] }
        let played = max(.zero, position - current.origin)
        let due = current.schedule.due(after: current.reached, through: played)
        current.reached = played
        playing = current
        var firings: [Firing] = []
        for beacon in due {
            let key = Key(eventID: eventID, assetIndex: assetIndex, type: beacon.type, time: beacon.time)
            guard fired.insert(key).inserted else { continue }
            firings.append(
                Firing(
                    eventID: eventID, assetIndex: assetIndex, type: beacon.type, urls: beacon.urls,
                    adPlayhead: beacon.time))
        }
        return firings
    }

    /// Playback moved to `position` of the asset's media without playing the media between (a
    /// seek inside the event): beacons passed over do not fire, those passed again do not fire twice.
    package mutating func moved(to position: MediaTime) {
        guard var current = playing else { return }
        current.reached = max(.zero, position - current.origin)
        playing = current
    }

    /// The media distance from `position` of asset `assetIndex` of `eventID` to its next timed
    /// beacon, so that playback stops there; nil when none is left.
    package func nextDistance(eventID: String, assetIndex: Int, from position: MediaTime) -> MediaTime? {
        guard let current = playing, current.eventID == eventID, current.assetIndex == assetIndex else { return nil }
        let played = max(.zero, position - current.origin)
        guard
            let next = current.schedule.timed.first(where: { beacon in
                beacon.time > played
                    && !fired.contains(
                        Key(eventID: eventID, assetIndex: assetIndex, type: beacon.type, time: beacon.time))
            })
        else { return nil }
        return next.time - played
    }

    /// The asset being played ended before its end: by a skip (`skip` is due, nothing else), or
    /// otherwise (nothing is due).
    package mutating func assetCut(skipped: Bool, at position: MediaTime?) -> [Firing] {
        guard let current = playing else { return [] }
        playing = nil
        guard skipped, let urls = current.schedule.onEvent["skip"], !urls.isEmpty else { return [] }
        let key = Key(eventID: current.eventID, assetIndex: current.assetIndex, type: "skip", time: nil)
        guard fired.insert(key).inserted else { return [] }
        return [
            Firing(
                eventID: current.eventID, assetIndex: current.assetIndex, type: "skip", urls: urls,
                adPlayhead: position.map { max(.zero, $0 - current.origin) })
        ]
    }

    /// Event `eventID` ended: the pod's end entries are due if its pod began.
    package mutating func eventEnded(_ eventID: String) -> [Firing] {
        guard pod?.eventID == eventID else { return [] }
        let firings = fire(pod: Self.podEndTypes)
        pod = nil
        if playing?.eventID == eventID { playing = nil }
        return firings
    }

    /// Forgets what fired for `eventID`: its asset list was requested anew (a new ad decision).
    package mutating func forget(eventID: String) {
        fired = fired.filter { $0.eventID != eventID }
    }

    /// The pod-level entries of the current pod whose type is in `types`, once each.
    mutating func fire(pod types: Set<String>) -> [Firing] {
        guard let pod else { return [] }
        var firings: [Firing] = []
        for entry in pod.tracking where types.contains(entry.type) && !entry.urls.isEmpty {
            if let index = firings.firstIndex(where: { $0.type == entry.type }) {
                firings[index].urls += entry.urls
                continue
            }
            guard fired.insert(Key(eventID: pod.eventID, assetIndex: nil, type: entry.type, time: nil)).inserted
            else { continue }
            firings.append(
                Firing(eventID: pod.eventID, assetIndex: nil, type: entry.type, urls: entry.urls, adPlayhead: nil))
        }
        return firings
    }
}
