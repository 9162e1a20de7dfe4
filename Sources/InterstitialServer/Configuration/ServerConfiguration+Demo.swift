import Foundation
import HLSInterstitials
import HLSPlaylist

extension ServerConfiguration {
    /// The demo: the committed demo media as a VOD asset at `/demo/vod` (a pre-roll, a restricted
    /// mid-roll, a mid-roll filled by an asset list, a post-roll, all `X-TIMELINE-OCCUPIES="RANGE"`) and a looped live channel at
    /// `/demo/live` with a 10 s break every minute, the same loop at `/demo/live-scte35` whose breaks come from
    /// the SCTE-35 markers it writes into its own playlists (``SignalInserter``), three ads, an
    /// in-memory database, and ad servers allowed on loopback (``AdServerFetchPolicy/allowingLoopback``).
    public static func demo() throws(APIError) -> ServerConfiguration {
        guard let root = Bundle.module.resourceURL?.appendingPathComponent("demo").path,
            FileManager.default.fileExists(atPath: root + "/primary/master.m3u8")
        else {
            throw APIError(status: 500, code: .demoMedia, "the demo media is missing from the build's resources")
        }
        var configuration = ServerConfiguration()
        configuration.database = nil
        configuration.vod = [Content(id: "demo", path: "/demo/vod", origin: .directory(root + "/primary"))]
        configuration.live = [
            Content(id: "demo", path: "/demo/live", origin: .directory(root + "/primary"), windowSegments: 6),
            // The same loop with SCTE-35 markers in its playlists, converted to interstitials as an
            // upstream encoder's would be: a 10 s break every minute, 30 s into it.
            Content(
                id: "demo-scte35", path: "/demo/live-scte35", origin: .directory(root + "/primary"),
                windowSegments: 6, signals: .scte35,
                signalInserter: SignalInserter(
                    every: MediaTime(seconds: 60), duration: MediaTime(seconds: 10), offset: MediaTime(seconds: 30),
                    form: .dateRange)),
        ]
        configuration.adDirectory = root + "/ads"
        // The demo's ad servers run on this machine (E2E/ad_server.py); a deployment's are public.
        configuration.adServerFetch = .allowingLoopback
        configuration.creativeCache =
            FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-demo-creatives").path
        configuration.seed.inventory = [
            Ad(id: "ad1", uri: "/ads/ad1/master.m3u8", duration: MediaTime(seconds: 6)),
            Ad(id: "ad2", uri: "/ads/ad2/master.m3u8", duration: MediaTime(seconds: 4)),
            Ad(id: "ad3", uri: "/ads/ad3/master.m3u8", duration: MediaTime(seconds: 6)),
        ]
        let vod = Target(.vod, "demo")
        var pre = InsertionRequest(id: "preroll")
        pre.cue = ["PRE", "ONCE"]
        pre.duration = MediaTime(seconds: 6)
        pre.resumeOffset = .zero
        var restricted = InsertionRequest(id: "midroll-1")
        restricted.at = MediaTime(seconds: 12)
        restricted.duration = MediaTime(seconds: 4)
        restricted.resumeOffset = .zero
        restricted.restrict = ["SKIP", "JUMP"]
        // The same ad for everyone: a coordinated group watches it together.
        restricted.contentMayVary = "NO"
        var listed = InsertionRequest(id: "midroll-2")
        listed.at = MediaTime(seconds: 26)
        listed.duration = MediaTime(seconds: 10)
        listed.resumeOffset = .zero
        var post = InsertionRequest(id: "postroll")
        post.cue = ["POST"]
        post.duration = MediaTime(seconds: 6)
        // Nothing follows a post-roll, so its offset changes nothing here; it keeps hls.js 1.6 from
        // appending the post-roll into the primary's buffers (it does so for an aligned event with
        // no offset and no limit), after which it stalls at the end instead of ending.
        post.resumeOffset = .zero
        // The ads take their length on the timeline a player draws.
        pre.occupies = "RANGE"
        restricted.occupies = "RANGE"
        listed.occupies = "RANGE"
        post.occupies = "RANGE"
        configuration.seed.breaks = [
            Break(target: vod, interstitial: pre),
            Break(target: vod, interstitial: restricted, ad: "ad2"),
            Break(
                target: vod, interstitial: listed,
                assetListSkipControl: SkipControl(offset: MediaTime(seconds: 2), duration: MediaTime(seconds: 6))),
            Break(target: vod, interstitial: post, ad: "ad3"),
        ]
        configuration.seed.schedules = [
            BreakSchedule(
                target: Target(.live, "demo"),
                cadence: .init(
                    every: MediaTime(seconds: 60), duration: MediaTime(seconds: 10), offset: MediaTime(seconds: 30)))
        ]
        return configuration
    }
}
