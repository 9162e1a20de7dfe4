import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialServer

/// Issue 37, item 7: a weak admin token is said at start; the new limits read from the configuration.
@Suite("Admin token strength and the beacon and conditioning limits")
struct AdminTokenTests {
    @Test(
        "short or repetitive tokens are weak; 32 random hexadecimal digits are not; no token is no admin API",
        arguments: [
            ("secret", true), ("test-token", true), (String(repeating: "ab", count: 20), true),
            ("0f3a9c1d7e5b2468ace13579bdf02468", false), ("", false),
        ])
    func weakness(_ token: String, weak: Bool) {
        #expect((AdminToken.weakness(token) != nil) == weak, "\(token): \(AdminToken.weakness(token) ?? "strong")")
    }

    @Test("the beacon and conditioning limits are read from `limits`, with their bounds")
    func limits() throws {
        let limits = try ServerLimits.decode(
            .object([
                "beaconLifetime": .integer(7200), "beaconsPerAddress": .integer(50), "beaconsPerViewer": .integer(10),
                "conditioningTimeout": .integer(60), "conditioningCPUSeconds": .integer(30),
            ]), path: "limits")
        #expect(limits.beaconLifetime == MediaTime(seconds: 7200))
        #expect(limits.beaconsPerAddress == 50 && limits.beaconsPerViewer == 10)
        #expect(limits.conditioningTimeout == MediaTime(seconds: 60) && limits.conditioningCPUSeconds == 30)
        for (key, value) in [
            ("beaconLifetime", JSONValue.integer(604_801)), ("beaconLifetime", .integer(0)),
            ("beaconsPerAddress", .integer(0)), ("conditioningCPUSeconds", .integer(0)),
        ] {
            #expect(throws: APIError.self, "\(key): \(value)") {
                _ = try ServerLimits.decode(.object([key: value]), path: "limits")
            }
        }
    }
}
