import AdDecisioning
import AsyncHTTPClient
import HLSInterstitials
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Asks a VAST ad decision server for a break's ads: the request, its wrappers (``WrapperResolver``,
/// concurrently) and the `<Error>` URLs, all within a deadline.
///
/// It drives the pure ``WrapperResolver``: each `fetch` action is a GET (``AdServerFetcher``: the
/// fetch policy, redirects, one retry) in a child task; at the deadline the resolver expires (open
/// fetches fail as VAST error 301) and whatever InLine ads were resolved are used. A decision makes at
/// most ``maximumRequests`` requests and holds at most ``maximumBytes`` bytes of documents, all
/// branches together. Documents are read on ``BlockingWorkPool``, never on the cooperative pool,
/// and a read still running at the deadline is no longer waited for. Error reports go to the
/// ``TrackingDispatcher`` with `[ERRORCODE]` filled.
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
        /// Whether a request failed, timed out or was not made (the ad server's gate shed it or
        /// its breaker is open): the break may take the fallback fill.
        var unanswered = false
        /// Whether the outcome is another identical request's (coalesced).
        var coalesced = false
    }

    /// How ad servers are requested.
    let fetcher: AdServerFetcher
    let dispatcher: TrackingDispatcher
    let reader = VASTReader()
    let logger: Logger
    /// The most documents one decision requests (``ServerLimits/adDecisionRequests``).
    var maximumRequests = 32
    /// The most bytes of documents one decision holds (``ServerLimits/adDecisionBytes``).
    var maximumBytes = 4 * 1024 * 1024
    /// Where documents are read.
    var pool = BlockingWorkPool.adServers
    /// Shares the decisions of identical URLs in flight.
    let coalescer = DecisionCoalescer()
    /// The limits, queues and breakers of the ad servers; nil: requests are not gated (tests).
    var gates: AdServerGates? = nil

    /// The server's clock, the fetcher's: a decision's deadline is on it.
    var clock: any ServerClock { fetcher.clock }

    /// Resolves the ad request `url` within `deadline`, with `headers` on every request (the viewer's
    /// user agent as VAST 4.1's `X-Device-User-Agent`); with `root`, the answer to `url` is that
    /// document (VAST inline in a VMAP) and only its wrappers are fetched.
    func decide(
        url: String, root: VASTDocument? = nil, settings: AdServerSettings, headers: [(String, String)],
        deadline: MediaTime,
        cacheBuster: String
    ) async -> Outcome {
        var resolver = WrapperResolver(
            rootURL: url,
            configuration: WrapperResolver.Configuration(
                maximumDepth: settings.maximumWrapperDepth, maximumFetches: maximumRequests,
                maximumDocumentBytes: maximumBytes))
        var outcome = Outcome()
        let limit = reader.limits.xml.maximumBytes
        let clock = clock
        let due = clock.now + MediaTime(nanoseconds: max(1, deadline.nanoseconds))
        // The bytes left to the documents of all branches, taken as they arrive.
        let budget = NIOLockedValueBox(maximumBytes)
        let unanswered = NIOLockedValueBox(false)
        await withTaskGroup(of: (id: Int, response: WrapperResolver.Response, bytes: Int)?.self) { group in
            group.addTask {
                try? await clock.sleep(for: deadline)
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
                        let document = Document(
                            url: target, limit: min(limit, request.maximumBytes), budget: budget, deadline: due,
                            headers: headers, limits: settings.gateLimits)
                        group.addTask {
                            let (response, bytes, answered) = await fetch(document)
                            if !answered { unanswered.withLockedValue { $0 = true } }
                            return (request.id, response, bytes)
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
                    actions = resolver.receive(answer.response, for: answer.id, bytes: answer.bytes)
                } else {
                    outcome.timedOut = true
                    actions = resolver.expire()
                }
            }
            group.cancelAll()
        }
        outcome.unanswered = outcome.timedOut || unanswered.withLockedValue { $0 }
        return outcome
    }

    /// Calls a report's `<Error>` URLs with `[ERRORCODE]` filled (VAST 4.3 §2.3.6) and logs it.
    func send(_ report: VASTErrorReport, cacheBuster: String) {
        logger.warning("VAST: \(report)")
        var values = VASTMacroValues(cacheBusting: cacheBuster, errorCode: report.code)
        values.serverSide = 1
        dispatcher.send(report.urls.map { VASTMacros.fill($0, with: values) }, kind: "error")
    }

    /// One document to request.
    struct Document: Sendable {
        /// Its URL.
        var url: String
        /// The most bytes it may have.
        var limit: Int
        /// The bytes left to the decision's documents, taken as the body arrives.
        var budget: NIOLockedValueBox<Int>
        /// When the decision ends, on the server's clock.
        var deadline: MediaTime
        /// The header fields of the request.
        var headers: [(String, String)]
        /// The limits of its ad server.
        var limits = AdServerGate.Limits()
    }

    /// One VAST request once its ad server's gate lets it go (``gates``): an http(s) GET, 2xx, at
    /// most `document.limit` bytes and no more than the decision's budget has left, read with
    /// ``VASTReader`` on ``pool``; the bytes it holds, and whether the ad server answered it (false:
    /// it failed, timed out or was not made).
    func fetch(_ document: Document) async -> (WrapperResolver.Response, Int, Bool) {
        let url = document.url
        var ticket: AdServerGates.Ticket?
        if let gates {
            switch await gates.admit(url, limits: document.limits, deadline: document.deadline) {
            case .start(let started): ticket = started
            case .shed(let reason):
                let why = "\(url): not requested, the ad server's queue shed it (\(reason))"
                return (.failed(.wrapperTimeout, why), 0, false)
            case .breakerOpen:
                let why = "\(url): not requested, the ad server's circuit breaker is open"
                return (.failed(.wrapperTimeout, why), 0, false)
            }
        }
        var timing = WireTiming()
        let (response, bytes, outcome) = await gatedFetch(document, timing: &timing)
        // The ad server's latency as near the wire as the client shows it (``WireTiming``): not
        // the time this server took to run the request's task, resolve its host, read its body or
        // parse it, which the gate's own clock would count.
        gates?.finished(ticket, outcome: outcome, latency: timing.latency(now: clock.now))
        return (response, bytes, outcome == .success)
    }

    /// ``fetch(_:)`` once admitted, with how the request ended for the breaker; `timing` records
    /// its time on the wire.
    private func gatedFetch(
        _ document: Document, timing: inout WireTiming
    ) async -> (WrapperResolver.Response, Int, AdServerGate.Outcome) {
        let url = document.url
        var bytes: [UInt8] = []
        func release() { document.budget.withLockedValue { $0 += bytes.count } }
        do {
            let response = try await fetcher.get(
                url, headers: document.headers, deadline: clock.deadline(at: document.deadline), timing: &timing)
            guard (200..<300).contains(response.status.code) else {
                let outcome = AdServerGate.Outcome(status: Int(response.status.code))
                return (.failed(.wrapperTimeout, "\(url) answered HTTP \(response.status.code)"), 0, outcome)
            }
            for try await chunk in response.body {
                let count = chunk.readableBytes
                guard bytes.count + count <= document.limit else {
                    release()
                    return (.failed(.xmlParsing, "\(url) sent more than \(document.limit) bytes"), 0, .success)
                }
                let granted = document.budget.withLockedValue { left in
                    guard left >= count else { return false }
                    left -= count
                    return true
                }
                guard granted else {
                    release()
                    return (
                        .failed(
                            .wrapperLimit, "\(url): the decision's documents would exceed \(maximumBytes) bytes"), 0,
                        .success
                    )
                }
                bytes += chunk.readableBytesView
            }
        } catch let failure as AdServerFetcher.Failure {
            release()
            if failure.kind == .refused { logger.warning("ad-server fetch: \(failure)") }
            // A URL the policy refuses was never sent: no failure of the ad server's. None of these
            // (refused, too many redirects, no address) is a timeout: VAST 300, `fetch-failed`.
            return (.failed(.wrapperGeneral, failure.description), 0, failure.kind == .refused ? .success : .failure)
        } catch {
            release()
            let timedOut = clock.now >= document.deadline || Task.isCancelled
            return (.failed(.wrapperTimeout, "\(url): \(error)"), 0, timedOut ? .timeout : .failure)
        }
        let reader = reader
        let received = bytes
        guard let result = await pool.run({ Result { () throws(VASTError) in try reader.read(received) } }) else {
            release()
            return (
                .failed(
                    .wrapperTimeout, "\(url): the document was not read (the deadline passed, or every reader was busy)"
                ), 0, .success
            )
        }
        switch result {
        case .success(let parsed): return (.document(parsed), bytes.count, .success)
        case .failure(let error):
            release()
            return (.failed(error.vastErrorCode, "\(url): \(error.description)"), 0, .success)
        }
    }
}
