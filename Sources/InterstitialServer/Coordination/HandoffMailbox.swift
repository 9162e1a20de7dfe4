import NIOConcurrencyHelpers
import PlaybackCoordination

/// Sessions handed off through the server: one waiting session per name, taken by the first
/// receiver (`POST /handoff/NAME` stores, `GET /handoff/NAME?wait=S` takes, waiting up to S s).
final class HandoffMailbox: Sendable {
    struct Waiter: Sendable {
        var id: Int
        var continuation: CheckedContinuation<String?, Never>
    }

    struct State: Sendable {
        var sessions: [String: String] = [:]
        var waiters: [String: [Waiter]] = [:]
        var expired: Set<Int> = []
        var nextID = 0
    }

    private let state = NIOLockedValueBox(State())

    /// Stores a session (validated JSON) for `name`, handing it straight to a waiting receiver.
    func put(_ name: String, _ session: PlaybackSession) {
        let waiter = state.withLockedValue { state -> Waiter? in
            if var waiting = state.waiters[name], !waiting.isEmpty {
                let first = waiting.removeFirst()
                state.waiters[name] = waiting.isEmpty ? nil : waiting
                return first
            }
            state.sessions[name] = session.text
            return nil
        }
        waiter?.continuation.resume(returning: session.text)
    }

    /// Takes the session for `name`, waiting up to `wait` for one; nil when none came.
    func take(_ name: String, wait: Duration) async -> String? {
        if let ready = state.withLockedValue({ $0.sessions.removeValue(forKey: name) }) { return ready }
        guard wait > .zero else { return nil }
        let id = state.withLockedValue { state in
            state.nextID += 1
            return state.nextID
        }
        let session = await withTaskGroup(of: Void.self) { group -> String? in
            group.addTask {
                try? await Task.sleep(for: wait)
                if !Task.isCancelled { self.expire(name, id) }
            }
            let result = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                let ready = state.withLockedValue { state -> String?? in
                    if let session = state.sessions.removeValue(forKey: name) { return .some(session) }
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
