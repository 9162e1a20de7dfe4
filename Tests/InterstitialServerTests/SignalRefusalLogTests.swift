import Crypto
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import SCTE35
import Testing

@testable import InterstitialServer

/// A logger whose messages tests read.
final class LogCapture: Sendable {
    private let box = NIOLockedValueBox<[String]>([])

    /// The messages logged, each prefixed with its level.
    var lines: [String] { box.withLockedValue { $0 } }

    /// A logger that writes here, from `level` up.
    func logger(level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: "hlsi.test.capture") { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ line: String) { box.withLockedValue { $0.append(line) } }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info
        var metadataProvider: Logger.MetadataProvider?

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            capture.append("\(event.level) \(event.message)")
        }
    }
}

/// The SCTE-35 markers the server refuses are logged and counted once each (profile R29).
@Suite("SCTE-35 markers refused: logged and counted once (R29)")
struct SignalRefusalLogTests {
    static func refusal(_ index: Int, rule: Rule = .scte35Section) -> SignalRefusal {
        SignalRefusal(
            diagnostic: rule.diagnostic(at: SourceLocation(file: "live.m3u8", line: index + 1, column: 1), "bad"),
            marker: "#EXT-OATCLS-SCTE35:bad-\(index)")
    }

    static func key(_ index: Int) -> SHA256Digest { SignalRefusalLog.key(refusal(index), channel: "/live/news") }

    @Test("the memory keeps at most its capacity, forgetting the oldest first")
    func memoryBound() {
        var memory = SignalRefusalLog.Memory(capacity: 3)
        for index in 0..<5 {
            let new = memory.remember(Self.key(index))
            #expect(new)
        }
        #expect(memory.count == 3)
        #expect(!memory.contains(Self.key(0)) && !memory.contains(Self.key(1)), "the oldest are forgotten")
        #expect(memory.contains(Self.key(2)) && memory.contains(Self.key(4)))
        let again = memory.remember(Self.key(4))
        #expect(!again, "a marker remembered is not new")
        let forgotten = memory.remember(Self.key(0))
        #expect(forgotten, "a forgotten marker is new again")
        #expect(memory.count == 3)
        #expect(!memory.contains(Self.key(2)))
        #expect(SignalRefusalLog.Memory(capacity: 0).capacity == 1)
    }

    @Test("a marker is known by its channel, rule, text and date, not its line")
    func identity() {
        var moved = Self.refusal(1)
        moved.diagnostic.location.line = 40
        #expect(SignalRefusalLog.key(moved, channel: "/live/news") == Self.key(1))
        #expect(SignalRefusalLog.key(moved, channel: "/live/sports") != Self.key(1))
        var dated = moved
        dated.date = DateTime(iso8601: "2026-06-01T12:00:00.000Z")
        #expect(SignalRefusalLog.key(dated, channel: "/live/news") != Self.key(1))
        #expect(SignalRefusalLog.key(Self.refusal(1, rule: .scte35Marker), channel: "/live/news") != Self.key(1))
    }

    @Test("endless distinct bad markers: bounded memory, at most a few lines per playlist, every one counted")
    func hostileUpstream() throws {
        let capture = LogCapture()
        let metrics = ServerMetrics()
        let log = SignalRefusalLog(logger: capture.logger(), metrics: metrics, capacity: 50)
        for playlist in 0..<10 {
            log.report((0..<30).map { Self.refusal(playlist * 30 + $0) }, channel: "/live/news")
        }
        #expect(log.remembered == 50)
        let lines = capture.lines
        #expect(lines.count == 10 * (SignalRefusalLog.maximumLoggedPerPlaylist + 1), "\(lines.count)")
        #expect(lines.filter { $0.contains("more SCTE-35 markers refused") }.count == 10)
        #expect(metrics.renderText().contains("hlsi_signals_refused_total{reason=\"scte35-section\"} 300"))
        // The last playlist again: remembered, so neither logged nor counted.
        log.report((0..<30).map { Self.refusal(9 * 30 + $0) }, channel: "/live/news")
        #expect(capture.lines.count == lines.count)
        #expect(metrics.renderText().contains("hlsi_signals_refused_total{reason=\"scte35-section\"} 300"))
    }

