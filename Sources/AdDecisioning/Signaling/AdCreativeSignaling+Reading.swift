import HLSInterstitials
import HLSPlaylist

extension AdCreativeSignaling {
    /// The most slots, tracking entries per slot or pod, and URLs per entry a reader takes; more is
    /// an error (an asset list is a small document, and a player must not spend without bound on one).
    public static let maximumSlots = 256
    /// See ``maximumSlots``.
    public static let maximumTrackingEntries = 1_024
    /// See ``maximumSlots``.
    public static let maximumURLsPerEntry = 64

    /// Reads an `X-AD-CREATIVE-SIGNALING` value, as an asset list (``Kind/pod``) or an asset
    /// (``Kind/slot``) carries it, for a player that fires the beacons.
    ///
    /// Members this reader does not know are ignored (other servers add their own); known members of
    /// the wrong type, a missing `type` or `payload`, and counts over the limits are errors with the
    /// JSON path under `path` and code `ad-signaling`.
    public init(json: JSONValue, path: String = AdCreativeSignaling.key) throws(JSONError) {
        var envelope = try JSONReader<JSONError>(json, path: path, code: Self.code)
        let type = try envelope.requiredString("type")
        guard let kind = Kind(rawValue: type) else {
            throw envelope.error("type", "expected \"slot\" or \"pod\", found \"\(Diagnostic.clipped(type))\"")
        }
        _ = try envelope.integer("version")
        guard let payload = try envelope.array("payload") else { throw envelope.error("payload", "missing") }
        self.kind = kind
        self.slots = []
        self.podTracking = []
        switch kind {
        case .slot:
            guard payload.count <= Self.maximumSlots else {
                throw envelope.error("payload", "more than \(Self.maximumSlots) slots")
            }
            for (index, item) in payload.enumerated() {
                slots.append(try Slot(json: item, path: envelope.at("payload[\(index)]")))
            }
        case .pod:
            guard let first = payload.first else { throw envelope.error("payload", "a pod payload is empty") }
            var pod = try JSONReader<JSONError>(first, path: envelope.at("payload[0]"), code: Self.code)
            podTracking = try Self.tracking(&pod)
            let items = try pod.array("slots") ?? []
            guard items.count <= Self.maximumSlots else {
                throw pod.error("slots", "more than \(Self.maximumSlots) slots")
            }
            for (index, item) in items.enumerated() {
                slots.append(try Slot(json: item, path: pod.at("slots[\(index)]")))
            }
        }
    }

    static let code = JSONErrorCode.adSignaling

    /// The `tracking` member of an object.
    static func tracking(_ reader: inout JSONReader<JSONError>) throws(JSONError) -> [Tracking] {
        guard let items = try reader.array("tracking") else { return [] }
        guard items.count <= maximumTrackingEntries else {
            throw reader.error("tracking", "more than \(maximumTrackingEntries) entries")
        }
        var entries: [Tracking] = []
        for (index, item) in items.enumerated() {
            var entry = try JSONReader<JSONError>(item, path: reader.at("tracking[\(index)]"), code: code)
            let type = try entry.requiredString("type")
            let urls = try entry.tokens("urls") ?? []
            guard urls.count <= maximumURLsPerEntry else {
                throw entry.error("urls", "more than \(maximumURLsPerEntry) URLs")
            }
            entries.append(Tracking(type: type, urls: urls, offset: try entry.seconds("offset")))
        }
        return entries
    }
}

extension AdCreativeSignaling.Slot {
    /// Reads one slot object (see ``AdCreativeSignaling/init(json:path:)``).
    public init(json: JSONValue, path: String) throws(JSONError) {
        var reader = try JSONReader<JSONError>(json, path: path, code: AdCreativeSignaling.code)
        start = try reader.seconds("start") ?? .zero
        duration = try reader.seconds("duration") ?? .zero
        tracking = try AdCreativeSignaling.tracking(&reader)
        clickThrough = try reader.string("clickThrough")
        skipOffset = try reader.seconds("skipOffset")
        identifiers = []
        verifications = []
        for (index, item) in (try reader.array("identifiers") ?? []).prefix(AdCreativeSignaling.maximumSlots)
            .enumerated()
        {
            var identifier = try JSONReader<JSONError>(
                item, path: reader.at("identifiers[\(index)]"), code: AdCreativeSignaling.code)
            guard let value = try identifier.string("value") else { continue }
            identifiers.append(
                VASTUniversalAdId(value: value, idRegistry: try identifier.string("scheme") ?? "unknown"))
        }
        for (index, item) in (try reader.array("verifications") ?? []).prefix(AdCreativeSignaling.maximumSlots)
            .enumerated()
        {
            var entry = try JSONReader<JSONError>(
                item, path: reader.at("verifications[\(index)]"), code: AdCreativeSignaling.code)
            var verification = VASTVerification(vendor: try entry.string("vendor"))
            if let resource = try entry.string("resource") {
                verification.javaScriptResources = [VASTResourceURL(url: resource)]
            }
            verification.parameters = try entry.string("parameters")
            verifications.append(verification)
        }
    }
}
