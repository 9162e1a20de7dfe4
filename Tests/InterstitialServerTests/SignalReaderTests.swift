import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialServer

/// The signals of an upstream channel's primary, kept for its renditions without markers
/// (``SignalReader/primarySignals(_:)``), age on the server's injected clock.
@Suite("Signal reader: the primary's signals age on the server's clock")
struct SignalReaderTests {
    @Test("the primary's signals are kept for a second of the server's clock, then read again")
    func primarySignalsAgeOnTheInjectedClock() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hlsi-signals-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tests = SignalConversionTests()
        let master = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.4d401f,mp4a.40.2"
            video.m3u8

            """
        try master.write(to: directory.appendingPathComponent("master.m3u8"), atomically: true, encoding: .utf8)
        let video = directory.appendingPathComponent("video.m3u8")
        try SignalConversionTests.playlist(count: 3, atOut: [SignalConversionTests.outRange]).write(
            to: video, atomically: true, encoding: .utf8)
        try await UpstreamTests().withUpstream(directory: directory.path) { port in
            var configuration = try tests.configuration(port: port, keepSignals: true)
            configuration.live[0].origin = .upstream("http://127.0.0.1:\(port)/master.m3u8")
            let state = try ServerState(store: SQLiteStore(path: nil))
            let clock = ManualServerClock(wall: SignalConversionTests.epoch + MediaTime(seconds: 30))
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            let library = ContentLibrary(
                configuration: configuration, state: state, inventory: StoredInventory(state: state), client: client,
                logger: Harness.logger, now: { clock.wall }, clock: clock)
            let channel = configuration.live[0]
            do {
                let first = await library.signals.primarySignals(channel)
                #expect(first.count == 1, "the OUT marker is read")
                // The upstream drops its marker; within the lifetime the kept signals serve.
                try SignalConversionTests.playlist(count: 3, atOut: []).write(
                    to: video, atomically: true, encoding: .utf8)
                clock.advance(by: SignalReader.primarySignalsLifetime - MediaTime(nanoseconds: 1))
                #expect(await library.signals.primarySignals(channel).count == 1, "kept within the lifetime")
                clock.advance(by: MediaTime(nanoseconds: 1))
                #expect(
                    await library.signals.primarySignals(channel).isEmpty, "read again once the clock's second passed")
            } catch {
                try await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }
}
