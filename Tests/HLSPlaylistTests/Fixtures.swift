import Foundation
import HLSPlaylist
import Testing

/// The test fixture corpus under `Tests/Fixtures`, and the shared conformance vectors.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// Files in a fixture folder, sorted.
    static func files(_ folder: String, extension pathExtension: String = "m3u8") -> [URL] {
        let directory = root.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix("." + pathExtension) }.sorted().map { directory.appendingPathComponent($0) }
    }

    static func bytes(_ url: URL) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: url.path) ?? Data()) }

    static func playlist(_ name: String) -> [UInt8] { bytes(root.appendingPathComponent("playlists/\(name)")) }

    /// A conformance vector: a playlist and expectations (the schedule parts are checked by the
    /// schedule tests once that module exists).
    struct Vector: Decodable, Sendable, CustomTestStringConvertible {
        var name: String
        var description: String?
        var playlist: String
        /// Set when the file could not be read, so the test fails instead of skipping it.
        var loadError: String?

        var testDescription: String { name }
    }

    /// The conformance vectors copied into `Tests/Fixtures/conformance`, plus any newer ones in `../shared`.
    static func conformanceVectors() -> [Vector] {
        var urls = files("conformance", extension: "json")
        let shared = root.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("shared/conformance/schedule")
        let known = Set(urls.map(\.lastPathComponent))
        if let names = try? FileManager.default.contentsOfDirectory(atPath: shared.path) {
            for name in names.sorted() where name.hasSuffix(".json") && !known.contains(name) {
                urls.append(shared.appendingPathComponent(name))
            }
        }
        return urls.map { url in
            do {
                return try JSONDecoder().decode(Vector.self, from: Data(contentsOf: url))
            } catch {
                return Vector(name: url.lastPathComponent, playlist: "", loadError: "\(error)")
            }
        }
    }
}
