import Foundation
import HLSPlaylist
import NIOConcurrencyHelpers

/// The playlists of the content directories, parsed once and kept (the operator's files do not
/// change while the server runs).
final class PlaylistFileCache: Sendable {
    private let parsed = NIOLockedValueBox<[String: ParseResult]>([:])

    /// The largest playlist file read.
    static let maximumBytes = 64 * 1024 * 1024

    /// The parsed playlist in `file`, named `name` in diagnostics; 404 when there is no such file,
    /// 503 when the server cannot open it now (``FileResponder/openError(_:name:)``).
    func playlist(file: String, name: String) throws(APIError) -> ParseResult {
        if let result = parsed.withLockedValue({ $0[file] }) { return result }
        let bytes = try Self.read(file, name: name, limit: Self.maximumBytes)
        let result = PlaylistParser.parse(bytes, options: ParseOptions(file: name))
        parsed.withLockedValue { $0[file] = result }
        return result
    }

    /// The parsed playlist in `file` if it was parsed before; never reads.
    func kept(file: String) -> ParseResult? {
        parsed.withLockedValue { $0[file] }
    }

    /// The bytes of the regular file `file` of at most `limit` bytes: 404 naming `name` when there is
    /// none (or it is larger), the errors of ``FileResponder/openError(_:name:)`` when it cannot be opened.
    static func read(_ file: String, name: String, limit: Int) throws(APIError) -> [UInt8] {
        let bytes: [UInt8]?
        do throws(FileBodyCache.OpenFailure) {
            bytes = try FileBodyCache.readWhole(file, limit: limit)
        } catch {
            throw FileResponder.openError(error, name: name)
        }
        guard let bytes else { throw APIError.notFound(name) }
        return bytes
    }

    /// Whether `path` is a regular file (not a directory).
    static func isFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }
}
