import HLSPlaylist
import NIOConcurrencyHelpers

/// The fast lane's answers kept by request target: a playlist answer that
/// ``ContentLibrary/answer(_:query:userAgent:viewerIP:)`` said stays the same
/// (``ContentResponse/Reuse``: while the state has its version and, on live, until the window's
/// next segment) is given again without asking it, while that holds. What it keeps is that
/// function's answer as the fast lane writes it, so a kept answer is the one it would give.
///
/// The routes keep files' answers in one of their own too (`Routes.fileAnswers`): without their
/// bodies, kept for the state's version, and given again only once the caller found the file to be
/// the one it was (`stat`).
///
/// Bounded: at most ``limit`` targets (several spellings of one path are several targets); when
/// full, everything kept is dropped and kept again as asked.
final class AnswerCache: Sendable {
    /// A kept answer, what it was asked for, and how long it holds.
    struct Entry: Sendable {
        var answer: FastLane.Answer
        var mounted: ContentLibrary.Mounted
        var reuse: ContentResponse.Reuse
    }

    /// The most targets kept.
    let limit: Int
    private let entries = NIOLockedValueBox<[String: Entry]>([:])

    init(limit: Int = 512) {
        self.limit = limit
    }

    /// The answer kept for `target` if it still holds at `now` for the state's `version` (`now` is
    /// read only for an answer kept until a time).
    func entry(_ target: String, version: Int, now: @autoclosure () -> DateTime) -> Entry? {
        guard let entry = entries.withLockedValue({ $0[target] }), entry.reuse.version == version else { return nil }
        if let until = entry.reuse.until, now() >= until { return nil }
        return entry
    }

    /// Keeps `entry` for `target`.
    func keep(_ entry: Entry, for target: String) {
        entries.withLockedValue { entries in
            if entries.count >= limit, entries[target] == nil { entries.removeAll(keepingCapacity: true) }
            entries[target] = entry
        }
    }

    /// How many targets are kept.
    var count: Int { entries.withLockedValue { $0.count } }
}
