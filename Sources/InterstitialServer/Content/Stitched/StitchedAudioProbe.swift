import HLSInterstitials
import HLSPlaylist
import Logging
import MediaTiming
import NIOConcurrencyHelpers
import NIOCore

/// Reads what an ad audio rendition's media says of its audio (``StitchMeasuredAudio``: sample
/// rate and channel count), for ``StitchRenditionChooser``: from its initialization segment (the
/// `mp4a` sample entry and `esds`, read by ``MediaTimingParser/parseInitSegment(_:)``) when its
/// segments are fMP4, else from its first segment's first audio frame header (ADTS in MPEG-TS or
/// packed audio: the sample rate only).
///
/// A request never waits for it: ``lookup(_:publicBase:)`` starts the reading in the background
/// and answers ``Lookup/reading`` until it is done (the ad is left out meanwhile, as the conditioner
/// does, with `reason="measuring"`). The rendition's playlist is loaded by the ``AdRenditionLoader``
/// (kept 60 s), the segment through the same bounded path (the ad-server fetch policy or this
/// server's directories, by the deadline, at most ``maximumInitBytes`` or ``maximumSegmentBytes``).
/// The result is kept per rendition URL (an ad's media does not change), at most ``maximumKept``;
/// a rendition that cannot be read counts as not measured (its attributes alone decide), logged,
/// and is read again in the background after ``retryDelay``.
final class StitchedAudioProbe: Sendable {
    /// What is known of one rendition.
    enum Lookup: Sendable, Equatable {
        /// Being read.
        case reading
        /// Read: the figures (nil when they could not be read).
        case known(StitchMeasuredAudio?)
    }

    private enum State: Sendable {
        /// Being read; `again` when it could not be read before (its attributes decide meanwhile).
        case reading(Task<Void, Never>, again: Bool)
        case known(StitchMeasuredAudio?, at: MediaTime)
    }

    /// The most renditions kept.
    static let maximumKept = 4096
    /// The most bytes of an initialization segment read.
    static let maximumInitBytes = 256 * 1024
    /// The most bytes of a first MPEG-TS or packed audio segment read.
    static let maximumSegmentBytes = 4 * 1024 * 1024
    /// How long a rendition that could not be read counts as not measured before it is read again.
    static let retryDelay = MediaTime(seconds: 60)

    private let loader: AdRenditionLoader
    private let logger: Logger
    private let clock: any ServerClock
    private let timeout: MediaTime
    private let states = NIOLockedValueBox<[String: State]>([:])

    /// A probe that loads through `loader`, each load bounded by `timeout` on `clock`.
    init(loader: AdRenditionLoader, logger: Logger, clock: any ServerClock, timeout: MediaTime) {
        self.loader = loader
        self.logger = logger
        self.clock = clock
        self.timeout = timeout
    }

    private func deadline() -> NIODeadline { clock.deadline(after: timeout) }

    /// What is known of the audio rendition at `url` (absolute); starts reading it when nothing is.
    func lookup(_ url: String, publicBase: String) -> Lookup {
        let at = clock.now
        return states.withLockedValue { table -> Lookup in
            var again = false
            switch table[url] {
            case .reading(_, let retry)?: return retry ? .known(nil) : .reading
            case .known(let figures, let when)?:
                if figures != nil || at - when < Self.retryDelay { return .known(figures) }
                again = true
            case nil: break
            }
            if table.count >= Self.maximumKept {
                table = table.filter { if case .reading = $0.value { true } else { false } }
            }
            let task = Task { [self] in
                let figures = await measure(url, publicBase: publicBase)
                let done = clock.now
                states.withLockedValue { $0[url] = .known(figures, at: done) }
            }
            table[url] = .reading(task, again: again)
            return again ? .known(nil) : .reading
        }
    }

    /// Reads the figures of the rendition at `url`; nil (logged) when they cannot be read.
    private func measure(_ url: String, publicBase: String) async -> StitchMeasuredAudio? {
        do throws(AdRenditionLoader.Failure) {
            guard
                case .media(let playlist) = try await loader.playlist(
                    url, publicBase: publicBase, deadline: deadline()
                ).playlist,
                let first = playlist.segments.first
            else {
                throw AdRenditionLoader.Failure(
                    reason: "playlist", message: "\(url) is not a media playlist with segments")
            }
            if let map = first.map {
                let location = URIReference.resolve(map.uri, against: url)
                let bytes = try await part(
                    location, range: map.byteRange, publicBase: publicBase, limit: Self.maximumInitBytes)
                let initSegment: InitSegment
                do throws(MediaTimingError) {
                    initSegment = try MediaTimingParser.parseInitSegment(bytes)
                } catch {
                    throw AdRenditionLoader.Failure(reason: "media", message: "\(location): \(error)")
                }
                guard let audio = initSegment.tracks.first(where: { $0.kind == .audio }) else {
                    throw AdRenditionLoader.Failure(
                        reason: "media", message: "the initialization segment \(location) has no audio track")
                }
                return StitchMeasuredAudio(
                    sampleRate: audio.sampleRate, channelCount: audio.channelCount, codec: audio.codec)
            }
            let location = URIReference.resolve(first.uri, against: url)
            let bytes = try await part(
                location, range: first.byteRange, publicBase: publicBase, limit: Self.maximumSegmentBytes)
            let timing: SegmentTiming
            do throws(MediaTimingError) {
                timing = try MediaTimingParser.parse(bytes)
            } catch {
                throw AdRenditionLoader.Failure(reason: "media", message: "\(location): \(error)")
            }
            guard let audio = timing.track(.audio) else {
                throw AdRenditionLoader.Failure(reason: "media", message: "the segment \(location) has no audio")
            }
            return StitchMeasuredAudio(sampleRate: audio.sampleRate, channelCount: nil, codec: audio.codec)
        } catch {
            logger.warning(
                "the stitched form cannot read the sample rate and channel count of the ad's audio rendition \(url) (its playlist's attributes alone decide): \(error.message)"
            )
            return nil
        }
    }

    /// The bytes of `location`, or of its byte `range` (whose offset, when absent, is 0: the first
    /// segment's), at most `limit`.
    private func part(
        _ location: String, range: ByteRange?, publicBase: String, limit: Int
    ) async throws(AdRenditionLoader.Failure) -> [UInt8] {
        let bytes = try await loader.bytes(location, publicBase: publicBase, deadline: deadline(), maximumBytes: limit)
        guard let range else { return bytes }
        let start = range.offset ?? 0
        guard start <= UInt64(bytes.count), range.length <= UInt64(bytes.count) - start else {
            throw AdRenditionLoader.Failure(
                reason: "media",
                message: "the byte range \(range) is outside the \(bytes.count) bytes read of \(location)")
        }
        return Array(bytes[Int(start)..<Int(start + range.length)])
    }
}
