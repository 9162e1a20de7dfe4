import Crypto
import HLSPlaylist
import Testing

@testable import InterstitialServer

/// `tracking: relay` URLs: only what a server of the deployment wrote verifies, once per viewer,
/// until it expires, within the budget of the client's address and viewer (issue 37, items 7 and 8).
@Suite("The beacon relay's URLs")
struct BeaconRelayTests {
    static let ad = "https://ads.example/t?e=impression&cb=[CACHEBUSTING]"
    static let secret = [UInt8](repeating: 7, count: 32)
    static let start = DateTime(iso8601: "2026-11-26T10:00:00Z")!

    static func path(_ url: String) -> Substring {
        url.dropFirst("http://origin".count + BeaconRelay.prefix.count)
    }

    static func relay(
        _ secret: [UInt8]? = secret, clock: ManualServerClock = ManualServerClock(wall: start), lifetime: Double = 3600,
        budget: BeaconBudget = BeaconBudget(perAddress: 1000, perViewer: 1000)
    ) -> BeaconRelay {
        BeaconRelay(secret: secret, lifetime: MediaTime(seconds: lifetime), budget: budget, clock: clock)
    }

    @Test("each viewer's beacon is passed on once; replicas with the same secret verify each other's")
    func viewersAndReplicas() throws {
        let a = Self.relay()
        let b = Self.relay()
        let one = a.url(for: Self.ad, type: "impression", viewer: "v1", base: "http://origin")
        let two = a.url(for: Self.ad, type: "impression", viewer: "v2", base: "http://origin")
        #expect(one != two)
        guard case .relay(let first) = b.receive(Self.path(one), address: "192.0.2.1") else {
            Issue.record("the first request of a valid URL is passed on")
            return
        }
        #expect(first.url == Self.ad && first.type == "impression" && first.viewer == "v1")
        #expect(b.receive(Self.path(one), address: "192.0.2.1") == .repeated(first), "again: not passed on")
        #expect(b.verify(Self.path(two)) != nil, "another viewer's")
        #expect(Self.relay([UInt8](repeating: 8, count: 32)).verify(Self.path(one)) == nil, "another secret")
        #expect(Self.relay(nil).verify(Self.path(one)) == nil, "a random key")
        #expect(Self.relay(nil).receive(Self.path(one), address: nil) == .unknown)
    }

    @Test("a URL verifies until its expiry, inside the MAC; then it is refused and not passed on")
    func expiry() throws {
        let clock = ManualServerClock(wall: Self.start)
        let relay = Self.relay(clock: clock, lifetime: 600)
        let url = relay.url(for: Self.ad, type: "start", viewer: "v", base: "http://origin")
        let parts = Self.path(url).split(separator: "/")
        #expect(parts[2] == "\(BeaconRelay.seconds(Self.start) + 600)")
        clock.advance(599)
        #expect(relay.verify(Self.path(url))?.expires == BeaconRelay.seconds(Self.start) + 600)
        clock.advance(1)
        guard case .expired = relay.receive(Self.path(url), address: "192.0.2.1") else {
            Issue.record("an expired URL is refused")
            return
        }
        // A later expiry written by the client does not verify.
        let later = [parts[0], parts[1], "\(BeaconRelay.seconds(Self.start) + 7200)", parts[3]].joined(separator: "/")
        #expect(relay.verify(Substring(later)) == nil)
    }

    @Test(
        "the type is covered by the MAC; malformed paths are refused",
        arguments: [
            "", "x", "0123456789abcdef0123456789abcdef/impression",
            "0123456789abcdef0123456789abcdef/impression/!!",
            "0123456789abcdef0123456789abcdef/impression/1800000000/!!",
            "0123456789abcdef0123456789abcdef/impression/-1/aGk",
            "0123456789abcdef0123456789abcdef/impression/1234567890123/aGk",
        ])
    func malformed(_ path: String) {
        #expect(Self.relay().verify(Substring(path)) == nil)
    }

