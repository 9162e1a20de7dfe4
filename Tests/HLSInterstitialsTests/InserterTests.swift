import Foundation
import HLSInterstitials
import HLSPlaylist
import Testing

@Suite("Inserting interstitials")
struct InserterTests {
    static func request(
        _ id: String, at seconds: Int, _ edit: (inout InsertionRequest) -> Void = { _ in }
    )
        -> InsertionRequest
    {
        var request = InsertionRequest(id: id)
        request.at = MediaTime(seconds: seconds)
        request.assetURI = "https://ads.example.com/\(id)/main.m3u8"
        request.duration = MediaTime(seconds: 15)
        edit(&request)
        return request
    }

    static var fixtures: [URL] {
        let directory = Sample.fixtures.appendingPathComponent("playlists")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".m3u8") }.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test("round-trips every media fixture except for the lines it adds, and the output validates", arguments: fixtures)
    func roundTrip(_ url: URL) throws {
        let bytes = [UInt8](FileManager.default.contents(atPath: url.path)!)
        let result = PlaylistParser.parse(bytes, options: ParseOptions(file: url.lastPathComponent))
        guard case .media(let playlist) = result.playlist, !playlist.segments.isEmpty else { return }
        let requests = [
            Self.request("hlsi-early", at: 0), Self.request("hlsi-mid", at: 5) { $0.restrict = ["SKIP", "JUMP"] },
            Self.request("hlsi-late", at: 100_000) {
                $0.assetURI = nil; $0.assetListURI = "list.json?x=1"
            },
        ]
        let output = try InterstitialInserter.insert(requests, into: result)
        let added = output.document.lines.filter { !$0.isVerbatim }
        #expect(added.count == 3 + (output.addedProgramDateTime ? 1 : 0))
        // Removing the added lines gives the input back (a last line without a newline gets one).
        var stripped = output.document
        stripped.lines.removeAll { !$0.isVerbatim }
        let restored = stripped.write()
        let terminator = result.document.preferredTerminator.bytes
        #expect(restored == bytes || restored == bytes + terminator)
        for line in added {
            #expect(line.terminator == result.document.preferredTerminator || line.terminator == .none)
        }
        // It validates, and adds no diagnostic the input did not have.
        let before = Set(InterstitialValidator.validate(result).map { "\($0.rule) \($0.message)" })
        let again = PlaylistParser.parse(output.document.write(), options: ParseOptions(file: url.lastPathComponent))
        let after = InterstitialValidator.validate(again).filter { !before.contains("\($0.rule) \($0.message)") }
        #expect(after.isEmpty, "\(after.map(\.description))")
        guard case .media(let written) = again.playlist else { return }
        let ids = written.dateRanges.map(\.id)
        #expect(Set(ids).isSuperset(of: ["hlsi-early", "hlsi-late", "hlsi-mid"]))
        let mid = written.dateRanges.first { $0.id == "hlsi-mid" }!
        #expect(mid.startTime == playlist.segments[0].startTime + MediaTime(seconds: 5))
    }

    @Test("places each tag before the EXTINF of its segment, adds a PROGRAM-DATE-TIME, keeps CRLF")
    func placement() throws {
        let text =
            "#EXTM3U\r\n#EXT-X-TARGETDURATION:6\r\n#EXTINF:6.0,\r\na.ts\r\n#EXTINF:6.0,\r\nb.ts\r\n#EXT-X-ENDLIST\r\n"
        let output = try InterstitialInserter.insert(
            [Self.request("one", at: 7), Self.request("two", at: 7), Self.request("zero", at: 0)],
            into: PlaylistParser.parse(text))
        #expect(output.addedProgramDateTime)
        let expected = """
            #EXTM3U\r
            #EXT-X-TARGETDURATION:6\r
            #EXT-X-PROGRAM-DATE-TIME:2000-01-01T00:00:00.000Z\r
            #EXT-X-DATERANGE:ID="zero",CLASS="com.apple.hls.interstitial",START-DATE="2000-01-01T00:00:00.000Z",DURATION=15,X-ASSET-URI="https://ads.example.com/zero/main.m3u8?_HLS_interstitial_id=zero"\r
            #EXTINF:6.0,\r
            a.ts\r
            #EXT-X-DATERANGE:ID="one",CLASS="com.apple.hls.interstitial",START-DATE="2000-01-01T00:00:07.000Z",DURATION=15,X-ASSET-URI="https://ads.example.com/one/main.m3u8?_HLS_interstitial_id=one"\r
            #EXT-X-DATERANGE:ID="two",CLASS="com.apple.hls.interstitial",START-DATE="2000-01-01T00:00:07.000Z",DURATION=15,X-ASSET-URI="https://ads.example.com/two/main.m3u8?_HLS_interstitial_id=two"\r
            #EXTINF:6.0,\r
            b.ts\r
            #EXT-X-ENDLIST\r

            """
        #expect(output.document.writeString() == expected)
    }

    @Test("writes every attribute option")
    func everyAttribute() throws {
        var request = InsertionRequest(id: "all")
        request.date = DateTime(iso8601: "2026-01-01T00:00:10.000Z")
        request.assetListURI = "https://ads.example.com/list.json?pod=1"
        request.duration = MediaTime(seconds: 30)
        request.plannedDuration = MediaTime(seconds: 30)
        request.resumeOffset = MediaTime(decimal: "-1.5")
        request.playoutLimit = MediaTime(seconds: 20)
        request.restrict = ["SKIP"]
        request.snap = ["OUT", "IN"]
        request.cue = ["PRE", "ONCE"]
        request.occupies = "RANGE"
        request.style = "PRIMARY"
        request.contentMayVary = "NO"
        request.skipControl = SkipControl(
            offset: MediaTime(seconds: 5), duration: MediaTime(seconds: 10), labelID: "skip")
        request.attributes = AttributeList([
            try InsertionRequest.attribute("X-COM-EXAMPLE-BEACON=123"), try InsertionRequest.attribute("X-COM-NAME=hi"),
        ])
        let output = try InterstitialInserter.insert([request], into: Sample.parse(Sample.media([])))
        let line = output.document.lines.first { !$0.isVerbatim }!.content.text
        #expect(
            line
                == "#EXT-X-DATERANGE:ID=\"all\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:10.000Z\",CUE=\"PRE,ONCE\",DURATION=30,PLANNED-DURATION=30,X-ASSET-LIST=\"https://ads.example.com/list.json?pod=1&_HLS_interstitial_id=all\",X-RESUME-OFFSET=-1.5,X-PLAYOUT-LIMIT=20,X-SNAP=\"OUT,IN\",X-RESTRICT=\"SKIP\",X-CONTENT-MAY-VARY=\"NO\",X-TIMELINE-OCCUPIES=\"RANGE\",X-TIMELINE-STYLE=\"PRIMARY\",X-SKIP-CONTROL-OFFSET=5,X-SKIP-CONTROL-DURATION=10,X-SKIP-CONTROL-LABEL-ID=\"skip\",X-COM-EXAMPLE-BEACON=123,X-COM-NAME=\"hi\""
        )
        #expect(Sample.validate(output.document.writeString()).isEmpty)
    }

    @Test(
        "refuses requests that would not validate, naming the field",
        arguments: [
            ({ @Sendable (r: inout InsertionRequest) in r.assetURI = "ad.m3u8" }, "assetUri"),
            ({ @Sendable (r: inout InsertionRequest) in r.assetListURI = "l.json" }, "assetList"),
            ({ @Sendable (r: inout InsertionRequest) in r.assetURI = nil }, "assetUri"),
            ({ @Sendable (r: inout InsertionRequest) in r.at = nil }, "at"),
            ({ @Sendable (r: inout InsertionRequest) in r.date = DateTime(iso8601: "2026-01-01T00:00:00Z") }, "date"),
            ({ @Sendable (r: inout InsertionRequest) in r.cue = ["PRE", "POST"] }, "cue"),
            ({ @Sendable (r: inout InsertionRequest) in r.restrict = ["FAST"] }, "restrict"),
            ({ @Sendable (r: inout InsertionRequest) in r.occupies = "LINE" }, "occupies"),
            ({ @Sendable (r: inout InsertionRequest) in r.skipControl.labelID = "skip 1" }, "skipControlLabelId"),
            (
                { @Sendable (r: inout InsertionRequest) in r.skipControl.offset = MediaTime(decimal: "2.5") },
                "skipControlOffset"
            ),
            ({ @Sendable (r: inout InsertionRequest) in r.id = "" }, "id"),
            (
                { @Sendable (r: inout InsertionRequest) in
                    r.attributes = AttributeList([Attribute(name: "X-ASSET-URI", value: try! .quoted("x"))])
                },
                "attributes.X-ASSET-URI"
            ),
            (
                { @Sendable (r: inout InsertionRequest) in
                    r.attributes = AttributeList([Attribute(name: "X-BAD", value: try! .enumerated("WORD"))])
                },
                "attributes.X-BAD"
            ),
        ] as [(@Sendable (inout InsertionRequest) -> Void, String)])
    func refusesInvalidRequests(edit: @Sendable (inout InsertionRequest) -> Void, field: String) {
        let request = Self.request("ad", at: 5, edit)
        #expect(throws: InsertionError.self) {
            try InterstitialInserter.insert([request], into: Sample.parse(Sample.media([])))
        }
        do {
            _ = try InterstitialInserter.insert([request], into: Sample.parse(Sample.media([])))
        } catch {
            #expect(error.path == field)
        }
    }

    @Test("refuses IDs already in the playlist or given twice, and multivariant playlists")
    func refusesPlaylists() {
        let withAd = Sample.parse(Sample.media([Sample.interstitial]))
        #expect(throws: InsertionError.self) {
            try InterstitialInserter.insert([Self.request("ad", at: 1)], into: withAd)
        }
        #expect(throws: InsertionError.self) {
            try InterstitialInserter.insert(
                [Self.request("x", at: 1), Self.request("x", at: 2)], into: Sample.parse(Sample.media([])))
        }
        let master = PlaylistParser.parse("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n")
        #expect(throws: InsertionError.self) {
            try InterstitialInserter.insert([Self.request("x", at: 1)], into: master)
        }
    }

    @Test("adds _HLS_interstitial_id once, percent-encoded, before any fragment")
    func interstitialID() {
        #expect(
            InsertionRequest.addingInterstitialID("a b", to: "https://x/y.m3u8")
                == "https://x/y.m3u8?_HLS_interstitial_id=a%20b")
        #expect(
            InsertionRequest.addingInterstitialID("a", to: "https://x/y?k=v#f")
                == "https://x/y?k=v&_HLS_interstitial_id=a#f")
        #expect(
            InsertionRequest.addingInterstitialID("a", to: "https://x/y?_HLS_interstitial_id=a")
                == "https://x/y?_HLS_interstitial_id=a")
    }

    @Test("reads schedule files and names the JSON path of mistakes")
    func scheduleFiles() throws {
        let json = """
            {"interstitials":[{"id":"a","at":10,"assetUri":"https://x/a.m3u8","restrict":"SKIP,JUMP","contentMayVary":false,
              "attributes":{"X-COM-BEACON":12,"X-COM-NAME":"n"}},
             {"id":"b","date":"2026-01-01T00:00:20.000Z","assetList":"b.json","cue":["POST"],"resumeOffset":-3}]}
            """
        let requests = try InsertionRequest.decodeSchedule(Array(json.utf8))
        #expect(requests.count == 2)
        #expect(requests[0].restrict == ["SKIP", "JUMP"])
        #expect(requests[0].contentMayVary == "NO")
        #expect(requests[0].attributes.description == "X-COM-BEACON=12,X-COM-NAME=\"n\"")
        #expect(requests[1].resumeOffset == MediaTime(seconds: -3))
        // Each entry written back as JSON reads back the same (the server stores breaks this way).
        for request in requests {
            #expect(try InsertionRequest.decode(request.jsonValue) == request)
        }
        var full = InsertionRequest(id: "full")
        full.at = MediaTime(seconds: 1.5)
        full.duration = MediaTime(seconds: 6)
        full.plannedDuration = MediaTime(seconds: 7)
        full.playoutLimit = MediaTime(seconds: 5)
        full.snap = ["OUT"]
        full.occupies = "RANGE"
        full.style = "PRIMARY"
        full.skipControl = SkipControl(offset: MediaTime(seconds: 2), duration: MediaTime(seconds: 3), labelID: "L")
        #expect(try InsertionRequest.decode(full.jsonValue) == full)
        let mistakes: [(String, String)] = [
            ("{\"interstitials\":[{\"id\":\"a\",\"duration\":\"15\"}]}", "interstitials[0].duration"),
            ("[{\"at\":1}]", "[0].id"),
            ("[{\"id\":\"a\",\"durration\":1}]", "[0].durration"),
            ("[{\"id\":\"a\",\"cue\":[1]}]", "[0].cue[0]"),
            ("{\"breaks\":[]}", "interstitials"),
            ("nope", ""),
        ]
        for (text, path) in mistakes {
            do {
                _ = try InsertionRequest.decodeSchedule(Array(text.utf8))
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.path == path, "\(text)")
            }
        }
    }
}
