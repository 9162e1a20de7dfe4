import HLSInterstitials
import HLSLoading
import Testing

@testable import InterstitialServer

/// The server and the CLI print one schedule document (issue 15): `timeline.json` is what
/// `hlsi schedule --json` computes (``PresentationLoader`` + ``InterstitialSchedule/resolve(_:)``)
/// for the presentation the server serves.
@Suite("timeline.json is the schedule document")
struct TimelineDocumentTests {
    @Test("timeline.json equals the schedule document of the served demo VOD, byte for byte")
    func sameDocument() async throws {
        try await Harness.withServer { client in
            let served = try await client.text("/demo/vod/timeline.json")
            let port = try #require(client.port)
            let computed = try await PlaylistLoader.withLoader { loader in
                let presentation = try await PresentationLoader(fetcher: loader).load(
                    "http://127.0.0.1:\(port)/demo/vod/master.m3u8")
                return InterstitialSchedule.resolve(presentation.scheduleInput).jsonDocument
            }
            #expect(served == computed)
            let document = try JSONValue.parse(Array(served.utf8), code: .json)
            guard case .object(let fields) = document, case .array(let items)? = fields["items"] else {
                Issue.record("not a schedule document: \(served)")
                return
            }
            #expect(items.count >= 7, "primary and four interstitials")
        }
    }
}
