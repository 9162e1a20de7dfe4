import Testing

@testable import InterstitialServer

/// The viewer's address told to ad decision servers: the peer, or behind trusted proxies the first
/// untrusted `X-Forwarded-For` entry from the right.
@Suite("The viewer's address behind proxies")
struct ViewerAddressTests {
    static let proxies = ViewerAddress(
        trusted: ["10.0.0.0/8", "2001:db8:1::/48"].compactMap(ViewerAddress.Network.init))

    @Test(
        "X-Forwarded-For is believed only as far as trusted proxies wrote it",
        arguments: [
            // A viewer connecting directly: its own header is ignored.
            ("198.51.100.9", ["203.0.113.7"], "198.51.100.9"),
            // Through a proxy on loopback: the entry it appended.
            ("127.0.0.1", ["203.0.113.7"], "203.0.113.7"),
            // What the viewer wrote stands left of the proxy's entry and is not used.
            ("127.0.0.1", ["1.2.3.4, 203.0.113.7"], "203.0.113.7"),
            // Two trusted hops (loopback, then 10.1.2.3), and repeated header fields in order.
            ("127.0.0.1", ["6.6.6.6, 203.0.113.7", "10.1.2.3"], "203.0.113.7"),
            // An untrusted hop in the middle ends the walk there.
            ("127.0.0.1", ["203.0.113.7, 198.51.100.1"], "198.51.100.1"),
            // Junk ends the walk at the last trusted hop.
            ("127.0.0.1", ["203.0.113.7, not-an-address"], "127.0.0.1"),
            ("10.9.9.9", ["unknown"], "10.9.9.9"),
            // IPv6: bracketed, a trusted network, IPv4-mapped written as IPv4.
            ("::1", ["203.0.113.7, [2001:db8:1::5]"], "203.0.113.7"),
            ("::1", ["2001:DB8:2::5"], "2001:db8:2::5"),
            ("2001:db8:1:ff::1", ["::ffff:192.0.2.4"], "192.0.2.4"),
        ])
    func forwardedFor(_ peer: String, _ header: [String], _ expected: String) {
        #expect(Self.proxies.resolve(peer: peer, forwardedFor: header) == expected)
    }

    @Test("A peer that is not an IP address (a Unix socket) has no address")
    func noPeer() {
        #expect(Self.proxies.resolve(peer: nil, forwardedFor: ["203.0.113.7"]) == nil)
        #expect(Self.proxies.resolve(peer: "/tmp/socket", forwardedFor: []) == nil)
    }

    @Test(
        "Networks: addresses and prefixes, IPv4 and IPv6; anything else is refused",
        arguments: [
            ("10.0.0.0/8", "10.255.1.2", true), ("10.0.0.0/8", "11.0.0.1", false),
            ("192.168.1.7", "192.168.1.7", true), ("192.168.1.7", "192.168.1.8", false),
            ("172.16.0.0/12", "172.31.255.255", true), ("172.16.0.0/12", "172.32.0.0", false),
            ("2001:db8::/32", "2001:db8:ffff::1", true), ("2001:db8::/32", "10.0.0.1", false),
            ("0.0.0.0/0", "8.8.8.8", true),
        ])
    func networks(_ network: String, _ address: String, _ inside: Bool) throws {
        let parsed = try #require(ViewerAddress.Network(network))
        #expect(parsed.contains(try #require(ViewerAddress.bytes(of: address))) == inside)
    }

    @Test(
        "Bad networks are refused", arguments: ["", "10.0.0.0/33", "10.0.0/8", "host.example", "::1/129", "1.2.3.4/x"])
    func badNetworks(_ text: String) {
        #expect(ViewerAddress.Network(text) == nil)
    }

    @Test("trustedProxies in a configuration file: each entry checked, with its path")
    func configuration() throws {
        let good = try ServerConfiguration.decode(Array(#"{"trustedProxies":["10.0.0.0/8","::1"]}"#.utf8), base: "/")
        #expect(good.trustedProxies == ["10.0.0.0/8", "::1"])
        #expect(throws: APIError.self) {
            try ServerConfiguration.decode(Array(#"{"trustedProxies":["10.0.0.0/8","proxy.example"]}"#.utf8), base: "/")
        }
        do {
            _ = try ServerConfiguration.decode(Array(#"{"trustedProxies":"10.0.0.0/8"}"#.utf8), base: "/")
            Issue.record("a string instead of an array was accepted")
        } catch {
            #expect(error.path == "trustedProxies")
        }
    }
}
