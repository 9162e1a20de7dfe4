import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import NIOConcurrencyHelpers
import Testing

@testable import InterstitialServer

/// One function per answer (``Pending``): an answer known now has done what finding it takes; one
/// found later has done nothing until awaited, so a lane that cannot wait may drop it.
@Suite("Answers known now or found later")
struct PendingTests {
    @Test("then: runs at once on a value known now, and only once awaited on one found later")
    func then() async throws {
        let ran = NIOLockedValueBox(0)
        let now = try Pending<Int>.now(1).then { value throws(APIError) -> Pending<Int> in
            ran.withLockedValue { $0 += 1 }
            return .now(value + 1)
        }
        #expect(now.known == 2 && ran.withLockedValue { $0 } == 1)
        let later = try Pending<Int>.later { 1 }.then { value throws(APIError) -> Pending<Int> in
            ran.withLockedValue { $0 += 1 }
            return .now(value + 1)
        }
        #expect(later.known == nil && ran.withLockedValue { $0 } == 1, "nothing ran yet")
        #expect(try await later.resolve() == 2 && ran.withLockedValue { $0 } == 2)
    }

    /// An inventory asked over the network, as far as the server knows.
    struct AskedInventory: AdInventory {
        func candidates(for target: Target, breakID: String) async throws -> [Ad] {
            [Ad(id: "asked", uri: "/ads/asked.m3u8", duration: MediaTime(seconds: 6))]
        }
    }

    /// A library on the demo content, with the stored inventory or one that must be asked.
    static func library(
        stored: Bool
    ) async throws -> (
        ContentLibrary, ServerState, HTTPClient
    ) {
        let configuration = try Harness.demo()
        let state = try ServerState(store: SQLiteStore(path: nil))
        try await state.seed(configuration.seed)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let library = ContentLibrary(
            configuration: configuration, state: state,
            inventory: stored ? StoredInventory(state: state) : AskedInventory(), client: client,
            logger: Harness.logger, now: { DateTime(Date()) })
        return (library, state, client)
    }

    @Test("An asset list found later counts the viewer only once awaited; one known now has counted")
    func assetListCounts() async throws {
        let list = "/demo/vod/asset-list.json"
        for stored in [false, true] {
            let (library, state, client) = try await Self.library(stored: stored)
            let mounted = try #require(library.mounted(list))
            // The asset's timeline is loaded once (no viewer: nothing counted).
            _ = try await library.get(mounted, query: ["_HLS_interstitial_id": "midroll-2"])
            #expect(state.ledgerSize.entries == 0)
            let query = ["_HLS_interstitial_id": "midroll-2", "_HLS_primary_id": "v1"]
            let answer = try library.answer(mounted, query: query)
            if !stored {
                #expect(answer.known == nil, "an inventory that must be asked: found later")
                #expect(state.ledgerSize.entries == 0, "dropped, it counted nothing")
                _ = try await answer.resolve()
            } else {
                #expect(answer.known?.bytes != nil, "the server's own inventory: known now")
            }
            #expect(state.ledgerSize.entries == 1, "stored: \(stored), counted once")
            try await client.shutdown()
        }
    }
}
