import HLSInterstitials
import HLSPlaylist
import Testing

@Suite("Timeline pictures")
struct TimelinePictureTests {
    static let schedule = ScheduleRuleTests.resolve(
        ScheduleRuleTests.playlist([
            ("point", "6", ",DURATION=5,X-RESUME-OFFSET=0"),
            ("fill", "18", ",DURATION=6,X-RESUME-OFFSET=0,X-TIMELINE-OCCUPIES=\"RANGE\""),
            ("quiet", "30", ",DURATION=6,X-RESUME-OFFSET=0,X-TIMELINE-OCCUPIES=\"RANGE\",X-TIMELINE-STYLE=\"PRIMARY\""),
            ("skip", "42", ",DURATION=4"),
        ]))

    @Test("the SVG draws primary, point markers, highlighted fills, PRIMARY-style fills as primary, and gaps")
    func svg() {
        let svg = TimelinePicture.svg(Self.schedule, title: "t")
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.components(separatedBy: "fill=\"#f29d1f\"").count - 1 == 2)  // the fill, and the legend
        #expect(svg.contains(">point</text>"))
        #expect(svg.contains(">fill</text>"))
        #expect(!svg.contains(">quiet</text>"))  // drawn like primary, not labelled
        #expect(svg.contains("skipped 42 s–46 s"))
        #expect(svg.contains("integrated 1:08 · playout 1:17 · primary 1:00"))
    }

    @Test("the terminal drawing marks points, fills and gaps, with or without colors")
    func ansi() {
        let plain = TimelinePicture.ansi(Self.schedule, width: 40, colors: false)
        #expect(!plain.contains("\u{1B}"))
        let lines = plain.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0].filter { $0 == "▼" }.count == 2)
        #expect(lines[1].contains("█"))
        #expect(plain.contains("▼ point at 6 s"))
        #expect(plain.contains("█ fill 18 s–24 s"))
        #expect(plain.contains("gap primary 42 s–46 s is skipped"))
        #expect(TimelinePicture.ansi(Self.schedule, width: 40).contains("\u{1B}[33m"))
    }

    @Test("skipped ranges are the primary no item plays")
    func skipped() {
        #expect(TimelinePicture.skippedRanges(Self.schedule) == [MediaTime(seconds: 42)..<MediaTime(seconds: 46)])
    }
}
