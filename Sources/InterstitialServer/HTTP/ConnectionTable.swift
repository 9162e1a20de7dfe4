import NIOCore

/// The server's open connections as a value: how many in all and per peer group, which are idle
/// and since when; admitting a connection says whether it is refused, or which idle connection to
/// close to make room (``ConnectionLimiter`` does the closing).
///
/// A peer group is an IPv4 address, or an IPv6 address's /64 network (``BeaconBudget/network(_:)``,
/// as the beacon budget counts addresses): a client with a /64 cannot open `maxConnectionsPerPeer`
/// connections from each of its addresses. At the total cap, the connection idle the longest (no
/// request being read or answered) is closed for the new one; only when none is idle is the new one
/// refused (issue 42, item 8).
struct ConnectionTable: Sendable {
    /// Why a connection is not admitted.
    enum Refusal: Error, Hashable, Sendable {
        /// The server has its most connections open, none of them idle.
        case total
        /// The peer's group has its most connections open.
        case perPeer
    }

    /// What admitting a connection comes to.
    enum Admission: Hashable, Sendable {
        /// Admitted as `id`; `evicting` (when set) was idle the longest and must be closed: it is
        /// no longer counted.
        case admitted(id: UInt64, evicting: UInt64?)
        /// Not admitted.
        case refused(Refusal)
    }

    private struct Entry: Sendable {
        var group: String?
        /// When it last became idle (a sequence number); nil while busy.
        var idleSince: UInt64?
    }

    /// The most connections open at once.
    let total: Int
    /// The most connections open at once from one peer group.
    let perPeer: Int
    private var entries: [UInt64: Entry] = [:]
    private var groups: [String: Int] = [:]
    /// Idle connections in the order they became idle; an entry is stale when the connection's
    /// ``Entry/idleSince`` is no longer its sequence number.
    private var idleOrder = CircularBuffer<(sequence: UInt64, id: UInt64)>()
    private var nextID: UInt64 = 0
    private var nextSequence: UInt64 = 0

    /// A table with the given caps (each at least 1).
    init(total: Int, perPeer: Int) {
        self.total = max(1, total)
        self.perPeer = max(1, perPeer)
    }

    /// The group `peer` is counted in: an IPv4 address, an IPv6 address's /64; nil for none.
    static func group(of peer: String?) -> String? {
        guard let peer else { return nil }
        // An IPv4-mapped IPv6 address (a dual-stack socket's peer) counts as its IPv4 address.
        if let bytes = ViewerAddress.bytes(of: peer), bytes.count == 4 { return ViewerAddress.canonical(bytes) }
        return BeaconBudget.network(peer)
    }

    /// Admits a connection from `peer` (nil when unknown: counted in the total only), idle until
    /// it reads a request; or says which idle connection to close for it, or why it is refused.
    mutating func admit(_ peer: String?) -> Admission {
        let group = Self.group(of: peer)
        if let group, groups[group, default: 0] >= perPeer { return .refused(.perPeer) }
        var evicting: UInt64?
        if entries.count >= total {
            guard let oldest = oldestIdle() else { return .refused(.total) }
            remove(oldest)
            evicting = oldest
        }
        nextID += 1
        let id = nextID
        entries[id] = Entry(group: group, idleSince: nil)
        if let group { groups[group, default: 0] += 1 }
        setIdle(id, true)
        return .admitted(id: id, evicting: evicting)
    }

    /// Records whether connection `id` is idle (nothing being read or answered).
    mutating func setIdle(_ id: UInt64, _ idle: Bool) {
        guard var entry = entries[id], (entry.idleSince != nil) != idle else { return }
        if idle {
            nextSequence += 1
            entry.idleSince = nextSequence
            idleOrder.append((nextSequence, id))
        } else {
            entry.idleSince = nil
        }
        entries[id] = entry
        // Stale places in the order are dropped once they outnumber the connections.
        if idleOrder.count > 2 * entries.count + 64 {
            idleOrder = CircularBuffer(idleOrder.filter { entries[$0.id]?.idleSince == $0.sequence })
        }
    }

    /// Forgets connection `id` (closed); nothing when it was already evicted.
    mutating func remove(_ id: UInt64) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        if let group = entry.group, let open = groups[group] { groups[group] = open > 1 ? open - 1 : nil }
    }

    /// The connection idle the longest, if any.
    private mutating func oldestIdle() -> UInt64? {
        while let first = idleOrder.first {
            if entries[first.id]?.idleSince == first.sequence { return first.id }
            idleOrder.removeFirst()
        }
        return nil
    }

    /// The connections open, in all and in `peer`'s group.
    func open(from peer: String? = nil) -> (total: Int, peer: Int) {
        (entries.count, Self.group(of: peer).flatMap { groups[$0] } ?? 0)
    }
}
