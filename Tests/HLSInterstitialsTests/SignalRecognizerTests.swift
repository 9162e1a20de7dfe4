import Foundation
import HLSInterstitials
import HLSPlaylist
import SCTE35
import Testing

/// The fixtures of Tests/Fixtures/scte35-playlists/: hand-written playlists whose sections are
/// written as placeholders the SCTE35 builders fill in: `{hex:…}` or `{b64:…}` around `out ID SECONDS`,
/// `in ID`, `cancel ID`, `ts TYPE ID [SECONDS]` (a time_signal with one segmentation descriptor) and
/// `tscancel ID`.
enum SignalFixture {
    static let directory = Sample.fixtures.appendingPathComponent("scte35-playlists")

    /// The section a placeholder names.
    static func section(_ spec: String) -> SpliceInfoSection {
        let words = spec.split(separator: " ").map(String.init)
        let number = { (index: Int) -> UInt32 in UInt32(words[index])! }
        let seconds = { (index: Int) -> UInt64? in
            words.count > index ? Ticks.ticks(seconds: Double(words[index])!) : nil
        }
        switch words[0] {
        case "out":
            return .spliceInsertOut(eventID: number(1), ptsTime: UInt64(number(1)) * 90_000, duration: seconds(2))
        case "in": return .spliceInsertIn(eventID: number(1), ptsTime: UInt64(number(1)) * 90_000 + 1)
        case "cancel": return .spliceInsertCancel(eventID: number(1))
        case "ts":
            let type = UInt8(words[1].dropFirst(2), radix: 16)!
            return .timeSignal(
                ptsTime: 90_000, segmentationEventID: number(2), type: SegmentationType(rawValue: type),
                duration: seconds(3))
        case "tscancel":
            return .timeSignal(
                ptsTime: nil,
                descriptors: [.segmentation(SegmentationDescriptor(segmentationEventID: number(1), segmentation: nil))])
        default: fatalError("unknown placeholder \(spec)")
        }
    }

    /// The fixture's text with its placeholders filled.
    static func text(_ name: String) throws -> String {
        var text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        while let open = text.range(of: "{"), let close = text.range(of: "}", range: open.upperBound..<text.endIndex) {
            let inner = String(text[open.upperBound..<close.lowerBound])
            let (form, spec) = (inner.prefix(3), String(inner.dropFirst(4)))
            let section = section(spec)
            let value = try form == "hex" ? section.encodedHex() : section.encodedBase64()
            text.replaceSubrange(open.lowerBound..<close.upperBound, with: value)
        }
        return text
    }

    static func recognize(_ name: String) throws -> SignalRecognizer.Recognition {
        let result = PlaylistParser.parse(try text(name), options: ParseOptions(file: name))
        guard case .media(let playlist) = result.playlist else { fatalError("\(name) is not a media playlist") }
        return SignalRecognizer.recognize(playlist, document: result.document, file: name)
    }

    /// The ID a section gives a break.
    static func id(_ spec: String, event: UInt32) -> String { "scte35-\(event)-\(section(spec).crcText!)" }

    static func date(_ seconds: Int) -> DateTime {
        DateTime(iso8601: "2026-01-01T00:00:00.000Z")! + MediaTime(seconds: seconds)
    }
}

@Suite("SCTE-35 signals in playlists")
struct SignalRecognizerTests {
    struct Expected: Sendable, CustomTestStringConvertible {
        var file: String
        var id: String
        var start: Int
        var planned: Int?
        var returned: Int?
        var actual: Int?
        var form: SignalledBreak.Form
        var cancelled = false
        var testDescription: String { file }
    }

