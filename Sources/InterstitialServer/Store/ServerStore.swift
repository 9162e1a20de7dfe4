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
    /// Served date ranges withdrawn before they started (a signalled break cancelled after its first
    /// serving, R12); they are never served again.
    public var withdrawn: Set<ServedKey> = []
    /// Operators' early notices of live breaks (``BreakNotice``), by channel and ID, until they expire.
    public var notices: [ServedKey: BreakNotice] = [:]
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

/// One write to a ``ServerStore``.
public enum StoreChange: Hashable, Sendable {
    /// Creates or replaces a schedule.
    case saveSchedule(BreakSchedule)
    /// Removes a schedule.
    case deleteSchedule(Target)
    /// Creates or replaces a break.
    case saveBreak(Break)
    /// Removes a break.
    case deleteBreak(id: String)
    /// Creates or replaces an ad.
    case saveAd(Ad)
    /// Removes an ad.
    case deleteAd(id: String)
    /// Records a date range as first served; a later record of the same key is ignored.
    case served(ServedKey, AttributeList)
    /// Records an early return.
    case earlyReturn(ServedKey, playoutLimit: MediaTime)
    /// Records that a served date range is withdrawn (it had not started when its break was cancelled).
    case withdraw(ServedKey)
    /// Creates or replaces an early notice of a live break.
    case saveNotice(BreakNotice)
    /// Removes an early notice (withdrawn, or expired).
    case deleteNotice(ServedKey)
    /// Records that the seed was stored.
    case seeded
}

extension StoredState {
    /// Applies a change in memory, as the store applies it on disk.
    public mutating func apply(_ change: StoreChange) {
        switch change {
        case .saveSchedule(let schedule): schedules[schedule.target] = schedule
        case .deleteSchedule(let target): schedules[target] = nil
        case .saveBreak(let item): breaks[item.id] = item
        case .deleteBreak(let id): breaks[id] = nil
        case .saveAd(let ad): ads[ad.id] = ad
        case .deleteAd(let id): ads[id] = nil
        case .served(let key, let attributes): if served[key] == nil { served[key] = attributes }
        case .earlyReturn(let key, let limit): earlyReturns[key] = limit
        case .withdraw(let key): withdrawn.insert(key)
        case .saveNotice(let notice): notices[notice.key] = notice
        case .deleteNotice(let key): notices[key] = nil
        case .seeded: isSeeded = true
        }
    }
}

/// Where the server keeps its state: SQLite (``SQLiteStore``) by default, or PostgreSQL
/// (``PostgresStore``) shared by several replicas.
///
/// The server reads everything when it starts (`ServerState`) and keeps it in memory; changes are
/// written through ``write(_:)``, one call at a time (the server serializes its writers), never while
/// a request that only reads waits. A store that other servers write too (``isShared``) counts the
/// writes it commits (``changeCount()``), and each server reloads when the count moves.
public protocol ServerStore: Sendable {
    /// Reads everything.
    func load() async throws -> StoredState
    /// Writes `changes` in one transaction: all of them, or none and an error.
    ///
    /// A ``StoreChange/served(_:_:)`` whose key is already stored keeps the stored value: the first
    /// writer wins, and that value is what ``load()`` returns afterwards.
    func write(_ changes: [StoreChange]) async throws
    /// Whether other servers write to this store too, so that a server must follow ``changeCount()``.
    var isShared: Bool { get }
    /// A number that moves on with every transaction any server commits with ``write(_:)``;
    /// it never moves otherwise.
    func changeCount() async throws -> Int64
    /// The served values stored for `keys` (those it has): after a write, what counts when several
    /// servers decided a value for the same key (the first writer's).
    func servedValues(for keys: [ServedKey]) async throws -> [ServedKey: AttributeList]
    /// Counts one more request of `viewer` for break `id` of `target` where every server sees it, and
    /// returns how many requests came before it; a count whose last request is older than `expiry`
    /// starts again. Nil when the store keeps no viewers: the server counts them itself, in memory.
    func countViewerRequest(viewer: String, target: Target, id: String, expiry: Duration) async throws -> Int?
    /// Counts requests as ``countViewerRequest(viewer:target:id:expiry:)`` does, `counts[key]` of
    /// each, without returning the counts: the requests a replica counted itself and sends after
    /// (`BackgroundViewerCounts`), in one statement where the store can.
    func countViewerRequests(_ counts: [ViewerRequestKey: Int], expiry: Duration) async throws
    /// Drops viewer counts past their expiry, and beyond the `limit` most recent ones those that
    /// expire first; returns how many were dropped.
    func pruneViewerRequests(limit: Int) async throws -> Int
    /// The secret the beacon relay keys its URLs with, the same for every server that uses the store:
    /// `proposed` is stored if the store has none yet (the first server to ask wins), and the stored
    /// one is returned. Nil when the store keeps none: the server then uses `proposed` (a random
    /// secret of its own process).
    func relaySecret(proposing proposed: [UInt8]) async throws -> [UInt8]?
    /// Where the replicas sharing the store claim and share the decisions made ahead of breaks
    /// (``PostgresDecisionLedger``). Nil when the store is not shared: the server keeps them in its
    /// memory.
    var decisionLedger: (any DecisionLedger)? { get }
    /// Closes the store when the server stops (releasing what it holds, such as a file lock, or
    /// stopping a connection pool); nothing is read or written after.
    func close() throws
}

