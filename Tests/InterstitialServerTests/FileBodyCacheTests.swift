import Foundation
import NIOCore
import Testing

@testable import InterstitialServer

/// The file bytes kept in memory for file responses (issue 17): never those of an older version of
/// the file, bounded, and only regular files.
@Suite("File body cache")
struct FileBodyCacheTests {
    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "file-body-cache-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("A changed or replaced file is read again; a kept one is not")
    func changes() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/segment.m4s"
        let cache = FileBodyCache()
        try Data("first".utf8).write(to: URL(fileURLWithPath: path))
        let first = try #require(FileBodyCache.identity(of: path))
        #expect(cache.body(of: path, identity: first).map { String(buffer: $0) } == "first")
        #expect(cache.size.count == 1)
        // Replaced (as tools replace files: a new file renamed over it), same size: new bytes.
        try Data("again".utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        let replaced = try #require(FileBodyCache.identity(of: path))
        #expect(replaced != first)
        #expect(cache.body(of: path, identity: replaced).map { String(buffer: $0) } == "again")
        // A file that changed after it was described is not answered from what was read.
        try Data("longer now".utf8).write(to: URL(fileURLWithPath: path))
        #expect(cache.body(of: path, identity: replaced).map { String(buffer: $0) } == "again")
        let stale = FileBodyCache()
        #expect(stale.body(of: path, identity: replaced) == nil)
    }

    @Test("Folders and missing files have no identity; files over the limits are not kept")
    func limits() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(FileBodyCache.identity(of: directory) == nil)
        #expect(FileBodyCache.identity(of: directory + "/none") == nil)
        let cache = FileBodyCache(fileLimit: 100, byteLimit: 250, countLimit: 10)
        for index in 0..<5 {
            let path = directory + "/\(index)"
            try Data(repeating: UInt8(index), count: 100).write(to: URL(fileURLWithPath: path))
            let identity = try #require(FileBodyCache.identity(of: path))
            #expect(cache.body(of: path, identity: identity)?.readableBytes == 100)
            #expect(cache.size.bytes <= 250)
        }
        let large = directory + "/large"
        try Data(repeating: 1, count: 101).write(to: URL(fileURLWithPath: large))
        #expect(cache.body(of: large, identity: try #require(FileBodyCache.identity(of: large))) == nil)
    }
}