    static let single: [Expected] = [
        Expected(
            file: "daterange-splice-insert.m3u8", id: SignalFixture.id("out 100 30", event: 100), start: 10,
            planned: 30, returned: 40, actual: nil, form: .dateRange),
        Expected(
            file: "daterange-early-return.m3u8", id: SignalFixture.id("out 101 30", event: 101), start: 10, planned: 30,
            returned: 30, actual: 20, form: .dateRange),
        Expected(
            file: "daterange-time-signal.m3u8", id: SignalFixture.id("ts 0x34 7 20", event: 7), start: 10, planned: 20,
            returned: 30, actual: nil, form: .dateRange),
        Expected(
            file: "cue-out-in.m3u8", id: "scte35-cue-\(SignalFixture.date(10).nanosecondsSinceEpoch / 1_000_000)",
            start: 10, planned: 30, returned: 40, actual: nil, form: .cueOut),
        Expected(
            file: "cue-out-early-return.m3u8",
            id: "scte35-cue-\(SignalFixture.date(10).nanosecondsSinceEpoch / 1_000_000)", start: 10, planned: 30,
            returned: 30, actual: 20, form: .cueOut),
        Expected(
            file: "cue-out-missing-in.m3u8",
            id: "scte35-cue-\(SignalFixture.date(20).nanosecondsSinceEpoch / 1_000_000)", start: 20, planned: 30,
            returned: nil, actual: nil, form: .cueOut),
        Expected(
            file: "cue-out-cont-only.m3u8", id: SignalFixture.id("out 5 30", event: 5), start: 10, planned: 30,
            returned: 40, actual: nil, form: .cueOut),
        Expected(
            file: "oatcls-splice-insert.m3u8", id: SignalFixture.id("out 200 30", event: 200), start: 10, planned: 30,
            returned: 40, actual: nil, form: .oatcls),
    ]

    @Test("each form and pairing rule gives its one break, with no diagnostics", arguments: single)
    func singleBreak(_ expected: Expected) throws {
        let recognition = try SignalFixture.recognize(expected.file)
        #expect(recognition.diagnostics.isEmpty, "\(recognition.diagnostics.map(\.description))")
        try #require(recognition.breaks.count == 1, "\(recognition.breaks)")
        let item = recognition.breaks[0]
        #expect(item.id == expected.id)
        #expect(item.startDate == SignalFixture.date(expected.start))
        #expect(item.plannedDuration == expected.planned.map { MediaTime(seconds: $0) })
        #expect(item.returnDate == expected.returned.map(SignalFixture.date))
        #expect(item.actualDuration == expected.actual.map { MediaTime(seconds: $0) })
        #expect(item.form == expected.form)
        #expect(item.isCancelled == expected.cancelled)
        #expect(item.duration == (expected.actual ?? expected.planned).map { MediaTime(seconds: $0) })
    }

    @Test("a section's IN ends the break of its event; EXT-X-CUE-IN on the same segment is the same IN")
    func oatclsPairsByEvent() throws {
        let item = try #require(try SignalFixture.recognize("oatcls-splice-insert.m3u8").breaks.first)
        #expect(item.eventID == .splice(200))
        #expect(item.section == SignalFixture.section("out 200 30"))
        #expect(item.returnLine == 18)
    }

    @Test("an advertisement inside a placement opportunity is part of it, not a break of its own")
    func nestedAdvertisement() throws {
        let recognition = try SignalFixture.recognize("daterange-time-signal.m3u8")
        #expect(recognition.breaks.map(\.eventID) == [.segmentation(7)])
    }

