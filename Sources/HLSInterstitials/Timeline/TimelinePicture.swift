import HLSPlaylist

/// Draws a schedule's integrated timeline the way a transport bar would: primary ranges, point
/// markers for POINT events, highlighted ranges for RANGE events (RANGE events with the PRIMARY
/// style drawn like primary), and below it the primary timeline with the parts that resumption
/// offsets skip shown as gaps.
public enum TimelinePicture {
    /// An SVG document.
    public static func svg(_ schedule: InterstitialSchedule, title: String = "") -> String {
        let width = 960.0
        let left = 40.0
        let right = 40.0
        let snapshot = IntegratedTimelineSnapshot(schedule: schedule)
        let integratedEnd = max(
            schedule.integratedDuration ?? schedule.items.last?.integrated.upperBound ?? .zero, MediaTime(seconds: 1))
        let primaryEnd = max(
            schedule.primaryDuration ?? schedule.items.map(\.primary.range.upperBound).max() ?? .zero,
            MediaTime(seconds: 1))
        let span = width - left - right
        func x(_ time: MediaTime, _ end: MediaTime) -> Double { left + span * time.seconds / end.seconds }
        func number(_ value: Double) -> String {
            let rounded = (value * 10).rounded() / 10
            return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        }
        func escape(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        let primaryColor = "#3b7dd8"
        let highlight = "#f29d1f"
        var body: [String] = []
        let heading =
            (title.isEmpty ? "" : title + " · ")
            + "integrated \(label(schedule.integratedDuration)) · playout \(label(schedule.playoutDuration)) · primary \(label(schedule.primaryDuration))"
        body.append("<text x=\"\(number(left))\" y=\"22\" class=\"title\">\(escape(heading))</text>")
        body.append("<text x=\"\(number(left))\" y=\"52\" class=\"lane\">integrated timeline</text>")

        // Lane 1: the integrated timeline.
        let barY = 86.0
        var pointsAt: [MediaTime: Int] = [:]
        var pointCount: [MediaTime: Int] = [:]
        for segment in snapshot.segments where segment.isSinglePoint {
            pointCount[segment.timeMapping.target.lowerBound, default: 0] += 1
        }
        for segment in snapshot.segments {
            let target = segment.timeMapping.target
            let x0 = x(target.lowerBound, integratedEnd)
            let x1 = x(target.upperBound, integratedEnd)
            switch segment.segmentType {
            case .primary:
                body.append(rect(x0, barY, x1 - x0, 16, primaryColor))
            case .interstitial:
                let id = escape(segment.interstitialEvent?.identifier ?? "?")
                if segment.isSinglePoint {
                    let stack = pointsAt[target.lowerBound, default: 0]
                    pointsAt[target.lowerBound] = stack + 1
                    // The first event at a time gets the top label, so the labels read in playout order.
                    let labelY = barY - 10 - Double(pointCount[target.lowerBound, default: 1] - 1 - stack) * 13
                    body.append(
                        "<path d=\"M\(number(x0 - 5)) \(number(barY - 7)) L\(number(x0 + 5)) \(number(barY - 7)) L\(number(x0)) \(number(barY + 1)) Z\" fill=\"#d0312d\"/>"
                    )
                    body.append(
                        "<line x1=\"\(number(x0))\" y1=\"\(number(barY))\" x2=\"\(number(x0))\" y2=\"\(number(barY + 16))\" stroke=\"#d0312d\" stroke-width=\"2\"/>"
                    )
                    body.append("<text x=\"\(number(x0 + 7))\" y=\"\(number(labelY))\" class=\"id\">\(id)</text>")
                } else if segment.interstitialEvent?.supplementsPrimaryContent == true {
                    body.append(rect(x0, barY, x1 - x0, 16, primaryColor))
                } else {
                    body.append(rect(x0, barY, x1 - x0, 16, highlight))
                    body.append("<text x=\"\(number(x0 + 3))\" y=\"\(number(barY - 6))\" class=\"id\">\(id)</text>")
                }
            }
        }
        body += ticks(integratedEnd, y: barY + 32) { x($0, integratedEnd) }

        // Lane 2: the primary timeline, with gaps where resumption offsets skip primary.
        let primaryY = 170.0
        body.append(
            "<text x=\"\(number(left))\" y=\"\(number(primaryY - 14))\" class=\"lane\">primary timeline (gaps: skipped by resumption offsets)</text>"
        )
        body.append(
            "<rect x=\"\(number(left))\" y=\"\(number(primaryY))\" width=\"\(number(span))\" height=\"10\" fill=\"none\" stroke=\"#9aa5b1\" stroke-dasharray=\"4 3\"/>"
        )
        for item in schedule.items where item.kind == .primary {
            let x0 = x(item.primary.start, primaryEnd)
            let x1 = x(item.primary.end, primaryEnd)
            body.append(rect(x0, primaryY, x1 - x0, 10, primaryColor, opacity: 0.55))
        }
        for gap in skippedRanges(schedule) {
            let x0 = x(gap.lowerBound, primaryEnd)
            body.append(
                "<text x=\"\(number(x0))\" y=\"\(number(primaryY + 24))\" class=\"gap\">skipped \(label(gap.lowerBound))–\(label(gap.upperBound))</text>"
            )
        }
        body += ticks(primaryEnd, y: primaryY + 44) { x($0, primaryEnd) }

        // Legend.
        let legendY = 250.0
        body.append(rect(left, legendY - 9, 14, 10, primaryColor))
        body.append(
            "<text x=\"\(number(left + 20))\" y=\"\(number(legendY))\" class=\"legend\">primary (and RANGE events styled PRIMARY)</text>"
        )
        body.append(rect(left + 300, legendY - 9, 14, 10, highlight))
        body.append(
            "<text x=\"\(number(left + 320))\" y=\"\(number(legendY))\" class=\"legend\">RANGE event (highlighted)</text>"
        )
        body.append(
            "<path d=\"M\(number(left + 505)) \(number(legendY - 9)) L\(number(left + 515)) \(number(legendY - 9)) L\(number(left + 510)) \(number(legendY)) Z\" fill=\"#d0312d\"/>"
        )
        body.append("<text x=\"\(number(left + 522))\" y=\"\(number(legendY))\" class=\"legend\">POINT event</text>")

        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="270" viewBox="0 0 \(Int(width)) 270" font-family="Helvetica, Arial, sans-serif">
            <style>.title{font-size:14px;font-weight:bold;fill:#1f2933}.lane{font-size:11px;fill:#52606d}.id{font-size:11px;fill:#1f2933}.tick{font-size:10px;fill:#52606d}.gap{font-size:10px;fill:#d0312d}.legend{font-size:11px;fill:#1f2933}</style>
            <rect width="100%" height="100%" fill="#ffffff"/>
            \(body.joined(separator: "\n"))
            </svg>

            """
    }

    /// A terminal drawing in `width` columns, with ANSI colors unless `colors` is false.
    ///
    /// The width is taken within 1…10,000 columns.
    public static func ansi(_ schedule: InterstitialSchedule, width: Int = 72, colors: Bool = true) -> String {
        let width = min(max(width, 1), 10_000)
        let snapshot = IntegratedTimelineSnapshot(schedule: schedule)
        let end = max(
            schedule.integratedDuration ?? schedule.items.last?.integrated.upperBound ?? .zero, MediaTime(seconds: 1))
        func column(_ time: MediaTime) -> Int {
            min(width - 1, max(0, Int((time.seconds / end.seconds * Double(width)).rounded(.down))))
        }
        let blue = colors ? "\u{1B}[34m" : ""
        let yellow = colors ? "\u{1B}[33m" : ""
        let red = colors ? "\u{1B}[31m" : ""
        let reset = colors ? "\u{1B}[0m" : ""
        /// One column: its color code (empty for none) and its glyph.
        typealias Cell = (color: String, glyph: Character)
        var bar = [Cell](repeating: ("", " "), count: width)
        var markers = [Cell](repeating: ("", " "), count: width)
        var names: [String] = []
        for segment in snapshot.segments {
            let target = segment.timeMapping.target
            let from = column(target.lowerBound)
            let to = max(from + 1, Int((target.upperBound.seconds / end.seconds * Double(width)).rounded(.down)))
            if segment.isSinglePoint {
                markers[from] = (red, "▼")
                names.append("▼ \(segment.interstitialEvent?.identifier ?? "?") at \(label(target.lowerBound))")
                continue
            }
            let highlighted =
                segment.segmentType == .interstitial && segment.interstitialEvent?.supplementsPrimaryContent != true
            for index in from..<min(to, width) {
                bar[index] = highlighted ? (yellow, "█") : (blue, "━")
            }
            if highlighted {
                names.append(
                    "█ \(segment.interstitialEvent?.identifier ?? "?") \(label(target.lowerBound))–\(label(target.upperBound))"
                )
            }
        }
        // Consecutive cells of one color share one color code and one reset.
        func line(_ cells: [Cell]) -> String {
            var text = ""
            var current = ""
            for cell in cells {
                if cell.color != current {
                    if !current.isEmpty { text += reset }
                    text += cell.color
                    current = cell.color
                }
                text.append(cell.glyph)
            }
            return current.isEmpty ? text : text + reset
        }
        var text = line(markers) + "\n" + line(bar) + "\n"
        let startLabel = "0"
        let endLabel = label(schedule.integratedDuration)
        text +=
            startLabel + String(repeating: " ", count: max(1, width - startLabel.count - endLabel.count)) + endLabel
            + "\n"
        for name in names { text += "  " + name + "\n" }
        for gap in skippedRanges(schedule) {
            text += "  \(red)gap\(reset) primary \(label(gap.lowerBound))–\(label(gap.upperBound)) is skipped\n"
        }
        text +=
            "  integrated \(label(schedule.integratedDuration)), playout \(label(schedule.playoutDuration)), primary \(label(schedule.primaryDuration))\n"
        return text
    }

    /// The parts of the primary timeline no primary item plays: what resumption offsets skip.
    public static func skippedRanges(_ schedule: InterstitialSchedule) -> [Range<MediaTime>] {
        let played = schedule.items.filter { $0.kind == .primary }.map(\.primary.range).sorted {
            $0.lowerBound < $1.lowerBound
        }
        let start = schedule.items.first { $0.kind == .primary }.map { _ in played.first?.lowerBound ?? .zero } ?? .zero
        var gaps: [Range<MediaTime>] = []
        var cursor = min(start, .zero)
        for range in played {
            if range.lowerBound > cursor { gaps.append(cursor..<range.lowerBound) }
            cursor = max(cursor, range.upperBound)
        }
        if let end = schedule.primaryDuration, end > cursor { gaps.append(cursor..<end) }
        return gaps
    }

    /// `12.5 s`, `1:02:03`, or `indefinite`.
    static func label(_ time: MediaTime?) -> String {
        guard let time else { return "indefinite" }
        let total = time.seconds
        if total < 60 {
            let rounded = (total * 1000).rounded() / 1000
            return (rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)) + " s"
        }
        let seconds = Int(total.rounded())
        let (hours, minutes, rest) = (seconds / 3600, (seconds % 3600) / 60, seconds % 60)
        func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(pad(minutes)):\(pad(rest))" : "\(minutes):\(pad(rest))"
    }

    private static func rect(
        _ x: Double, _ y: Double, _ width: Double, _ height: Double, _ fill: String, opacity: Double = 1
    )
        -> String
    {
        func n(_ value: Double) -> String { String(format2: value) }
        return
            "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(max(width, 0)))\" height=\"\(n(height))\" fill=\"\(fill)\"\(opacity < 1 ? " fill-opacity=\"\(opacity)\"" : "")/>"
    }

    /// Tick marks and labels at a readable interval (at most about ten).
    private static func ticks(_ end: MediaTime, y: Double, x: (MediaTime) -> Double) -> [String] {
        let steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600]
        // Beyond the table, a multiple of 6 h that still gives about ten ticks (times up to ~292 years).
        let step =
            steps.first { end.seconds / Double($0) <= 10 }
            ?? Int((end.seconds / 10 / 21600).rounded(.up)) * 21600
        var lines: [String] = []
        var value = 0
        while Double(value) <= end.seconds + 0.0001 {
            let position = x(MediaTime(seconds: value))
            lines.append(
                "<line x1=\"\(String(format2: position))\" y1=\"\(String(format2: y - 14))\" x2=\"\(String(format2: position))\" y2=\"\(String(format2: y - 10))\" stroke=\"#52606d\"/>"
            )
            lines.append(
                "<text x=\"\(String(format2: position))\" y=\"\(String(format2: y))\" class=\"tick\" text-anchor=\"middle\">\(label(MediaTime(seconds: value)))</text>"
            )
            value += step
        }
        return lines
    }
}

extension String {
    /// A number with at most two decimals.
    fileprivate init(format2 value: Double) {
        let rounded = (value * 100).rounded() / 100
        self = rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
