import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The viewer's IP address that the server passes to ad decision servers (`X-Device-IP`, `[DEVICEIP]`),
/// from the connection's peer and, behind trusted proxies, `X-Forwarded-For`.
///
/// A proxy appends the address it received a request from to `X-Forwarded-For`, so the list's last
/// entries were written by proxies the server trusts and the first address, read from the right, that
/// is not a trusted proxy is the viewer's. Anything a viewer writes into the header itself stands to
/// the left of that and is never used; an entry that is not an IP address ends the walk (the address
/// then is the last trusted hop's). Loopback peers are always trusted (a proxy on the same machine).
struct ViewerAddress: Sendable {
    /// An IPv4 or IPv6 network: an address and a prefix length.
    struct Network: Hashable, Sendable {
        /// The address's bytes (4 or 16).
        var bytes: [UInt8]
        /// How many leading bits must match.
        var prefix: Int

        /// Reads `ADDRESS` or `ADDRESS/PREFIX`; nil when it is neither.
        init?(_ text: String) {
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let bytes = ViewerAddress.bytes(of: String(parts[0])) else { return nil }
            let width = bytes.count * 8
            if parts.count == 2 {
                guard let prefix = Int(parts[1]), (0...width).contains(prefix), parts[1].allSatisfy(\.isASCII) else {
                    return nil
                }
                self.prefix = prefix
            } else {
                prefix = width
            }
            self.bytes = bytes
        }

        /// Whether `address` (4 or 16 bytes) is in the network.
        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefix
            for (left, right) in zip(bytes, address) where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                guard left & mask == right & mask else { return false }
                remaining -= bits
            }
            return true
        }
    }

    /// The proxies whose `X-Forwarded-For` entries are believed, besides loopback.
    var trusted: [Network]

    /// The loopback networks, always trusted.
    static let loopback = [Network("127.0.0.0/8")!, Network("::1")!]

    /// The viewer's address for a request from `peer` with `forwardedFor` (the `X-Forwarded-For`
    /// field values, in order); nil when the peer is not an IP address (a Unix socket).
    func resolve(peer: String?, forwardedFor: [String]) -> String? {
        guard let peer, var hop = Self.bytes(of: peer) else { return nil }
        var address = Self.canonical(hop)
        let entries = forwardedFor.flatMap { $0.split(separator: ",") }.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        for entry in entries.reversed() {
            guard isTrusted(hop), let next = Self.bytes(of: entry) else { break }
            hop = next
            address = Self.canonical(next)
        }
        return address
    }

    /// Whether `address` is loopback or a trusted proxy.
    func isTrusted(_ address: [UInt8]) -> Bool {
        Self.isLoopback(address) || trusted.contains { $0.contains(address) }
    }

    /// Whether `address` (4 or 16 bytes) is a loopback address.
    static func isLoopback(_ address: [UInt8]) -> Bool {
        loopback.contains { $0.contains(address) }
    }

    /// The bytes of an IPv4 or IPv6 address (an IPv4-mapped IPv6 address as IPv4; brackets allowed).
    static func bytes(of text: String) -> [UInt8]? {
        var text = text
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        guard !text.isEmpty, text.utf8.count <= 64, !text.contains("%") else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }

    /// The usual text of an address's bytes.
    static func canonical(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
