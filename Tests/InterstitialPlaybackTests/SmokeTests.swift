import HLSPlaylist
import InterstitialPlayback
import Testing

@Suite("Playback smoke")
struct SmokeTests {
    @Test("a VOD mid-roll from an asset list plays and primary resumes")
    func vodMidroll() async throws {
        let trace = try await TestOrigin.with({ path, _ in
            switch path {
            case "/main.m3u8":
                return .init(
                    body: Content.vod(
                        segments: 10,
                        dateRanges: [
                            Content.interstitial(
                                "ad", at: 12, "DURATION=10,X-ASSET-LIST=\"/list.json\",X-RESUME-OFFSET=0")
                        ]))
            case "/list.json":
                return .init(contentType: "application/json", body: Content.assetList([("http://127.0.0.1:\(0)/a.m3u8", 5)]))
            default: return nil
            }
        }) { origin in
            origin.setRoutes { path, _ in
                switch path {
                case "/main.m3u8":
                    return .init(
                        body: Content.vod(
                            segments: 10,
                            dateRanges: [
                                Content.interstitial(
                                    "ad", at: 12, "DURATION=10,X-ASSET-LIST=\"/list.json\",X-RESUME-OFFSET=0")
                            ]))
                case "/list.json":
                    return .init(
                        contentType: "application/json",
                        body: Content.assetList([(origin.url("/a.m3u8"), 5), (origin.url("/b.m3u8"), 5)]))
                case "/a.m3u8": return .init(body: Content.ad(5))
                case "/b.m3u8": return .init(body: Content.ad(5))
                default: return nil
                }
            }
            return await play(origin, "/main.m3u8").trace
        }
        for line in trace.lines() { print(line) }
    }
}
