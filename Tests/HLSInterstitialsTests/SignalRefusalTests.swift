import Foundation
import HLSInterstitials
import HLSPlaylist
import SCTE35
import Testing

/// The SCTE-35 markers not converted as written (profile R29), with the rule IDs of `hlsi validate`.
@Suite("SCTE-35 markers refused (R29)")
struct SignalRefusalTests {
    static let epoch = DateTime(iso8601: "2026-06-01T12:00:00.000Z")!
    static let out = SpliceInfoSection.spliceInsertOut(eventID: 100, ptsTime: 900_000, duration: 30 * 90_000)

    static func date(_ seconds: Int) -> String { (epoch + MediaTime(seconds: seconds)).iso8601 }

    /// `text` with its last hexadecimal digit changed: the CRC_32 no longer matches.
    static func badCRC(_ hex: String) -> String {
        String(hex.dropLast()) + (hex.last == "0" ? "1" : "0")
    }

    /// A playlist of five 10 s segments with `lines` before segment `at` (each pair: segment, line).
    static func playlist(_ lines: [(Int, String)]) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:0\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:\(epoch.iso8601)\n"
        for index in 0..<5 {
            text += lines.filter { $0.0 == index }.map { $0.1 + "\n" }.joined()
            text += "#EXTINF:10,\ns\(index).ts\n"
        }
        return text
    }

    /// The refusals of `text`, the recognition, and `hlsi validate`'s diagnostics.
    static func refusals(
        _ text: String
    ) throws -> (
        refusals: [SignalRefusal], recognition: SignalRecognizer.Recognition, validate: [Diagnostic]
    ) {
        let result = PlaylistParser.parse(Array(text.utf8), options: ParseOptions(file: "live.m3u8"))
        guard case .media(let playlist) = result.playlist else { throw CancellationError() }
        let recognition = SignalRecognizer.recognize(playlist, document: result.document, file: "live.m3u8")
        let refusals = SignalRefusal.find(
            in: playlist, document: result.document, parserDiagnostics: result.diagnostics, recognition: recognition)
        return (refusals, recognition, InterstitialValidator.validate(result))
    }

    @Test(
        "each refused marker has the rule ID and line hlsi validate gives, and a message that says what becomes of it")
    func rulesOfValidate() throws {
        let hex = try Self.out.encodedHex()
        let text = Self.playlist([
            (
                1,
                "#EXT-X-DATERANGE:ID=\"bad-crc\",START-DATE=\"\(Self.date(10))\",PLANNED-DURATION=30,SCTE35-OUT=\(Self.badCRC(hex))"
            ),
            (2, "#EXT-X-DATERANGE:ID=\"negative\",START-DATE=\"\(Self.date(20))\",DURATION=-5,SCTE35-OUT=\(hex)"),
            (3, "#EXT-X-DATERANGE:ID=\"undated\",PLANNED-DURATION=10,SCTE35-OUT=\(hex)"),
            (3, "#EXT-OATCLS-SCTE35:not-base64"),
            (4, "#EXT-X-CUE-OUT:DURATION=abc"),
        ])
        let (refusals, recognition, validate) = try Self.refusals(text)
        let found = refusals.map { "\($0.diagnostic.rule):\($0.diagnostic.location.line)" }
        #expect(
            found == [
                "scte35-section:8", "attribute-type:11", "daterange-start-date:14", "scte35-section:15",
                "scte35-marker:18",
            ], "\(refusals.map(\.diagnostic.description))")
        for refusal in refusals {
            #expect(
                validate.contains {
                    $0.rule == refusal.diagnostic.rule && $0.location.line == refusal.diagnostic.location.line
                }, "hlsi validate does not give \(refusal.diagnostic)")
        }
        let messages = refusals.map(\.diagnostic.message)
        #expect(messages[0].contains("still place the break"))
        #expect(messages[1].contains("the tag is ignored"))
        #expect(messages[2].contains("places no break"))
        #expect(messages[3].contains("the marker is dropped"))
        #expect(messages[4].contains("read without it"))
        // Date ranges are known by their text; the older forms by their segment's date too.
        #expect(refusals[0].marker.hasPrefix("#EXT-X-DATERANGE:ID=\"bad-crc\"") && refusals[0].date == nil)
        #expect(refusals[3].date == Self.epoch + MediaTime(seconds: 30))
        #expect(refusals[4].date == Self.epoch + MediaTime(seconds: 40))

        // R29: the date range with a bad section still places its break, under its own ID; the
        // EXT-OATCLS-SCTE35 whose section is all it says places none.
        let ids = recognition.breaks.map(\.id)
        #expect(ids.contains("scte35-bad-crc"), "\(ids)")
        let badCRC = try #require(recognition.breaks.first { $0.id == "scte35-bad-crc" })
        #expect(badCRC.startDate == Self.epoch + MediaTime(seconds: 10))
        #expect(badCRC.plannedDuration == MediaTime(seconds: 30))
        #expect(!recognition.breaks.contains { $0.form == .oatcls })
    }

    @Test("markers converted as written, and disagreements between them, are no refusals")
    func noRefusals() throws {
        let hex = try Self.out.encodedHex()
        let text = Self.playlist([
            (1, "#EXT-X-DATERANGE:ID=\"good\",START-DATE=\"\(Self.date(10))\",PLANNED-DURATION=20,SCTE35-OUT=\(hex)"),
            (2, "#EXT-X-CUE-IN"),
            (3, "#EXT-X-DATERANGE:ID=\"plain\",START-DATE=\"\(Self.date(30))\",DURATION=-1"),
        ])
        let (refusals, recognition, _) = try Self.refusals(text)
        #expect(recognition.diagnostics.contains { $0.rule == Rule.scte35DurationMismatch.id })
        #expect(refusals.isEmpty, "\(refusals.map(\.diagnostic.description))")
    }

    @Test("at most maximumPerPlaylist refusals, the first in line order")
    func bounded() throws {
        let lines = (0..<(SignalRefusal.maximumPerPlaylist + 20)).map { (2, "#EXT-OATCLS-SCTE35:not-base64-\($0)") }
        let (refusals, _, _) = try Self.refusals(Self.playlist(lines))
        #expect(refusals.count == SignalRefusal.maximumPerPlaylist)
        #expect(refusals.first?.marker == "#EXT-OATCLS-SCTE35:not-base64-0")
    }
}
