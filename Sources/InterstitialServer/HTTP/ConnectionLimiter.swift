import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Counts the server's open connections, in all and per peer group, and admits a new one only
/// under both caps (``ServerLimits/maxConnections``, ``ServerLimits/maxConnectionsPerPeer``), as
/// its ``ConnectionTable`` decides: at the total cap, the connection idle the longest is closed to
/// make room, and only when none is idle is the new one refused.
///
/// A connection over a cap is answered 503 and closed by its ``RequestGuard`` at once, so that it
/// holds no file descriptor: the server stays below the process's descriptor limit (see
/// ``cap(configured:descriptorLimit:)``), where accepting, opening files and timers would fail.
final class ConnectionLimiter: Sendable {
    /// Why a connection is not admitted.
    typealias Refusal = ConnectionTable.Refusal

    private struct State {
        var table: ConnectionTable
        /// How to close each admitted connection, should it be evicted.
        var closers: [UInt64: @Sendable () -> Void] = [:]
    }

    /// The most connections open at once.
    let total: Int
    /// The most connections open at once from one peer group (an IPv4 address, an IPv6 /64).
    let perPeer: Int
    private let state: NIOLockedValueBox<State>

    /// A limiter with the given caps.
    init(total: Int, perPeer: Int) {
        let table = ConnectionTable(total: total, perPeer: perPeer)
        self.total = table.total
        self.perPeer = table.perPeer
        state = NIOLockedValueBox(State(table: table))
    }

    /// Admits a connection from `peer` (nil when unknown: counted in the total only), idle until
    /// ``setIdle(_:_:)`` says otherwise, or says why not. When the server is at its cap, the
    /// connection idle the longest is closed (`close` of its own admission) to make room. An
    /// admitted connection must be ``release(_:)``d once, when it closes.
    func admit(_ peer: String?, close: @escaping @Sendable () -> Void = {}) -> Result<UInt64, Refusal> {
        let (admission, evicted) = state.withLockedValue {
            state -> (ConnectionTable.Admission, (@Sendable () -> Void)?) in
            let admission = state.table.admit(peer)
            guard case .admitted(let id, let evicting) = admission else { return (admission, nil) }
            state.closers[id] = close
            return (admission, evicting.flatMap { state.closers.removeValue(forKey: $0) })
        }
        evicted?()
        switch admission {
        case .admitted(let id, _): return .success(id)
        case .refused(let refusal): return .failure(refusal)
        }
    }

    /// Records whether connection `id` is idle: nothing being read or answered.
    func setIdle(_ id: UInt64, _ idle: Bool) {
        state.withLockedValue { $0.table.setIdle(id, idle) }
    }

    /// Forgets connection `id`, closed.
    func release(_ id: UInt64) {
        state.withLockedValue { state in
            state.table.remove(id)
            state.closers[id] = nil
        }
    }

    /// The connections open, in all and from `peer`'s group.
    func open(from peer: String? = nil) -> (total: Int, peer: Int) {
        state.withLockedValue { $0.table.open(from: peer) }
    }

    /// The total cap for a configured one: no more than half the descriptors the process may open
    /// (its soft `RLIMIT_NOFILE`, `descriptorLimit` when given) less 64 for the store, the HTTP
    /// clients and the listening socket, so that every connection can also open a file to send.
    static func cap(configured: Int, descriptorLimit: Int? = nil) -> Int {
        let descriptors = descriptorLimit ?? currentDescriptorLimit()
        guard let descriptors else { return configured }
        return max(1, min(configured, (descriptors - 64) / 2))
    }

    /// The soft `RLIMIT_NOFILE`, or nil when unlimited or unknown.
    static func currentDescriptorLimit() -> Int? {
        var limit = rlimit()
        #if canImport(Glibc)
            let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
            let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < 1 << 40 else {  // larger: unlimited
            return nil
        }
        return Int(limit.rlim_cur)
    }
}