    @Test("a reason outside the rule catalog is counted as other")
    func closedReasons() {
        let metrics = ServerMetrics()
        metrics.signalRefused(reason: "made-up")
        metrics.signalRefused(reason: "attribute-type")
        let text = metrics.renderText()
        #expect(text.contains("hlsi_signals_refused_total{reason=\"other\"} 1"))
        #expect(text.contains("hlsi_signals_refused_total{reason=\"attribute-type\"} 1"))
    }

    // MARK: A live upstream

    static let epoch = SignalConversionTests.epoch
    static func date(_ seconds: Int) -> String { SignalConversionTests.date(seconds) }

    /// A live window of 10 s segments `first..<first + 4`: an EXT-OATCLS-SCTE35 whose section does
    /// not decode before segment 2, and before segment 3 date ranges with a bad CRC_32 and with a
    /// negative DURATION.
    static func window(first: Int) throws -> String {
        let hex = try SignalConversionTests.out.encodedHex()
        let badCRC = String(hex.dropLast()) + (hex.last == "0" ? "1" : "0")
        let back = try SignalConversionTests.back.encodedHex()
        var text = "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:\(date(first * 10))\n"
        for index in first..<first + 4 {
            if index == 2 { text += "#EXT-OATCLS-SCTE35:not-a-section\n" }
            if index == 3 {
                text +=
                    "#EXT-X-DATERANGE:ID=\"splice-100\",START-DATE=\"\(date(30))\",PLANNED-DURATION=30,SCTE35-OUT=\(badCRC)\n"
                text += "#EXT-X-DATERANGE:ID=\"splice-100\",START-DATE=\"\(date(30))\",DURATION=-5,SCTE35-IN=\(back)\n"
            }
            text += "#EXTINF:10,\ns\(index).ts\n"
        }
        return text
    }

    /// The value of a counter sample in an exposition, 0 when absent.
    static func sample(_ text: String, _ series: String) -> Double {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1)) ?? -1
        }
        return 0
    }

    @Test(
        "an upstream's bad-CRC marker, negative-DURATION date range and undecodable EXT-OATCLS-SCTE35: one log line and one count each across reloads; the date range still places its break"
    )
    func upstreamReloads() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-refused-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("live.m3u8")
        try Self.window(first: 0).write(to: file, atomically: true, encoding: .utf8)
        let clock = TestClock(Self.epoch + MediaTime(seconds: 40))
        let capture = LogCapture()
        let exposition = NIOLockedValueBox("")
        try await UpstreamTests().withUpstream(directory: directory.path) { port in
            let configuration = try SignalConversionTests().configuration(port: port, keepSignals: true)
            try await Harness.withServer(configuration, clock: clock, logger: capture.logger(level: .warning)) {
                client in
                for first in 0..<3 {
                    // The window slides: every marker is on another line at each reload.
                    try Self.window(first: first).write(to: file, atomically: true, encoding: .utf8)
                    clock.set(Self.epoch + MediaTime(seconds: first * 10 + 40))
                    let text = try await client.text("/live/news/live.m3u8")
                    // R29: the date range whose section does not decode still places its break.
                    let line = dateRangeLines(text).first {
                        $0.contains("ID=\"scte35-splice-100\"") && $0.contains("com.apple.hls.interstitial")
                    }
                    #expect(line?.contains("START-DATE=\"\(Self.date(30))\"") == true, "\(text)")
                    #expect(line?.contains("PLANNED-DURATION=30") == true, "\(text)")
                }
                let metrics = try await client.get(
                    "/metrics", headers: [.authorization: "Bearer \(Harness.token)"])
                exposition.withLockedValue { $0 = metrics.text }
            }
        }
        let text = exposition.withLockedValue { $0 }
        #expect(Self.sample(text, "hlsi_signals_refused_total{reason=\"scte35-section\"}") == 2, "\(text)")
        #expect(Self.sample(text, "hlsi_signals_refused_total{reason=\"attribute-type\"}") == 1, "\(text)")
        let refused = capture.lines.filter { $0.contains("SCTE-35 marker refused") }
        #expect(refused.count == 3, "\(refused)")
        #expect(refused.filter { $0.contains("[scte35-section]") && $0.contains("SCTE35-OUT") }.count == 1)
        #expect(refused.filter { $0.contains("[scte35-section]") && $0.contains("EXT-OATCLS-SCTE35") }.count == 1)
        #expect(refused.filter { $0.contains("[attribute-type]") && $0.contains("DURATION=-5") }.count == 1)
        #expect(refused.allSatisfy { $0.hasPrefix("warning /live/news: ") }, "\(refused)")
    }
}
