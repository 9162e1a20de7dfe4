import HLSInterstitials

/// Which addresses the server may fetch ad-server URLs from: VAST requests and wrappers, redirects,
/// VMAP documents, creatives, `<Error>` URLs, impressions and relayed beacons.
///
/// A pure value: a URL's host name, port and the addresses it resolved to in, allowed or refused out.
/// Public addresses are allowed; loopback, private, link-local, shared (CGNAT), multicast, reserved and
/// documentation ranges are refused unless ``allowPrivate`` is set or an ``allow`` rule names them;
/// a ``deny`` rule refuses whatever it names, public or not. IPv4 written inside IPv6 (mapped
/// `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is judged as that
/// IPv4 address. The addresses are the resolver's (`getaddrinfo`), so decimal, octal and hexadecimal
/// IPv4 forms (`2130706433`, `0177.0.0.1`, `0x7f.1`) are judged as the address they name.
///
/// In the configuration file: `"adServerFetch": {"allowPrivate": false, "allow": ["10.1.2.0/24",
/// "ads.internal", "127.0.0.1:9000"], "deny": ["203.0.113.7"]}`.
public struct AdServerFetchPolicy: Hashable, Sendable {
    /// One `allow` or `deny` entry: an address or network (`10.1.2.0/24`, `[fd00::/8]`), or a host name
    /// (`ads.internal`, or `*.internal` for every name under it), with an optional `:port`.
    public struct Rule: Hashable, Sendable, CustomStringConvertible {
        enum Subject: Hashable, Sendable {
            case network(ViewerAddress.Network)
            /// A lowercased name; with `subdomains`, the names ending in `.name`.
            case host(String, subdomains: Bool)
        }

        let subject: Subject
        /// The port it is limited to, if any.
        let port: Int?
        /// The entry as written.
        public let description: String

        /// Reads `HOST[:PORT]`: an IPv4 address or network, an IPv6 one (in brackets when a port
        /// follows), or a host name; nil for anything else.
        public init?(_ text: String) {
            guard !text.isEmpty, text.utf8.count <= 255, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                return nil
            }
            var body = Substring(text)
            var port: Int?
            if body.hasPrefix("[") {
                guard let close = body.firstIndex(of: "]") else { return nil }
                let rest = body[body.index(after: close)...]
                body = body[body.index(after: body.startIndex)..<close]
                if !rest.isEmpty {
                    guard rest.hasPrefix(":"), let number = Self.port(rest.dropFirst()) else { return nil }
                    port = number
                }
            } else if body.filter({ $0 == ":" }).count == 1, let colon = body.firstIndex(of: ":") {
                guard let number = Self.port(body[body.index(after: colon)...]) else { return nil }
                port = number
                body = body[..<colon]
            }
            if let network = ViewerAddress.Network(String(body)) {
                subject = .network(network)
            } else {
                var name = body.lowercased()
                let subdomains = name.hasPrefix("*.")
                if subdomains { name.removeFirst(2) }
                guard !name.isEmpty, !name.contains("*"), !name.contains("/"), !name.contains(":"),
                    name.utf8.allSatisfy({ Self.isNameByte($0) })
                else { return nil }
                subject = .host(name, subdomains: subdomains)
            }
            self.port = port
            description = text
        }

        /// Whether the rule names `host` or `address` (with the port, when the rule has one).
        func matches(host: String, port: Int, address: [UInt8]) -> Bool {
            if let own = self.port, own != port { return false }
            switch subject {
            case .network(let network):
                return network.contains(address)
                    || AdServerFetchPolicy.embeddedIPv4(address).map(network.contains) == true
            case .host(let name, let subdomains):
                return subdomains ? host.hasSuffix("." + name) : host == name
            }
        }

        private static func port(_ text: Substring) -> Int? {
            guard !text.isEmpty, text.count <= 5, text.allSatisfy(\.isASCII), let number = Int(text),
                (1...65535).contains(number)
            else { return nil }
            return number
        }

