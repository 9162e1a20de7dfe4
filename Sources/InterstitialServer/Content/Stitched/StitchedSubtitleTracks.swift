import HLSPlaylist
import MediaTiming
import NIOConcurrencyHelpers

/// The subtitle track of each fMP4 subtitle rendition the stitched form blanks while ads play
/// (``StitchedEmptySegment``): read from the rendition's own initialization segment (its
/// EXT-X-MAP) with ``MediaTimingParser/parseInitSegment(_:)`` and ``SubtitleSegmentWriter/Track``,
/// fetched through the content's source (its directory, or its upstream within the server's
/// limits: at most ``ServerLimits/upstreamPlaylistBytes``), kept per location (an init segment does
/// not change), at most ``maximumKept``.
struct StitchedSubtitleTracks: Sendable {
    /// A subtitle rendition's map (its URI absolute) and the track its initialization segment has.
    struct Rendition: Sendable {
        /// The rendition's EXT-X-MAP, its URI absolute.
        var map: MediaInitializationSection
        /// Its subtitle track.
        var track: SubtitleSegmentWriter.Track
    }

    /// The most tracks kept.
    static let maximumKept = 256

    private let kept = NIOLockedValueBox<[String: SubtitleSegmentWriter.Track]>([:])

    /// The subtitle track of the initialization segment `map` names, `location` (where
    /// ``ContentSource/fetchBytes(_:)`` finds it) and `name` (for messages) resolved by the caller.
    ///
    /// - Throws: ``AdRenditionLoader/Failure`` (`subtitles`): the segment cannot be fetched, its
    ///   byte range is outside it, it cannot be read, or it has no `wvtt` or `stpp` track.
    func track(
        location: String, name: String, byteRange: ByteRange?, fetch: (String) async throws -> [UInt8]
    ) async throws(AdRenditionLoader.Failure) -> SubtitleSegmentWriter.Track {
        let key = location + "|" + (byteRange?.description ?? "")
        if let track = kept.withLockedValue({ $0[key] }) { return track }
        var bytes: [UInt8]
        do {
            bytes = try await fetch(location)
        } catch {
            throw AdRenditionLoader.Failure(
                reason: "subtitles",
                message:
                    "the subtitle rendition's initialization segment \(name) cannot be read: \((error as? APIError)?.message ?? "\(error)")"
            )
        }
        if let byteRange {
            let start = byteRange.offset ?? 0
            guard start <= UInt64(bytes.count), byteRange.length <= UInt64(bytes.count) - start else {
                throw AdRenditionLoader.Failure(
                    reason: "subtitles",
                    message:
                        "the subtitle rendition's EXT-X-MAP BYTERANGE \(byteRange) is outside \(name) (\(bytes.count) bytes)"
                )
            }
            bytes = Array(bytes[Int(start)..<Int(start + byteRange.length)])
        }
        let track: SubtitleSegmentWriter.Track
        do throws(MediaTimingError) {
            track = try SubtitleSegmentWriter.Track(of: try MediaTimingParser.parseInitSegment(bytes))
        } catch {
            throw AdRenditionLoader.Failure(
                reason: "subtitles", message: "the subtitle rendition's initialization segment \(name): \(error)")
        }
        kept.withLockedValue { kept in
            if kept.count >= Self.maximumKept { kept.removeAll(keepingCapacity: true) }
            kept[key] = track
        }
        return track
    }
}
