import HLSInterstitials
import HLSPlaylist

/// SVTA's Ad Creative Signaling (SVTA2053-2): the `X-AD-CREATIVE-SIGNALING` object of an asset list
/// (pod level) and of each asset (slot level), from which players fire the ad server's beacons.
///
/// The shape follows what the players that read it consume (Shaka Player's SVTA parser, Bitmovin's
/// `AdCreativeSignaling` preset): an envelope `{"version": 2, "type": "slot"|"pod", "payload": […]}`;
/// a slot `{"type": "linear", "start", "duration", "identifiers": [{"scheme", "value"}],
/// "tracking": [{"type", "urls", "offset"?}], "verifications"?, "clickThrough"?, "skipOffset"?}`; a
/// pod `{"start"?, "duration", "slots"?, "tracking"?}`. Times are seconds. Tracking `type`s are VAST's
/// event names (`impression`, `start`, `firstQuartile`, `midpoint`, `thirdQuartile`, `complete`,
/// `progress`, `skip`, `pause`…, plus `error` and `clickTracking`); `offset` is given where VAST gives
/// one (a `progress` event), in seconds from the start of the slot.
public struct AdCreativeSignaling: Hashable, Sendable {
    /// The attribute and asset-list key that carries the object.
    public static let key = "X-AD-CREATIVE-SIGNALING"
    /// The version written.
    public static let version = 2

    /// The envelope's `type`.
    public enum Kind: String, Hashable, Sendable {
        /// Per asset: the payload is one slot.
        case slot
        /// On the asset list: the payload is one pod with its slots.
        case pod
    }

    /// One `tracking` entry.
    public struct Tracking: Hashable, Sendable {
        /// The VAST event name.
        public var type: String
        /// The URLs to request (macros not filled: the player fills them).
        public var urls: [String]
        /// Seconds from the start of the slot (or pod), where VAST gives an offset.
        public var offset: MediaTime?

        /// Creates an entry.
        public init(type: String, urls: [String], offset: MediaTime? = nil) {
            self.type = type
            self.urls = urls
            self.offset = offset
        }

        /// VAST or VMAP tracking events as entries, one per event name (in first-seen order) with
        /// its URLs once each; offsets are dropped (for pod-level events such as VMAP's `breakStart`,
        /// `breakEnd` and `error`, which have none).
        public static func grouped(_ events: [VASTTracking]) -> [Tracking] {
            var entries: [Tracking] = []
            for event in events {
                if let index = entries.firstIndex(where: { $0.type == event.event }) {
                    if !entries[index].urls.contains(event.url) { entries[index].urls.append(event.url) }
                } else {
                    entries.append(Tracking(type: event.event, urls: [event.url]))
                }
            }
            return entries
        }

        /// `{"type", "urls", "offset"?}`.
        public var json: JSONValue {
            var object: [String: JSONValue] = ["type": .string(type), "urls": .array(urls.map(JSONValue.string))]
            if let offset { object["offset"] = JSONValue.seconds(offset) }
            return .object(object)
        }
    }

    /// One ad.
    public struct Slot: Hashable, Sendable {
        /// Seconds from the start of the pod.
        public var start: MediaTime
        /// The ad's duration.
        public var duration: MediaTime
        /// `{scheme, value}` pairs: the Universal Ad IDs (scheme = `idRegistry`).
        public var identifiers: [VASTUniversalAdId]
        /// The tracking entries.
        public var tracking: [Tracking]
        /// `{vendor, resource, parameters}` of the ad's verifications.
        public var verifications: [VASTVerification]
        /// The click-through page.
        public var clickThrough: String?
        /// When a skip control may show, in seconds from the start of the slot.
        public var skipOffset: MediaTime?

        /// Creates a slot.
        public init(
            start: MediaTime = .zero, duration: MediaTime, identifiers: [VASTUniversalAdId] = [],
            tracking: [Tracking] = [], verifications: [VASTVerification] = [], clickThrough: String? = nil,
            skipOffset: MediaTime? = nil
        ) {
            self.start = start
            self.duration = duration
            self.identifiers = identifiers
            self.tracking = tracking
            self.verifications = verifications
            self.clickThrough = clickThrough
            self.skipOffset = skipOffset
        }

