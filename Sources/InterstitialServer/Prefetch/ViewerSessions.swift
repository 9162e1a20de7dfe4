import HLSInterstitials
import HLSPlaylist
import NIOConcurrencyHelpers

/// The viewers recently seen on each live channel: the session IDs of its media playlist requests
/// (`X-PLAYBACK-SESSION-ID`, else `_HLS_primary_id`) and asset-list requests (`_HLS_primary_id`):
/// all of them are the audience of preload hints and retrieval windows (``count(_:)``); those
/// **playing** (``ViewerActivity/isPlaying(span:)``: their requests span ``Limits/playing``) are
/// the ones decisions are made ahead for (``playing(_:)``, ``PrefetchPlanner``), so a made-up ID
/// named on one request takes none. With each, its activity (``ViewerActivity``) and the viewer's
/// device fields last seen (``DeviceFields``: its user agent and address, each cut to
/// ``DeviceFields/maximumBytes``), sent to the ad server on the decisions made ahead for it.
///
/// Bounded in count and bytes, cheap enough for every playlist request (one lock, one dictionary
/// update). The sessions are kept in two generations: a session seen goes into the current one;
/// when the current generation holds half the bounds, or ``Limits/idle`` has passed since it began,
/// it becomes the previous one and the previous one is dropped. So a session not seen for
/// between ``Limits/idle`` and twice that is forgotten, the least recently seen go first, and a
/// flood of new IDs evicts older sessions without exceeding the bounds. Generations turn over with
/// time on every read too (``count(_:)``, ``playing(_:)``, ``totals``), not only when new sessions
/// arrive: a flood's sessions leave the audience within twice ``Limits/idle`` of its end.
final class ViewerSessions: Sendable {
    /// The bounds.
    struct Limits: Hashable, Sendable {
        /// How long a session is kept after it was last seen (at least; at most twice this).
        var idle = MediaTime(seconds: 30)
        /// How long a session's requests must span for it to be playing (``ViewerActivity``).
        var playing = MediaTime(seconds: 6)
        /// The most sessions kept, all channels together.
        var count = 200_000
        /// The most bytes kept (``cost(of:)`` per session), all channels together.
        var bytes = 64 * 1024 * 1024
        /// The longest session ID accepted, in bytes; a longer one is ignored.
        var idBytes = 128
    }

    /// The bytes counted for each session besides its ID and device fields: its dictionary entry
    /// and the per-channel share (measured well under this).
    static let overhead = 96

    /// One session: when it was first and last seen, and its device fields.
    private struct Entry {
        var activity: ViewerActivity
        var device: DeviceFields?
    }

    /// One generation: the sessions of each channel, with when each was first and last seen; how
    /// many, their bytes, and how many of them are playing.
    private struct Generation {
        var sessions: [Target: [String: Entry]] = [:]
        var count = 0
        var bytes = 0
        var playing = 0
        var began: MediaTime
    }

    private struct State {
        var current: Generation
        var previous: Generation
    }

    let limits: Limits
    private let state: NIOLockedValueBox<State>
    /// The server's clock: when a session was seen is its monotonic time.
    private let clock: any ServerClock

    /// Sessions within `limits`, on `clock`.
    init(limits: Limits = Limits(), clock: any ServerClock) {
        self.limits = limits
        self.clock = clock
        let start = clock.now
        state = NIOLockedValueBox(State(current: Generation(began: start), previous: Generation(began: start)))
    }

