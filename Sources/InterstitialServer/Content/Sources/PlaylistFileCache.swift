import Foundation
import HLSPlaylist
import NIOConcurrencyHelpers

/// The playlists of the content directories, parsed once and kept (the operator's files do not
/// change while the server runs).
final class PlaylistFileCache: Sendable {
    private let parsed = NIOLockedValueBox<[String: ParseResult]>([:])

    /// The parsed playlist in `file`, named `name` in diagnostics; 404 when there is no such file.
    func playlist(file: String, name: String) throws(APIError) -> ParseResult {
        if let result = parsed.withLockedValue({ $0[file] }) { return result }
        guard Self.isFile(file), let data = FileManager.default.contents(atPath: file) else {
            throw APIError.notFound(name)
        }
        let result = PlaylistParser.parse(Array(data), options: ParseOptions(file: name))
        parsed.withLockedValue { $0[file] = result }
        return result
    }

    /// The parsed playlist in `file` if it was parsed before; never reads.
    func kept(file: String) -> ParseResult? {
        parsed.withLockedValue { $0[file] }
    }

    /// Whether `path` is a regular file (not a directory).
    static func isFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }
}