    @Test("splice_event_cancel_indicator and segmentation_event_cancel_indicator cancel their breaks")
    func cancelled() throws {
        let recognition = try SignalFixture.recognize("cancelled.m3u8")
        #expect(recognition.diagnostics.isEmpty, "\(recognition.diagnostics.map(\.description))")
        #expect(
            recognition.breaks.map(\.id) == [
                SignalFixture.id("out 300 30", event: 300), SignalFixture.id("ts 0x22 9 20", event: 9),
            ])
        #expect(recognition.breaks.allSatisfy { $0.isCancelled })
        #expect(recognition.breaks.map(\.startDate) == [SignalFixture.date(10), SignalFixture.date(30)])
    }

    @Test("markers that disagree are reported with their rule and line")
    func disagreements() throws {
        let recognition = try SignalFixture.recognize("disagreements.m3u8")
        let found = recognition.diagnostics.map { "\($0.rule):\($0.location.line)" }
        #expect(
            Set(found) == [
                "scte35-duration-mismatch:9", "scte35-elapsed-mismatch:12", "scte35-duration-mismatch:12",
                "scte35-in-without-out:18", "scte35-section:21", "scte35-marker:22",
            ], "\(recognition.diagnostics.map(\.description))")
        #expect(recognition.diagnostics.allSatisfy { $0.location.file == "disagreements.m3u8" })
        let first = try #require(recognition.breaks.first)
        #expect(first.id == SignalFixture.id("out 400 20", event: 400))
        #expect(first.plannedDuration == MediaTime(seconds: 20))
        #expect(first.returnDate == SignalFixture.date(30))
        // The unreadable CUE-OUT still starts a break, without a duration.
        #expect(recognition.breaks.count == 2)
        #expect(recognition.breaks.last?.plannedDuration == nil)
    }

    @Test("a date range's planned duration that differs from its section's break_duration is reported")
    func dateRangeSectionDuration() {
        let out = try! SignalFixture.section("out 9 30").encodedHex()
        let text = Sample.media([
            "ID=\"s\",START-DATE=\"2026-01-01T00:00:06.000Z\",PLANNED-DURATION=12,SCTE35-OUT=\(out)"
        ])
        let recognition = SignalRecognizer.recognize(Sample.mediaPlaylist(text), file: "t.m3u8")
        #expect(recognition.diagnostics.map(\.rule) == ["scte35-duration-mismatch"])
        #expect(recognition.breaks.first?.plannedDuration == MediaTime(seconds: 12))
    }

    @Test("the same markers give the same IDs; other sections with the same event ID give others")
    func stableIDs() throws {
        let first = try SignalFixture.recognize("daterange-splice-insert.m3u8").breaks.map(\.id)
        #expect(try SignalFixture.recognize("daterange-splice-insert.m3u8").breaks.map(\.id) == first)
        #expect(SignalFixture.id("out 100 30", event: 100) != SignalFixture.id("out 100 20", event: 100))
    }

    @Test("the literal fixture of the CLI tests carries the builders' sections")
    func literalFixture() throws {
        let url = SignalFixture.directory.appendingPathComponent("literal/signals.m3u8")
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains("#EXT-OATCLS-SCTE35:\(try SignalFixture.section("out 200 30").encodedBase64())\n"))
        #expect(text.contains("#EXT-OATCLS-SCTE35:\(try SignalFixture.section("in 200").encodedBase64())\n"))
        #expect(text.contains("ID=\"\(SignalFixture.id("out 200 30", event: 200))\""))
        let result = PlaylistParser.parse(text, options: ParseOptions(file: "signals.m3u8"))
        let rules = InterstitialValidator.validate(result).map(\.rule)
        #expect(rules == ["scte35-interstitial-mismatch", "scte35-duration-mismatch"])
    }

    @Test("hostile marker values never crash and stay bounded")
    func hostile() {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n"
        for index in 0..<300 {
            text += "#EXT-X-CUE-OUT-CONT:\(String(repeating: "=,\"", count: index % 7))/\n#EXT-X-CUE-IN\n"
            text += "#EXT-OATCLS-SCTE35:\(String(repeating: "/", count: index))\n#EXT-X-CUE-OUT:-1\n"
            text += "#EXTINF:1,\ns\(index).ts\n"
        }
        let recognition = SignalRecognizer.recognize(Sample.mediaPlaylist(text))
        #expect(recognition.breaks.count <= 300)
        #expect(!recognition.diagnostics.isEmpty)
    }
}
