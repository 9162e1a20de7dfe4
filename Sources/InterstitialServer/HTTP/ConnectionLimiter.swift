import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Counts the server's open connections, in all and per peer address, and admits a new one only
/// under both caps (``ServerLimits/maxConnections``, ``ServerLimits/maxConnectionsPerPeer``).
///
/// A connection over a cap is answered 503 and closed by its ``RequestGuard`` at once, so that it
/// holds no file descriptor: the server stays below the process's descriptor limit (see
/// ``cap(configured:descriptorLimit:)``), where accepting, opening files and timers would fail.
final class ConnectionLimiter: Sendable {
    /// Why a connection is not admitted.
    enum Refusal: Hashable, Sendable {
        /// The server has ``total`` connections open.
        case total
        /// The peer has ``perPeer`` connections open.
        case perPeer
    }

    private struct Counts {
        var total = 0
        var peers: [String: Int] = [:]
    }

    /// The most connections open at once.
    let total: Int
    /// The most connections open at once from one peer address (its IP address, without the port).
    let perPeer: Int
    private let counts = NIOLockedValueBox(Counts())

    /// A limiter with the given caps.
    init(total: Int, perPeer: Int) {
        self.total = max(1, total)
        self.perPeer = max(1, perPeer)
    }

    /// Admits a connection from `peer` (nil when unknown: counted in the total only), or says why not.
    /// An admitted connection must be ``release(_:)``d once, when it closes.
    func admit(_ peer: String?) -> Refusal? {
        counts.withLockedValue { counts in
            guard counts.total < total else { return .total }
            if let peer {
                let open = counts.peers[peer, default: 0]
                guard open < perPeer else { return .perPeer }
                counts.peers[peer] = open + 1
            }
            counts.total += 1
            return nil
        }
    }

    /// Forgets an admitted connection from `peer`.
    func release(_ peer: String?) {
        counts.withLockedValue { counts in
            counts.total = max(0, counts.total - 1)
            guard let peer, let open = counts.peers[peer] else { return }
            counts.peers[peer] = open > 1 ? open - 1 : nil
        }
    }

    /// The connections open, in all and from `peer`.
    func open(from peer: String? = nil) -> (total: Int, peer: Int) {
        counts.withLockedValue { counts in (counts.total, peer.flatMap { counts.peers[$0] } ?? 0) }
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
