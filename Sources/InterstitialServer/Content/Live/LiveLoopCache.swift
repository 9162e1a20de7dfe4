import Foundation
import HLSPlaylist
import NIOConcurrencyHelpers

import enum MediaTiming.DecodeTimeShift

/// The live loops of directory channels, made once per media playlist file (the playlists
/// rendered from them are kept in the ``RenderedPlaylistCache``).
final class LiveLoopCache: Sendable {
    private let loops = NIOLockedValueBox<[String: LiveLoop]>([:])

    /// The loop of a media playlist of a directory channel, made once.
    ///
    /// Every rendition loops with the length of `reference` (the entry's primary media playlist),
    /// so that their dates agree; `playlist` itself when there is none.
    func loop(
        for content: ServerConfiguration.Content, path: SafePath, playlist: MediaPlaylist,
        reference: () async -> MediaPlaylist?
    ) async -> LiveLoop? {
        guard case .directory(let directory) = content.origin else { return nil }
        let key = path.file(in: directory)
        if let loop = kept(for: content, path: path) { return loop }
        let reference = await reference() ?? playlist
        let length = reference.segments[reference.segments.count - 1].endTime - reference.segments[0].startTime
        // Fragmented MP4 runs its timestamps on across loops (DecodeTimeShift); the timescale comes
        // from the initialization segment.
        var timescale: UInt32?
        if let map = playlist.segments.first?.map?.uri, let mapPath = SafePath(path.directory + map),
            let initialization = FileManager.default.contents(atPath: mapPath.file(in: directory))
        {
            timescale = DecodeTimeShift.timescale(ofInitialization: Array(initialization))
        }
        guard
            let loop = LiveLoop(
                source: playlist, loopDuration: length, epoch: content.epoch, windowSegments: content.windowSegments,
                timescale: timescale)
        else { return nil }
        loops.withLockedValue { $0[key] = loop }
        return loop
    }

    /// The loop of a media playlist of a directory channel if it was made before; never loads.
    func kept(for content: ServerConfiguration.Content, path: SafePath) -> LiveLoop? {
        guard case .directory(let directory) = content.origin else { return nil }
        return loops.withLockedValue { $0[path.file(in: directory)] }
    }
}
