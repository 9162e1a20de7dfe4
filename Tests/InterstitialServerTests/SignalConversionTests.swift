import Foundation
import HLSInterstitials
import HLSPlaylist
import SCTE35
import Testing

@testable import InterstitialServer

/// Live channels whose SCTE-35 markers become interstitials (`signals: scte35`).
@Suite("SCTE-35 signals become interstitials")
struct SignalConversionTests {
    static let epoch = DateTime(iso8601: "2026-06-01T12:00:00.000Z")!
    static let out = SpliceInfoSection.spliceInsertOut(eventID: 100, ptsTime: 900_000, duration: 30 * 90_000)
    static let back = SpliceInfoSection.spliceInsertIn(eventID: 100, ptsTime: 900_000 + 20 * 90_000)
    static var breakID: String { "scte35-100-\(out.crcText!)" }

    /// A live playlist of `count` 10 s segments from the epoch, with these lines before segment 1
    /// (`atOut`) and segment 3 (`atIn`).
    static func playlist(count: Int, atOut: [String], atIn: [String] = []) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:0\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:\(epoch.iso8601)\n"
        for index in 0..<count {
            if index == 1 { text += atOut.map { $0 + "\n" }.joined() }
            if index == 3 { text += atIn.map { $0 + "\n" }.joined() }
            text += "#EXTINF:10,\ns\(index).ts\n"
        }
        return text
    }

    static func date(_ seconds: Int) -> String { (epoch + MediaTime(seconds: seconds)).iso8601 }

    static var outRange: String {
        "#EXT-X-DATERANGE:ID=\"splice-100\",START-DATE=\"\(date(10))\",PLANNED-DURATION=30,SCTE35-OUT=\(try! out.encodedHex())"
    }
    static var inRange: String {
        "#EXT-X-DATERANGE:ID=\"splice-100\",START-DATE=\"\(date(10))\",DURATION=20,SCTE35-IN=\(try! back.encodedHex())"
    }

    func write(_ text: String, to directory: URL) throws {
        try text.write(to: directory.appendingPathComponent("live.m3u8"), atomically: true, encoding: .utf8)
    }

    func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hlsi-scte35-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    func configuration(port: Int, keepSignals: Bool, database: String? = nil) throws -> ServerConfiguration {
        var configuration = try Harness.demo()
        let origin = "http://127.0.0.1:\(port)"
        configuration.allowedOrigins = [origin]
        configuration.database = database
        // The upstream file changes between requests that follow each other at once.
        configuration.limits.upstreamPlaylistReuse = .zero
        configuration.live = [
            .init(
                id: "news", path: "/live/news", origin: .upstream(origin + "/live.m3u8"), signals: .scte35,
                keepSignals: keepSignals, snapSignals: true)
        ]
        return configuration
    }

    func interstitial(_ text: String, id: String) -> String? {
        dateRangeLines(text).first { $0.contains("ID=\"\(id)\"") && $0.contains("com.apple.hls.interstitial") }
    }

    @Test(
        "an upstream SCTE35-OUT becomes an interstitial; its early IN adds X-PLAYOUT-LIMIT under the same ID, kept across restarts"
    )
    func upstreamDateRange() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try write(Self.playlist(count: 3, atOut: [Self.outRange]), to: directory)
        let database = directory.appendingPathComponent("state.sqlite").path
        let clock = TestClock(Self.epoch + MediaTime(seconds: 30))
        let served = SendableBox<String>()
        try await UpstreamTests().withUpstream(directory: directory.path) { port in
            let configuration = try configuration(port: port, keepSignals: false, database: database)
            try await Harness.withServer(configuration, clock: clock) { client in
                let first = try await client.text("/live/news/live.m3u8")
                let line = try #require(interstitial(first, id: Self.breakID), "\(first)")
                #expect(line.contains("START-DATE=\"\(Self.date(10))\""))
                #expect(line.contains("PLANNED-DURATION=30"))
                #expect(
                    line.contains("X-ASSET-LIST=\"/live/news/asset-list.json?_HLS_interstitial_id=\(Self.breakID)\""))
                #expect(line.contains("X-SNAP=\"OUT,IN\""))
                #expect(!line.contains("X-RESUME-OFFSET"))
                #expect(!first.contains("SCTE35-OUT"), "keepSignals false removes the markers")
                served.value = line
                let list = try await client.get("/live/news/asset-list.json?_HLS_interstitial_id=\(Self.breakID)")
                #expect(list.status == .ok, "\(list.text)")

                try write(Self.playlist(count: 5, atOut: [Self.outRange], atIn: [Self.inRange]), to: directory)
                clock.advance(20)
                let second = try await client.text("/live/news/live.m3u8")
                let returned = try #require(interstitial(second, id: Self.breakID), "\(second)")
                #expect(returned.contains("PLANNED-DURATION=30"), "the first served values stay")
                #expect(returned.contains("X-PLAYOUT-LIMIT=20"))
                #expect(dateRangeLines(second).filter { $0.contains(Self.breakID) }.count == 1)
            }
            // Another server on the same database, with an upstream that now says 25 s: the served values stay.
            try write(
                Self.playlist(
                    count: 5, atOut: [Self.outRange.replacingOccurrences(of: "=30,", with: "=25,")],
                    atIn: [Self.inRange]), to: directory)
            try await Harness.withServer(configuration, clock: clock) { client in
                let text = try await client.text("/live/news/live.m3u8")
                let line = try #require(interstitial(text, id: Self.breakID), "\(text)")
                #expect(line.contains("PLANNED-DURATION=30"))
                #expect(line.contains("X-PLAYOUT-LIMIT=20"))
                #expect(line.contains("START-DATE=\"\(Self.date(10))\""))
                #expect(served.value.map { !$0.contains("X-PLAYOUT-LIMIT") } == true)
            }
        }
        let state = try SQLiteStore(path: database).load()
        let key = ServedKey(Target(.live, "news"), Self.breakID)
        #expect(state.served[key] != nil)
        #expect(state.earlyReturns[key] == MediaTime(seconds: 20))
    }

    @Test("a rendition whose upstream playlist has no markers gets the primary's breaks, even when asked first")
    func renditionWithoutMarkers() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let master = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",DEFAULT=YES,URI="audio.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="a"
            video.m3u8

            """
        try master.write(to: directory.appendingPathComponent("master.m3u8"), atomically: true, encoding: .utf8)
        try Self.playlist(count: 3, atOut: [Self.outRange]).write(
            to: directory.appendingPathComponent("video.m3u8"), atomically: true, encoding: .utf8)
        try Self.playlist(count: 3, atOut: []).replacingOccurrences(of: ".ts", with: ".aac").write(
            to: directory.appendingPathComponent("audio.m3u8"), atomically: true, encoding: .utf8)
        let clock = TestClock(Self.epoch + MediaTime(seconds: 30))
        try await UpstreamTests().withUpstream(directory: directory.path) { port in
            var configuration = try configuration(port: port, keepSignals: true)
            configuration.live[0].origin = .upstream("http://127.0.0.1:\(port)/master.m3u8")
            try await Harness.withServer(configuration, clock: clock) { client in
                // The audio rendition first: nothing served yet, no marker of its own.
                let audio = try await client.text("/live/news/audio.m3u8")
                let line = try #require(interstitial(audio, id: Self.breakID), "\(audio)")
                #expect(line.contains("START-DATE=\"\(Self.date(10))\"") && line.contains("PLANNED-DURATION=30"))
                let video = try await client.text("/live/news/video.m3u8")
                #expect(interstitial(video, id: Self.breakID) == line, "one line in every rendition")
                #expect(video.contains("SCTE35-OUT"), "the video's own markers pass through (keepSignals)")
            }
        }
    }

    /// A live playlist of 10 s segments `first..<first + count` from the epoch, with `lines` before
    /// its first segment.
    static func window(first: Int, count: Int, lines: [String]) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:\(date(first * 10))\n"
        text += lines.map { $0 + "\n" }.joined()
        for index in first..<first + count { text += "#EXTINF:10,\ns\(index).ts\n" }
        return text
    }

    @Test(
        "a served break cancelled before it starts is withdrawn (R12), stays withdrawn once its markers left and after a restart; one cancelled after its start stays"
    )
    func cancelAfterServing() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("state.sqlite").path
        let cancel = SpliceInfoSection.spliceInsertCancel(eventID: 100)
        // Break 100 announced for 40 s, 10 s past the live edge; break 200 for 20 s, inside the window.
        let later = SpliceInfoSection.spliceInsertOut(eventID: 200, ptsTime: 1_800_000, duration: 10 * 90_000)
        let laterID = "scte35-200-\(later.crcText!)"
        let outs = [
            "#EXT-X-DATERANGE:ID=\"splice-100\",START-DATE=\"\(Self.date(40))\",PLANNED-DURATION=30,SCTE35-OUT=\(try Self.out.encodedHex())",
            "#EXT-X-DATERANGE:ID=\"splice-200\",START-DATE=\"\(Self.date(20))\",PLANNED-DURATION=10,SCTE35-OUT=\(try later.encodedHex())",
        ]
        let cancels = [
            "#EXT-X-DATERANGE:ID=\"splice-100-cancel\",START-DATE=\"\(Self.date(25))\",SCTE35-CMD=\(try cancel.encodedHex())",
            "#EXT-X-DATERANGE:ID=\"splice-200-cancel\",START-DATE=\"\(Self.date(25))\",SCTE35-CMD=\(try SpliceInfoSection.spliceInsertCancel(eventID: 200).encodedHex())",
        ]
        try write(Self.window(first: 0, count: 3, lines: outs), to: directory)
        let clock = TestClock(Self.epoch + MediaTime(seconds: 30))
        try await UpstreamTests().withUpstream(directory: directory.path) { port in
            let configuration = try configuration(port: port, keepSignals: true, database: database)
            try await Harness.withServer(configuration, clock: clock) { client in
                let first = try await client.text("/live/news/live.m3u8")
                #expect(interstitial(first, id: Self.breakID) != nil, "\(first)")
                #expect(interstitial(first, id: laterID) != nil, "\(first)")

                try write(Self.window(first: 0, count: 3, lines: outs + cancels), to: directory)
                let cancelled = try await client.text("/live/news/live.m3u8")
                #expect(interstitial(cancelled, id: Self.breakID) == nil, "not started: withdrawn\n\(cancelled)")
                #expect(interstitial(cancelled, id: laterID) != nil, "started at 20 s: stays\n\(cancelled)")
                let list = try await client.get("/live/news/asset-list.json?_HLS_interstitial_id=\(Self.breakID)")
                #expect(list.status != .ok, "a withdrawn break has no asset list")

                // The markers left the window; the window now covers the break's planned time.
                try write(Self.window(first: 3, count: 3, lines: []), to: directory)
                clock.advance(30)
                let moved = try await client.text("/live/news/live.m3u8")
                #expect(interstitial(moved, id: Self.breakID) == nil, "\(moved)")
            }
            try await Harness.withServer(configuration, clock: clock) { client in
                let restarted = try await client.text("/live/news/live.m3u8")
                #expect(interstitial(restarted, id: Self.breakID) == nil, "\(restarted)")
            }
        }
        let state = try SQLiteStore(path: database).load()
        #expect(state.withdrawn == [ServedKey(Target(.live, "news"), Self.breakID)])
    }

    @Test(
        "EXT-X-CUE-OUT and EXT-X-CUE-IN become one interstitial with DURATION; the markers pass through or are removed",
        arguments: [true, false])
    func upstreamCueOut(_ keep: Bool) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try write(Self.playlist(count: 5, atOut: ["#EXT-X-CUE-OUT:30"], atIn: ["#EXT-X-CUE-IN"]), to: directory)
        let clock = TestClock(Self.epoch + MediaTime(seconds: 50))
        try await UpstreamTests().withUpstream(directory: directory.path) { port in
            try await Harness.withServer(try configuration(port: port, keepSignals: keep), clock: clock) { client in
                let text = try await client.text("/live/news/live.m3u8")
                let id = "scte35-cue-\((Self.epoch + MediaTime(seconds: 10)).nanosecondsSinceEpoch / 1_000_000)"
                let line = try #require(interstitial(text, id: id), "\(text)")
                #expect(line.contains("DURATION=20"))
                #expect(!line.contains("PLANNED-DURATION"))
                #expect(!line.contains("X-PLAYOUT-LIMIT"))
                #expect(text.contains("#EXT-X-CUE-OUT:30\n") == keep)
                #expect(text.contains("#EXT-X-CUE-IN\n") == keep)
            }
        }
    }

    @Test("a break whose OUT left the window is not served again under the ID its EXT-X-CUE-OUT-CONT gives")
    func contAfterOutLeft() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let oatcls = "#EXT-OATCLS-SCTE35:\(try Self.out.encodedBase64())"
        try write(Self.playlist(count: 3, atOut: [oatcls, "#EXT-X-CUE-OUT:30"]), to: directory)
        let clock = TestClock(Self.epoch + MediaTime(seconds: 30))
        try await UpstreamTests().withUpstream(directory: directory.path) { port in
            try await Harness.withServer(try configuration(port: port, keepSignals: true), clock: clock) { client in
                let first = try await client.text("/live/news/live.m3u8")
                #expect(interstitial(first, id: Self.breakID) != nil, "\(first)")
                // The window moved on: segments 2 to 4, the OUT gone, a CONT without SCTE35= on segment 2.
                var text = "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:2\n"
                text += "#EXT-X-PROGRAM-DATE-TIME:\(Self.date(20))\n#EXT-X-CUE-OUT-CONT:ElapsedTime=10,Duration=30\n"
                text += "#EXTINF:10,\ns2.ts\n#EXTINF:10,\ns3.ts\n#EXTINF:10,\ns4.ts\n"
                try write(text, to: directory)
                clock.advance(20)
                let second = try await client.text("/live/news/live.m3u8")
                let interstitials = dateRangeLines(second).filter { $0.contains("com.apple.hls.interstitial") }
                #expect(interstitials.count == 1, "\(second)")
                #expect(interstitial(second, id: Self.breakID) != nil)
            }
        }
    }

    @Test("a channel without signals: scte35 converts nothing and removes nothing", arguments: [true, false])
    func signalsOff(_ keep: Bool) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try write(Self.playlist(count: 3, atOut: [Self.outRange]), to: directory)
        try await UpstreamTests().withUpstream(directory: directory.path) { port in
            var configuration = try configuration(port: port, keepSignals: keep)
            configuration.live[0].signals = nil
            try await Harness.withServer(configuration, clock: TestClock(Self.epoch + MediaTime(seconds: 30))) {
                client in
                let text = try await client.text("/live/news/live.m3u8")
                #expect(interstitial(text, id: Self.breakID) == nil)
                #expect(text.contains("SCTE35-OUT"))
            }
        }
    }

    @Test("the demo's /demo/live-scte35 converts the markers its signal inserter writes, in every rendition")
    func demoChannel() async throws {
        let epoch = ServerConfiguration.defaultEpoch
        let clock = TestClock(epoch + MediaTime(seconds: 60 * 7 + 43))
        let section = SpliceInfoSection.spliceInsertOut(
            eventID: 7, ptsTime: UInt64(60 * 7 + 30) * 90_000, duration: 10 * 90_000)
        let id = "scte35-7-\(section.crcText!)"
        try await Harness.withServer(try Harness.demo(), clock: clock) { client in
            let video = try await client.text("/demo/live-scte35/video/main.m3u8")
            #expect(video.contains("SCTE35-OUT=\(try section.encodedHex())"), "\(video)")
            let line = try #require(interstitial(video, id: id), "\(video)")
            #expect(line.contains("START-DATE=\"\((epoch + MediaTime(seconds: 450)).iso8601)\""))
            #expect(line.contains("DURATION=10"))
            let audio = try await client.text("/demo/live-scte35/audio-en/main.m3u8")
            #expect(interstitial(audio, id: id) == line)
            let plain = try await client.text("/demo/live/video/main.m3u8")
            #expect(!plain.contains("SCTE35"), "the existing demo channel is unchanged")
        }
    }

    @Test(
        "a splice_insert sent 8 s ahead of its splice time (cue-out form, lead 8) is served at the splice time as soon as its segment appears"
    )
    func spliceTimeLead() async throws {
        let epoch = ServerConfiguration.defaultEpoch
        // 7:25: the window's last segment starts at 7:22, the one carrying the EXT-OATCLS-SCTE35 of the
        // break at 7:30; its EXT-X-CUE-OUT has not come yet.
        let clock = TestClock(epoch + MediaTime(seconds: 60 * 7 + 25))
        let section = SpliceInfoSection.spliceInsertOut(
            eventID: 7, ptsTime: UInt64(60 * 7 + 30) * 90_000, duration: 10 * 90_000)
        let id = "scte35-7-\(section.crcText!)"
        var configuration = try Harness.demo()
        let index = try #require(configuration.live.firstIndex { $0.id == "demo-scte35" })
        configuration.live[index].signalInserter = SignalInserter(
            every: MediaTime(seconds: 60), duration: MediaTime(seconds: 10), offset: MediaTime(seconds: 30),
            form: .cueOut, lead: MediaTime(seconds: 8))
        try await Harness.withServer(configuration, clock: clock) { client in
            let video = try await client.text("/demo/live-scte35/video/main.m3u8")
            #expect(video.contains("#EXT-OATCLS-SCTE35:\(try section.encodedBase64())"), "\(video)")
            #expect(!video.contains("#EXT-X-CUE-OUT:"), "\(video)")
            let line = try #require(interstitial(video, id: id), "\(video)")
            #expect(line.contains("START-DATE=\"\((epoch + MediaTime(seconds: 450)).iso8601)\""), "\(line)")
            // Later, with the EXT-X-CUE-OUT at the splice point in the window: the same one break.
            clock.advance(10)
            let later = try await client.text("/demo/live-scte35/video/main.m3u8")
            #expect(later.contains("#EXT-X-CUE-OUT:"), "\(later)")
            #expect(interstitial(later, id: id) == line)
            #expect(
                dateRangeLines(later).filter { $0.contains("com.apple.hls.interstitial") }.count == 1, "\(later)")
        }
    }

    @Test(
        "the cue-out form of the inserter is recognized the same way",
        arguments: [SignalInserter.Form.cueOut, .dateRange])
    func inserterForms(_ form: SignalInserter.Form) throws {
        let source = try demoMedia("video/main.m3u8")
        let epoch = ServerConfiguration.defaultEpoch
        let loop = try #require(
            LiveLoop(source: source, loopDuration: source.duration, epoch: epoch, windowSegments: 12))
        let inserter = SignalInserter(
            every: MediaTime(seconds: 60), duration: MediaTime(seconds: 10), offset: MediaTime(seconds: 30), form: form)
        for seconds in [36, 45, 52] {
            let window = loop.window(at: epoch + MediaTime(seconds: seconds), signals: inserter)
            let result = PlaylistParser.parse(window.text)
            guard case .media(let playlist) = result.playlist else {
                Issue.record("not a media playlist")
                return
            }
            let recognition = SignalRecognizer.recognize(playlist, document: result.document)
            #expect(recognition.diagnostics.isEmpty, "\(seconds): \(recognition.diagnostics.map(\.description))")
            let item = try #require(recognition.breaks.first, "\(seconds) s: \(window.text)")
            #expect(recognition.breaks.count == 1)
            #expect(item.eventID == .splice(0))
            #expect(item.startDate == epoch + MediaTime(seconds: 30))
            #expect(item.plannedDuration == MediaTime(seconds: 10))
            #expect(item.hasReturned == (seconds >= 42))
        }
    }

    @Test("configuration: signals, keepSignals, snapSignals and signalInserter, with located errors")
    func configurationOptions() throws {
        let text = #"""
            {"live":[{"id":"a","loop":"d","signals":"scte35","keepSignals":false,"snapSignals":true,
              "signalInserter":{"every":60,"duration":10,"offset":30,"form":"cue-out"}}]}
            """#
        let configuration = try ServerConfiguration.decode(Array(text.utf8), base: "/tmp")
        let content = try #require(configuration.live.first)
        #expect(content.signals == .scte35)
        #expect(!content.keepSignals)
        #expect(content.snapSignals)
        #expect(
            content.signalInserter
                == SignalInserter(
                    every: MediaTime(seconds: 60), duration: MediaTime(seconds: 10), offset: MediaTime(seconds: 30),
                    form: .cueOut))
        let cases: [(String, String)] = [
            (#"{"live":[{"id":"a","loop":"d","signals":"vast"}]}"#, "live[0].signals"),
            (
                #"{"live":[{"id":"a","loop":"d","signalInserter":{"every":10,"duration":10}}]}"#,
                "live[0].signalInserter.duration"
            ),
            (
                #"{"live":[{"id":"a","loop":"d","signalInserter":{"every":60,"duration":10,"form":"x"}}]}"#,
                "live[0].signalInserter.form"
            ),
            (
                #"{"allowedOrigins":["https://u.example.com"],"live":[{"id":"a","upstream":"https://u.example.com/a.m3u8","signalInserter":{"every":60,"duration":10}}]}"#,
                "live[0].signalInserter"
            ),
        ]
        for (text, path) in cases {
            do {
                _ = try ServerConfiguration.decode(Array(text.utf8), base: "/tmp")
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.path == path, "\(text): \(error)")
            }
        }
    }
}
