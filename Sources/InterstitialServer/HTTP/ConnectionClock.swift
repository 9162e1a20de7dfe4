import HLSPlaylist

/// The time rules of one guarded connection, as a value: when the head being read began, when its
/// body began, what is being answered, and what is due when the connection's one timer fires.
///
/// ``RequestGuard`` drives it with the server clock's time (``ServerClock/now``) and does what it
/// says; tests drive it directly with any time. A head being read gets 408 after the header timeout, a body after the
/// body timeout; a connection with nothing being read or answered ends after the idle timeout.
struct ConnectionClock: Sendable {
    /// The timeouts it applies.
    struct Limits: Sendable {
        var header: MediaTime
        var body: MediaTime
        var idle: MediaTime
    }

    /// What the timer firing at a time means.
    enum Verdict: Equatable, Sendable {
        /// Nothing is due yet: fire again at this time.
        case wait(until: MediaTime)
        /// A head or a body did not arrive in time: refuse the request with this.
        case timeOut(RequestHeadReader.Refusal)
        /// Nothing is being read or answered, for the idle timeout: end the connection unanswered.
        case idle
    }

    let limits: Limits
    /// When the head being read began.
    private(set) var headStarted: MediaTime?
    /// When the body being read began (after its head).
    private(set) var bodyStarted: MediaTime?
    /// When the connection last began, or last finished a request or an answer.
    private(set) var lastActivity = MediaTime.zero
    /// Requests passed on to the handlers behind whose answers have not ended.
    private(set) var inFlight = 0
    /// Files the fast lane is still sending.
    private(set) var sending = 0
    /// After a refusal inside a request's body: how many answers to earlier requests may still go
    /// out before the handlers' answer to the refused one, which is dropped; nil before a refusal.
    private(set) var earlierAnswers: Int?

    init(limits: Limits) {
        self.limits = limits
    }

    /// The connection began at `now`: returns when it is idle unless something happens.
    mutating func began(at now: MediaTime) -> MediaTime {
        lastActivity = now
        return now + limits.idle
    }

    /// A head began to arrive.
    mutating func headBegan(at now: MediaTime) {
        headStarted = now
    }

    /// When the head being read times out; nil when none is being read.
    var headDeadline: MediaTime? {
        headStarted.map { $0 + limits.header }
    }

    /// A whole head was read; returns when its body times out if one follows.
    mutating func headRead(at now: MediaTime, expectsBody: Bool) -> MediaTime? {
        headStarted = nil
        lastActivity = now
        guard expectsBody else { return nil }
        bodyStarted = now
        return now + limits.body
    }

    /// The body being read ended.
    mutating func bodyEnded(at now: MediaTime) {
        guard bodyStarted != nil else { return }
        bodyStarted = nil
        lastActivity = now
    }

    /// A request went on to the handlers behind.
    mutating func passedOn() {
        inFlight += 1
    }

    /// An answer from the handlers behind ended.
    mutating func answerEnded(at now: MediaTime) {
        if let earlier = earlierAnswers, earlier > 0 { earlierAnswers = earlier - 1 }
        inFlight = max(0, inFlight - 1)
        lastActivity = now
    }

    /// The fast lane began sending a file.
    mutating func sendingBegan() {
        sending += 1
    }

    /// The fast lane finished sending a file (written or failed).
    mutating func sendingEnded(at now: MediaTime) {
        sending = max(0, sending - 1)
        lastActivity = now
    }

    /// A request is refused. Refused inside a body whose head the handlers behind already have,
    /// the refusal is that request's one answer: theirs (to a body that ended early) is dropped,
    /// after the answers to the requests before it.
    mutating func refused() {
        if bodyStarted != nil { earlierAnswers = max(0, inFlight - 1) }
    }

    /// Whether an answer from the handlers behind is dropped now (see ``refused()``).
    var dropsAnswers: Bool { earlierAnswers == 0 }

    /// The connection stopped reading (refused, timed out or idle): no head or body is awaited.
    mutating func stopped() {
        headStarted = nil
        bodyStarted = nil
    }

    /// What is due when the timer fires at `now`; `writable` says whether the client reads what
    /// is written (an answer waiting for a slow client is not idle).
    func verdict(at now: MediaTime, writable: Bool) -> Verdict {
        if let headStarted {
            return timeOut(at: headStarted + limits.header, now, code: .headerTimeout, part: "head", limit: "header")
        }
        if let bodyStarted {
            return timeOut(at: bodyStarted + limits.body, now, code: .bodyTimeout, part: "body", limit: "body")
        }
        guard inFlight == 0, sending == 0, writable else { return .wait(until: now + limits.idle) }
        guard now >= lastActivity + limits.idle else { return .wait(until: lastActivity + limits.idle) }
        return .idle
    }

    private func timeOut(
        at deadline: MediaTime, _ now: MediaTime, code: RequestHeadReader.Refusal.Code, part: String, limit: String
    ) -> Verdict {
        guard now >= deadline else { return .wait(until: deadline) }
        return .timeOut(
            RequestHeadReader.Refusal(
                status: 408, reason: "Request Timeout", code: code,
                message: "the request \(part) did not arrive within the \(limit) timeout"))
    }
}