        private static func isNameByte(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F
        }
    }

    /// What the policy says about a fetch.
    public enum Verdict: Hashable, Sendable {
        /// Fetch it, from `address` (the host's first IPv4 address, or its first address).
        case allowed(address: [UInt8])
        /// Do not fetch it, for this reason.
        case refused(String)
    }

    /// Whether every non-public address is allowed (an ad server on a private network).
    public var allowPrivate: Bool
    /// Non-public addresses and names allowed all the same.
    public var allow: [Rule]
    /// Addresses and names always refused, public or not.
    public var deny: [Rule]

    /// Creates a policy; the default refuses every non-public address.
    public init(allowPrivate: Bool = false, allow: [Rule] = [], deny: [Rule] = []) {
        self.allowPrivate = allowPrivate
        self.allow = allow
        self.deny = deny
    }

    /// Loopback allowed (`127.0.0.0/8`, `::1`), as the demo and tests run their ad servers there.
    public static let allowingLoopback = AdServerFetchPolicy(allow: [Rule("127.0.0.0/8")!, Rule("::1")!])

    /// The verdict on fetching from `host` (lowercased, without brackets) on `port`, which resolved to
    /// `addresses` (4 or 16 bytes each): refused when any address is refused, as the connection may
    /// use any of them.
    public func check(host: String, port: Int, addresses: [[UInt8]]) -> Verdict {
        guard let first = addresses.first else { return .refused("\(host) resolves to no address") }
        for address in addresses {
            let text = ViewerAddress.canonical(address)
            if let rule = deny.first(where: { $0.matches(host: host, port: port, address: address) }) {
                return .refused("\(host):\(port) (\(text)) is refused by the adServerFetch.deny entry \"\(rule)\"")
            }
            guard let range = Self.nonPublicRange(address), !allowPrivate else { continue }
            if allow.contains(where: { $0.matches(host: host, port: port, address: address) }) { continue }
            return .refused(
                "\(host):\(port) resolves to \(text), \(range): ad-server fetches to non-public addresses are refused unless adServerFetch allows them (allowPrivate, or an allow entry)"
            )
        }
        return .allowed(address: addresses.first { $0.count == 4 } ?? first)
    }

    /// The kind of non-public range `address` is in (such as "a loopback address"); nil for a public one.
    public static func nonPublicRange(_ address: [UInt8]) -> String? {
        if let v4 = embeddedIPv4(address) {
            return nonPublicRange(v4).map { "\($0) (as IPv4 inside IPv6)" }
        }
        let ranges = address.count == 4 ? ipv4Ranges : ipv6Ranges
        return ranges.first { $0.network.contains(address) }?.name
    }

    /// The IPv4 address inside an IPv6 one: mapped (`::ffff:0:0/96`), compatible (`::/96`, except `::`
    /// and `::1`), NAT64 (`64:ff9b::/96`) or 6to4 (`2002::/16`); nil otherwise.
    static func embeddedIPv4(_ address: [UInt8]) -> [UInt8]? {
        guard address.count == 16 else { return nil }
        let prefix = address[0..<12]
        if prefix.elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF])
            || prefix.elementsEqual([0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0])
        {
            return Array(address[12...])
        }
        if prefix.allSatisfy({ $0 == 0 }), !address[12..<15].allSatisfy({ $0 == 0 }) || address[15] > 1 {
            return Array(address[12...])
        }
        if address[0] == 0x20, address[1] == 0x02 { return Array(address[2..<6]) }
        return nil
    }

    private static func ranges(_ list: [(String, String)]) -> [(network: ViewerAddress.Network, name: String)] {
        list.map { (ViewerAddress.Network($0.0)!, $0.1) }
    }

    private static let ipv4Ranges = ranges([
        ("0.0.0.0/8", "a 'this network' address"), ("10.0.0.0/8", "a private address"),
        ("100.64.0.0/10", "a shared (CGNAT) address"), ("127.0.0.0/8", "a loopback address"),
        ("169.254.0.0/16", "a link-local address"), ("172.16.0.0/12", "a private address"),
        ("192.0.0.0/24", "an IETF protocol address"), ("192.0.2.0/24", "a documentation address"),
        ("192.88.99.0/24", "a 6to4 relay address"), ("192.168.0.0/16", "a private address"),
        ("198.18.0.0/15", "a benchmarking address"), ("198.51.100.0/24", "a documentation address"),
        ("203.0.113.0/24", "a documentation address"), ("224.0.0.0/4", "a multicast address"),
        ("240.0.0.0/4", "a reserved or broadcast address"),
    ])

    private static let ipv6Ranges = ranges([
        ("::/128", "the unspecified address"), ("::1/128", "a loopback address"),
        ("64:ff9b:1::/48", "a local NAT64 address"), ("100::/64", "a discard address"),
        ("2001::/32", "a Teredo address"), ("2001:db8::/32", "a documentation address"),
        ("fc00::/7", "a unique-local address"), ("fe80::/10", "a link-local address"),
        ("fec0::/10", "a site-local address"), ("ff00::/8", "a multicast address"),
    ])
}

extension AdServerFetchPolicy {
    /// Reads the configuration file's `adServerFetch` object: `allowPrivate` (default false), and
    /// `allow` and `deny` arrays of ``Rule``s (at most 256 each).
    static func decode(_ value: JSONValue, path: String) throws(APIError) -> AdServerFetchPolicy {
        var reader = try JSONObjectReader(value, path: path)
        var policy = AdServerFetchPolicy()
        policy.allowPrivate = try reader.bool("allowPrivate") ?? false
        for key in ["allow", "deny"] {
            guard let list = reader.take(key) else { continue }
            guard case .array(let items) = list, items.count <= 256 else {
                throw reader.error(key, "expected an array of at most 256 addresses, networks or host names")
            }
            for (index, item) in items.enumerated() {
                guard case .string(let text) = item, let rule = Rule(text) else {
                    throw reader.error(
                        "\(key)[\(index)]",
                        "expected an address, a network (10.1.2.0/24, [fd00::/8]) or a host name (ads.internal, *.internal), each with an optional :port, found \(item)"
                    )
                }
                if key == "allow" { policy.allow.append(rule) } else { policy.deny.append(rule) }
            }
        }
        try reader.finish()
        return policy
    }
}
