import HLSInterstitials
import HLSPlaylist

/// Everything the server keeps: schedules, breaks, the ad inventory, and what it has served.
public struct StoredState: Hashable, Sendable {
    /// The standing schedules, by target.
    public var schedules: [Target: BreakSchedule] = [:]
    /// The breaks, by ID.
    public var breaks: [String: Break] = [:]
    /// The ad inventory, by ID.
    public var ads: [String: Ad] = [:]
    /// The attributes of every date range as first served, by target and ID; they never change.
    public var served: [ServedKey: AttributeList] = [:]
    /// Early returns: the X-PLAYOUT-LIMIT added to a break, by target and ID.
    public var earlyReturns: [ServedKey: MediaTime] = [:]
    /// Whether the configuration's seed was stored once (it is never stored again).
    public var isSeeded = false

    /// An empty state.
    public init() {}
}

/// A date range of a target.
public struct ServedKey: Hashable, Sendable {
    /// The asset or channel.
    public var target: Target
    /// The date range ID.
    public var id: String

    /// Creates a key.
    public init(_ target: Target, _ id: String) {
        self.target = target
        self.id = id
    }
}

/// Where the server keeps its state; SQLite (``SQLiteStore``) by default.
///
/// Calls are synchronous and short; the server keeps the whole state in memory and writes through.
public protocol ServerStore: Sendable {
    /// Reads everything.
    func load() throws -> StoredState
    /// Creates or replaces a schedule.
    func save(_ schedule: BreakSchedule) throws
    /// Removes a schedule.
    func deleteSchedule(_ target: Target) throws
    /// Creates or replaces a break.
    func save(_ break: Break) throws
    /// Removes a break.
    func deleteBreak(id: String) throws
    /// Creates or replaces an ad.
    func save(_ ad: Ad) throws
    /// Removes an ad.
    func deleteAd(id: String) throws
    /// Records a date range as first served; a second record of the same key is ignored.
    func recordServed(_ key: ServedKey, attributes: AttributeList) throws
    /// Records an early return.
    func recordEarlyReturn(_ key: ServedKey, playoutLimit: MediaTime) throws
    /// Records that the seed was stored.
    func markSeeded() throws
}
