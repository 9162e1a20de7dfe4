import AdDecisioning
import HLSPlaylist
import Testing

struct VMAPTests {
    @Test func readsBreaksSourcesAndTracking() throws {
        let document = try VMAPReader().read(try Fixtures.bytes("vmap-1.0.xml"))
        #expect(document.version == "1.0")
        #expect(
            document.breaks.map(\.timeOffset) == [
                .start, .time(MediaTime(seconds: 600)), .percent(50), .position(2), .time(MediaTime(seconds: 1800)),
                .end,
            ])
        #expect(document.notes.contains { $0.message.contains("no readable timeOffset") })
        let pre = document.breaks[0]
        #expect(pre.breakId == "preroll")
        #expect(pre.adSource?.allowMultipleAds == false)
        #expect(
            pre.adSource?.content
                == .adTagURI("https://ads.example.com/vast?pos=pre&cb=[CACHEBUSTING]", templateType: "vast4"))
        #expect(pre.tracking.map(\.event) == ["breakStart", "breakEnd"])
        #expect(pre.tracking[0].url == "https://ads.example.com/break?e=start&id=pre")
        guard case .vast(let vast) = document.breaks[1].adSource?.content else {
            Issue.record("no inline VAST")
            return
        }
        #expect(vast.version == "3.0" && vast.ads.map(\.id) == ["inline-in-vmap"])
        #expect(document.breaks[1].repeatAfter == MediaTime(seconds: 1200))
        #expect(document.breaks[2].isLinear && !document.breaks[4].isLinear)
        #expect(document.breaks[5].extensions.first?.contains("<Custom>1</Custom>") == true)
    }

    @Test func placesBreaksOnAnAssetOfKnownDuration() throws {
        let document = try VMAPReader().read(try Fixtures.bytes("vmap-1.0.xml"))
        let duration = MediaTime(seconds: 3600)
        let placed = document.placedBreaks(
            duration: duration, cuePoints: [MediaTime(seconds: 900), MediaTime(seconds: 2700)])
        #expect(
            placed.map(\.id) == ["preroll", "mid-time", "mid-time-r1", "vmap-3", "cue-2", "mid-time-r2", "postroll"])
        #expect(
            placed.map { $0.time(duration: duration) }
                == [0, 600, 1800, 1800, 2700, 3000, 3600].map { MediaTime(seconds: $0) })
        #expect(placed.first?.position == .pre && placed.last?.position == .post)
        let withoutCues = document.placedBreaks(duration: MediaTime(seconds: 700))
        #expect(withoutCues.map(\.id) == ["preroll", "vmap-3", "mid-time", "postroll"])
    }

    @Test func refusesOtherDocuments() throws {
        #expect(throws: VASTError.self) { try VMAPReader().read(try Fixtures.bytes("inline-4.2.xml")) }
        #expect(throws: VASTError.self) { try VMAPReader().read("<vmap:VMAP xmlns:vmap=\"x\" version=\"2.0\"/>") }
    }
}
