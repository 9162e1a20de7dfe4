import AdDecisioning
import HLSPlaylist
import Testing

@testable import InterstitialServer

/// A VMAP plans at most 100 breaks on an asset, with a warning that names it (issue 37, item 11).
@Suite("VMAP plan limits")
struct VMAPPlanLimitTests {
    @Test("a VMAP of 100 breaks repeating every second plans 100, and the plan's warning names the VMAP")
    func planIsCapped() throws {
        var text = "<vmap:VMAP xmlns:vmap=\"http://www.iab.net/videosuite/vmap\" version=\"1.0\">"
        for index in 0..<150 {
            text += "<vmap:AdBreak timeOffset=\"00:0\(index / 60):\(index % 60 < 10 ? "0" : "")\(index % 60)\""
            text += " breakType=\"linear\" breakId=\"b\(index)\" repeatAfter=\"00:00:01\"><vmap:AdSource>"
            text += "<vmap:AdTagURI>https://ads.example/v?b=\(index)</vmap:AdTagURI></vmap:AdSource></vmap:AdBreak>"
        }
        let document = try VMAPReader().read(text + "</vmap:VMAP>")
        let settings = AdServerSettings(vast: nil, vmap: "https://ads.example/vmap")
        let plan = VMAPPlans.plan(
            document, source: "https://ads.example/vmap?cid=demo", target: Target(.vod, "demo"), settings: settings,
            duration: MediaTime(seconds: 36_000))
        #expect(plan.breaks.count == 100)
        #expect(plan.warnings.count == 2)
        #expect(plan.warnings.allSatisfy { $0.contains("VMAP https://ads.example/vmap?cid=demo") })
        #expect(plan.warnings.contains { $0.contains("the 49 after it are skipped") })
        #expect(
            plan.warnings.contains { $0.contains("places 10100 breaks") && $0.contains("10000 later ones dropped") })

        let small = try VMAPReader().read(Fixtures.vmap)
        let ordinary = VMAPPlans.plan(
            small, source: "x", target: Target(.vod, "demo"), settings: settings, duration: MediaTime(seconds: 60))
        #expect(ordinary.warnings.isEmpty && ordinary.breaks.count == 2)
    }
}

extension VMAPPlanLimitTests {
    enum Fixtures {
        static let vmap = """
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            <vmap:AdBreak timeOffset="start" breakType="linear" breakId="pre"><vmap:AdSource>
            <vmap:AdTagURI>https://ads.example/v</vmap:AdTagURI></vmap:AdSource></vmap:AdBreak>
            <vmap:AdBreak timeOffset="end" breakType="linear" breakId="post"><vmap:AdSource>
            <vmap:AdTagURI>https://ads.example/v</vmap:AdTagURI></vmap:AdSource></vmap:AdBreak>
            </vmap:VMAP>
            """
    }
}
