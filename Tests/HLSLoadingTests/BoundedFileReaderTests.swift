import Foundation
import HLSPlaylist
import Testing

@testable import HLSLoading

/// Files are read whole, but never past the limit: a file too large is refused before it is read,
/// and a stream without a size as soon as it passes the limit.
@Suite("Bounded file reads")
struct BoundedFileReaderTests {
    static func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bounded-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a regular file up to the limit is read exactly; one byte more is too large")
    func regularFiles() throws {
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let path = try Self.temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try BoundedFileReader.read(path, limit: 100_000) == bytes)
        #expect(throws: BoundedFileReader.Failure.tooLarge) { try BoundedFileReader.read(path, limit: 99_999) }
        let empty = try Self.temporaryFile([])
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(try BoundedFileReader.read(empty, limit: 0) == [])
    }

    @Test("a file whose size stat does not tell is read in chunks, and refused once past the limit")
    func streams() throws {
        // /proc files report size 0 and are read to their end.
        let status = try BoundedFileReader.read("/proc/self/status", limit: 1 << 20)
        #expect(String(decoding: status, as: UTF8.self).contains("Name:"))
        #expect(throws: BoundedFileReader.Failure.tooLarge) { try BoundedFileReader.read("/dev/zero", limit: 200_000) }
    }

    @Test("a missing file, a folder and an unreadable path say which")
    func failures() {
        #expect(throws: BoundedFileReader.Failure.missing) { try BoundedFileReader.read("/no/such/file", limit: 10) }
        #expect(throws: BoundedFileReader.Failure.directory) { try BoundedFileReader.read("/tmp", limit: 10) }
        #expect(throws: BoundedFileReader.Failure.unreadable(errno: ENOTDIR)) {
            try BoundedFileReader.read("/proc/self/status/inside", limit: 10)
        }
    }

    @Test("the loader reports a file over its limit as too-large before reading it")
    func loaderLimit() async throws {
        let path = try Self.temporaryFile(
            Array("#EXTM3U\n#EXT-X-TARGETDURATION:6\n".utf8) + Array(repeating: 0x23, count: 2000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = PlaylistLoader.Configuration()
        configuration.maximumBodySize = 1000
        await #expect(throws: LoadError.self) {
            try await PlaylistLoader.withLoader(configuration: configuration) { try await $0.loadPlaylist(path) }
        }
        do {
            _ = try await PlaylistLoader.withLoader(configuration: configuration) { try await $0.loadPlaylist(path) }
        } catch let error as LoadError {
            #expect(error.code == .tooLarge)
        }
    }
}
