import HLSInterstitials
import HLSLoading
import HLSPlaylist
import NIOConcurrencyHelpers
import Testing

/// Loading Date Range Schedule documents (issue 35, profile R27): through the presentation's
/// fetcher, once per identity, the entries' asset lists loaded like any other.
@Suite("Date Range Schedule loading")
struct ScheduleLoadingTests {
    /// A fetcher over in-memory files that counts what it fetched.
    final class Fetcher: PresentationFetcher {
        let files: NIOLockedValueBox<[String: String]>
        let fetched = NIOLockedValueBox<[String]>([])

        init(_ files: [String: String]) { self.files = NIOLockedValueBox(files) }

        func fetchPlaylist(_ location: String) async throws -> LoadedPlaylist {
            fetched.withLockedValue { $0.append(location) }
            let text = files.withLockedValue { $0[location] } ?? ""
            return LoadedPlaylist(
                location: location, finalLocation: location,
                result: PlaylistParser.parse(text, options: ParseOptions(file: location)))
        }

        func fetchBytes(_ location: String) async throws -> [UInt8] {
            fetched.withLockedValue { $0.append(location) }
            guard let text = files.withLockedValue({ $0[location] }) else { throw CancellationError() }
            return Array(text.utf8)
        }
    }

    static let playlist = """
        #EXTM3U
        #EXT-X-TARGETDURATION:10
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
        #EXT-X-DATERANGE:ID="s",CLASS="com.apple.hls.daterange-schedule",START-DATE="2026-01-01T00:00:00.000Z",X-URI="s.json"
        #EXTINF:10,
        a.ts
        #EXTINF:10,
        b.ts

        """
    static let document = """
        {"DATERANGES": [{"ID": "ad", "CLASS": "com.apple.hls.interstitial", "X-SCHEDULE-OFFSET": 4,
                         "X-ASSET-LIST": "list.json"}]}
        """

    @Test("a live schedule is loaded once per identity; a document changed on the server is not read again")
    func oncePerIdentity() async throws {
        let fetcher = Fetcher([
            "https://o.example/live.m3u8": Self.playlist, "https://o.example/s.json": Self.document,
        ])
        let loader = PresentationLoader(fetcher: fetcher)
        guard case .media(let media) = PlaylistParser.parse(Self.playlist).playlist else { return }
        var store = DateRangeScheduleStore()
        let first = await loader.loadSchedules(of: media, playlistURL: "https://o.example/live.m3u8", into: &store)
        fetcher.files.withLockedValue { $0["https://o.example/s.json"] = #"{"DATERANGES": []}"# }
        let reload = await loader.loadSchedules(of: media, playlistURL: "https://o.example/live.m3u8", into: &store)
        #expect(first.events.map(\.identifier) == ["ad"] && reload == first)
        #expect(fetcher.fetched.withLockedValue { $0 } == ["https://o.example/s.json"])
    }

    @Test("a presentation follows its schedules: entries are events, their asset lists load against the playlist")
    func presentation() async throws {
        let fetcher = Fetcher([
            "https://o.example/vod.m3u8": Self.playlist + "#EXT-X-ENDLIST\n", "https://o.example/s.json": Self.document,
            "https://o.example/list.json": #"{"ASSETS": [{"URI": "https://a.example/ad.m3u8", "DURATION": 3}]}"#,
        ])
        let presentation = try await PresentationLoader(fetcher: fetcher).load(
            "https://o.example/vod.m3u8", options: .init(loadsAssetLists: true, loadsSchedules: true))
        #expect(presentation.events.map(\.scheduleIdentifier) == ["s"])
        #expect(presentation.events.first?.assetList?.totalDuration == MediaTime(seconds: 3))
        #expect(presentation.primary.dateRanges.map(\.id) == ["s", "ad"])
        let schedule = InterstitialSchedule.resolve(presentation.scheduleInput)
        #expect(schedule.events.map(\.start) == [MediaTime(seconds: 4)])
    }

    @Test("a document that fails to load is a schedule-load problem and adds nothing")
    func failure() async throws {
        let fetcher = Fetcher(["https://o.example/vod.m3u8": Self.playlist])
        let presentation = try await PresentationLoader(fetcher: fetcher).load(
            "https://o.example/vod.m3u8", options: .init(loadsSchedules: true))
        #expect(presentation.events.isEmpty)
        #expect(presentation.scheduleResolution?.problems.map(\.error.code) == [.load])
    }
}
