import HLSInterstitials
import HLSPlaylist

/// The standing schedule of an asset or channel: breaks at a regular cadence, all alike.
///
/// For a live channel, break *k* starts at the channel's epoch + `offset` + *k* × `every`; for a VOD
/// asset, at `offset` + *k* × `every` seconds into it. Each break's ID is `<prefix>-<start>`, its start
/// in whole seconds (Unix time for live, seconds into the asset for VOD), so that changing the cadence
/// never gives an ID already served to a different break.
public struct BreakSchedule: Hashable, Sendable {
    /// The regular breaks.
    public struct Cadence: Hashable, Sendable {
        /// The time between break starts.
        public var every: MediaTime
        /// Each break's duration (DURATION for VOD, PLANNED-DURATION for live).
        public var duration: MediaTime
        /// The first break's start after the epoch (live) or the asset's start (VOD).
        public var offset: MediaTime

        /// Creates a cadence.
        public init(every: MediaTime, duration: MediaTime, offset: MediaTime = .zero) {
            self.every = every
            self.duration = duration
            self.offset = offset
        }
    }

    /// The asset or channel.
    public var target: Target
    /// The regular breaks, if any.
    public var cadence: Cadence?
    /// The prefix of the breaks' IDs.
    public var prefix: String
    /// The attributes every cadence break carries (no `id`, `at` or `date`).
    public var interstitial: InsertionRequest
    /// A fixed ad for every cadence break instead of the server's asset list.
    public var ad: String?
    /// The VAST ad decision server that fills the target's breaks, overriding the configuration's.
    public var adServer: AdServerSettings?

    /// Creates a schedule.
    public init(
        target: Target, cadence: Cadence?, prefix: String = "break", interstitial: InsertionRequest? = nil,
        ad: String? = nil
    ) {
        self.target = target
        self.cadence = cadence
        self.prefix = prefix
        self.interstitial = interstitial ?? InsertionRequest(id: prefix)
        self.ad = ad
    }

    /// The cadence break starting at `start` (a time into the asset for VOD, into the channel's
    /// timeline since its epoch for live).
    func cadenceBreak(at start: MediaTime, epoch: DateTime?) -> Break? {
        guard let cadence else { return nil }
        var request = interstitial
        if let epoch {
            let date = epoch + start
            request.id = "\(prefix)-\(date.nanosecondsSinceEpoch / 1_000_000_000)"
            request.date = date
            request.at = nil
            if request.duration == nil, request.plannedDuration == nil { request.plannedDuration = cadence.duration }
        } else {
            request.id = "\(prefix)-\(start.nanoseconds / 1_000_000_000)"
            request.at = start
            request.date = nil
            if request.duration == nil { request.duration = cadence.duration }
        }
        return Break(target: target, interstitial: request, ad: ad)
    }

    /// The starts of the cadence breaks that begin in `range` (times since the epoch or the asset's start).
    func cadenceStarts(in range: Range<MediaTime>) -> [MediaTime] {
        guard let cadence, cadence.every > .zero else { return [] }
        let every = cadence.every.nanoseconds
        // Saturating, then checked: no range or cadence can trap.
        let numerator = (range.lowerBound - cadence.offset + MediaTime(nanoseconds: every - 1)).nanoseconds
        let first = max(0, numerator / every)
        var starts: [MediaTime] = []
        var index = first
        while starts.count < 10_000 {
            let (product, overflow1) = index.multipliedReportingOverflow(by: every)
            let (sum, overflow2) = cadence.offset.nanoseconds.addingReportingOverflow(product)
            guard !overflow1, !overflow2 else { break }
            let start = MediaTime(nanoseconds: sum)
            guard start < range.upperBound else { break }
            if start >= range.lowerBound { starts.append(start) }
            index += 1
        }
        return starts
    }
}

extension BreakSchedule {
    /// `{"target", "cadence": {"every", "duration", "offset"}, "prefix", "interstitial": {…}, "ad",
    /// "adServer": {…}}`.
    public var jsonValue: JSONValue {
        var fields: [String: JSONValue] = ["target": .string(target.description), "prefix": .string(prefix)]
        if let cadence {
            fields["cadence"] = .object([
                "every": .seconds(cadence.every), "duration": .seconds(cadence.duration),
                "offset": .seconds(cadence.offset),
            ])
        }
        if case .object(var template) = interstitial.jsonValue {
            template["id"] = nil
            if !template.isEmpty { fields["interstitial"] = .object(template) }
        }
        if let ad { fields["ad"] = .string(ad) }
        if let adServer { fields["adServer"] = adServer.jsonValue }
        return .object(fields)
    }

    /// Reads a schedule and checks that its breaks would be valid date ranges.
    public static func decode(_ value: JSONValue, path: String = "") throws(APIError) -> BreakSchedule {
        var reader = try JSONObjectReader(value, path: path)
        let targetText = try reader.requiredString("target")
        guard let target = Target(targetText) else {
            throw reader.error("target", "expected vod/ID or live/ID, found \"\(targetText)\"")
        }
        let prefix = try reader.string("prefix") ?? "break"
        guard JSONObjectReader.isIdentifier(prefix) else { throw reader.error("prefix", "not an identifier") }
        var cadence: Cadence?
        if let value = reader.take("cadence") {
            var inner = try JSONObjectReader(value, path: reader.at("cadence"))
            guard let every = try inner.seconds("every"), every >= MediaTime(seconds: 1) else {
                throw inner.error("every", "the cadence needs every ≥ 1 second")
            }
            guard let duration = try inner.seconds("duration"), duration > .zero, duration <= every else {
                throw inner.error("duration", "each break needs a duration greater than 0 and at most every")
            }
            let offset = try inner.seconds("offset") ?? .zero
            try inner.finish()
            cadence = Cadence(every: every, duration: duration, offset: offset)
        }
        let ad = try reader.string("ad")
        var template = InsertionRequest(id: prefix)
        if let value = reader.take("interstitial") {
            let templatePath = reader.at("interstitial")
            guard case .object(var fields) = value else {
                throw reader.error("interstitial", "expected an object")
            }
            for key in ["id", "at", "date"] where fields[key] != nil {
                throw APIError.badRequest(
                    code: .jsonSchema, path: "\(templatePath).\(key)", "the cadence sets \(key) for each break")
            }
            fields["id"] = .string(prefix)
            do {
                template = try InsertionRequest.decode(.object(fields), path: templatePath)
            } catch {
                throw APIError(error)
            }
        }
        let adServer = try reader.take("adServer").map { value throws(APIError) in
            try AdServerSettings.decode(value, path: reader.at("adServer"), allowsVMAP: target.kind == .vod)
        }
        try reader.finish()
        var schedule = BreakSchedule(target: target, cadence: cadence, prefix: prefix, interstitial: template, ad: ad)
        schedule.adServer = adServer
        if let sample = schedule.cadenceBreak(
            at: cadence?.offset ?? .zero, epoch: target.kind == .live ? InterstitialInserter.defaultEpoch : nil)
        {
            try sample.check(path: path.isEmpty ? "interstitial" : "\(path).interstitial")
        }
        return schedule
    }
}
