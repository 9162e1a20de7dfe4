import ArgumentParser
import Foundation
import Hummingbird

/// `herd ad-server`: a VAST 4 ad server on 127.0.0.1 that decides at most `rate` requests a second,
/// each taking `latency`, and queues the rest FIFO, as an overloaded ad decision server does.
///
/// - `GET /vast?brk=BREAK&dur=SECONDS...`: an InLine pod of the demo's HLS ads filling `dur` (default
///   30 s), media files under `--media-base`.
/// - `GET /stats`: JSON, the requests and decisions so far, the peak per second, the queue, per break,
///   and the requests per viewer (`sid`): viewers asked for, most requests for one (and for one
///   viewer and one break), viewers asked for more than once.
/// - `POST /reset`: forgets the figures.
/// - anything else (impressions): 204.
struct AdServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ad-server", abstract: "A rate- and latency-limited VAST ad server on 127.0.0.1.")

    @Option(help: "The port to listen on (127.0.0.1).")
    var port: Int

    @Option(help: "The most decisions started per second; the rest wait in a FIFO queue.")
    var rate: Double = 100

    @Option(help: "Seconds each decision takes.")
    var latency: Double = 0.15

    @Option(help: "The origin serving the demo's ads (/ads/adN/master.m3u8): the media files' base.")
    var mediaBase: String

    func validate() throws {
        guard rate > 0, rate <= 100_000 else { throw ValidationError("--rate must be more than 0, at most 100000") }
        guard latency >= 0, latency <= 60 else { throw ValidationError("--latency must be 0 to 60 s") }
        guard (1...65535).contains(port) else { throw ValidationError("--port must be 1 to 65535") }
    }

    func run() async throws {
        let (port, rate, latency) = (port, rate, latency)
        let queue = DecisionQueue(rate: rate, latency: latency)
        let origin = "http://127.0.0.1:\(port)"
        let mediaBase = mediaBase.hasSuffix("/") ? String(mediaBase.dropLast()) : mediaBase
        let router = Router()
        router.get("vast") { request, _ -> Response in
            let query = request.uri.queryParameters
            let breakID = query.get("brk") ?? "-"
            let seconds = query.get("dur").flatMap(Double.init).map { min(max($0, 1), 600) } ?? 30
            let start = queue.enqueue(breakID: breakID, session: query.get("sid"))
            let waited = start > WallClock.now
            await WallClock.sleep(until: start)
            queue.started(breakID: breakID, at: start, waited: waited)
            await WallClock.sleep(until: start + queue.latency)
            let body = VASTPod.document(seconds: seconds, mediaBase: mediaBase, origin: origin)
            return Response(
                status: .ok, headers: [.contentType: "application/xml"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        }
        router.get("stats") { _, _ -> Response in
            let stats = queue.stats
            let object: [String: Any] = [
                "requests": stats.requests, "decisions": stats.decisions, "peakPerSecond": stats.peakPerSecond,
                "queue": stats.queue, "maxQueue": stats.maxQueue, "breaks": stats.breaks, "rate": stats.rate,
                "latency": stats.latency, "viewersAsked": stats.viewers.count,
                "mostPerViewer": stats.viewers.values.max() ?? 0,
                "viewersAskedTwice": stats.viewers.values.filter { $0 > 1 }.count,
                "mostPerViewerAndBreak": stats.viewerBreaks.values.max() ?? 0,
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }
        router.post("reset") { _, _ -> HTTPResponse.Status in
            queue.reset()
            return .noContent
        }
        router.get("**") { _, _ -> HTTPResponse.Status in .noContent }
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "herd-ad-server"),
            onServerRunning: { _ in print("herd ad server on 127.0.0.1:\(port): \(rate)/s, \(latency) s each") }
        )
        try await app.runService()
    }
}
