import HLSInterstitials
import HLSLoading
import HLSPlaylist
import MediaTiming

/// The inline SVG drawings of `hlsi report` besides the integrated timeline (``TimelinePicture``):
/// each break's schedule, the media timing of each measured playlist with its gaps and overlaps,
/// and the player's trace as a timeline. Pure: a drawing is a function of its input.
enum ReportDrawings {
    private static let width = 960.0
    private static let left = 40.0
    private static let span = width - 80
    private static let primaryColor = "#3b7dd8"
    private static let breakColor = "#f29d1f"
    private static let gapColor = "#d0312d"
    private static let overlapColor = "#7c3aed"
    /// The most segments drawn per playlist; a note says how many more there were.
    static let maximumSegmentsDrawn = 2000

    private static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    private static func rect(
        _ x: Double, _ y: Double, _ w: Double, _ h: Double, _ fill: String, _ type: String
    )
        -> String
    {
        "<rect class=\"\(type)\" x=\"\(number(x))\" y=\"\(number(y))\" width=\"\(number(max(w, 1)))\" height=\"\(number(h))\" fill=\"\(fill)\"/>"
    }

    private static func text(
        _ x: Double, _ y: Double, _ content: String, size: Int = 11, fill: String = "#1f2933"
    )
        -> String
    {
        "<text x=\"\(number(x))\" y=\"\(number(y))\" font-size=\"\(size)\" fill=\"\(fill)\">\(ReportHTML.escape(content))</text>"
    }

