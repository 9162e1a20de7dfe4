/// Where every content's playlists come from: the kept playlist files of directory contents and the
/// upstream client, handed to each part that loads a content's presentation (``source(_:)``).
struct ContentSources: Sendable {
    /// The playlist files of directory contents, read once.
    let files: PlaylistFileCache
    /// Fetches upstream contents' playlists and files.
    let upstream: UpstreamClient

    /// Where `content`'s playlists come from.
    func source(_ content: ServerConfiguration.Content) -> ContentSource {
        ContentSource(content: content, files: files, upstream: upstream)
    }
}
