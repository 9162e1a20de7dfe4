import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialServer

/// The playlists the server keeps rendered (issue 17): never one a fresh render would not give,
/// bounded, and kept at all.
@Suite("Rendered playlist cache")
struct RenderedPlaylistCacheTests {
    static let start = DateTime(iso8601: "2026-03-01T12:00:00Z")!

    /// The playlists requested: live (plain and SCTE-35) and VOD, media and multivariant.
    static let paths = [
        "/demo/live/video/main.m3u8", "/demo/live/audio-en/main.m3u8", "/demo/live/master.m3u8",
        "/demo/live-scte35/video/main.m3u8", "/demo/vod/video/main.m3u8", "/demo/vod/audio-fr/main.m3u8",
        "/demo/vod/master.m3u8",
    ]

    @Test(
        "A kept playlist (and the fast lane's answer) is byte for byte what a fresh render gives, under random admin writes, early returns, served values and clock steps",
        arguments: [1, 7, 42, 2026] as [UInt64])
    func cachedIsFresh(seed: UInt64) async throws {
        var random = SeededGenerator(state: seed)
        let configuration = try Harness.demo()
        let state = try ServerState(store: SQLiteStore(path: nil))
        try await state.seed(configuration.seed)
        // Served values are recorded as the server records them, so no answer waits out a timeout.
        let recorder = Task { await state.recordServed(logger: Harness.logger) }
        let clock = TestClock(Self.start)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let cache = RenderedPlaylistCache()
        let cached = ContentLibrary(
            configuration: configuration, state: state, inventory: StoredInventory(state: state), client: client,
            logger: Harness.logger, now: { clock.now }, rendered: cache)
        // The same server state, rendered afresh for every request.
        let fresh = ContentLibrary(
            configuration: configuration, state: state, inventory: StoredInventory(state: state), client: client,
            logger: Harness.logger, now: { clock.now }, rendered: RenderedPlaylistCache(countLimit: 0))
        let catalog = Catalog(library: cached)
        let channel = configuration.live[0]
        var created: [String] = []
        var compared = 0
        var fastCompared = 0
        var kept = 0
        do {
            for step in 0..<150 {
                switch Int.random(in: 0..<10, using: &random) {
                case 0, 1:
                    clock.advance(Double(Int.random(in: 0...40, using: &random)) / 4)
                case 2:
                    let id = "now-\(step)"
                    let duration = MediaTime(seconds: Double(Int.random(in: 4...30, using: &random)))
                    if (try? await catalog.breakNow(channel, .init(duration: duration, id: id), now: clock.now)) != nil
                    {
                        created.append(id)
                    }
                case 3:
                    var request = InsertionRequest(id: "vod-\(step)")
                    request.at = MediaTime(seconds: Double(Int.random(in: 0...40, using: &random)))
                    request.duration = MediaTime(seconds: Double(Int.random(in: 2...10, using: &random)))
                    let ad = ["ad1", "ad2", nil].randomElement(using: &random)!
                    if (try? await catalog.createBreak(
                        Break(target: Target(.vod, "demo"), interstitial: request, ad: ad)))
                        != nil
                    {
                        created.append(request.id)
                    }
                case 4:
                    _ = try? await catalog.earlyReturn(channel, breakID: nil, now: clock.now)
                case 5:
                    if let id = created.randomElement(using: &random) {
                        _ = try? await catalog.deleteBreak(id: id, now: clock.now)
                    }
                default:
                    let path = Self.paths.randomElement(using: &random)!
                    let mounted = try #require(cached.mounted(path))
                    // The cached library answers first: its answer may decide first servings (the
                    // state's version moves on), which later renders then plan with.
                    let before = state.versioned.version
                    // What the fast lane would answer now, without rendering (nil: not kept).
                    let early = (try? cached.answer(mounted, query: [:]))?.known?.bytes
                    let first = try #require(try await cached.get(mounted, query: [:]).bytes)
                    let decided = state.versioned.version != before
                    let again = try #require(try await cached.get(mounted, query: [:]).bytes)
                    let late = (try? cached.answer(mounted, query: [:]))?.known?.bytes
                    let reference = try #require(try await fresh.get(mounted, query: [:]).bytes)
                    for (name, bytes) in [("before", early), ("after", late)] {
                        guard let bytes else { continue }
                        #expect(bytes == reference, "step \(step), \(path): the fast lane's answer \(name)")
                        fastCompared += 1
                    }
                    #expect(
                        again == reference,
                        "step \(step), \(path): kept\n\(String(decoding: again, as: UTF8.self))\nfresh\n\(String(decoding: reference, as: UTF8.self))"
                    )
                    // A first serving's own answer writes the new date range exactly as later ones do.
                    #expect(first == reference, "step \(step), \(path), first answer (decided: \(decided))")
                    compared += 1
                    kept = max(kept, cache.size.count)
                }
            }
        } catch {
            state.finishRecording()
            await recorder.value
            try await client.shutdown()
            throw error
        }
        state.finishRecording()
        await recorder.value
        try await client.shutdown()
        #expect(compared > 30)
        #expect(fastCompared > 10)
        // The cache did keep playlists: the comparisons were of kept bytes, not only of renders.
        #expect(kept > 0)
    }

    @Test("The cache keeps at most its count and bytes, dropping the least recently used first")
    func bounded() {
        let cache = RenderedPlaylistCache(countLimit: 4, byteLimit: 1000)
        func key(_ index: Int) -> RenderedPlaylistCache.Key {
            RenderedPlaylistCache.Key(content: "c", path: "p\(index)", version: 0, sequence: nil, publicBase: "")
        }
        for index in 0..<4 { cache.keep(.init(Array(repeating: UInt8(index), count: 100)), for: key(index)) }
        #expect(cache.size.count == 4)
        // 0 is used, so 1 is the least recently used.
        #expect(cache.entry(key(0)) != nil)
        cache.keep(.init(Array(repeating: 9, count: 100)), for: key(4))
        #expect(cache.size.count <= 4)
        #expect(cache.entry(key(1)) == nil)
        #expect(cache.entry(key(0)) != nil)
        #expect(cache.entry(key(4)) != nil)
        // Bytes: a 900-byte playlist pushes the others out; one larger than the cache is not kept.
        cache.keep(.init(Array(repeating: 1, count: 900)), for: key(5))
        #expect(cache.size.bytes <= 1000)
        #expect(cache.entry(key(5)) != nil)
        cache.keep(.init(Array(repeating: 1, count: 1001)), for: key(6))
        #expect(cache.entry(key(6)) == nil)
        #expect(cache.size.bytes <= 1000)
        let entry = RenderedPlaylistCache.Entry(Array("#EXTM3U\n".utf8))
        #expect(entry.entityTag == EntityTag.of(Array("#EXTM3U\n".utf8)).header)
    }

    @Test("Deciding a first serving moves the state's version on, as admin writes do")
    func servedMovesVersion() async throws {
        let state = try ServerState(store: SQLiteStore(path: nil))
        let before = state.versioned.version
        let key = ServedKey(Target(.live, "demo"), "b")
        let attributes: AttributeList = [("ID", try .quoted("b")), ("START-DATE", try .quoted("2026-03-01T12:00:00Z"))]
        #expect(state.claimServed([(key, attributes)]) != nil)
        #expect(state.versioned.version == before + 1)
        // The same value again decides nothing new.
        #expect(state.claimServed([(key, attributes)]) != nil)
        #expect(state.versioned.version == before + 1)
    }
}
