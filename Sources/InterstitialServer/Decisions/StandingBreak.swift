import HLSInterstitials
import HLSPlaylist

/// The channel's *next* break as standing decisions know it before any cue (pure): a break of the
/// operator's ``PrefetchSettings/expectedBreak`` length, named by the refresh period it is decided
/// in, so that every replica with the same wall clock names it alike and shares its decisions
/// through the ledger.
///
/// Time is cut into periods of ``refresh`` from the epoch; period `k` is named `standing-k`
/// (``id``). Its decisions are made in the first half of the period (``window``: paced by the
/// ``PrefetchPlanner`` like any break's) and kept until the middle of the next one (``end``), so
/// that a cue at any time finds either the period's decisions or, while they are being made, the
/// previous period's (``lookups``): a standing decision is at most 1.5 × ``refresh`` old when used.
/// The break that uses a viewer's standing decision consumes it; the planner then decides that
/// viewer again for the period (the next break gets a new one). A decision whose ads give a VAST
/// `<Expires>` is made again before it goes stale (``freshness(decided:expires:end:)``).
struct StandingBreak: Hashable, Sendable {
    /// The prefix of every standing break's ID.
    static let prefix = "standing-"
    /// The default ``PrefetchSettings/refresh``.
    static let defaultRefresh = MediaTime(seconds: 300)

    /// The channel.
    var target: Target
    /// The period's index (whole refresh periods since the epoch).
    var period: Int64
    /// The refresh period.
    var refresh: MediaTime
    /// The length the ad server is asked to fill (`[BREAKDURATION]`).
    var duration: MediaTime

    /// The standing break of `target` at `now`, for `settings` (nil without an `expectedBreak`).
    init?(target: Target, settings: PrefetchSettings, at now: DateTime) {
        guard settings.enabled, let expected = settings.expectedBreak else { return nil }
        let refresh = settings.refresh ?? Self.defaultRefresh
        guard refresh.nanoseconds > 0 else { return nil }
        self.init(
            target: target, period: now.nanosecondsSinceEpoch / refresh.nanoseconds, refresh: refresh,
            duration: expected)
    }

    /// A standing break of one period.
    init(target: Target, period: Int64, refresh: MediaTime, duration: MediaTime) {
        self.target = target
        self.period = period
        self.refresh = refresh
        self.duration = duration
    }

    /// Its ID (`[BREAKID]` of its ad requests): `standing-` and the period.
    var id: String { Self.prefix + String(period) }

    /// Whether `breakID` names a standing break (never a break of the playlist).
    static func isStanding(_ breakID: String) -> Bool { breakID.hasPrefix(prefix) }

    /// The ID of the period before the standing break `breakID` (nil: not a standing break's ID).
    static func previousID(of breakID: String) -> String? {
        guard isStanding(breakID), let period = Int64(breakID.dropFirst(prefix.count)), period > .min else {
            return nil
        }
        return prefix + String(period - 1)
    }

    /// The order in which a period's sessions are decided: those without the previous period's
    /// decision first, in the order given, then the others. A cue takes the previous period's
    /// decision until this period's middle, so a viewer who has one is covered meanwhile; one who has
    /// none (seen since, or never decided) is not, and the ad server's budget goes to it first.
    static func order(_ sessions: [String], hasPrevious: (String) -> Bool) -> [String] {
        var first: [String] = []
        var then: [String] = []
        for session in sessions {
            if hasPrevious(session) { then.append(session) } else { first.append(session) }
        }
        return first + then
    }

    /// When the period begins.
    var begins: DateTime { DateTime(nanosecondsSinceEpoch: period * refresh.nanoseconds) }

    /// When its decisions are made: the first half of the period.
    var window: Range<DateTime> { begins..<(begins + half) }

    /// When the break is expected at the latest: the period's end (its ``PrefetchPlanner/Upcoming/start``).
    var expected: DateTime { begins + refresh }

    /// When its decisions expire: the middle of the next period, once the next period's are made.
    var end: DateTime { begins + refresh + half }

    /// The period before.
    var previous: StandingBreak {
        StandingBreak(target: target, period: period - 1, refresh: refresh, duration: duration)
    }

    /// The keys a cue's break looks up for `session` (`""`: a shared tag's one decision), newest first:
    /// this period's, then the previous one's.
    func lookups(session: String) -> [DecisionKey] {
        [self, previous].map { DecisionKey(target: target, breakID: $0.id, session: session) }
    }

    private var half: MediaTime { MediaTime(nanoseconds: refresh.nanoseconds / 2) }

    /// When a standing decision goes stale and when it is made again.
    struct Freshness: Hashable, Sendable {
        /// When it is made again, while it still answers (nil: not before it goes stale; the next
        /// period's decision takes over).
        var refresh: DateTime?
        /// When it stops answering: it is dropped, and made again.
        var stale: DateTime
    }

    /// The shortest a VAST expiry lets a standing decision live before it is made again: 10 s (an
    /// `<Expires>` of 0 or 1 must not make the planner ask the ad server for each viewer every
    /// second; the gate bounds the rate anyway).
    static let shortestRefresh = MediaTime(seconds: 10)

    /// How long a standing decision made at `decided`, kept at most until `end` (its period's
    /// ``end``), stays good for ads whose shortest VAST `<Expires>` is `expires` seconds (nil: none
    /// given): the one rule of its expiry.
    ///
    /// - VAST's own expiry, where given: stale at `decided + expires` (never later than `end`),
    ///   made again at three quarters of that (at least ``shortestRefresh`` after `decided`), so the
    ///   new one is made before the old one goes stale.
    /// - Else the `refresh` setting: stale at `end`, the middle of the next period, whose own
    ///   decision is made from the period's start (no refresh within the period).
    static func freshness(decided: DateTime, expires: Int?, end: DateTime) -> Freshness {
        guard let expires else { return Freshness(refresh: nil, stale: end) }
        let lifetime = MediaTime(seconds: max(0, min(expires, 86_400)))
        let stale = min(end, decided + lifetime)
        let early = MediaTime(nanoseconds: lifetime.nanoseconds / 4 * 3)
        let refresh = decided + max(Self.shortestRefresh, early)
        return Freshness(refresh: refresh < stale ? refresh : nil, stale: stale)
    }
}