extension ServerStore {
    /// Not shared: only this server writes.
    public var isShared: Bool { false }
    /// Zero: a store only this server writes needs no count.
    public func changeCount() async throws -> Int64 { 0 }
    /// None: only this server decides, so its values are the stored ones.
    public func servedValues(for keys: [ServedKey]) async throws -> [ServedKey: AttributeList] { [:] }
    /// Nil: a store only this server uses leaves viewer counts to the server's memory.
    public func countViewerRequest(viewer: String, target: Target, id: String, expiry: Duration) async throws -> Int? {
        nil
    }
    /// Each request counted by ``countViewerRequest(viewer:target:id:expiry:)``, one at a time.
    public func countViewerRequests(_ counts: [ViewerRequestKey: Int], expiry: Duration) async throws {
        for (key, count) in counts {
            for _ in 0..<max(0, count) {
                _ = try await countViewerRequest(viewer: key.viewer, target: key.target, id: key.id, expiry: expiry)
            }
        }
    }
    /// Nothing kept, nothing dropped.
    public func pruneViewerRequests(limit: Int) async throws -> Int { 0 }
    /// Nil: a store that keeps no secret leaves the server its random one.
    public func relaySecret(proposing proposed: [UInt8]) async throws -> [UInt8]? { nil }
    /// Nil: a store only this server uses leaves decisions made ahead to the server's memory.
    public var decisionLedger: (any DecisionLedger)? { nil }
    /// Nothing to release.
    public func close() throws {}
}

/// The `settings` entry of the beacon relay's secret, as hexadecimal digits, in every store.
enum RelaySecretSetting {
    /// The key of the setting.
    static let key = "beacon-relay-secret"

    /// The text a secret is stored as.
    static func text(_ secret: [UInt8]) -> String {
        HexDigits.lowercase(secret)
    }

    /// The secret a stored text holds.
    ///
    /// - Throws: ``StoreError`` `relay-secret` when it is not at least 32 bytes in hexadecimal.
    static func secret(_ text: String) throws(StoreError) -> [UInt8] {
        let digits = Array(text.utf8)
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: digit - 0x30
            case 0x61...0x66: digit - 0x61 + 10
            case 0x41...0x46: digit - 0x41 + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        var index = 0
        while index + 1 < digits.count, let high = value(digits[index]), let low = value(digits[index + 1]) {
            bytes.append(high << 4 | low)
            index += 2
        }
        guard index == digits.count, bytes.count >= BeaconRelay.secretBytes else {
            throw StoreError(
                code: .relaySecret,
                "the stored setting \(key) is not a secret of at least \(BeaconRelay.secretBytes) bytes in hexadecimal; delete it to have a new one made (beacon URLs already written stop verifying)"
            )
        }
        return bytes
    }
}