    private static func svg(height: Double, label: String, _ body: [String]) -> String {
        let h = Int(height.rounded(.up))
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(h)" viewBox="0 0 \(Int(width)) \(h)" font-family="Helvetica, Arial, sans-serif" role="img" aria-label="\(ReportHTML.escape(label))">
            <rect width="100%" height="100%" fill="#ffffff"/>
            \(body.joined(separator: "\n"))
            </svg>

            """
    }

    // MARK: A break

    /// One break: the primary around it, the break at its start (point or range), each asset as a
    /// rectangle of its duration (`class="asset"`), and where primary resumes.
    static func breakPicture(_ scheduled: InterstitialSchedule.Event, in schedule: InterstitialSchedule) -> String {
        let assets = ReportHTML.assets(of: scheduled.event)
        let playout = scheduled.isScheduled ? scheduled.playoutDuration.seconds : 0
        let assetTotal = assets.compactMap(\.duration?.seconds).reduce(0, +)
        let primaryEnd = schedule.primaryDuration?.seconds ?? max(scheduled.resumeTime.seconds, 1)
        let scale = max(primaryEnd, scheduled.resumeTime.seconds, 1)
        func x(_ seconds: Double) -> Double { left + span * min(max(seconds, 0), scale) / scale }
        var body: [String] = []
        // Lane 1: the primary with the break's start and where primary resumes.
        body.append(text(left, 14, "primary", fill: "#52606d"))
        body.append(rect(left, 20, span, 8, primaryColor, "primary"))
        let start = x(scheduled.start.seconds)
        body.append(
            "<line class=\"start\" x1=\"\(number(start))\" y1=\"16\" x2=\"\(number(start))\" y2=\"32\" stroke=\"\(breakColor)\" stroke-width=\"3\"/>"
        )
        body.append(text(start + 4, 44, "starts \(ReportHTML.time(scheduled.start))"))
        if scheduled.resumeTime != scheduled.start {
            let resume = x(scheduled.resumeTime.seconds)
            body.append(rect(start, 20, resume - start, 8, "#9aa5b1", "skipped"))
            body.append(
                "<line class=\"resume\" x1=\"\(number(resume))\" y1=\"16\" x2=\"\(number(resume))\" y2=\"32\" stroke=\"#1e7b34\" stroke-width=\"3\"/>"
            )
            body.append(text(resume + 4, 56, "resumes \(ReportHTML.time(scheduled.resumeTime))", fill: "#1e7b34"))
        }
        // Lane 2: the assets, one after the other, over the break's playout.
        let assetScale = max(playout, assetTotal, 1)
        body.append(text(left, 76, "break playout \(ReportHTML.time(scheduled.playoutDuration))", fill: "#52606d"))
        var cursor = 0.0
        for (index, asset) in assets.enumerated() {
            let duration = asset.duration?.seconds ?? (assetScale / Double(max(assets.count, 1)))
            let x0 = left + span * cursor / assetScale
            let w = span * duration / assetScale
            body.append(rect(x0, 82, w - 1, 16, index % 2 == 0 ? breakColor : "#f7b955", "asset"))
            body.append(text(x0 + 3, 112, "\(index + 1): \(ReportHTML.time(asset.duration))", size: 10))
            cursor += duration
        }
        if playout > 0, assetTotal > playout {
            // X-PLAYOUT-LIMIT or a resumption cut the assets short.
            let limit = left + span * playout / assetScale
            body.append(
                "<line class=\"limit\" x1=\"\(number(limit))\" y1=\"78\" x2=\"\(number(limit))\" y2=\"102\" stroke=\"\(gapColor)\" stroke-width=\"2\" stroke-dasharray=\"3 2\"/>"
            )
        }
        return "<div class=\"drawing\">\n" + svg(height: 122, label: "break " + scheduled.id, body) + "</div>\n"
    }

    // MARK: Media timing

    /// One track's measured span in one segment, placed on the playlist's EXTINF timeline.
    struct Placed: Hashable {
        /// The segment's 0-based index in the playlist.
        var index: Int
        /// The track kind (`video`, `audio`, …).
        var track: String
        /// Where the track starts and ends on the EXTINF timeline, in seconds.
        var start: Double
        var end: Double
    }

    /// A gap (positive) or overlap (negative) in one track between two segments, or at an asset's
    /// start (against its earliest track) or end (against its last EXTINF boundary).
    struct Edge: Hashable {
        /// `between`, `asset start` or `asset end`.
        var kind: String
        /// The segment after the edge (its index), or the last segment for `asset end`.
        var index: Int
        var track: String
        /// Where on the EXTINF timeline, in seconds.
        var at: Double
        /// Milliseconds: positive, a gap; negative, an overlap.
        var milliseconds: Double
    }

    /// Lays out the segments read of `playlist` on its EXTINF timeline: the first segment of each
    /// contiguous run is anchored at its earliest track start; each next segment is expected where
    /// the one before ends by its EXTINF. Returns the placed spans and the edges larger than 1 ms.
    static func layout(_ playlist: MeasuredPlaylist) -> (placed: [Placed], edges: [Edge], end: Double) {
        var placed: [Placed] = []
        var edges: [Edge] = []
        var base = 0.0  // where the segment starts on the drawing (EXTINF timeline)
        var anchor = 0.0  // the media time expected at `base`
        var previous: MeasuredPlaylist.Segment?
        var previousEnds: [String: Double] = [:]
        for segment in playlist.measured.sorted(by: { $0.index < $1.index }) {
            let starts = segment.tracks.filter { $0.sampleCount > 0 }.map(\.editedPresentationStart.seconds)
            guard let earliest = starts.min() else { continue }
            let contiguous =
                previous.map { $0.index + 1 == segment.index && !segment.discontinuity } ?? false
            if let previous {
                base += previous.extinf
                if !contiguous { previousEnds = [:] }
                anchor = contiguous ? anchor + previous.extinf : earliest
            } else {
                anchor = earliest
            }
            for track in segment.tracks where track.sampleCount > 0 {
                let kind = track.kind.rawValue
                let start = base + track.editedPresentationStart.seconds - anchor
                let end = start + track.duration.seconds
                placed.append(Placed(index: segment.index, track: kind, start: start, end: end))
                if let before = previousEnds[kind] {
                    let delta = (start - before) * 1000
                    if abs(delta) >= 1 {
                        edges.append(
                            Edge(kind: "between", index: segment.index, track: kind, at: before, milliseconds: delta))
                    }
                } else if playlist.interstitial != nil, segment.index == 0 {
                    let delta = (track.editedPresentationStart.seconds - earliest) * 1000
                    if abs(delta) >= 1 {
                        edges.append(Edge(kind: "asset start", index: 0, track: kind, at: base, milliseconds: delta))
                    }
                }
                previousEnds[kind] = end
            }
            if playlist.interstitial != nil, segment.index == playlist.segmentCount - 1 {
                let boundary = base + segment.extinf
                for track in segment.tracks where track.sampleCount > 0 {
                    let end = base + track.editedPresentationStart.seconds - anchor + track.duration.seconds
                    let delta = (boundary - end) * 1000
                    if abs(delta) >= 1 {
                        edges.append(
                            Edge(
                                kind: "asset end", index: segment.index, track: track.kind.rawValue,
                                at: min(end, boundary),
                                milliseconds: delta))
                    }
                }
            }
            previous = segment
        }
        let end = max(base + (previous?.extinf ?? 0), placed.map(\.end).max() ?? 0)
        return (placed, edges, end)
    }

    /// The `media` section: per measured playlist, its tracks drawn segment by segment on the
    /// EXTINF timeline, gaps in red and overlaps in violet, and a table of them.
    static func mediaSection(_ media: MediaReport) -> String {
        var html = "<section id=\"media\">\n<h2>Media timing</h2>\n"
        html += "<p>Each track of each segment read, placed where its EXTINF durations say it should be: "
        html += "a <span style=\"color:\(gapColor)\">gap</span> where a track starts after the one before ends "
        html += "(or an asset's track starts after its first sample, or ends before its last EXTINF boundary), "
        html += "an <span style=\"color:\(overlapColor)\">overlap</span> where it starts before. "
        html += "Edges under 1 ms are aligned and not drawn.</p>\n"
        html += "<pre class=\"media-table\">\(ReportHTML.escape(media.table))</pre>\n"
        for playlist in media.playlists {
            let (placed, edges, end) = layout(playlist)
            let title = (playlist.interstitial.map { "asset of \"\($0)\": " } ?? "primary: ") + playlist.location
            html += "<div class=\"measured\" data-location=\"\(ReportHTML.escape(playlist.location))\">\n"
            html += "<h3>\(ReportHTML.escape(title))</h3>\n"
            html += "<p>\(playlist.segments.count) of \(playlist.segmentCount) segments read"
            html += playlist.skipped > 0 ? ", \(playlist.skipped) left out" : ""
            html += ".</p>\n"
            html += "<div class=\"drawing\">\n" + mediaPicture(placed, edges, end: end, title: title) + "</div>\n"
            if !edges.isEmpty {
                html += "<table class=\"edges\">\n<thead><tr><th>Where</th><th>Segment</th><th>Track</th>"
                html += "<th>At (s)</th><th>ms</th><th>Result</th></tr></thead>\n<tbody>\n"
                for edge in edges.prefix(maximumSegmentsDrawn) {
                    let result = edge.milliseconds > 0 ? "gap" : "overlap"
                    html += "<tr class=\"\(result)\"><td>\(edge.kind)</td><td>\(edge.index)</td>"
                    html += "<td>\(ReportHTML.escape(edge.track))</td><td>\(ReportHTML.format(edge.at))</td>"
                    html += "<td>\(String(format: "%+.1f", edge.milliseconds))</td><td>\(result)</td></tr>\n"
                }
                html += "</tbody>\n</table>\n"
            }
            html += "</div>\n"
        }
        return html + "</section>\n"
    }

    private static func mediaPicture(_ placed: [Placed], _ edges: [Edge], end: Double, title: String) -> String {
        let tracks = Array(Set(placed.map(\.track))).sorted {
            ($0 == "video" ? 0 : 1, $0) < ($1 == "video" ? 0 : 1, $1)
        }
        let scale = max(end, 0.001)
        func x(_ seconds: Double) -> Double { left + span * min(max(seconds, 0), scale) / scale }
        var body: [String] = []
        let laneHeight = 34.0
        for (lane, track) in tracks.enumerated() {
            let y = 24 + Double(lane) * laneHeight
            body.append(text(left, y - 4, track, fill: "#52606d"))
            for (position, item) in placed.filter({ $0.track == track }).prefix(maximumSegmentsDrawn).enumerated() {
                let color = position % 2 == 0 ? primaryColor : "#6a9be3"
                body.append(rect(x(item.start), y, x(item.end) - x(item.start), 14, color, "segment"))
            }
            for edge in edges where edge.track == track {
                let w = abs(edge.milliseconds) / 1000
                let from = edge.milliseconds > 0 ? edge.at : edge.at - w
                let color = edge.milliseconds > 0 ? gapColor : overlapColor
                let type = edge.milliseconds > 0 ? "gap" : "overlap"
                // At least 3 px wide, so that a 1 ms edge on an hour still shows.
                body.append(rect(x(from), y - 3, max(x(from + w) - x(from), 3), 20, color, type))
            }
        }
        let height = 30 + Double(tracks.count) * laneHeight
        body.append(text(left, height - 4, "0 s"))
        body.append(text(left + span - 40, height - 4, ReportHTML.format(end) + " s"))
        return svg(height: height + 4, label: "media timing of " + title, body)
    }

    // MARK: The trace

    /// The player's trace on its clock: primary and interstitial playback as bars (an interstitial
    /// from `interstitialStarted` to `interstitialEnded`, each asset below it), the other events as
    /// ticks, and the media transitions as marks colored by gap or overlap.
    static func traceTimeline(_ trace: [StreamReport.TraceLine]) -> String {
        let end = max(trace.map(\.time).max() ?? 0, 0.001)
        func x(_ seconds: Double) -> Double { left + span * min(max(seconds, 0), end) / end }
        var body: [String] = []
        body.append(text(left, 14, "playing (clock seconds)", fill: "#52606d"))
        body.append(rect(left, 20, span, 14, primaryColor, "primary"))
        body.append(text(left, 62, "assets", fill: "#52606d"))
        var breakStart: [String: Double] = [:]
        var assetStart: [String: Double] = [:]
        for line in trace {
            let id = line["id"] ?? ""
            switch line.event {
            case "interstitialStarted": breakStart[id] = line.time
            case "interstitialEnded":
                let start = breakStart.removeValue(forKey: id) ?? line.time
                body.append(rect(x(start), 20, x(line.time) - x(start), 14, breakColor, "interstitial"))
                body.append(text(x(start) + 2, 46, id, size: 10))
            case "assetStarted": assetStart[id + "#" + (line["index"] ?? "")] = line.time
            case "assetEnded":
                let key = id + "#" + (line["index"] ?? "")
                let start = assetStart.removeValue(forKey: key) ?? line.time
                let shade = (Int(line["index"] ?? "0") ?? 0) % 2 == 0 ? breakColor : "#f7b955"
                body.append(rect(x(start), 68, x(line.time) - x(start), 10, shade, "asset"))
            default: break
            }
        }
        // A break still playing when the trace stops runs to its end.
        for (id, start) in breakStart.sorted(by: { $0.key < $1.key }) {
            body.append(rect(x(start), 20, x(end) - x(start), 14, breakColor, "interstitial"))
            body.append(text(x(start) + 2, 46, id, size: 10))
        }
        body.append(text(left, 96, "events", fill: "#52606d"))
        let ticks: Set<String> = [
            "seekRequested", "seekCompleted", "seekRefused", "skipRefused", "eventSkipped", "interstitialCancelled",
            "rateChanged", "paused", "stalled", "warning", "error", "ended", "variantSwitched", "beaconSent",
            "primaryResumed",
        ]
        for line in trace where ticks.contains(line.event) {
            let bad = ["error", "stalled", "seekRefused", "skipRefused", "warning"].contains(line.event)
            body.append(
                "<line class=\"event\" x1=\"\(number(x(line.time)))\" y1=\"100\" x2=\"\(number(x(line.time)))\" y2=\"112\" stroke=\"\(bad ? gapColor : "#52606d")\" stroke-width=\"1\"><title>\(ReportHTML.escape(line.event))</title></line>"
            )
        }
        body.append(text(left, 130, "media transitions (red: gap, violet: overlap, grey: aligned)", fill: "#52606d"))
        for line in trace where line.event == "mediaTransition" {
            let color: String
            switch line["result"] {
            case "gap": color = gapColor
            case "overlap": color = overlapColor
            default: color = "#9aa5b1"
            }
            let lane = line["track"] == "audio" ? 12.0 : 0
            body.append(
                "<rect class=\"transition\" x=\"\(number(x(line.time) - 2))\" y=\"\(number(136 + lane))\" width=\"4\" height=\"10\" fill=\"\(color)\"><title>\(ReportHTML.escape("\(line["track"] ?? "") \(line["transition"] ?? ""): \(line["gapMs"] ?? "-") ms"))</title></rect>"
            )
        }
        body.append(text(left, 174, "0 s"))
        body.append(text(left + span - 50, 174, ReportHTML.format(end) + " s"))
        return "<div class=\"drawing\">\n" + svg(height: 180, label: "playback trace", body) + "</div>\n"
    }
}
