import Foundation
import HLSLoading
import HLSPlaylist
import InterstitialPlayback
import NIOConcurrencyHelpers
import PlaybackEngine
import Testing

/// A ``BeaconSender`` that records what it is asked to send and answers 204.
final class RecordingSender: BeaconSender {
    private let box = NIOLockedValueBox<[String]>([])
    var urls: [String] { box.withLockedValue { $0 } }

    func sendBeacon(to url: String) async throws -> Int? {
        box.withLockedValue { $0.append(url) }
        return 204
    }
}

/// Ad tracking through the player: beacons reach a real HTTP server, once each, and never hold
/// playback up.
@Suite("Ad tracking beacons through the player")
struct BeaconPlayerTests {
    static let types = ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]

    /// A 60 s primary with a break at 12 s of one 8 s ad whose tracking entries have `urls`
    /// (type → URL), and pod-level breakStart/breakEnd to `/t/pod/…`.
    static func files(_ urls: [(String, String)]) -> [String: String] {
        let tracking = urls.map { #"{"type":"\#($0.0)","urls":["\#($0.1)"]}"# }.joined(separator: ",")
        let slot =
            #"{"version":2,"type":"slot","payload":[{"type":"linear","start":0,"duration":8,"tracking":[\#(tracking)]}]}"#
        let pod =
            #"{"version":2,"type":"pod","payload":[{"start":0,"duration":8,"tracking":[{"type":"breakStart","urls":["{ORIGIN}/t/pod/breakStart"]},{"type":"breakEnd","urls":["{ORIGIN}/t/pod/breakEnd"]}]}]}"#
        return [
            "/main.m3u8": Content.vod(
                segments: 10,
                dateRanges: [Content.interstitial("ad", at: 12, "X-ASSET-LIST=\"ads.json\",X-RESUME-OFFSET=0")]),
            "/ads.json":
                #"{"ASSETS":[{"URI":"{ORIGIN}/ad8.m3u8","DURATION":8,"X-AD-CREATIVE-SIGNALING":\#(slot)}],"X-AD-CREATIVE-SIGNALING":\#(pod)}"#,
            "/ad8.m3u8": Content.ad(8),
        ]
    }

    /// Serves `files`, and `/t/…` as a beacon endpoint: `/t/fail` answers 500, `/t/slow` only when
    /// the origin stops (``TestOrigin/Reply/held``), the others 204.
    static func routes(_ files: [String: String]) -> TestOrigin.Routes {
        { path, _ in
            if path == "/t/fail" {
                return TestOrigin.Reply(status: .internalServerError, contentType: "text/plain", body: "no")
            }
            if path == "/t/slow" {
                return TestOrigin.Reply(status: .noContent, contentType: "text/plain", body: "", held: true)
            }
            if path.hasPrefix("/t/") {
                return TestOrigin.Reply(status: .noContent, contentType: "text/plain", body: "")
            }
            return TestOrigin.reply(files, path)
        }
    }

    @Test("A real HTTP server receives impression, start, the quartiles and complete once each")
    func beaconsReachTheServer() async throws {
        let files = Self.files(Self.types.map { ($0, "{ORIGIN}/t/ad/\($0)") })
        try await TestOrigin.with(Self.routes(files)) { origin in
            let player = await play(origin, "/main.m3u8")
            let received = origin.requests.filter { $0.path.hasPrefix("/t/") }
            #expect(
                received.map(\.path).sorted()
                    == (Self.types.map { "/t/ad/\($0)" } + ["/t/pod/breakStart", "/t/pod/breakEnd"]).sorted())
            // Tracking URLs are the ad server's: sent as given (no _HLS_primary_id), with the session header.
            #expect(received.allSatisfy { $0.query["_HLS_primary_id"] == nil && $0.sessionHeader == "session-1" })
            let sent = player.trace.filter { $0.kind == .beaconSent }
            // Due in order, each at its time: start of the ad at 12 s, quartiles of its 8 s.
            #expect(
                sent.map { "\($0["dueAt"]!.json) \($0["type"]!)" }.sorted()
                    == [
                        "12.000 breakStart", "12.000 impression", "12.000 start", "14.000 firstQuartile",
                        "16.000 midpoint", "18.000 thirdQuartile", "20.000 complete", "20.000 breakEnd",
                    ].sorted())
            #expect(sent.allSatisfy { $0["status"] == .string("2xx") && $0["error"] == nil })
            #expect(player.trace.first(.ended)?.seconds == s(68))
        }
    }

    /// The beacon timeout is on a ``ManualTimer``: once every other beacon has answered (awaited in
    /// the trace), the slow one is the only beacon waiting for its deadline, and the test moves the
    /// timer past it. The slow endpoint never answers on its own, so only the timeout can end it.
    @Test("Failing beacons are reported and do not hold playback up", .timeLimit(.minutes(10)))
    func failingBeacons() async throws {
        let files = Self.files([
            ("impression", "{ORIGIN}/t/fail"), ("start", "{ORIGIN}/t/slow"),
            ("firstQuartile", "http://127.0.0.1:1/refused"), ("midpoint", "file:///etc/passwd"),
            ("complete", "{ORIGIN}/t/ok"),
        ])
        let others: Set = ["breakStart", "impression", "firstQuartile", "midpoint", "complete", "breakEnd"]
        let timer = ManualTimer()
        try await TestOrigin.with(Self.routes(files)) { origin in
            let player = try await play(
                origin, "/main.m3u8",
                configure: {
                    $0.beaconTimeout = .seconds(5)
                    $0.timeout = .seconds(3600)
                    $0.timeLimitSleep = timer.sleep
                },
                during: { playing, trace in
                    var answered: Set<String> = []
                    var events = trace.makeAsyncIterator()
                    while answered != others, let event = await events.next() {
                        if event.kind == .beaconSent, let type = event["type"]?.description, others.contains(type) {
                            answered.insert(type)
                        }
                    }
                    // The slow one waits for its deadline (unless a broken timeout has already
                    // ended it: the test then fails on what the trace says rather than hang).
                    if !playing.trace.contains(where: { $0.kind == .beaconSent && $0["type"] == .string("start") }) {
                        try await timer.untilWaiting(for: .seconds(5))
                    }
                    timer.advance(by: .seconds(5))
                })
            // The break and primary play exactly as they would without tracking.
            #expect(
                player.trace.lines([.interstitialStarted, .interstitialEnded, .ended]) == [
                    "12.000 interstitialStarted @12.000 id=ad", "20.000 interstitialEnded @12.000 id=ad",
                    "68.000 ended @60.000",
                ])
            let sent = Dictionary(
                player.trace.filter { $0.kind == .beaconSent }.map { ($0["type"]!.description, $0) },
                uniquingKeysWith: { first, _ in first })
            #expect(sent["impression"]?["status"] == .integer(500))
            #expect(sent["impression"]?["error"]?.description.contains("HTTP 500") == true)
            #expect(sent["start"]?["status"] == .null)
            #expect(sent["start"]?["error"]?.description.contains("not done within") == true)
            #expect(sent["firstQuartile"]?["status"] == .null)
            #expect(sent["firstQuartile"]?["error"] != nil)
            #expect(sent["midpoint"]?["error"]?.description.contains("must be an http(s) URL") == true)
            #expect(sent["complete"]?["status"] == .string("2xx"))
            #expect(origin.requests.contains { $0.path == "/t/ok" })
        }
    }

    @Test("--no-beacons: nothing is sent and nothing reported")
    func noBeacons() async throws {
        let files = Self.files(Self.types.map { ($0, "{ORIGIN}/t/ad/\($0)") })
        try await TestOrigin.with(Self.routes(files)) { origin in
            let player = await play(origin, "/main.m3u8") { $0.sendsBeacons = false }
            #expect(!origin.requests.contains { $0.path.hasPrefix("/t/") })
            #expect(!player.trace.contains { $0.kind == .beaconSent })
            #expect(player.trace.first(.ended)?.seconds == s(68))
        }
    }

    @Test("Beacons over the cap in flight are not sent, and the trace says so")
    func cappedInFlight() async throws {
        let files = Self.files([("impression", "https://ads.example/i"), ("start", "https://ads.example/s")])
        let sender = RecordingSender()
        try await TestOrigin.with(Self.routes(files)) { origin in
            let player = await play(origin, "/main.m3u8") {
                $0.beaconSender = sender
                $0.maximumBeaconsInFlight = 1
            }
            // breakStart, impression and start fall due together: only the first goes. (breakEnd,
            // due later, may find the slot taken or free: the manual clock does not wait for beacons.)
            let sent = player.trace.filter { $0.kind == .beaconSent }
            #expect(sent.count == 4)
            #expect(sender.urls.first == origin.url("/t/pod/breakStart"))
            #expect(!sender.urls.contains { $0.hasPrefix("https://ads.example/") })
            #expect(sent.first { $0["type"] == .string("breakStart") }?["status"] == .integer(204))
            for type in ["impression", "start"] {
                #expect(
                    sent.first { $0["type"] == .string(type) }?["error"]
                        == .string("not sent: 1 beacons already in flight"))
            }
        }
    }

    @Test("An injected sender gets each URL with the player's VAST macros filled, others left")
    func injectedSenderAndMacros() async throws {
        let files = Self.files([
            ("firstQuartile", "https://ads.example/q?ad=[ADPLAYHEAD]&cb=[CACHEBUSTING]&other=[NOTAMACRO]")
        ])
        let sender = RecordingSender()
        try await TestOrigin.with(Self.routes(files)) { origin in
            let player = await play(origin, "/main.m3u8") { $0.beaconSender = sender }
            let ad = sender.urls.filter { $0.hasPrefix("https://ads.example/") }
            #expect(ad.count == 1)
            let url = ad.first ?? ""
            #expect(url.hasPrefix("https://ads.example/q?ad=00%3A00%3A02.000&cb="))
            #expect(url.hasSuffix("&other=[NOTAMACRO]"))
            let buster = url.split(separator: "cb=").last?.prefix { $0 != "&" } ?? ""
            #expect(buster.count == 8 && buster.allSatisfy(\.isNumber))
            #expect(
                player.trace.first { $0.kind == .beaconSent && $0["type"] == .string("firstQuartile") }?["status"]
                    == .integer(204))
        }
    }
}
