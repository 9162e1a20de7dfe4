import Foundation
import HLSPlaylist
import Testing

@testable import HLSInterstitials
@testable import InterstitialServer

/// `timeline.json` and `hlsi schedule --json` are written by a streaming ``PrettyJSONWriter``
/// (issue 17); their bytes stay those `JSONEncoder` gives.
@Suite("Schedule JSON writer")
struct ScheduleJSONWriterTests {
    static func encoded(_ document: ScheduleDocument) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(document), as: UTF8.self) + "\n"
    }

    static func number(_ random: inout SeededGenerator) -> Double {
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return Double(Int.random(in: -5...100_000, using: &random))
        case 1: return Double(Int.random(in: 0...1_000_000, using: &random)) / 1000
        case 2: return Double.random(in: -1...1, using: &random)
        case 3: return Double.random(in: 0...1e-5, using: &random)
        case 4: return Double.random(in: 1e15...1e22, using: &random)
        case 5: return -0.0
        case 6: return 86_400.000_001
        default: return Double(Int.random(in: 0...100, using: &random)) / 3
        }
    }

    static func text(_ random: inout SeededGenerator) -> String {
        let pieces = [
            "ad", "/path/x.m3u8?a=1&b=2", "\"", "\\", "\n", "\t", "\u{01}", "\u{1F}", "é", "广告", "😀", "\u{7F}",
            "\u{85}", "\u{2028}", " ", "<>&'",
        ]
        return (0..<Int.random(in: 0...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }
            .joined()
    }

    static func document(_ random: inout SeededGenerator) -> ScheduleDocument {
        func maybe<T>(_ value: @autoclosure () -> T) -> T? { Bool.random(using: &random) ? value() : nil }
        var events: [ScheduleDocument.Event] = []
        for _ in 0..<Int.random(in: 0...6, using: &random) {
            let tokens = ["PRE", "POST", "ONCE", "SKIP", "JUMP"]
            events.append(
                ScheduleDocument.Event(
                    id: text(&random), start: number(&random), resumeTime: number(&random),
                    resumptionOffset: number(&random), playoutDuration: number(&random),
                    scheduled: Bool.random(using: &random),
                    cue: maybe(Array(tokens.prefix(Int.random(in: 0...2, using: &random)))),
                    restrictions: Array(tokens.suffix(Int.random(in: 0...2, using: &random))),
                    timelineOccupancy: Bool.random(using: &random) ? "POINT" : "RANGE",
                    supplementsPrimaryContent: Bool.random(using: &random), date: maybe(text(&random)),
                    assetURI: maybe(text(&random)), assetList: maybe(text(&random)),
                    resumeOffset: maybe(number(&random)), playoutLimit: maybe(number(&random)),
                    skipControl: maybe(
                        ScheduleDocument.SkipControlDocument(
                            offset: maybe(number(&random)), duration: maybe(number(&random)),
                            labelID: maybe(text(&random))))))
        }
        var items: [ScheduleDocument.Item] = []
        for _ in 0..<Int.random(in: 0...6, using: &random) {
            items.append(
                ScheduleDocument.Item(
                    kind: Bool.random(using: &random) ? "primary" : "interstitial", id: maybe(text(&random)),
                    primary: [number(&random), number(&random)], playout: [number(&random), number(&random)],
                    integrated: [number(&random), number(&random)]))
        }
        return ScheduleDocument(
            events: events, items: items,
            durations: ScheduleDocument.Durations(
                primary: maybe(number(&random)), playout: maybe(number(&random)), integrated: maybe(number(&random))),
            live: Bool.random(using: &random), startDate: maybe(text(&random)))
    }

    @Test("Random schedule documents are written byte for byte as JSONEncoder encodes them", arguments: [1, 2, 3])
    func randomDocuments(seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        for index in 0..<200 {
            let document = Self.document(&random)
            let written = document.json
            let expected = try Self.encoded(document)
            #expect(written == expected, "document \(index):\n\(written)\nJSONEncoder:\n\(expected)")
            if written != expected { return }
        }
    }

    @Test("The demo's timeline.json is what JSONEncoder gives, and parses back to the same document")
    func demoTimeline() async throws {
        try await Harness.withServer { client in
            let response = try await client.get("/demo/vod/timeline.json")
            #expect(response.status == .ok)
            let document = try JSONDecoder().decode(ScheduleDocument.self, from: Data(buffer: response.body))
            #expect(!document.events.isEmpty)
            #expect(response.text == (try Self.encoded(document)))
        }
    }

    @Test("The writer's layout: nesting, empty containers and encoded parts at their level")
    func layout() throws {
        var writer = PrettyJSONWriter()
        writer.beginObject()
        writer.key("a")
        writer.beginArray()
        writer.endArray()
        writer.key("b")
        try writer.encoded(["x": [1, 2]])
        writer.key("c")
        try writer.encoded([String]())
        writer.key("d")
        writer.number(2.5)
        writer.endObject()
        let expected = """
            {
              "a" : [

              ],
              "b" : {
                "x" : [
                  1,
                  2
                ]
              },
              "c" : [

              ],
              "d" : 2.5
            }
            """
        #expect(String(decoding: writer.bytes, as: UTF8.self) == expected)
    }
}
