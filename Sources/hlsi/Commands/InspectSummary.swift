import HLSInterstitials
import HLSPlaylist

/// The text summary printed by `hlsi inspect`.
struct InspectSummary {
    var location: String
    var playlist: Playlist
    var limit: Int
    /// The schedule each date range came from, when `--schedules` followed them (R27).
    var scheduleOf: [String: String] = [:]

    var text: String {
        var lines = ["file: \(location)"]
        switch playlist {
        case .media(let media): lines += summary(media)
        case .multivariant(let multivariant): lines += summary(multivariant)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func summary(_ playlist: MediaPlaylist) -> [String] {
        var lines: [String] = []
        let type = playlist.playlistType ?? (playlist.hasEndList ? "ended" : "live")
        lines.append("kind: media playlist (\(type)\(playlist.iFramesOnly ? ", I-frames only" : ""))")
        lines.append("version: \(playlist.version.map(String.init) ?? "1 (no EXT-X-VERSION)")")
        lines.append("target duration: \(playlist.targetDuration.map { "\($0) s" } ?? "missing")")
        if let partTarget = playlist.partTarget { lines.append("part target: \(partTarget) s (low-latency)") }
        let segments = playlist.segments
        var segmentLine = "segments: \(segments.count)"
        if let first = segments.first, let last = segments.last {
            let discontinuities = segments.indices.count { segments.hasDiscontinuity(at: $0) }
            segmentLine +=
                " (media sequence \(first.mediaSequence)–\(last.mediaSequence), \(discontinuities) discontinuit\(discontinuities == 1 ? "y" : "ies"))"
        }
        lines.append(segmentLine)
        lines.append("duration: \(playlist.duration) s (\(Self.clock(playlist.duration)))")
        if let range = playlist.dateRange {
            lines.append("program date-time: \(range.lowerBound.iso8601) … \(range.upperBound.iso8601)")
        } else {
            lines.append("program date-time: none")
        }
        let interstitials = playlist.dateRanges.filter { $0.className == "com.apple.hls.interstitial" }.count
        let schedules = playlist.dateRanges.filter { $0.className == DateRangeSchedule.className }.count
        lines.append(
            "date ranges: \(playlist.dateRanges.count) (\(interstitials) interstitial"
                + (schedules > 0 ? ", \(schedules) schedule)" : ")"))
        for range in playlist.dateRanges.prefix(limit) {
            var line = "  \(range.id)"
            if let className = range.className { line += "  class=\(className)" }
            if let start = range.startDate { line += "  start=\(start.iso8601)" }
            if let time = range.startTime { line += " (\(time) s)" }
            if let duration = range.resolvedDuration { line += "  duration=\(duration) s" }
            if let planned = range.plannedDuration { line += "  planned=\(planned) s" }
            if let cue = range.cue { line += "  cue=\(cue.joined(separator: ","))" }
            if range.className == DateRangeSchedule.className {
                line += "  uri=\(range.attributes[DateRangeSchedule.AttributeName.uri]?.quotedString ?? "missing")"
            }
            if let schedule = scheduleOf[range.id] { line += "  schedule=\(schedule)" }
            lines.append(line)
        }
        if playlist.dateRanges.count > limit {
            lines.append("  … \(playlist.dateRanges.count - limit) more (--json lists all)")
        }
        lines += signals(playlist)
        if !playlist.preloadHints.isEmpty { lines.append("preload hints: \(playlist.preloadHints.count)") }
        if !playlist.renditionReports.isEmpty { lines.append("rendition reports: \(playlist.renditionReports.count)") }
        if !playlist.unknownTags.isEmpty { lines.append("unknown tags: \(playlist.unknownTags.count) (kept)") }
        return lines
    }

    /// The ad breaks the playlist signals with SCTE-35 (none: no lines).
    private func signals(_ playlist: MediaPlaylist) -> [String] {
        let breaks = SignalRecognizer.recognize(playlist).breaks
        guard !breaks.isEmpty else { return [] }
        var lines = ["signals: \(breaks.count) SCTE-35 break\(breaks.count == 1 ? "" : "s")"]
        for item in breaks.prefix(limit) {
            var line = "  \(item.id)  form=\(item.form)  line=\(item.line)"
            if let eventID = item.eventID { line += "  \(eventID)" }
            if let start = item.startDate { line += "  start=\(start.iso8601)" }
            if let time = item.startTime { line += " (\(time) s)" }
            if let planned = item.plannedDuration { line += "  planned=\(planned) s" }
            if let actual = item.actualDuration {
                line += "  returned early after \(actual) s"
            } else if let returned = item.returnedAfter {
                line += "  returned after \(returned) s"
            }
            if item.isCancelled { line += "  cancelled" }
            lines.append(line)
        }
        if breaks.count > limit { lines.append("  … \(breaks.count - limit) more") }
        return lines
    }

    private func summary(_ playlist: MultivariantPlaylist) -> [String] {
        var lines: [String] = ["kind: multivariant playlist"]
        lines.append("version: \(playlist.version.map(String.init) ?? "1 (no EXT-X-VERSION)")")
        lines.append("variants: \(playlist.variants.count)")
        for variant in playlist.variants.prefix(limit) {
            var line = "  \(variant.bandwidth.map { "\($0) bps" } ?? "? bps")"
            if let resolution = variant.resolution { line += "  \(resolution)" }
            if let codecs = variant.codecs { line += "  \(codecs.joined(separator: ","))" }
            if let audio = variant.audio { line += "  audio=\(audio)" }
            if let subtitles = variant.subtitles { line += "  subtitles=\(subtitles)" }
            line += "  \(variant.uri)"
            lines.append(line)
        }
        if !playlist.iFrameVariants.isEmpty { lines.append("I-frame variants: \(playlist.iFrameVariants.count)") }
        lines.append("renditions: \(playlist.renditions.count)")
        for rendition in playlist.renditions.prefix(limit) {
            var line = "  \(rendition.type)  group=\(rendition.groupID)  name=\(rendition.name)"
            if let language = rendition.language { line += "  language=\(language)" }
            if rendition.isDefault { line += "  default" }
            if let uri = rendition.uri { line += "  \(uri)" }
            lines.append(line)
        }
        if !playlist.sessionData.isEmpty { lines.append("session data: \(playlist.sessionData.count)") }
        if !playlist.sessionKeys.isEmpty { lines.append("session keys: \(playlist.sessionKeys.count)") }
        if let steering = playlist.contentSteering { lines.append("content steering: \(steering.serverURI)") }
        return lines
    }

    /// `h:mm:ss.mmm`.
    static func clock(_ time: MediaTime) -> String {
        let milliseconds = time.nanoseconds / 1_000_000
        let hours = milliseconds / 3_600_000
        let minutes = (milliseconds / 60_000) % 60
        let seconds = (milliseconds / 1000) % 60
        let millis = milliseconds % 1000
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let milliText = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(hours):\(two(minutes)):\(two(seconds)).\(milliText)"
    }
}
