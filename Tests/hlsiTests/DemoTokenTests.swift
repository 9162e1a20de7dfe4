import Testing

@testable import hlsi

/// Issue 16: the demo admin token was sometimes 31 hexadecimal digits (leading zeros dropped).
@Suite("hlsi serve --demo token")
struct DemoTokenTests {
    /// A generator that returns small numbers, whose hexadecimal forms are short.
    struct Small: RandomNumberGenerator {
        var value: UInt64 = 0
        mutating func next() -> UInt64 {
            value += 1
            return value
        }
    }

    @Test("the demo token is always 32 hexadecimal digits, leading zeros kept")
    func tokenLength() {
        var small = Small()
        let token = ServeCommand.demoToken(using: &small)
        #expect(token == "00000000000000010000000000000002")
        var system = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let random = ServeCommand.demoToken(using: &system)
            #expect(random.count == 32 && random.allSatisfy(\.isHexDigit))
        }
    }
}