    @Test("a beacon's type cannot be changed")
    func typeIsSigned() {
        let relay = Self.relay()
        let url = relay.url(for: Self.ad, type: "impression", viewer: "v", base: "http://origin")
        let changed = String(Self.path(url)).replacingOccurrences(of: "/impression/", with: "/complete/")
        #expect(relay.verify(Substring(changed)) == nil)
    }

    @Test("the key is not the admin token's: a URL is no offline oracle for it (the old key does not verify)")
    func keyIsNotTheToken() {
        let token = "test-token"
        let relay = Self.relay(nil)
        let url = relay.url(for: Self.ad, type: "impression", viewer: "v", base: "http://origin")
        let parts = Self.path(url).split(separator: "/").map(String.init)
        let guessed = SymmetricKey(data: SHA256.hash(data: Array(("hlsi beacon relay\n" + token).utf8)))
        for message in [parts[1] + "\n" + parts[3], parts[1] + "\n" + parts[2] + "\n" + parts[3]] {
            let mac = HexDigits.lowercase(
                HMAC<SHA256>.authenticationCode(for: Array(message.utf8), using: guessed).prefix(16))
            #expect(mac != parts[0])
        }
    }

    @Test("one address's beacons, whatever viewer IDs they name, are passed on within its budget; others' still are")
    func addressBudget() throws {
        let relay = Self.relay(budget: BeaconBudget(perAddress: 5, perViewer: 1000))
        var outcomes: [String] = []
        for index in 0..<20 {
            let url = relay.url(
                for: Self.ad + "&n=\(index)", type: "impression", viewer: "v\(index)", base: "http://origin")
            switch relay.receive(Self.path(url), address: "203.0.113.9") {
            case .relay: outcomes.append("relay")
            case .overBudget: outcomes.append("budget")
            default: outcomes.append("other")
            }
        }
        #expect(outcomes == Array(repeating: "relay", count: 5) + Array(repeating: "budget", count: 15))
        let other = relay.url(for: Self.ad, type: "impression", viewer: "someone", base: "http://origin")
        guard case .relay = relay.receive(Self.path(other), address: "198.51.100.1") else {
            Issue.record("another address's beacon is passed on")
            return
        }
    }

    @Test("a viewer's budget; an IPv6 /64 counts as one address; a refused beacon may pass later")
    func viewerBudgetAndNetworks() throws {
        let clock = ManualServerClock(wall: Self.start)
        let relay = Self.relay(clock: clock, budget: BeaconBudget(perAddress: 3, perViewer: 2))
        func fire(_ n: Int, viewer: String, address: String) -> BeaconRelay.Outcome {
            relay.receive(
                Self.path(relay.url(for: Self.ad + "&n=\(n)", type: "start", viewer: viewer, base: "http://origin")),
                address: address)
        }
        #expect(fire(0, viewer: "v", address: "192.0.2.1").isRelay)
        #expect(fire(1, viewer: "v", address: "192.0.2.2").isRelay)
        #expect(!fire(2, viewer: "v", address: "192.0.2.3").isRelay, "the viewer's budget")
        #expect(fire(3, viewer: "a", address: "2001:db8:1:2::1").isRelay)
        #expect(fire(4, viewer: "b", address: "2001:db8:1:2::2").isRelay)
        #expect(fire(5, viewer: "c", address: "2001:db8:1:2:ffff::3").isRelay)
        #expect(!fire(6, viewer: "d", address: "2001:db8:1:2::4").isRelay, "the /64's budget")
        #expect(fire(7, viewer: "e", address: "2001:db8:1:3::4").isRelay, "another /64")
        let refused = relay.url(for: Self.ad + "&n=8", type: "start", viewer: "f", base: "http://origin")
        #expect(!relay.receive(Self.path(refused), address: "2001:db8:1:2::9").isRelay)
        clock.advance(Double(BeaconBudget.window))
        #expect(relay.receive(Self.path(refused), address: "2001:db8:1:2::9").isRelay, "the next minute")
    }
}

extension BeaconRelay.Outcome {
    var isRelay: Bool {
        if case .relay = self { return true }
        return false
    }
}
