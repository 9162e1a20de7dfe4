import AdDecisioning
import AsyncHTTPClient
import HLSInterstitials
import HLSPlaylist
import Logging
import NIOCore

/// Asks a VAST ad decision server for a break's ads: the request, its wrappers (``WrapperResolver``,
/// concurrently) and the `<Error>` URLs, all within a deadline.
///
/// It drives the pure ``WrapperResolver``: each `fetch` action is a GET in a child task; at the
/// deadline the resolver expires (open fetches fail as VAST error 301) and whatever InLine ads were
/// resolved are used. Error reports go to the ``TrackingDispatcher`` with `[ERRORCODE]` filled.
struct VASTDecisionClient: Sendable {
    /// What a decision gave.
    struct Outcome: Sendable {
        /// The InLine ads, wrappers' tracking merged, in play order.
        var ads: [ResolvedAd] = []
        /// Every error reported to the ad servers.
        var errors: [VASTErrorReport] = []
        /// Why there are no ads, when there are none.
        var failure: VASTErrorReport?
        /// How many VAST documents were requested.
        var requests = 0
        /// Whether the deadline ended the resolution.
        var timedOut = false
    }

    let client: HTTPClient
    let dispatcher: TrackingDispatcher
    let reader = VASTReader()
    let logger: Logger

    /// Resolves the ad request `url` within `deadline`, with `headers` on every request (the viewer's
    /// user agent as VAST 4.1's `X-Device-User-Agent`); with `root`, the answer to `url` is that
    /// document (VAST inline in a VMAP) and only its wrappers are fetched.
    func decide(
        url: String, root: VASTDocument? = nil, settings: AdServerSettings, headers: [(String, String)],
        deadline: MediaTime,
        cacheBuster: String
    ) async -> Outcome {
        var resolver = WrapperResolver(
            rootURL: url, configuration: WrapperResolver.Configuration(maximumDepth: settings.maximumWrapperDepth))
        var outcome = Outcome()
        let limit = reader.limits.xml.maximumBytes
        let timeout = TimeAmount.nanoseconds(max(1, deadline.nanoseconds))
        await withTaskGroup(of: (Int, WrapperResolver.Response)?.self) { group in
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(max(0, deadline.nanoseconds)))
                return nil
            }
            var actions = resolver.start()
            while true {
                while !actions.isEmpty {
                    switch actions.removeFirst() {
                    case .fetch(let request):
                        if let root, request.depth == 0 {
                            actions += resolver.receive(.document(root), for: request.id)
                            continue
                        }
                        outcome.requests += 1
                        let target = URIReference.resolve(request.url, against: url)
                        group.addTask {
                            (
                                request.id,
                                await Self.fetch(
                                    target, client: self.client, reader: self.reader, limit: limit, timeout: timeout,
                                    headers: headers)
                            )
                        }
                    case .reportError(let report):
                        outcome.errors.append(report)
                        send(report, cacheBuster: cacheBuster)
                    case .done(let ads): outcome.ads = ads
                    case .fail(let report):
                        outcome.failure = report
                        outcome.errors.append(report)
                        send(report, cacheBuster: cacheBuster)
                    }
                }
                guard !resolver.isFinished, let next = await group.next() else { break }
                if let answer = next {
                    actions = resolver.receive(answer.1, for: answer.0)
                } else {
                    outcome.timedOut = true
                    actions = resolver.expire()
                }
            }
            group.cancelAll()
        }
        return outcome
    }

    /// Calls a report's `<Error>` URLs with `[ERRORCODE]` filled (VAST 4.3 §2.3.6) and logs it.
    func send(_ report: VASTErrorReport, cacheBuster: String) {
        logger.warning("VAST: \(report)")
        var values = VASTMacroValues(cacheBusting: cacheBuster, errorCode: report.code)
        values.serverSide = 1
        dispatcher.send(report.urls.map { VASTMacros.fill($0, with: values) }, kind: "error")
    }

    /// One VAST request: an http(s) GET, 2xx, at most `limit` bytes, read with ``VASTReader``.
    static func fetch(
        _ url: String, client: HTTPClient, reader: VASTReader, limit: Int, timeout: TimeAmount,
        headers: [(String, String)]
    ) async -> WrapperResolver.Response {
        guard ServerConfiguration.origin(of: url) != nil else {
            return .failed(.wrapperGeneral, "\(url) is not an http(s) URL")
        }
        let bytes: [UInt8]
        do {
            var request = HTTPClientRequest(url: url)
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            let response = try await client.execute(request, timeout: timeout)
            guard (200..<300).contains(response.status.code) else {
                return .failed(.wrapperTimeout, "\(url) answered HTTP \(response.status.code)")
            }
            let body = try await response.body.collect(upTo: limit)
            bytes = Array(body.readableBytesView)
        } catch let error as NIOTooManyBytesError {
            _ = error
            return .failed(.xmlParsing, "\(url) sent more than \(limit) bytes")
        } catch {
            return .failed(.wrapperTimeout, "\(url): \(error)")
        }
        do {
            return .document(try reader.read(bytes))
        } catch {
            return .failed(error.vastErrorCode, "\(url): \(error.description)")
        }
    }
}
