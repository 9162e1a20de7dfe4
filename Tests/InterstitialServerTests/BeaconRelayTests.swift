import Testing

@testable import InterstitialServer

/// `tracking: relay` URLs: only what a server of the deployment wrote verifies, once per viewer.
@Suite("The beacon relay's URLs")
struct BeaconRelayTests {
    static let ad = "https://ads.example/t?e=impression&cb=[CACHEBUSTING]"

    static func path(_ url: String) -> Substring {
        url.dropFirst("http://origin".count + BeaconRelay.prefix.count)
    }

    @Test("each viewer's beacon is passed on once; replicas with the same admin token verify each other's")
    func viewersAndReplicas() throws {
        let a = BeaconRelay(secret: "token")
        let b = BeaconRelay(secret: "token")
        let one = a.url(for: Self.ad, type: "impression", viewer: "v1", base: "http://origin")
        let two = a.url(for: Self.ad, type: "impression", viewer: "v2", base: "http://origin")
        #expect(one != two)
        let first = try #require(b.verify(Self.path(one)))
        #expect(first.url == Self.ad && first.type == "impression" && first.first)
        #expect(b.verify(Self.path(one))?.first == false, "again: not passed on")
        #expect(b.verify(Self.path(two))?.first == true, "another viewer's")
        #expect(BeaconRelay(secret: "other").verify(Self.path(one)) == nil, "another deployment's key")
        #expect(BeaconRelay(secret: nil).verify(Self.path(one)) == nil, "a random key")
    }

    @Test(
        "the type is covered by the MAC; malformed paths are refused",
        arguments: [
            "", "x", "0123456789abcdef0123456789abcdef/impression", "0123456789abcdef0123456789abcdef/impression/!!",
        ])
    func malformed(_ path: String) {
        #expect(BeaconRelay(secret: "token").verify(Substring(path)) == nil)
    }

    @Test("a beacon's type cannot be changed")
    func typeIsSigned() {
        let relay = BeaconRelay(secret: "token")
        let url = relay.url(for: Self.ad, type: "impression", viewer: "v", base: "http://origin")
        let changed = String(Self.path(url)).replacingOccurrences(of: "/impression/", with: "/complete/")
        #expect(relay.verify(Substring(changed)) == nil)
    }
}
