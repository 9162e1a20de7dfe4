import Foundation
import HLSInterstitials
import HLSPlaylist
import MediaTiming

/// The media rules: pure checks of what was measured in the segments against what the playlists say.
///
/// `StreamValidator` downloads and reads the segments (``MeasuredPlaylist``); these functions only
/// compare. Times are edited presentation times (`TrackTiming.editedPresentationStart`: fMP4 edit lists
/// applied, as AVFoundation and ffprobe present them); where an edit list moves one track and not the
/// other, the offset messages give the unedited (`tfdt`) figure too, which is what players that ignore
/// edit lists see.
public enum MediaValidator {
    /// Checks the segments read from one media playlist: `media-load`, `media-extinf`,
    /// `media-target-duration`, `media-key-frame`, `media-av-offset`, `media-continuity`,
    /// `media-discontinuity-gap` (before a discontinuity and at an asset's end), and for an
    /// interstitial asset (`measured.interstitial` set) `interstitial-media-offset` and
    /// `interstitial-media-key-frame` at its first segment.
    ///
    /// - Parameters:
    ///   - measured: what was read from the playlist's segments.
    ///   - playlist: the media playlist.
    ///   - document: its document, for locations.
    ///   - independentSegments: whether EXT-X-INDEPENDENT-SEGMENTS applies (in the media playlist or
    ///     its multivariant playlist).
    ///   - options: the tolerances.
    public static func validatePlaylist(
        _ measured: MeasuredPlaylist, playlist: MediaPlaylist, document: PlaylistDocument, independentSegments: Bool,
        options: MediaValidationOptions
    ) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        let isAsset = measured.interstitial != nil
        var previous: MeasuredPlaylist.Segment?
        for segment in measured.segments {
            let here = document.location(line: segment.line - 1)
            defer { previous = segment.failure == nil ? segment : nil }
            if let failure = segment.failure {
                diagnostics.append(Rule.mediaLoad.diagnostic(at: here, "segment \(segment.uri): \(failure)"))
                continue
            }
            if let measuredDuration = segment.measuredDuration {
                let difference = measuredDuration - segment.extinf
                if abs(difference) > options.durationTolerance {
                    diagnostics.append(
                        Rule.mediaEXTINF.diagnostic(
                            at: here,
                            "segment \(segment.uri): EXTINF is \(seconds(segment.extinf)) but its \(durationSource(segment)) lasts \(seconds(measuredDuration)) (\(milliseconds(difference)), tolerance \(milliseconds(options.durationTolerance, signed: false)))"
                        ))
                }
                if let target = playlist.targetDuration, measuredDuration.rounded() > Double(target) {
                    diagnostics.append(
                        Rule.mediaTargetDuration.diagnostic(
                            at: here,
                            "segment \(segment.uri): its \(durationSource(segment)) lasts \(seconds(measuredDuration)), which rounds to \(Int(measuredDuration.rounded())) s, more than EXT-X-TARGETDURATION:\(target)"
                        ))
                }
            }
            let video = segment.track(.video)
            let keyFrameRequired = independentSegments || playlist.iFramesOnly
            if keyFrameRequired, let video, video.startsWithKeyFrame == false {
                let tag = playlist.iFramesOnly ? "EXT-X-I-FRAMES-ONLY" : "EXT-X-INDEPENDENT-SEGMENTS"
                diagnostics.append(
                    Rule.mediaKeyFrame.diagnostic(
                        at: here,
                        "segment \(segment.uri): its video (\(video.codec ?? "track \(video.id)")) does not start with a key frame, but \(tag) says every segment can be decoded on its own"
                    ))
            } else if isAsset, segment.index == 0, let video, video.startsWithKeyFrame == false {
                diagnostics.append(
                    Rule.interstitialMediaKeyFrame.diagnostic(
                        at: here,
                        "interstitial \"\(measured.interstitial ?? "")\": the asset's first segment \(segment.uri) does not start with a video key frame"
                    ))
            }
            if segment.index == 0 || segment.discontinuity, let video, let audio = segment.track(.audio),
                let offset = startOffset(video: video, audio: audio, tolerance: options.startTolerance)
            {
                let place =
                    segment.index == 0 ? "the playlist's first segment" : "the first segment after a discontinuity"
                if isAsset, segment.index == 0 {
                    diagnostics.append(
                        Rule.interstitialMediaOffset.diagnostic(
                            at: here,
                            "interstitial \"\(measured.interstitial ?? "")\": in the asset's first segment \(segment.uri), \(offset)"
                        ))
                } else {
                    diagnostics.append(
                        Rule.mediaAVOffset.diagnostic(
                            at: here,
                            "segment \(segment.uri), \(place): \(offset)"
                        ))
                }
            }
            if let previous, previous.index + 1 == segment.index, !segment.discontinuity {
                diagnostics += continuity(from: previous, to: segment, at: here, options: options)
            }
            let next = segment.index + 1
            let endsTimeline =
                next < playlist.segments.count ? playlist.segments[next].discontinuity : isAsset && playlist.hasEndList
            if endsTimeline, let video, let audio = segment.track(.audio),
                let offset = endOffset(video: video, audio: audio, tolerance: options.startTolerance)
            {
                let place =
                    next < playlist.segments.count
                    ? "before the EXT-X-DISCONTINUITY" : "at the asset's end, where playback returns to the primary"
                let subject = isAsset ? "interstitial \"\(measured.interstitial ?? "")\": " : ""
                diagnostics.append(
                    Rule.mediaDiscontinuityGap.diagnostic(
                        at: here, "\(subject)segment \(segment.uri), \(place): \(offset)"))
            }
        }
        return diagnostics
    }

    /// Compares the starts of a video-only playlist and an audio rendition played with it
    /// (`media-av-offset`, or `interstitial-media-offset` for an asset's renditions), at the audio
    /// playlist's first segment: separate renditions start together only if their first segments do.
    public static func validateRenditionStart(
        video: MeasuredPlaylist, audio: MeasuredPlaylist, audioDocument: PlaylistDocument,
        options: MediaValidationOptions
    ) -> [Diagnostic] {
        guard let first = video.measured.first, first.index == 0, let videoTrack = first.track(.video),
            first.track(.audio) == nil, let audioFirst = audio.measured.first, audioFirst.index == 0,
            let audioTrack = audioFirst.track(.audio), audioFirst.track(.video) == nil,
            let offset = startOffset(video: videoTrack, audio: audioTrack, tolerance: options.startTolerance)
        else { return [] }
        let here = audioDocument.location(line: audioFirst.line - 1)
        let subject = "the audio rendition's first segment \(audioFirst.uri) against \(video.location)"
        if let interstitial = audio.interstitial {
            return [
                Rule.interstitialMediaOffset.diagnostic(
                    at: here, "interstitial \"\(interstitial)\": \(subject): \(offset)")
            ]
        }
        return [Rule.mediaAVOffset.diagnostic(at: here, "\(subject): \(offset)")]
    }

    /// Checks each variant's measured bit rates against its BANDWIDTH (`media-bandwidth`) and
    /// AVERAGE-BANDWIDTH (`media-average-bandwidth`), at the EXT-X-STREAM-INF tag in `document`.
    public static func validateVariants(
        _ variants: [MediaReport.Variant], document: PlaylistDocument, options: MediaValidationOptions
    ) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        let limit = 1 + options.bandwidthTolerance
        for variant in variants {
            if let bandwidth = variant.bandwidth, let peak = variant.measuredPeak,
                Double(peak) > Double(bandwidth) * limit
            {
                diagnostics.append(
                    Rule.mediaBandwidth.diagnostic(
                        at: document.location(line: variant.line - 1, attribute: "BANDWIDTH"),
                        "variant \(variant.uri): BANDWIDTH=\(bandwidth) but the measured peak segment bit rate is \(peak) bit/s (\(percent(peak, of: bandwidth)) of it; \(variant.playlists.joined(separator: " + ")))"
                    ))
            }
            if let average = variant.averageBandwidth, let measured = variant.measuredAverage,
                Double(measured) > Double(average) * limit
            {
                diagnostics.append(
                    Rule.mediaAverageBandwidth.diagnostic(
                        at: document.location(line: variant.line - 1, attribute: "AVERAGE-BANDWIDTH"),
                        "variant \(variant.uri): AVERAGE-BANDWIDTH=\(average) but the measured average segment bit rate is \(measured) bit/s (\(percent(measured, of: average)) of it)"
                    ))
            }
        }
        return diagnostics
    }

    /// Compares the media of an interstitial's asset with the primary's (`interstitial-media-codecs`):
    /// container formats, which of audio and video there are, codecs (by sample entry, and for AAC by
    /// audio object type) and audio sample rates, all read from the first segment of each playlist.
    public static func validateAssetMedia(
        primary: [MeasuredPlaylist], asset: [MeasuredPlaylist], eventID: String, at location: SourceLocation
    ) -> [Diagnostic] {
        let primaryLayout = Layout(primary)
        let assetLayout = Layout(asset)
        guard !primaryLayout.isEmpty, !assetLayout.isEmpty else { return [] }
        var differences: [String] = []
        if !assetLayout.formats.isSubset(of: primaryLayout.formats) {
            differences.append(
                "container \(assetLayout.formats.sorted().joined(separator: ", ")) (the primary's: \(primaryLayout.formats.sorted().joined(separator: ", ")))"
            )
        }
        for kind in [TrackKind.video, .audio] {
            let has = assetLayout.codecs[kind] != nil
            let primaryHas = primaryLayout.codecs[kind] != nil
            if has != primaryHas {
                differences.append(
                    has
                        ? "it has \(kind.rawValue) and the primary has none"
                        : "it has no \(kind.rawValue) and the primary has")
                continue
            }
            let codecs = assetLayout.codecs[kind] ?? []
            let primaryCodecs = primaryLayout.codecs[kind] ?? []
            if !codecs.isSubset(of: primaryCodecs) {
                differences.append(
                    "\(kind.rawValue) codec \(codecs.sorted().joined(separator: ", ")) (the primary's: \(primaryCodecs.sorted().joined(separator: ", ")))"
                )
            }
        }
        if !assetLayout.sampleRates.isSubset(of: primaryLayout.sampleRates) {
            differences.append(
                "audio sample rate \(assetLayout.sampleRates.sorted().map(String.init).joined(separator: ", ")) Hz (the primary's: \(primaryLayout.sampleRates.sorted().map(String.init).joined(separator: ", ")) Hz)"
            )
        }
        guard !differences.isEmpty else { return [] }
        let names = asset.map(\.location).joined(separator: ", ")
        return [
            Rule.interstitialMediaCodecs.diagnostic(
                at: location,
                "interstitial \"\(eventID)\": the media of \(names) differ from the primary's: \(differences.joined(separator: "; "))"
            )
        ]
    }

    // MARK: Helpers

    /// What the first segments of some playlists hold.
    private struct Layout {
        var formats: Set<String> = []
        var codecs: [TrackKind: Set<String>] = [:]
        var sampleRates: Set<Int> = []

        init(_ playlists: [MeasuredPlaylist]) {
            for playlist in playlists {
                guard let first = playlist.measured.first else { continue }
                if let format = first.format { formats.insert(format.rawValue) }
                for track in first.tracks where track.kind == .video || track.kind == .audio {
                    codecs[track.kind, default: []].insert(MediaValidator.codecFamily(track.codec))
                    if track.kind == .audio, let rate = track.sampleRate { sampleRates.insert(rate) }
                }
            }
        }

        var isEmpty: Bool { codecs.isEmpty }
    }

    /// The part of a codec string that needs another decoder: the sample entry (`avc1`, `hvc1`, `ec-3`),
    /// and for `mp4a` the object type and audio object type (`mp4a.40.2` is AAC-LC, `mp4a.40.5` HE-AAC).
    static func codecFamily(_ codec: String?) -> String {
        guard let codec else { return "unknown" }
        let parts = codec.split(separator: ".")
        if parts.first == "mp4a" { return parts.prefix(3).joined(separator: ".") }
        return parts.first.map(String.init) ?? codec
    }

    /// `audio starts 80.0 ms after video` when the starts differ by more than `tolerance`, with the
    /// unedited figure when an edit list changes it; nil when within the tolerance.
    static func startOffset(video: TrackTiming, audio: TrackTiming, tolerance: Double) -> String? {
        let edited = audio.editedPresentationStart.seconds - video.editedPresentationStart.seconds
        let raw = audio.presentationStart.seconds - video.presentationStart.seconds
        guard abs(edited) > tolerance else { return nil }
        var text = "audio starts \(milliseconds(abs(edited), signed: false)) \(edited > 0 ? "after" : "before") video"
        text +=
            " (video at \(seconds(video.editedPresentationStart.seconds)), audio at \(seconds(audio.editedPresentationStart.seconds))"
        if abs(raw - edited) > 0.0005 {
            text +=
                "; without the edit lists, audio starts \(milliseconds(abs(raw), signed: false)) \(raw > 0 ? "after" : "before") video"
        }
        return text + "; tolerance \(milliseconds(tolerance, signed: false)))"
    }

    /// `audio ends 80.0 ms before video: a 80.0 ms gap in the audio` when the ends differ by more than
    /// `tolerance`; nil when within it.
    static func endOffset(video: TrackTiming, audio: TrackTiming, tolerance: Double) -> String? {
        let videoEnd = video.editedPresentationStart.seconds + video.duration.seconds
        let audioEnd = audio.editedPresentationStart.seconds + audio.duration.seconds
        let difference = audioEnd - videoEnd
        guard abs(difference) > tolerance else { return nil }
        let (first, last) = difference < 0 ? ("audio", "video") : ("video", "audio")
        return
            "\(first) ends \(milliseconds(abs(difference), signed: false)) before \(last) (video at \(seconds(videoEnd)), audio at \(seconds(audioEnd))): a gap in the \(first) and an overlap in the \(last) where the next timeline starts; tolerance \(milliseconds(tolerance, signed: false))"
    }

    private static func continuity(
        from previous: MeasuredPlaylist.Segment, to segment: MeasuredPlaylist.Segment, at here: SourceLocation,
        options: MediaValidationOptions
    ) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for track in segment.tracks where track.kind == .video || track.kind == .audio {
            guard
                let before = previous.tracks.first(where: { $0.kind == track.kind && $0.id == track.id })
                    ?? previous.track(track.kind)
            else { continue }
            let end = before.editedPresentationStart.seconds + before.duration.seconds
            var delta = track.editedPresentationStart.seconds - end
            if segment.format == .mpegTS || segment.format == .packedAudio {
                // 33-bit, 90 kHz timestamps wrap every 2^33 ticks.
                let wrap = Double(1 << 33) / 90_000
                delta = remainder(delta, wrap)
            }
            guard abs(delta) > options.continuityTolerance else { continue }
            let kind = delta > 0 ? "gap" : "overlap"
            diagnostics.append(
                Rule.mediaContinuity.diagnostic(
                    at: here,
                    "segment \(segment.uri): its \(track.kind.rawValue) starts at \(seconds(track.editedPresentationStart.seconds)), \(milliseconds(abs(delta), signed: false)) \(delta > 0 ? "after" : "before") the previous segment's ends (\(seconds(end))): a \(kind) without EXT-X-DISCONTINUITY"
                ))
        }
        return diagnostics
    }

    private static func durationSource(_ segment: MeasuredPlaylist.Segment) -> String {
        segment.track(.video) != nil ? "video" : "media"
    }

    static func seconds(_ value: Double) -> String { String(format: "%.3f s", value) }

    static func milliseconds(_ value: Double, signed: Bool = true) -> String {
        String(format: signed ? "%+.1f ms" : "%.1f ms", value * 1000)
    }

    private static func percent(_ value: Int, of reference: Int) -> String {
        guard reference > 0 else { return "∞ %" }
        return "\(Int((Double(value) * 100 / Double(reference)).rounded())) %"
    }
}
