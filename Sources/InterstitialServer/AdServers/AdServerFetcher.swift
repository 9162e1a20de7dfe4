import AsyncHTTPClient
import Foundation
import HLSPlaylist
import NIOConcurrencyHelpers
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one way the server makes GET requests to ad servers (VAST, VMAP, creatives, tracking): each URL
/// and each redirect checked against the ``AdServerFetchPolicy`` after resolving its host, and a
/// request that fails on its connection retried once on a fresh one.
///
/// The host is resolved here (`getaddrinfo`, on ``BlockingWorkPool``) and every address checked. A
/// plain http request then goes to the checked address itself (the URL's host in the `Host` field),
/// so a DNS answer that changes between the check and the connection (rebinding) cannot redirect it.
/// An https request keeps its host name for TLS (SNI and the certificate check), and the client
/// resolves it again: a rebinding answer could point that second lookup elsewhere, but the
/// connection then only succeeds with a certificate valid for the ad server's name (SECURITY.md).
///
/// Redirects (301, 302, 303, 307, 308) are followed here, at most ``maximumRedirects``, each hop
/// checked as the first; the HTTP clients given must not follow redirects themselves.
struct AdServerFetcher: Sendable {
    /// Why a fetch failed.
    struct Failure: Error, CustomStringConvertible {
        /// What kind of failure.
        enum Kind: Sendable {
            /// The URL is not http(s), or the policy refuses its address.
            case refused
            /// Too many redirects, or a redirect loop.
            case redirects
            /// The host does not resolve.
            case lookup
        }

        /// What kind of failure.
        var kind: Kind
        /// Where and why.
        var description: String
    }

    /// The most redirects followed.
    static let maximumRedirects = 5
    /// The redirect statuses followed.
    static let redirectStatuses: Set<UInt> = [301, 302, 303, 307, 308]

    /// The client with the pooled connections.
    let client: HTTPClient
    /// The client a request that failed on its connection is retried with: every request on it asks
    /// for `Connection: close`, so its pool holds no idle (possibly stale) connection.
    let freshClient: HTTPClient
    /// What may be fetched.
    let policy: AdServerFetchPolicy
    /// Where host names are resolved.
    let pool: BlockingWorkPool
    /// The server's clock: when a deadline passed, and when a resolved host expires.
    let clock: any ServerClock
    /// The addresses of the hosts resolved lately (the checked address is the one connected to, so
    /// keeping them changes nothing the policy decides).
    let lookups: AddressCache

    /// A fetcher using `client`, and `freshClient` for retries (by default `client`: retries then
    /// may reuse another pooled connection), on `clock`.
    init(
        client: HTTPClient, freshClient: HTTPClient? = nil, policy: AdServerFetchPolicy, clock: any ServerClock,
        pool: BlockingWorkPool = .adServers
    ) {
        self.client = client
        self.freshClient = freshClient ?? client
        self.policy = policy
        self.clock = clock
        self.pool = pool
        lookups = AddressCache(clock: clock)
    }

    /// GETs `url` with `headers`, following redirects, by `deadline`; the response is the first that
    /// is not a redirect. Throws ``Failure`` when the policy refuses a hop, the client's error otherwise.
    func get(_ url: String, headers: [(String, String)] = [], deadline: NIODeadline) async throws -> HTTPClientResponse
    {
        var timing = WireTiming()
        return try await get(url, headers: headers, deadline: deadline, timing: &timing)
    }

    /// ``get(_:headers:deadline:)``, recording in `timing` how long each hop took from when it was
    /// handed to the HTTP client to its response head (``WireTiming``: the ad server's latency,
    /// without this server's own queues).
    func get(
        _ url: String, headers: [(String, String)] = [], deadline: NIODeadline, timing: inout WireTiming
    ) async throws -> HTTPClientResponse {
        var current = url
        var visited: Set<String> = [url]
        for hop in 0...Self.maximumRedirects {
            var request = try await pinned(current)
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            let response = try await execute(request, deadline: deadline, timing: &timing)
            guard Self.redirectStatuses.contains(response.status.code),
                let location = response.headers.first(name: "location")
            else { return response }
            _ = try? await response.body.collect(upTo: 64 * 1024)
            guard hop < Self.maximumRedirects else {
                throw Failure(kind: .redirects, description: "\(url): more than \(Self.maximumRedirects) redirects")
            }
            let next = URIReference.resolve(location, against: current)
            guard visited.insert(next).inserted else {
                throw Failure(kind: .redirects, description: "\(url): the redirects loop back to \(next)")
            }
            current = next
        }
        throw Failure(kind: .redirects, description: "\(url): more than \(Self.maximumRedirects) redirects")
    }