        /// The slot's JSON.
        public var json: JSONValue {
            var object: [String: JSONValue] = [
                "type": .string("linear"), "start": JSONValue.seconds(start), "duration": JSONValue.seconds(duration),
                "identifiers": .array(
                    identifiers.map { .object(["scheme": .string($0.idRegistry), "value": .string($0.value)]) }),
                "tracking": .array(tracking.map(\.json)),
            ]
            let verificationsJSON: [JSONValue] = verifications.compactMap { verification in
                guard let vendor = verification.vendor else { return nil }
                var entry: [String: JSONValue] = ["vendor": .string(vendor)]
                if let resource = verification.javaScriptResources.first?.url { entry["resource"] = .string(resource) }
                if let parameters = verification.parameters { entry["parameters"] = .string(parameters) }
                return .object(entry)
            }
            if !verificationsJSON.isEmpty { object["verifications"] = .array(verificationsJSON) }
            if let clickThrough { object["clickThrough"] = .string(clickThrough) }
            if let skipOffset { object["skipOffset"] = JSONValue.seconds(skipOffset) }
            return .object(object)
        }
    }

    /// The envelope's type.
    public var kind: Kind
    /// The slots: one for ``Kind/slot``, the pod's for ``Kind/pod``.
    public var slots: [Slot]
    /// The pod's own tracking (VMAP `breakStart`/`breakEnd`), for ``Kind/pod``.
    public var podTracking: [Tracking]

    /// The signaling of one asset.
    public static func slot(_ slot: Slot) -> AdCreativeSignaling {
        AdCreativeSignaling(kind: .slot, slots: [slot], podTracking: [])
    }

    /// The signaling of an asset list: its slots one after another from 0.
    public static func pod(_ slots: [Slot], tracking: [Tracking] = []) -> AdCreativeSignaling {
        var start = MediaTime.zero
        var placed: [Slot] = []
        for var slot in slots {
            slot.start = start
            start = start + slot.duration
            placed.append(slot)
        }
        return AdCreativeSignaling(kind: .pod, slots: placed, podTracking: tracking)
    }

    /// The `X-AD-CREATIVE-SIGNALING` value.
    public var json: JSONValue {
        let payload: [JSONValue]
        switch kind {
        case .slot:
            payload = slots.map(\.json)
        case .pod:
            let duration = slots.reduce(MediaTime.zero) { $0 + $1.duration }
            var pod: [String: JSONValue] = [
                "start": .integer(0), "duration": JSONValue.seconds(duration), "slots": .array(slots.map(\.json)),
            ]
            if !podTracking.isEmpty { pod["tracking"] = .array(podTracking.map(\.json)) }
            payload = [.object(pod)]
        }
        return .object([
            "version": .integer(Int64(Self.version)), "type": .string(kind.rawValue), "payload": .array(payload),
        ])
    }
}

extension AdCreativeSignaling.Slot {
    /// The slot of a resolved ad's linear creative, played for `duration` (the asset's duration;
    /// the creative's `<Duration>` when nil).
    ///
    /// Impressions become one `impression` entry, `<Error>` URLs an `error` entry, click tracking a
    /// `clickTracking` entry; tracking events keep their VAST names, grouped by name (`progress` by
    /// offset, a percentage turned into seconds of `duration`).
    public init?(_ resolved: ResolvedAd, duration: MediaTime? = nil) {
        guard let creative = resolved.ad.linearCreatives.first, let linear = creative.linear,
            let played = duration ?? linear.duration
        else { return nil }
        self.start = .zero
        self.duration = played
        self.identifiers = creative.universalAdIds.filter { $0.value != "unknown" }
        self.verifications = resolved.ad.verifications
        self.clickThrough = linear.videoClicks.clickThrough
        self.skipOffset = linear.skipOffset?.time(duration: played)
        var entries: [AdCreativeSignaling.Tracking] = []
        func add(_ type: String, _ urls: [String], offset: MediaTime? = nil) {
            guard !urls.isEmpty else { return }
            if let index = entries.firstIndex(where: { $0.type == type && $0.offset == offset }) {
                entries[index].urls += urls.filter { !entries[index].urls.contains($0) }
            } else {
                entries.append(AdCreativeSignaling.Tracking(type: type, urls: urls, offset: offset))
            }
        }
        add("impression", resolved.ad.impressions.map(\.url))
        for event in linear.tracking {
            let offset = event.event == "progress" ? event.offset?.time(duration: played) : nil
            if event.event == "progress" && offset == nil { continue }
            add(event.event, [event.url], offset: offset)
        }
        add("clickTracking", linear.videoClicks.clickTracking)
        add("error", resolved.ad.errorURLs)
        self.tracking = entries
    }
}
