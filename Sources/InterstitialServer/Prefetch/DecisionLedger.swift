import HLSInterstitials
import HLSPlaylist

/// One viewer's decision for one break: the key under which a decision made ahead is kept,
/// claimed and shared.
public struct DecisionKey: Hashable, Sendable, CustomStringConvertible {
    /// The live channel.
    public var target: Target
    /// The break's date range ID.
    public var breakID: String
    /// The viewer's session (`X-PLAYBACK-SESSION-ID`, `_HLS_primary_id`); the empty string for a
    /// decision every viewer shares (an ad tag without a session macro).
    public var session: String

    /// Creates a key.
    public init(target: Target, breakID: String, session: String) {
        self.target = target
        self.breakID = breakID
        self.session = session
    }

    /// `target/break/session`, for logs.
    public var description: String { "\(target)/\(breakID)/\(session.isEmpty ? "*" : session)" }
}

/// Where the decisions made ahead of a break are claimed and kept, so that each viewer's decision is
/// made once per break however many replicas serve the viewer.
///
/// A replica claims a key before it asks the ad server (``claim(_:owner:until:now:)``): one claimer
/// wins, until its claim expires without a decision (the replica stopped). The winner publishes the
/// decision (``publish(_:expires:)``); every replica then reads it (``decisions(_:)``,
/// ``published(target:breaks:after:limit:)``). In memory for one replica; in PostgreSQL for several.
public protocol DecisionLedger: Sendable {
    /// Whether other replicas see what this ledger holds.
    var isShared: Bool { get }
    /// Claims `keys` for `owner` until `until`; returns the keys won. A key is not won while another
    /// owner's claim on it lasts (its `until` is after `now`) or once it has a decision.
    func claim(_ keys: [DecisionKey], owner: String, until: DateTime, now: DateTime) async throws -> Set<DecisionKey>
    /// Stores decisions (the encoded bytes of each), kept until `expires` (the break's end).
    func publish(_ decisions: [DecisionKey: [UInt8]], expires: DateTime) async throws
    /// The stored decisions among `keys`.
    func decisions(_ keys: [DecisionKey]) async throws -> [DecisionKey: [UInt8]]
    /// The decisions published for the `breaks` of `target` after `cursor` (0: from the first), at
    /// most `limit`, in publishing order, with the cursor to pass next time.
    func published(
        target: Target, breaks: [String], after cursor: Int64, limit: Int
    ) async throws -> (decisions: [(DecisionKey, [UInt8])], cursor: Int64)
    /// Drops decisions expired at `now`, and claims that lapsed without a decision; returns how many.
    func prune(now: DateTime) async throws -> Int
}