    /// The request for `url` once the policy allows its host's addresses: for http, to the checked
    /// address with the URL's host in `Host`.
    func pinned(_ url: String) async throws -> HTTPClientRequest {
        guard let target = Self.parse(url) else {
            throw Failure(kind: .refused, description: "\(url) is not an http(s) URL")
        }
        let addresses: [[UInt8]]
        if let known = lookups[target.host] {
            addresses = known
        } else {
            guard let found = await pool.run({ Self.addresses(of: target.host) }) else {
                try Task.checkCancellation()
                throw Failure(kind: .lookup, description: "\(url): no thread was free to resolve \(target.host)")
            }
            addresses = found
            lookups[target.host] = found
        }
        switch policy.check(host: target.host, port: target.port, addresses: addresses) {
        case .refused(let reason):
            throw Failure(kind: .refused, description: "\(url) is refused: \(reason)")
        case .allowed(let address):
            guard !target.secure else { return HTTPClientRequest(url: url) }
            let text = ViewerAddress.canonical(address)
            let literal = address.count == 16 ? "[\(text)]" : text
            var request = HTTPClientRequest(url: "http://\(literal):\(target.port)\(target.rest)")
            request.headers.replaceOrAdd(name: "Host", value: target.authority)
            return request
        }
    }

    /// Executes `request`, retried once on `freshClient` when it failed on its connection before an
    /// answer and the deadline has not passed; `timing` records when it was handed to the client and
    /// when its head came back (on ``clock``).
    func execute(
        _ request: HTTPClientRequest, deadline: NIODeadline, timing: inout WireTiming
    ) async throws -> HTTPClientResponse {
        timing.send(at: clock.now)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, deadline: deadline)
        } catch  where Self.isConnectionFailure(error) && clock.now < clock.time(of: deadline) && !Task.isCancelled {
            var retry = request
            retry.headers.replaceOrAdd(name: "Connection", value: "close")
            response = try await freshClient.execute(retry, deadline: deadline)
        }
        timing.answer(at: clock.now)
        return response
    }

    /// Whether `error` says the connection failed (closed, reset, refused) rather than the server's
    /// answer or a timeout.
    static func isConnectionFailure(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError {
            return error == .remoteConnectionClosed
        }
        if let error = error as? IOError {
            return [ECONNRESET, EPIPE, ECONNREFUSED, ECONNABORTED].contains(error.errnoCode)
        }
        if let error = error as? ChannelError {
            return error == .ioOnClosedChannel || error == .eof || error == .outputClosed
        }
        return false
    }

    /// A parsed http(s) URL.
    struct Target: Hashable, Sendable {
        /// The host, lowercased, without brackets.
        var host: String
        /// The port, explicit or the scheme's.
        var port: Int
        /// Whether it is https.
        var secure: Bool
        /// `host[:port]` as written (without user information), for `Host`.
        var authority: String
        /// The path and query (`/` when empty), without the fragment.
        var rest: String
    }

    /// The parts of an http(s) URL with a host; nil for anything else.
    static func parse(_ url: String) -> Target? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", var host = components.host?.lowercased(), !host.isEmpty,
            let start = url.range(of: "://")?.upperBound
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        let tail = url[start...]
        let end = tail.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? tail.endIndex
        let authority = tail[..<end].split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        var rest = String(tail[end...].prefix { $0 != "#" })
        if !rest.hasPrefix("/") { rest = "/" + rest }
        let secure = scheme == "https"
        return Target(
            host: host, port: components.port ?? (secure ? 443 : 80), secure: secure, authority: String(authority),
            rest: rest)
    }

    /// The addresses `host` resolves to (`getaddrinfo`, which also reads decimal, octal and
    /// hexadecimal IPv4 forms), 4 or 16 bytes each; empty when it does not resolve. Blocking.
    static func addresses(of host: String) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var result: [[UInt8]] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let address = entry.pointee.ai_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    let bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
                    }
                    result.append(bytes)
                case AF_INET6:
                    let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                    }
                    result.append(bytes)
                default: break
                }
            }
            cursor = entry.pointee.ai_next
        }
        var unique: [[UInt8]] = []
        for address in result where !unique.contains(address) { unique.append(address) }
        return unique
    }
}

/// The addresses of the hosts ``AdServerFetcher`` resolved lately: at most 1,024 hosts (emptied when
/// full), each kept ``lifetime`` (30 s) on the server's clock; a host that did not resolve is not kept.
final class AddressCache: Sendable {
    /// How long a host's addresses are kept.
    static let lifetime = MediaTime(seconds: 30)

    private let entries = NIOLockedValueBox<[String: (addresses: [[UInt8]], until: MediaTime)]>([:])
    private let clock: any ServerClock

    /// An empty cache whose entries expire on `clock`.
    init(clock: any ServerClock) {
        self.clock = clock
    }

    /// The addresses of `host`, if resolved less than ``lifetime`` ago.
    subscript(host: String) -> [[UInt8]]? {
        get {
            let now = clock.now
            return entries.withLockedValue { entries in
                guard let entry = entries[host], entry.until > now else { return nil }
                return entry.addresses
            }
        }
        set {
            guard let newValue, !newValue.isEmpty else { return }
            let until = clock.now + Self.lifetime
            entries.withLockedValue { entries in
                if entries.count >= 1024 { entries.removeAll() }
                entries[host] = (newValue, until)
            }
        }
    }
}
