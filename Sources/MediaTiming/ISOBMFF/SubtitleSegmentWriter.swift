/// Writes fragmented MP4 media segments of a subtitle track: WebVTT (`wvtt`, ISO/IEC 14496-30 §7)
/// or TTML / IMSC (`stpp`, ISO/IEC 14496-30), one movie fragment each.
///
/// The stitched form's subtitle playlists list ``empty(_:sequenceNumber:start:duration:)``
/// segments while an ad plays (profile R28): a real media segment that displays nothing, after the
/// primary rendition's own initialization segment, so its track ID, timescale and sample entry are
/// that segment's (``Track/init(of:)`` reads them with the same reader as ``MediaTimingParser``).
///
/// A segment is `styp`, then `moof` (`mfhd`; `traf` with `tfhd`, `tfdt` and `trun`) and `mdat`
/// (ISO/IEC 14496-12 §8.8): the `tfhd` sets `default-base-is-moof`, the `tfdt` is version 1 (a
/// 64-bit `baseMediaDecodeTime`), the `trun` gives the data offset, the first sample's flags (a sync
/// sample: "sample_depends_on" 2) and each sample's duration and size. Pure: no I/O.
public enum SubtitleSegmentWriter {
    /// The sample format of a subtitle track.
    public enum Format: String, Hashable, Sendable, Codable, CaseIterable {
        /// WebVTT in ISO BMFF, sample entry `wvtt` (ISO/IEC 14496-30 §7.5).
        case webVTT = "wvtt"
        /// TTML (IMSC) in ISO BMFF, sample entry `stpp` (ISO/IEC 14496-30).
        case ttml = "stpp"

        /// The format of the sample entry type `type` (such as ``TrackDescription/sampleEntryType``);
        /// nil for any other.
        public init?(sampleEntryType type: String) { self.init(rawValue: type) }
    }

    /// The subtitle track a media segment belongs to, as its initialization segment describes it.
    public struct Track: Hashable, Sendable, Codable {
        /// `track_ID` (the `tfhd` of every fragment names it).
        public var trackID: UInt32
        /// The `mdhd` timescale: ticks per second of `tfdt` and sample durations.
        public var timescale: UInt32
        /// The sample format.
        public var format: Format

        /// Creates a track description.
        public init(trackID: UInt32, timescale: UInt32, format: Format) {
            self.trackID = trackID
            self.timescale = max(timescale, 1)
            self.format = format
        }

        /// The first `wvtt` or `stpp` track of `initSegment`.
        ///
        /// - Throws: ``MediaTimingError`` `media-track-unknown` when it has none (the message lists
        ///   the sample entries it has).
        public init(of initSegment: InitSegment) throws(MediaTimingError) {
            for track in initSegment.tracks {
                if let format = Format(sampleEntryType: track.sampleEntryType) {
                    self.init(trackID: track.trackID, timescale: track.timescale, format: format)
                    return
                }
            }
            let entries = initSegment.tracks.map { "\($0.trackID): \($0.sampleEntryType)" }
            throw MediaTimingError(
                .unknownTrack, offset: 0, path: "moov",
                "the initialization segment has no WebVTT (wvtt) or TTML (stpp) subtitle track (ISO/IEC 14496-30); its tracks: \(entries.isEmpty ? "none" : entries.joined(separator: ", "))"
            )
        }
    }

    /// One sample: its duration in the track's timescale and its bytes.
    public struct Sample: Hashable, Sendable {
        /// The duration, in ticks of the track's timescale.
        public var duration: UInt32
        /// The sample's bytes.
        public var bytes: [UInt8]

        /// Creates a sample.
        public init(duration: UInt32, bytes: [UInt8]) {
            self.duration = duration
            self.bytes = bytes
        }
    }

    /// The WebVTT sample that displays nothing: one `vtte` box (VTTEmptyCueBox, ISO/IEC 14496-30
    /// §7.5), which a WebVTT track uses for a span without active cues, so the track's samples
    /// cover its time without gaps.
    public static let emptyWebVTTSample: [UInt8] = box("vtte", [])

