import HLSPlaylist

/// Where a ``PresentationLoader`` gets its playlists and asset lists.
///
/// ``PlaylistLoader`` is one (files and http(s) URLs, with its own limits); a server passes its own,
/// which reads its content directories and its allowed upstream origins within its limits.
public protocol PresentationFetcher: Sendable {
    /// Loads and parses the playlist at `location`.
    ///
    /// - Returns: the parsed playlist and the location it finally came from, which the URIs in it
    ///   resolve against.
    func fetchPlaylist(_ location: String) async throws -> LoadedPlaylist

    /// Loads the bytes at `location` (an asset list).
    func fetchBytes(_ location: String) async throws -> [UInt8]
}

/// A playlist as a ``PresentationFetcher`` loaded it.
public struct LoadedPlaylist: Sendable {
    /// The location asked for.
    public var location: String
    /// The location it finally came from (after redirects); URIs in it resolve against this.
    public var finalLocation: String
    /// The parsed playlist, with its diagnostics.
    public var result: ParseResult

    /// Creates a loaded playlist.
    public init(location: String, finalLocation: String, result: ParseResult) {
        self.location = location
        self.finalLocation = finalLocation
        self.result = result
    }
}

extension PlaylistLoader: PresentationFetcher {
    /// Loads and parses the playlist at `location` with ``loadPlaylist(_:options:)``.
    public func fetchPlaylist(_ location: String) async throws -> LoadedPlaylist {
        let (resource, result) = try await loadPlaylist(location)
        return LoadedPlaylist(location: location, finalLocation: resource.finalLocation, result: result)
    }

    /// Loads the bytes at `location` with ``loadResource(_:)``.
    public func fetchBytes(_ location: String) async throws -> [UInt8] {
        try await loadResource(location).bytes
    }
}
