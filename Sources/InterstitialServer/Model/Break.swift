import HLSInterstitials
import HLSPlaylist

/// One scheduled break: an interstitial of a VOD asset or a live channel.
///
/// A pre-roll has `CUE="PRE"` (add `ONCE` so a viewer sees it once), a post-roll `CUE="POST"`, a
/// mid-roll a time (`at`, VOD) or a date. The break is filled with one fixed ad (`ad`: X-ASSET-URI),
/// an external asset or asset list (`assetUri`, `assetList`), or by default the server's own asset
/// list, decided from the inventory when a viewer's player asks for it (late binding).
public struct Break: Hashable, Sendable {
    /// The date range ID; unique across the server.
    public var id: String
    /// The asset or channel.
    public var target: Target
    /// The interstitial's attributes; its `id` is the break's.
    public var interstitial: InsertionRequest
    /// A fixed ad of the inventory (written as X-ASSET-URI).
    public var ad: String?
    /// SKIP-CONTROL written into the break's asset list (it overrides the tag's, App. D.7).
    public var assetListSkipControl: SkipControl?

    /// Creates a break.
    public init(
        target: Target, interstitial: InsertionRequest, ad: String? = nil, assetListSkipControl: SkipControl? = nil
    ) {
        self.id = interstitial.id
        self.target = target
        self.interstitial = interstitial
        self.ad = ad
        self.assetListSkipControl = assetListSkipControl
    }

    /// Whether the server fills the break from its inventory when asked (late binding).
    public var usesServerAssetList: Bool {
        ad == nil && interstitial.assetURI == nil && interstitial.assetListURI == nil
    }

    /// Whether it carries CUE=ONCE.
    public var isOnce: Bool { interstitial.cue?.contains("ONCE") ?? false }
}

extension Break {
    /// The schedule-entry fields of `InsertionRequest` plus `target`, `ad` and `assetListSkipControl`.
    public var jsonValue: JSONValue {
        guard case .object(var fields) = interstitial.jsonValue else { return interstitial.jsonValue }
        fields["target"] = .string(target.description)
        if let ad { fields["ad"] = .string(ad) }
        if let control = assetListSkipControl { fields["assetListSkipControl"] = control.serverJSON }
        return .object(fields)
    }

    /// Reads a break and checks that it would write a valid date range; errors name the JSON path.
    public static func decode(_ value: JSONValue, path: String = "") throws(APIError) -> Break {
        var reader = try JSONObjectReader(value, path: path)
        _ = try reader.identifier("id")
        let targetText = try reader.requiredString("target")
        guard let target = Target(targetText) else {
            throw reader.error("target", "expected vod/ID or live/ID, found \"\(targetText)\"")
        }
        let ad = try reader.string("ad")
        let control = try reader.take("assetListSkipControl").map { value throws(APIError) in
            try SkipControl.decodeServerJSON(value, path: reader.at("assetListSkipControl"))
        }
        let request: InsertionRequest
        do {
            request = try InsertionRequest.decode(
                value, path: path, allowing: ["target", "ad", "assetListSkipControl"])
        } catch {
            throw APIError(error)
        }
        let result = Break(target: target, interstitial: request, ad: ad, assetListSkipControl: control)
        try result.check(path: path)
        return result
    }

    /// Checks the fields that the date range's validity depends on.
    func check(path: String) throws(APIError) {
        func fail(_ key: String, _ message: String) -> APIError {
            .badRequest(code: .invalidBreak, path: path.isEmpty ? key : "\(path).\(key)", message)
        }
        let cue = interstitial.cue ?? []
        let edge = cue.contains("PRE") || cue.contains("POST")
        switch target.kind {
        case .vod:
            if interstitial.at == nil, interstitial.date == nil, !edge {
                throw fail("at", "a mid-roll needs a time (at, seconds into the asset) or a date")
            }
        case .live:
            if interstitial.at != nil {
                throw fail("at", "a live break is placed by date; use date (ISO-8601) instead of at")
            }
            if interstitial.date == nil, !edge { throw fail("date", "a live break needs a date") }
        }
        if ad != nil, interstitial.assetURI != nil || interstitial.assetListURI != nil {
            throw fail("ad", "give an inventory ad, an assetUri or an assetList, not several")
        }
        if let ad, !JSONObjectReader.isIdentifier(ad) { throw fail("ad", "\"\(ad)\" is not an ad identifier") }
        for (key, uri) in [("assetUri", interstitial.assetURI), ("assetList", interstitial.assetListURI)] {
            if let uri, let problem = PlayerURI.problem(uri) { throw fail(key, problem) }
        }
        if usesServerAssetList, interstitial.duration == nil, interstitial.plannedDuration == nil,
            interstitial.playoutLimit == nil
        {
            throw fail("duration", "a break filled from the inventory needs a duration or plannedDuration")
        }
        do {
            _ = try probeEvent(path: path)
        } catch {
            throw APIError(error)
        }
    }

    /// The `interstitial-preroll-skip` warning of a VOD pre-roll without `resumeOffset`, which skips
    /// the start of the asset (`InterstitialEvent/preRollSkippedPrimary(isVOD:)`, the rule
    /// `hlsi validate` applies): its message, nil when the break does not skip anything. The admin
    /// API returns it with the 201; `hlsi serve` prints it for the configuration's seed.
    public var preRollSkipWarning: String? {
        guard let event = try? probeEvent(),
            let skipped = event.preRollSkippedPrimary(isVOD: target.kind == .vod)
        else { return nil }
        return InterstitialEvent.preRollSkipMessage(id: id, skipped: skipped)
    }

    /// The event the break's own fields make, with a time and an asset list standing in where the
    /// server supplies them (a pre- or post-roll's place, a fixed ad or the server's asset list):
    /// what its checks and the admin API's warnings read.
    func probeEvent(path: String = "") throws(InsertionError) -> InterstitialEvent {
        var probe = interstitial
        if probe.at == nil && probe.date == nil { probe.at = .zero }
        if probe.assetURI == nil && probe.assetListURI == nil { probe.assetListURI = "https://check.invalid/list.json" }
        return try probe.event(mapping: { InterstitialInserter.defaultEpoch + $0 }, path: path)
    }
}

extension SkipControl {
    /// `{"offset": s, "duration": s, "labelId": "…"}`.
    var serverJSON: JSONValue {
        var fields: [String: JSONValue] = [:]
        if let offset { fields["offset"] = .seconds(offset) }
        if let duration { fields["duration"] = .seconds(duration) }
        if let labelID { fields["labelId"] = .string(labelID) }
        return .object(fields)
    }

    static func decodeServerJSON(_ value: JSONValue, path: String) throws(APIError) -> SkipControl {
        var reader = try JSONObjectReader(value, path: path)
        var control = SkipControl()
        control.offset = try reader.seconds("offset")
        control.duration = try reader.seconds("duration")
        control.labelID = try reader.string("labelId")
        try reader.finish()
        if control.offset == nil { throw reader.error("offset", "SKIP-CONTROL needs an offset") }
        if let label = control.labelID, !SkipControl.isValidLabelID(label) {
            throw reader.error("labelId", "must use the characters [a-zA-Z-_] only")
        }
        return control
    }
}
