import AsyncHTTPClient
import Foundation
import Logging
import Testing

@testable import InterstitialServer

/// The conditioned-creative cache on a directory that replicas share: what one server made is ready
/// on the others, what one evicted is not, and eviction goes by the last use any server recorded.
@Suite("Conditioned creatives shared by replicas")
struct CreativeCacheTests {
    static func withDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    static func conditioner(_ directory: URL, maximumBytes: Int = 1 << 30) -> CreativeConditioner {
        CreativeConditioner(
            directory: directory.path, maximumBytes: maximumBytes,
            fetcher: AdServerFetcher(client: HTTPClient.shared, policy: .allowingLoopback),
            logger: Logger(label: "hlsi.test.creatives"))
    }

    /// Writes an asset as a server would: `KEY/master.m3u8` and a segment of `bytes`.
    static func asset(_ key: String, in directory: URL, bytes: Int = 1000, used: Date = Date()) throws {
        let folder = directory.appendingPathComponent(key)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let master = folder.appendingPathComponent("master.m3u8")
        try Data("#EXTM3U\n".utf8).write(to: master)
        try Data(count: bytes).write(to: folder.appendingPathComponent("seg0.m4s"))
        try FileManager.default.setAttributes([.modificationDate: used], ofItemAtPath: master.path)
    }

    static let keys = (0..<3).map { String(repeating: "\($0)", count: 32) }

    @Test("an asset another server made is ready here; one another server removed is not")
    func sharedReadiness() throws {
        try Self.withDirectory { directory in
            let a = Self.conditioner(directory)
            let b = Self.conditioner(directory)
            #expect(!a.isReady(Self.keys[0]) && !b.isReady(Self.keys[0]))
            try Self.asset(Self.keys[0], in: directory)
            #expect(b.isReady(Self.keys[0]), "made after b started, by another server")
            try FileManager.default.removeItem(at: directory.appendingPathComponent(Self.keys[0]))
            #expect(!b.isReady(Self.keys[0]), "evicted by another server")
        }
    }

    @Test("eviction removes what no server used for longest, by the master playlist's time; a use records it")
    func sharedEviction() throws {
        try Self.withDirectory { directory in
            let now = Date()
            try Self.asset(Self.keys[0], in: directory, used: now.addingTimeInterval(-3000))
            try Self.asset(Self.keys[1], in: directory, used: now.addingTimeInterval(-2000))
            try Self.asset(Self.keys[2], in: directory, used: now.addingTimeInterval(-1000))
            // Another server used the oldest one just now: its playlist's time moves.
            let other = Self.conditioner(directory)
            #expect(other.isReady(Self.keys[0]))
            // Room for two assets: the one no server used for longest goes.
            let here = Self.conditioner(directory, maximumBytes: 2 * 1008 + 100)
            here.evict()
            let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
            #expect(left == [Self.keys[0], Self.keys[2]], "\(left)")
            #expect(!here.isReady(Self.keys[1]))
        }
    }
}
