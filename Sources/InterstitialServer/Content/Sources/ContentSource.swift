import Foundation
import HLSLoading
import HLSPlaylist

/// Where one configured content's playlists come from: its directory (only under it) or its
/// upstream origin (within the server's limits); the server's ``PresentationFetcher`` for it.
///
/// Locations are paths relative to the content's directory, or absolute URLs on an allowed
/// upstream origin; ``entryLocation`` is where the presentation starts.
struct ContentSource: PresentationFetcher {
    let content: ServerConfiguration.Content
    let files: PlaylistFileCache
    let upstream: UpstreamClient

    /// The location of the content's entry playlist.
    var entryLocation: String {
        switch content.origin {
        case .directory: return content.entry
        case .upstream(let entry):
            guard let path = SafePath(content.entry) else { return entry }
            return UpstreamClient.upstreamURL(entry: entry, path: path, query: [:])
        }
    }

    /// The parsed playlist at `location`; 404 for a path outside the directory or without a file.
    func fetchPlaylist(_ location: String) async throws -> LoadedPlaylist {
        try await LoadedPlaylist(location: location, finalLocation: location, result: playlist(location))
    }

    /// The bytes at `location`, as ``fetchPlaylist(_:)`` finds it.
    func fetchBytes(_ location: String) async throws -> [UInt8] {
        switch content.origin {
        case .directory(let directory):
            return try PlaylistFileCache.read(
                file(location, in: directory), name: location,
                limit: upstream.configuration.limits.upstreamPlaylistBytes)
        case .upstream: return try await upstream.fetchBytes(location)
        }
    }

    /// The playlist at `location`, with typed errors.
    func playlist(_ location: String) async throws(APIError) -> ParseResult {
        switch content.origin {
        case .directory(let directory):
            return try files.playlist(file: file(location, in: directory), name: content.path + "/" + location)
        case .upstream:
            guard case .playlist(let result) = try await upstream.fetch(location, playlist: true) else {
                throw APIError(status: 502, code: .upstreamNotPlaylist, "\(location) is not a playlist")
            }
            return result
        }
    }

    /// The content's primary media playlist (its entry, or the entry's first variant) and its
    /// location, through the one ``PresentationLoader``; renditions are not loaded.
    ///
    /// - Throws: the fetch's error, or 502 when there is no media playlist with segments.
    func primary() async throws(APIError) -> (location: String, playlist: MediaPlaylist) {
        let presentation: PresentationLoader.Presentation
        do {
            presentation = try await PresentationLoader(fetcher: self).load(
                entryLocation, options: .init(selectAudio: nil))
        } catch let error as APIError {
            throw error
        } catch {
            throw noMedia
        }
        guard !presentation.primary.segments.isEmpty else { throw noMedia }
        return (presentation.primaryPlaylist.location, presentation.primary)
    }

    private var noMedia: APIError {
        APIError(status: 502, code: .playlist, "\(content.path) has no media playlist with segments")
    }

    private func file(_ location: String, in directory: String) throws(APIError) -> String {
        guard let path = SafePath(location) else { throw APIError.notFound(location) }
        return path.file(in: directory)
    }
}
