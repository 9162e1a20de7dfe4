import Testing

@testable import InterstitialServer

/// Issue 42, item 8: idle connections cannot hold the connection cap, and an IPv6 client counts
/// as its /64.
@Suite("Connection table")
struct ConnectionTableTests {
    static func id(_ admission: ConnectionTable.Admission) -> UInt64? {
        guard case .admitted(let id, _) = admission else { return nil }
        return id
    }

    @Test("At the cap, the connection idle the longest makes room; with none idle, the new one is refused")
    func evictsOldestIdle() throws {
        var table = ConnectionTable(total: 3, perPeer: 10)
        let first = try #require(Self.id(table.admit("10.0.0.1")))
        let second = try #require(Self.id(table.admit("10.0.0.2")))
        let third = try #require(Self.id(table.admit("10.0.0.3")))
        // The first reads a request, then goes idle again: now the second has been idle longest.
        table.setIdle(first, false)
        table.setIdle(first, true)
        #expect(table.admit("10.0.0.4") == .admitted(id: third + 1, evicting: second))
        #expect(table.open().total == 3)
        #expect(table.open(from: "10.0.0.2").peer == 0, "the evicted one is no longer counted")
        // All busy: refused.
        for id in [first, third, third + 1] { table.setIdle(id, false) }
        #expect(table.admit("10.0.0.5") == .refused(.total))
        table.setIdle(third, true)
        #expect(table.admit("10.0.0.5") == .admitted(id: third + 2, evicting: third))
        // A connection closed after it was evicted changes nothing.
        table.remove(second)
        #expect(table.open().total == 3)
    }

    @Test("Busy connections are never evicted, however old")
    func busyKept() throws {
        var table = ConnectionTable(total: 2, perPeer: 10)
        let old = try #require(Self.id(table.admit("10.0.0.1")))
        table.setIdle(old, false)
        let young = try #require(Self.id(table.admit("10.0.0.2")))
        #expect(table.admit("10.0.0.3") == .admitted(id: young + 1, evicting: young))
        #expect(table.open(from: "10.0.0.1").peer == 1)
    }

    @Test(
        "IPv6 peers are grouped by /64 for the per-peer cap; IPv4 addresses each count alone",
        arguments: [
            ("2001:db8:1:2::1", "2001:db8:1:2:ffff::9", true), ("2001:db8:1:2::1", "2001:db8:1:3::1", false),
            ("192.0.2.1", "192.0.2.2", false), ("::ffff:192.0.2.1", "192.0.2.1", true),
        ])
    func peerGroups(_ one: String, _ other: String, _ shared: Bool) {
        var table = ConnectionTable(total: 100, perPeer: 1)
        #expect(Self.id(table.admit(one)) != nil)
        #expect((table.admit(other) == .refused(.perPeer)) == shared)
    }

    @Test("The idle order stays bounded by the connections open, however often they change")
    func boundedOrder() throws {
        var table = ConnectionTable(total: 2, perPeer: 10)
        let one = try #require(Self.id(table.admit("10.0.0.1")))
        for _ in 0..<10_000 {
            table.setIdle(one, false)
            table.setIdle(one, true)
        }
        let two = try #require(Self.id(table.admit("10.0.0.2")))
        table.setIdle(two, false)
        #expect(table.admit("10.0.0.3") == .admitted(id: two + 1, evicting: one))
    }
}