    /// Whether `id` may be kept: 1 to ``Limits/idBytes`` bytes, each a visible ASCII character.
    func accepts(_ id: String) -> Bool {
        let utf8 = id.utf8
        return !utf8.isEmpty && utf8.count <= limits.idBytes && utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// The bytes counted for keeping `id` (with `device`).
    static func cost(of id: String, device: DeviceFields? = nil) -> Int {
        overhead + id.utf8.count + (device?.userAgent?.utf8.count ?? 0) + (device?.ip?.utf8.count ?? 0)
    }

    /// Records a request of `target` by `session` (nil or not ``accepts(_:)``: nothing), with the
    /// viewer's `device` fields when known (nil keeps those seen before): the session is seen, and
    /// its activity goes on (``ViewerActivity/requested(at:idle:)``).
    func seen(_ session: String?, on target: Target, device: DeviceFields? = nil) {
        guard let session, accepts(session) else { return }
        let now = clock.now
        let span = limits.playing
        state.withLockedValue { state in
            Self.turnOver(&state, now: now, idle: limits.idle)
            if let entry = state.current.sessions[target]?[session] {
                let kept = device ?? entry.device
                let activity = entry.activity.requested(at: now, idle: limits.idle)
                state.current.sessions[target]?[session] = Entry(activity: activity, device: kept)
                state.current.bytes +=
                    Self.cost(of: session, device: kept) - Self.cost(of: session, device: entry.device)
                state.current.playing +=
                    (activity.isPlaying(span: span) ? 1 : 0) - (entry.activity.isPlaying(span: span) ? 1 : 0)
                return
            }
            var kept = device
            var activity = ViewerActivity(at: now)
            if let old = state.previous.sessions[target]?.removeValue(forKey: session) {
                state.previous.count -= 1
                state.previous.bytes -= Self.cost(of: session, device: old.device)
                if old.activity.isPlaying(span: span) { state.previous.playing -= 1 }
                kept = kept ?? old.device
                activity = old.activity.requested(at: now, idle: limits.idle)
            }
            let cost = Self.cost(of: session, device: kept)
            if state.current.count + 1 > limits.count / 2 || state.current.bytes + cost > limits.bytes / 2 {
                state.previous = state.current
                state.current = Generation(began: now)
            }
            state.current.sessions[target, default: [:]][session] = Entry(activity: activity, device: kept)
            state.current.count += 1
            state.current.bytes += cost
            if activity.isPlaying(span: span) { state.current.playing += 1 }
        }
    }

    /// The device fields last seen with `session` on `target`, while it is kept.
    func device(_ session: String, on target: Target) -> DeviceFields? {
        state.withLockedValue { state in
            (state.current.sessions[target]?[session] ?? state.previous.sessions[target]?[session])?.device
        }
    }

    /// Starts a new generation when ``Limits/idle`` has passed since the current one began: each
    /// session of the previous one was then seen longer ago than that.
    private static func turnOver(_ state: inout State, now: MediaTime, idle: MediaTime) {
        guard now - state.current.began >= idle else { return }
        state.previous = state.current
        state.current = Generation(began: now)
    }

    /// The sessions of `target` to decide ahead for: those seen within ``Limits/idle`` that are
    /// playing (``ViewerActivity/isPlaying(span:)`` with ``Limits/playing``).
    func playing(_ target: Target) -> [String] {
        let now = clock.now
        return state.withLockedValue { state in
            Self.turnOver(&state, now: now, idle: limits.idle)
            var found: [String] = []
            for generation in [state.current, state.previous] {
                for (session, entry) in generation.sessions[target] ?? [:]
                where now - entry.activity.last < limits.idle && entry.activity.isPlaying(span: limits.playing) {
                    found.append(session)
                }
            }
            return found
        }
    }

    /// How many sessions of `target` are kept (the audience of a live channel): those seen within
    /// ``Limits/idle``, and some up to twice that (a flood's sessions included, until then); constant time.
    func count(_ target: Target) -> Int {
        let now = clock.now
        return state.withLockedValue { state in
            Self.turnOver(&state, now: now, idle: limits.idle)
            return (state.current.sessions[target]?.count ?? 0) + (state.previous.sessions[target]?.count ?? 0)
        }
    }

    /// How many sessions are kept, their bytes (``cost(of:)``), and how many of them are playing (as
    /// at their last request), all channels together; constant time.
    var totals: (count: Int, bytes: Int, playing: Int) {
        let now = clock.now
        return state.withLockedValue { state in
            Self.turnOver(&state, now: now, idle: limits.idle)
            return (
                state.current.count + state.previous.count, state.current.bytes + state.previous.bytes,
                state.current.playing + state.previous.playing
            )
        }
    }
}
