import Foundation
import HLSInterstitials
import HLSPlaylist

/// The state a coordinated group agrees on: where playback was at a reference time, and whether and
/// how fast it moves from there (the group's timebase).
///
/// Every participant places itself at ``location`` as of ``referenceTime`` on the group's reference
/// clock and lets its own engine play forward to now, so the same state puts every participant at
/// the same point, interstitials included.
public struct GroupState: Hashable, Sendable {
    /// Increases with every change the group accepts.
    public var revision: Int
    /// The participant whose command made this state.
    public var originator: String
    /// Whether the group plays.
    public var playing: Bool
    /// The rate while playing.
    public var rate: Double
    /// Where playback was at ``referenceTime``.
    public var location: CoordinatedLocation
    /// The reference clock's time, in nanoseconds, at which playback was at ``location``.
    public var referenceTime: Int64

    /// Creates a state.
    public init(
        revision: Int = 0, originator: String, playing: Bool, rate: Double, location: CoordinatedLocation,
        referenceTime: Int64
    ) {
        self.revision = revision
        self.originator = originator
        self.playing = playing
        self.rate = rate
        self.location = location
        self.referenceTime = referenceTime
    }

    /// The wall clock in nanoseconds since 1970: the reference clock of groups served over the
    /// network.
    public static func wallClockNow() -> Int64 { Int64((Date().timeIntervalSince1970 * 1e9).rounded()) }

    /// The JSON form.
    public var jsonValue: JSONValue {
        .object([
            "revision": .integer(Int64(revision)), "originator": .string(originator), "playing": .bool(playing),
            "rate": .number(rate), "location": location.jsonValue, "referenceTime": .integer(referenceTime),
        ])
    }

    /// Reads the JSON form at `path`.
    init(json: JSONValue, path: String, code: CoordinationErrorCode) throws(CoordinationError) {
        var reader = try CoordinationReader(json, path: path, code: code)
        let revision = try reader.integer("revision") ?? 0
        let originator = try reader.string("originator") ?? ""
        guard let playing = try reader.bool("playing") else { throw reader.error("playing", "missing") }
        let rate = try reader.rate("rate")
        guard let location = reader.take("location") else { throw reader.error("location", "missing") }
        guard let reference = try reader.integer("referenceTime") else {
            throw reader.error("referenceTime", "missing")
        }
        try reader.finish(known: "revision, originator, playing, rate, location, referenceTime")
        self.init(
            revision: Int(clamping: revision), originator: originator, playing: playing, rate: rate,
            location: try CoordinatedLocation(json: location, path: reader.at("location"), code: code),
            referenceTime: reference)
    }
}
