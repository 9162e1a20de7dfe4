import HLSPlaylist
import NIOConcurrencyHelpers

/// Sessions handed off through the server: one waiting session per name, taken by the first
/// receiver (`POST /handoff/NAME` stores, `GET /handoff/NAME?wait=S` takes, waiting up to S s).
///
/// It holds at most `capacity` sessions; a session nobody takes within `expiry` is dropped. Both
/// the expiry and a receiver's wait are on the server's clock.
final class HandoffMailbox: Sendable {
    struct Waiter: Sendable {
        var id: Int
        var continuation: CheckedContinuation<String?, Never>
    }

    struct Stored: Sendable {
        var text: String
        var expires: MediaTime
    }

    struct State: Sendable {
        var sessions: [String: Stored] = [:]
        var waiters: [String: [Waiter]] = [:]
        var expired: Set<Int> = []
        var nextID = 0
    }

    private let state = NIOLockedValueBox(State())
    private let capacity: Int
    private let expiry: MediaTime
    private let clock: any ServerClock

    /// A mailbox of at most `capacity` sessions, each dropped `expiry` after it was stored, on `clock`.
    init(capacity: Int, expiry: Duration, clock: any ServerClock) {
        self.capacity = capacity
        self.expiry = MediaTime(expiry)
        self.clock = clock
    }

    /// The monotonic time now.
    private func now() -> MediaTime { clock.now }

    /// Stores a session (the JSON of a validated ``PlaybackSession``) for `name`, handing it
    /// straight to a waiting receiver; replaces one waiting under the same name.
    ///
    /// - Throws: 503 `mailbox-full` when `capacity` sessions wait under other names.
    func put(_ name: String, _ session: String) throws(APIError) {
        let now = now()
        let capacity = capacity
        let outcome = state.withLockedValue { state -> (waiter: Waiter?, stored: Bool) in
            if var waiting = state.waiters[name], !waiting.isEmpty {
                let first = waiting.removeFirst()
                state.waiters[name] = waiting.isEmpty ? nil : waiting
                return (first, true)
            }
            state.sessions = state.sessions.filter { $0.value.expires > now }
            guard state.sessions[name] != nil || state.sessions.count < capacity else { return (nil, false) }
            state.sessions[name] = Stored(text: session, expires: now + expiry)
            return (nil, true)
        }
        guard outcome.stored else {
            throw APIError(
                status: 503, code: .mailboxFull,
                "\(capacity) hand-off sessions are waiting to be taken; try again later")
        }
        outcome.waiter?.continuation.resume(returning: session)
    }

    /// The number of sessions waiting (expired ones included until the next store).
    var count: Int { state.withLockedValue { $0.sessions.count } }

    /// Takes the session for `name` unless it expired.
    private func takeStored(_ name: String, from state: inout State) -> String? {
        guard let stored = state.sessions.removeValue(forKey: name), stored.expires > now() else { return nil }
        return stored.text
    }

    /// Whether a session for `name` waits to be taken, without taking it (`HEAD`).
    func contains(_ name: String) -> Bool {
        let now = now()
        return state.withLockedValue { $0.sessions[name].map { $0.expires > now } ?? false }
    }

    /// Takes the session for `name`, waiting up to `wait` for one; nil when none came.
    func take(_ name: String, wait: Duration) async -> String? {
        if let ready = state.withLockedValue({ takeStored(name, from: &$0) }) { return ready }
        guard wait > .zero else { return nil }
        let id = state.withLockedValue { state in
            state.nextID += 1
            return state.nextID
        }
        let session = await withTaskGroup(of: Void.self) { group -> String? in
            group.addTask {
                try? await self.clock.sleep(for: MediaTime(wait))
                if !Task.isCancelled { self.expire(name, id) }
            }
            let result = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                let ready = state.withLockedValue { state -> String?? in
                    if let session = takeStored(name, from: &state) { return .some(session) }
                    if state.expired.remove(id) != nil { return .some(nil) }
                    state.waiters[name, default: []].append(Waiter(id: id, continuation: continuation))
                    return .none
                }
                if case .some(let session) = ready { continuation.resume(returning: session) }
            }
            group.cancelAll()
            return result
        }
        // An expiry that found no waiter (it had been served) leaves its mark: drop it.
        state.withLockedValue { _ = $0.expired.remove(id) }
        return session
    }

    private func expire(_ name: String, _ id: Int) {
        let waiter = state.withLockedValue { state -> Waiter? in
            guard let index = state.waiters[name]?.firstIndex(where: { $0.id == id }) else {
                state.expired.insert(id)
                return nil
            }
            return state.waiters[name]?.remove(at: index)
        }
        waiter?.continuation.resume(returning: nil)
    }
}
