import Foundation
import HLSInterstitials
import HLSPlaylist
import InterstitialServer
import Testing

/// Issue 14: admin bodies with times or dates out of bounds, or values that would inject lines or
/// attributes, are refused with a 400 and the JSON path; nothing accepted can break a playlist.
@Suite("Admin model bounds and injection")
struct ModelBoundsTests {
    static func json(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var body: String
        var path: String
        var testDescription: String { body }
    }

    @Test(
        "breaks with unrepresentable or unbounded times are refused with a located 400",
        arguments: [
            Case(body: #"{"id":"long1","target":"vod/demo","at":10,"duration":8999999999}"#, path: "duration"),
            Case(body: #"{"id":"long1","target":"vod/demo","at":8999999999,"duration":10}"#, path: "at"),
            Case(body: #"{"id":"b","target":"vod/demo","at":10,"duration":-5}"#, path: "duration"),
            Case(body: #"{"id":"b","target":"vod/demo","at":-10,"duration":5}"#, path: "at"),
            Case(body: #"{"id":"b","target":"vod/demo","at":10,"duration":1e300}"#, path: "duration"),
            Case(
                body: #"{"id":"b","target":"vod/demo","at":10,"duration":5,"resumeOffset":-1e12}"#, path: "resumeOffset"
            ),
            Case(
                body: #"{"id":"b","target":"live/demo","date":"2262-01-01T00:00:00.000Z","duration":5}"#, path: "date"),
            Case(
                body: #"{"id":"b","target":"vod/demo","at":10,"duration":5,"assetListSkipControl":{"offset":1e300}}"#,
                path: "assetListSkipControl.offset"),
        ])
    func breakBounds(_ input: Case) throws {
        let value = try Self.json(input.body)
        do {
            _ = try Break.decode(value)
            Issue.record("accepted \(input.body)")
        } catch {
            #expect(error.statusCode == 400)
            #expect(error.path == input.path, "\(error)")
        }
    }

    @Test(
        "break attributes that would inject a segment or an attribute are refused with their path",
        arguments: [
            #"a\"\n#EXTINF:2,\nhttp://evil.invalid/seg.m4s\n#X:\"b"#, #"a\",DURATION=999,X-Z=\"b"#, #"a\rb"#,
        ])
    func breakInjection(_ value: String) throws {
        let body = #"{"id":"b","target":"vod/demo","at":10,"duration":5,"attributes":{"X-EVIL":"\#(value)"}}"#
        let json = try Self.json(body)
        do {
            _ = try Break.decode(json)
            Issue.record("accepted \(body)")
        } catch {
            #expect(error.statusCode == 400)
            #expect(error.path == "attributes.X-EVIL")
        }
    }

    @Test("a break's ID, URIs and attribute names cannot inject either")
    func breakFields() throws {
        for body in [
            #"{"id":"b","target":"vod/demo","at":10,"duration":5,"assetUri":"https://a.example/\"x"}"#,
            #"{"id":"b","target":"vod/demo","at":10,"duration":5,"assetList":"l.json\n#EXT-X-ENDLIST"}"#,
            #"{"id":"b","target":"vod/demo","at":10,"duration":5,"attributes":{"X-A\n#EXT-X-ENDLIST":"1"}}"#,
            #"{"id":"b","target":"vod/demo","at":10,"duration":5,"attributes":{"x-lower":"1"}}"#,
            #"{"id":"b\"","target":"vod/demo","at":10,"duration":5}"#,
        ] {
            #expect(throws: APIError.self, "\(body)") { try Break.decode(try Self.json(body)) }
        }
    }

    @Test(
        "schedules refuse unbounded cadences and templates that would inject",
        arguments: [
            Case(body: #"{"target":"live/demo","cadence":{"every":1e300,"duration":10}}"#, path: "cadence.every"),
            Case(
                body: #"{"target":"live/demo","cadence":{"every":60,"duration":10,"offset":-1}}"#,
                path: "cadence.offset"),
            Case(
                body: #"{"target":"live/demo","cadence":{"every":60,"duration":10,"offset":8999999999}}"#,
                path: "cadence.offset"),
            Case(
                body:
                    #"{"target":"vod/demo","cadence":{"every":60,"duration":10},"interstitial":{"attributes":{"X-E":"\"\n#EXT-X-ENDLIST\n#X:\""}}}"#,
                path: "interstitial.attributes.X-E"),
        ])
    func scheduleBounds(_ input: Case) throws {
        let value = try Self.json(input.body)
        do {
            _ = try BreakSchedule.decode(value)
            Issue.record("accepted \(input.body)")
        } catch {
            #expect(error.statusCode == 400)
            #expect(error.path == input.path, "\(error)")
        }
    }

    @Test("ads refuse unbounded durations and URIs that would inject")
    func adBounds() throws {
        for (body, path) in [
            (#"{"id":"ad","uri":"https://a.example/a.m3u8","duration":8999999999}"#, "duration"),
            (#"{"id":"ad","uri":"https://a.example/a.m3u8","duration":1e300}"#, "duration"),
            (#"{"id":"ad","uri":"https://a.example/\"a","duration":5}"#, "uri"),
            (#"{"id":"ad","uri":"https://a.example/\u0001","duration":5}"#, "uri"),
        ] {
            let value = try Self.json(body)
            do {
                _ = try Ad.decode(value)
                Issue.record("accepted \(body)")
            } catch {
                #expect(error.statusCode == 400)
                #expect(error.path == path)
            }
        }
    }

    @Test("cadence starts never trap, whatever the range and cadence")
    func cadenceStarts() throws {
        let schedule = try BreakSchedule.decode(
            try Self.json(#"{"target":"live/demo","cadence":{"every":315360000,"duration":10,"offset":315360000}}"#))
        var state = StoredState()
        state.schedules[schedule.target] = schedule
        let planner = BreakPlanner(target: schedule.target, state: state, assetListURI: "/l", adURI: { $0.uri })
        let epoch = DateTime(nanosecondsSinceEpoch: 0)
        let far = DateTime(nanosecondsSinceEpoch: .max - 1)
        _ = planner.plan(.live(epoch: epoch, window: far..<DateTime(nanosecondsSinceEpoch: .max), lookahead: .max))
        _ = planner.plan(.live(epoch: far, window: epoch..<far, lookahead: .zero))
        _ = planner.lookup(id: "break-9223372036", .live(epoch: epoch, window: epoch..<far, lookahead: .zero))
    }
}