    /// The TTML document that displays nothing: a `tt` with an empty `body`. Each `stpp` sample is
    /// one complete TTML document (ISO/IEC 14496-30); TTML requires `xml:lang` on `tt`, and the
    /// empty value leaves the language undetermined.
    public static let emptyTTMLSample: [UInt8] = Array(
        (#"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
            + #"<tt xmlns="http://www.w3.org/ns/ttml" xmlns:ttp="http://www.w3.org/ns/ttml#parameter" ttp:timeBase="media" xml:lang=""><head/><body/></tt>"#
            + "\n").utf8)

    /// The sample of `format` that displays nothing: ``emptyWebVTTSample`` or ``emptyTTMLSample``.
    public static func emptySample(_ format: Format) -> [UInt8] {
        switch format {
        case .webVTT: emptyWebVTTSample
        case .ttml: emptyTTMLSample
        }
    }

    /// A media segment of `track` that displays nothing from `start` for `duration` (ticks of the
    /// track's timescale): one ``emptySample(_:)`` sample lasting `duration`.
    public static func empty(_ track: Track, sequenceNumber: UInt32, start: UInt64, duration: UInt32) -> [UInt8] {
        segment(
            trackID: track.trackID, sequenceNumber: sequenceNumber, start: start,
            samples: [Sample(duration: duration, bytes: emptySample(track.format))])
    }

    /// A media segment of track `trackID` whose samples play one after the other from `start`
    /// (`tfdt` `baseMediaDecodeTime`, in ticks of the track's timescale).
    ///
    /// - Parameters:
    ///   - trackID: the track's `track_ID`, as its initialization segment's `tkhd` and `trex` give it.
    ///   - sequenceNumber: the `mfhd` `sequence_number` (ISO/IEC 14496-12 §8.8.5: the fragment's
    ///     ordinal number, increasing from fragment to fragment).
    ///   - start: the `tfdt` `baseMediaDecodeTime` of the first sample, in ticks of the track's
    ///     timescale.
    ///   - samples: the samples, in decoding order, each with its duration in those ticks.
    public static func segment(trackID: UInt32, sequenceNumber: UInt32, start: UInt64, samples: [Sample]) -> [UInt8] {
        let mfhd = fullBox("mfhd", version: 0, flags: 0, be32(sequenceNumber))
        // tfhd flags 0x020000: default-base-is-moof, so the data offset counts from the moof.
        let tfhd = fullBox("tfhd", version: 0, flags: 0x02_0000, be32(trackID))
        let tfdt = fullBox("tfdt", version: 1, flags: 0, be64(start))
        // trun flags: data-offset (0x1), first-sample-flags (0x4), sample-duration (0x100), sample-size (0x200).
        // The data offset counts from the moof to the first sample, after the mdat's 8-byte header.
        func moof(dataOffset: UInt32) -> [UInt8] {
            var fields = be32(UInt32(samples.count)) + be32(dataOffset) + be32(syncSampleFlags)
            for sample in samples { fields += be32(sample.duration) + be32(UInt32(sample.bytes.count)) }
            let trun = fullBox("trun", version: 0, flags: 0x0301 | 0x4, fields)
            return box("moof", mfhd + box("traf", tfhd + tfdt + trun))
        }
        let size = moof(dataOffset: 0).count
        let fragment = moof(dataOffset: UInt32(size + 8))
        let styp = box("styp", Array("msdh".utf8) + be32(0) + Array("msdh".utf8))
        return styp + fragment + box("mdat", samples.flatMap(\.bytes))
    }

    /// Sample flags of a sync sample: `sample_depends_on` 2, "does not depend on others"
    /// (ISO/IEC 14496-12 §8.8.3.1).
    static let syncSampleFlags: UInt32 = 0x0200_0000

    static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    static func be64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }

    static func fullBox(_ type: String, version: UInt8, flags: UInt32, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version] + be32(flags).dropFirst() + payload)
    }
}
