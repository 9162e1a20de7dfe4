import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import PlaybackEngine
import Testing

/// A live channel on the test's manual clock: 2 s segments, a window of ten, its live edge 60 s
/// into the stream when the clock starts; `dateRanges(now)` gives the date-range lines at clock time
/// `now` (seconds). Stream time `t` is dated epoch + t.
func liveFiles(clock: ManualClock, dateRanges: @escaping @Sendable (Double) -> [String]) -> TestOrigin.Routes {
    { path, _ in
        let now = Double(clock.elapsed.components.seconds) + Double(clock.elapsed.components.attoseconds) / 1e18
        switch path {
        case "/live.m3u8":
            let last = Int(((60 + now) / 2).rounded(.down)) - 1
            let first = last - 9
            var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
            text += "#EXT-X-PROGRAM-DATE-TIME:\(Content.date(Double(first * 2)))\n"
            for line in dateRanges(now) { text += line + "\n" }
            for index in first...last { text += "#EXTINF:2.0,\nlive\(index).ts\n" }
            return .init(body: text)
        default:
            return TestOrigin.reply(
                ads.merging([
                    "/pair.json": Content.assetList([("{ORIGIN}/c.m3u8", 6), ("{ORIGIN}/c.m3u8", 6)]),
                    "/longs.json": Content.assetList([("{ORIGIN}/long.m3u8", 10), ("{ORIGIN}/long.m3u8", 10)]),
                ]) { $1 }, path)
        }
    }
}

/// Plays the live channel for `seconds` of clock.
func playLive(
    _ dateRanges: @escaping @Sendable (Double) -> [String], until seconds: Double
) async throws -> (trace: [PlaybackEvent], requests: [TestOrigin.Request]) {
    let clock = ManualClock()
    return try await TestOrigin.with(liveFiles(clock: clock, dateRanges: dateRanges)) { origin in
        let player = makePlayer(origin, "/live.m3u8", clock: clock)
        player.play()
        await player.run(until: .nanoseconds(s(seconds).nanoseconds))
        await player.shutdown()
        return (player.trace, origin.requests)
    }
}

@Suite("Playback rules: live")
struct LiveRuleTests {
    @Test("R10: without X-RESUME-OFFSET a live break resumes at its start plus the time played")
    func liveResume() async throws {
        let (trace, requests) = try await playLive(
            { _ in [Content.interstitial("brk", at: 80, "DURATION=6,X-ASSET-URI=\"{ORIGIN}/c.m3u8\"")] }, until: 40)
        // Primary starts 6 s (3 target durations) behind the edge: stream 54 is primary 14.
        #expect(trace.first(.primaryResumed)?.primaryTime == s(14))
        #expect(trace.first(.interstitialStarted, id: "brk")?.seconds == s(26))
        #expect(trace.first(.interstitialEnded, id: "brk")?["resumeTime"] == .time(s(46)))
        #expect(trace.last { $0.kind == .primaryResumed }.map { [$0.seconds, $0.primaryTime] } == [s(32), s(46)])
        // Reloaded every target duration.
        let reloads = requests.filter { $0.path == "/live.m3u8" }.count
        #expect(reloads >= 19 && reloads <= 21)
    }

    @Test("R10: after a live PRE, primary starts at the start point chosen when it began plus the time played")
    func livePreroll() async throws {
        let (trace, _) = try await playLive(
            { _ in [Content.interstitial("pre", at: 0, "CUE=\"PRE\",DURATION=6,X-ASSET-URI=\"{ORIGIN}/c.m3u8\"")] },
            until: 10)
        #expect(
            trace.lines([.interstitialStarted, .primaryResumed]) == [
                "0.000 interstitialStarted @14.000 id=pre", "6.000 primaryResumed @20.000",
            ])
    }

    @Test("R11: joining inside a break plays it from the offset, with _HLS_start_offset on the asset-list request")
    func joinInsideBreak() async throws {
        let (trace, requests) = try await playLive(
            { _ in [Content.interstitial("brk", at: 50, "DURATION=12,X-ASSET-LIST=\"/pair.json\"")] }, until: 12)
        let list = try #require(requests.first { $0.path == "/pair.json" })
        #expect(list.query["_HLS_start_offset"] == "4.000")
        #expect(trace.first(.interstitialStarted, id: "brk")?["startOffset"] == .time(s(4)))
        // The first asset starts 4 s in; then the second; resumes at 10 + 4 + 8 (R10).
        #expect(
            trace.lines([.assetStarted, .interstitialEnded, .primaryResumed], fields: ["index", "resumeTime"]) == [
                "0.000 assetStarted @14.000 index=0", "2.000 assetStarted @14.000 index=1",
                "8.000 interstitialEnded @14.000 resumeTime=22.000", "8.000 primaryResumed @22.000",
            ])
    }

    @Test(
        "R12: a playout limit added while the break plays ends it early; changed values are ignored; removed events are unscheduled"
    )
    func reloadUpdates() async throws {
        let (trace, _) = try await playLive(
            { now in
                var lines = [
                    Content.interstitial(
                        "brk", at: 80,
                        now < 30
                            ? "DURATION=20,X-ASSET-LIST=\"/longs.json\""
                            : "DURATION=25,X-ASSET-LIST=\"/longs.json\",X-PLAYOUT-LIMIT=8")
                ]
                if now < 20 {
                    lines.append(Content.interstitial("gone", at: 110, "DURATION=6,X-ASSET-URI=\"{ORIGIN}/c.m3u8\""))
                }
                return lines
            }, until: 45)
        #expect(trace.first(.interstitialStarted, id: "brk")?.seconds == s(26))
        #expect(trace.first(.interstitialEnded, id: "brk")?["reason"] == .string("limit"))
        #expect(trace.first(.interstitialEnded, id: "brk")?.seconds == s(34))
        #expect(trace.first(.interstitialEnded, id: "brk")?["resumeTime"] == .time(s(48)))
        #expect(trace.first(.warning)?["message"]?.description.contains("changed DURATION from 20 to 25") == true)
        #expect(trace.first(.eventUnscheduled, id: "gone")?.seconds == s(20))
        #expect(trace.first(.interstitialStarted, id: "gone") == nil)
    }
}

@Suite("Playback rules: preload hints")
struct PreloadTests {
    @Test("R18: a com.apple.hls.preload range (App. F) moves the asset-list request earlier, to a point inside it")
    func preload() async throws {
        let preload =
            "#EXT-X-DATERANGE:ID=\"pre-brk\",CLASS=\"com.apple.hls.preload\",START-DATE=\"\(Content.date(70))\",END-DATE=\"\(Content.date(80))\",X-URI=\"/pair.json\",X-TARGET-ID=\"brk\","
            + "X-TARGET-CLASS=\"com.apple.hls.interstitial\""
        let (hinted, _) = try await playLive(
            { _ in [Content.interstitial("brk", at: 100, "DURATION=12,X-ASSET-LIST=\"/pair.json\""), preload] },
            until: 40)
        let (plain, _) = try await playLive(
            { _ in [Content.interstitial("brk", at: 100, "DURATION=12,X-ASSET-LIST=\"/pair.json\"")] }, until: 40)
        // The break is primary 60 (clock 46): without the hint, the list comes 10 s before (clock 36);
        // with it, somewhere in primary [30, 40), i.e. clock [16, 26).
        #expect(plain.first(.assetListRequested, id: "brk")?.seconds == s(36))
        let early = try #require(hinted.first(.assetListRequested, id: "brk")?.seconds)
        #expect(early >= s(16) && early < s(26))
        #expect(hinted.filter { $0.kind == .assetListRequested }.count == 1)
    }
}
