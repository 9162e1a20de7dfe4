import HLSInterstitials
import HLSPlaylist

/// A player's session as handed off to another player (AirPlay-style): the item, where and how it
/// plays, the interstitial schedule as the application set it (client events and overridden
/// restrictions included), the ONCE events already played, and the selected tracks.
///
/// The receiver plays the same item from the same point and enforces the same restrictions.
public struct PlaybackSession: Hashable, Sendable {
    /// The primary item's URL.
    public var url: String
    /// Where playback is.
    public var location: CoordinatedLocation
    /// Whether it plays.
    public var playing: Bool
    /// The rate while playing.
    public var rate: Double
    /// The controller's events (`InterstitialEvent` with their restrictions as set); nil when the
    /// server's schedule is in force.
    public var events: [InterstitialEvent]?
    /// `automaticallyHandlesInterstitialEvents`.
    public var automaticallyHandlesInterstitialEvents: Bool
    /// ONCE events whose playback started: not played again (R9).
    public var playedOnce: [String]
    /// The selected audio and subtitles.
    public var tracks: TrackSelection

    /// Creates a session.
    public init(
        url: String, location: CoordinatedLocation, playing: Bool = true, rate: Double = 1,
        events: [InterstitialEvent]? = nil, automaticallyHandlesInterstitialEvents: Bool = true,
        playedOnce: [String] = [], tracks: TrackSelection = TrackSelection()
    ) {
        self.url = url
        self.location = location
        self.playing = playing
        self.rate = rate
        self.events = events
        self.automaticallyHandlesInterstitialEvents = automaticallyHandlesInterstitialEvents
        self.playedOnce = playedOnce
        self.tracks = tracks
    }

    /// The JSON form. Each event is its EXT-X-DATERANGE tag (`"tag"`), with `"time"` for an event
    /// placed by primary time and `"assetList"` for assets the application gave in place of a URI; an
    /// event whose tag cannot be written (`InterstitialEvent.dateRangeTag` throws) is left out.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "url": .string(url), "location": location.jsonValue, "playing": .bool(playing), "rate": .number(rate),
            "automaticallyHandlesInterstitialEvents": .bool(automaticallyHandlesInterstitialEvents),
            "playedOnce": .array(playedOnce.map(JSONValue.string)), "tracks": tracks.jsonValue,
        ]
        members["events"] =
            events.map { events in
                .array(
                    events.compactMap { event in
                        // An event that cannot be written as a well-formed tag is left out.
                        guard let tag = try? event.dateRangeTag else { return nil }
                        var fields: [String: JSONValue] = ["tag": .string(tag.description)]
                        if let time = event.time { fields["time"] = time.json }
                        if let list = event.assetList { fields["assetList"] = list.jsonValue }
                        return .object(fields)
                    })
            } ?? .null
        return .object(members)
    }

    /// The JSON text.
    public var text: String { jsonValue.description }

    /// Reads a session from JSON bytes.
    ///
    /// - Throws: ``CoordinationError`` with code `session-json` or `session-schema` and the path of
    ///   the problem (`events[0].tag: …`).
    public init(json bytes: some Collection<UInt8>) throws(CoordinationError) {
        let code = CoordinationErrorCode.sessionSchema
        var reader = try CoordinationReader(
            JSONValue.parse(bytes, code: .sessionJSON, as: CoordinationError.self), path: "", code: code)
        let url = try reader.requiredString("url")
        guard let location = reader.take("location") else { throw reader.error("location", "missing") }
        let playing = try reader.bool("playing") ?? true
        let rate = try reader.number("rate") ?? 1
        guard rate > 0, rate <= 64 else { throw reader.error("rate", "expected a rate above 0 and at most 64") }
        var events: [InterstitialEvent]?
        if let items = try reader.array("events") {
            events = []
            for (index, item) in items.enumerated() {
                events?.append(try Self.event(item, path: "events[\(index)]"))
            }
        }
        let automatic = try reader.bool("automaticallyHandlesInterstitialEvents") ?? true
        var once: [String] = []
        for (index, item) in (try reader.array("playedOnce") ?? []).enumerated() {
            guard case .string(let id) = item else {
                throw reader.error("playedOnce[\(index)]", "expected a string, found \(item.typeName)")
            }
            once.append(id)
        }
        var tracks = TrackSelection()
        if let value = reader.take("tracks") { tracks = try TrackSelection(json: value, path: "tracks", code: code) }
        try reader.finish(
            known: "url, location, playing, rate, events, automaticallyHandlesInterstitialEvents, playedOnce, tracks")
        self.init(
            url: url, location: try CoordinatedLocation(json: location, path: "location", code: code),
            playing: playing, rate: rate, events: events, automaticallyHandlesInterstitialEvents: automatic,
            playedOnce: once, tracks: tracks)
    }

    /// Reads one event: its EXT-X-DATERANGE tag, its time, its asset list.
    static func event(_ value: JSONValue, path: String) throws(CoordinationError) -> InterstitialEvent {
        let code = CoordinationErrorCode.sessionSchema
        var reader = try CoordinationReader(value, path: path, code: code)
        let line = try reader.requiredString("tag")
        let parsed = PlaylistParser.parse("#EXTM3U\n" + line + "\n")
        let syntax = parsed.diagnostics.filter { $0.severity == .error && $0.location.line == 2 }
        guard parsed.document.lines.count >= 2, let tag = parsed.document.lines[1].content.tag,
            tag.name == .dateRange, let attributes = tag.value.attributes, syntax.isEmpty
        else {
            let reason = syntax.first.map { ": \($0.message)" } ?? ""
            throw reader.error("tag", "expected an #EXT-X-DATERANGE tag line\(reason)")
        }
        guard var event = InterstitialEvent(attributes: attributes) else {
            throw reader.error("tag", "expected a quoted ID and CLASS=\"\(InterstitialEvent.className)\"")
        }
        event.time = try reader.seconds("time")
        guard event.time != nil || event.date != nil || event.cue != .none else {
            throw reader.error("time", "missing: an event needs a START-DATE, a time or a PRE/POST cue")
        }
        if let list = reader.take("assetList") {
            do {
                event.assetList = try AssetList.decode(list)
            } catch {
                let first = error.problems.first
                throw reader.error(
                    "assetList" + (first.map { $0.path.isEmpty ? "" : ".\($0.path)" } ?? ""),
                    first?.message ?? "not a valid asset list")
            }
        }
        try reader.finish(known: "tag, time, assetList")
        return event
    }
}
