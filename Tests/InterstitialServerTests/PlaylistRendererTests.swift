import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialServer

/// The pure playlist renderer, driven directly: planned breaks and a parsed playlist in, bytes out.
@Suite("PlaylistRenderer")
struct PlaylistRendererTests {
    static let vod = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:4
        #EXTINF:4,
        a.ts
        #EXTINF:4,
        b.ts
        #EXTINF:4,
        c.ts
        #EXT-X-ENDLIST

        """

    static let target = Target(.vod, "demo")

    static func planner(_ breaks: [Break]) -> BreakPlanner {
        var state = StoredState()
        for item in breaks { state.breaks[item.id] = item }
        return BreakPlanner(
            target: target, state: state, assetListURI: "/demo/vod/asset-list.json", adURI: { "https://ads" + $0.uri })
    }

    static func midRoll(_ id: String, at seconds: Double) -> Break {
        var request = InsertionRequest(id: id)
        request.at = MediaTime(seconds: seconds)
        request.duration = MediaTime(seconds: 8)
        return Break(target: target, interstitial: request)
    }

    @Test("keepSignals false removes every SCTE-35 marker form and nothing else, byte for byte")
    func removeSignals() {
        let marked = """
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXT-X-PROGRAM-DATE-TIME:2026-06-01T12:00:00.000Z
            #EXTINF:10,
            a.ts
            #EXT-X-CUE-OUT:30
            #EXT-OATCLS-SCTE35:/DAlAAAAAAAAAP/wFAUAAABkf+/+AA27oP4AKTLgAAEAAAAAbFzlUA==
            #EXT-X-DATERANGE:ID="s",START-DATE="2026-06-01T12:00:10.000Z",SCTE35-OUT=0xFC
            #EXT-X-DATERANGE:ID="other",START-DATE="2026-06-01T12:00:10.000Z",X-COM-EXAMPLE="kept"
            #EXTINF:10,
            b.ts
            #EXT-X-CUE-OUT-CONT:ElapsedTime=10,Duration=30
            #EXTINF:10,
            c.ts
            #EXT-X-CUE-IN
            #EXT-X-DATERANGE:ID="s",START-DATE="2026-06-01T12:00:10.000Z",SCTE35-IN=0xFC
            #EXT-X-DATERANGE:ID="c",START-DATE="2026-06-01T12:00:10.000Z",SCTE35-CMD=0xFC
            #EXTINF:10,
            d.ts

            """
        var document = PlaylistParser.parse(marked).document
        PlaylistRenderer.removeSignals(from: &document)
        let expected = """
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXT-X-PROGRAM-DATE-TIME:2026-06-01T12:00:00.000Z
            #EXTINF:10,
            a.ts
            #EXT-X-DATERANGE:ID="other",START-DATE="2026-06-01T12:00:10.000Z",X-COM-EXAMPLE="kept"
            #EXTINF:10,
            b.ts
            #EXTINF:10,
            c.ts
            #EXTINF:10,
            d.ts

            """
        #expect(String(decoding: document.write(), as: UTF8.self) == expected)
    }

    @Test("Planned breaks go into a VOD playlist as interstitial date ranges at their dates; segments stay")
    func breaksGoIn() throws {
        let result = PlaylistParser.parse(Self.vod, options: ParseOptions(file: "v.m3u8"))
        guard case .media(let playlist) = result.playlist else { throw APIError.notFound("media") }
        let (timeline, dated) = PlaylistRenderer.vodTimeline(playlist)
        let planned = Self.planner([Self.midRoll("mid", at: 4), Self.midRoll("late", at: 10)]).plan(timeline)
        let bytes = try PlaylistRenderer.render(planned, into: result)
        guard case .media(let output) = PlaylistParser.parse(bytes).playlist else {
            Issue.record("the output is not a media playlist")
            return
        }
        #expect(output.segments.map(\.uri) == ["a.ts", "b.ts", "c.ts"])
        let events = output.dateRanges.compactMap(InterstitialEvent.init(dateRange:))
        #expect(events.map(\.identifier) == ["mid", "late"])
        #expect(events.map(\.date) == [dated.date(at: MediaTime(seconds: 4)), dated.date(at: MediaTime(seconds: 10))])
        #expect(
            events.map(\.assetListURI) == [
                "/demo/vod/asset-list.json?_HLS_interstitial_id=mid",
                "/demo/vod/asset-list.json?_HLS_interstitial_id=late",
            ])
        #expect(events.map(\.duration) == [MediaTime(seconds: 8), MediaTime(seconds: 8)])
        #expect(try PlaylistRenderer.render(planned, into: result) == bytes, "the same input gives the same bytes")
        #expect(try PlaylistRenderer.render([], into: result) != bytes)
    }

    @Test("A playlist without segments or a multivariant playlist is served as it is; breaks cannot go into one")
    func unchanged() throws {
        let multivariant = PlaylistParser.parse(
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\nv.m3u8\n", options: ParseOptions(file: "m.m3u8"))
        let live = PlaylistRenderer.unchanged(multivariant, kind: .live)
        guard case .bytes(let bytes) = live.body else {
            Issue.record("not bytes")
            return
        }
        #expect(bytes == multivariant.document.write())
        #expect(live.cacheControl == CachePolicy.livePlaylist(targetDuration: nil))
        #expect(PlaylistRenderer.unchanged(multivariant, kind: .vod).cacheControl == CachePolicy.vodPlaylist)
        let empty = PlaylistParser.parse("#EXTM3U\n#EXT-X-TARGETDURATION:4\n", options: ParseOptions(file: "e.m3u8"))
        #expect(PlaylistRenderer.unchanged(empty, kind: .vod).cacheControl == "public, max-age=2", "no ENDLIST: live")
        let planned = Self.planner([Self.midRoll("mid", at: 4)]).plan(
            .vod(duration: MediaTime(seconds: 12), dateAt: { DateTime(nanosecondsSinceEpoch: 0) + $0 }))
        #expect(!planned.isEmpty)
        do {
            _ = try PlaylistRenderer.render(planned, into: multivariant)
            Issue.record("a multivariant playlist took breaks")
        } catch {
            #expect(error.statusCode == 502 && error.code == .playlist)
        }
    }

    @Test("The live timeline of a dated window spans its segments' dates; an undated one has none")
    func liveTimeline() throws {
        let configuration = try Harness.demo()
        let undated = try #require(PlaylistParser.parse(Self.vod).playlist.media)
        #expect(PlaylistRenderer.liveTimeline(undated, content: configuration.live[0]) == nil)
        let dated = try #require(
            PlaylistParser.parse(
                "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00Z\n#EXTINF:4,\na.ts\n#EXTINF:4,\nb.ts\n"
            ).playlist.media)
        guard case .live(_, let window, _)? = PlaylistRenderer.liveTimeline(dated, content: configuration.live[0])
        else {
            Issue.record("no live timeline")
            return
        }
        #expect(window.lowerBound == DateTime(iso8601: "2026-01-01T00:00:00Z"))
        #expect(window.upperBound == DateTime(iso8601: "2026-01-01T00:00:08Z"))
    }
}
