import Crypto
import Foundation
import HLSInterstitials
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers

/// Logs and counts the SCTE-35 markers a channel's playlists carry that the server does not convert
/// as written (``SignalRefusal``, profile R29): once per marker, not once per reload.
///
/// A live window slides, so a marker's line changes from reload to reload: a marker is known by
/// its channel, the rule, its tag's text and, for the older forms, the date of its segment
/// (``SignalRefusal/date``). The markers reported are remembered in a ``Memory`` of at most
/// ``capacity`` (the oldest forgotten first; a forgotten marker seen again is reported again), and
/// at most ``maximumLoggedPerPlaylist`` lines are logged for one playlist (the others in one
/// summary line; all are counted in `hlsi_signals_refused_total`): an upstream that writes endless
/// distinct bad markers costs bounded memory and logs at most that many lines per playlist fetched.
final class SignalRefusalLog: Sendable {
    /// The markers already reported, as a value: a set with its keys in a ring, the oldest replaced.
    struct Memory: Sendable {
        /// The most markers remembered (at least 1).
        let capacity: Int
        private var keys: Set<SHA256Digest> = []
        private var ring: [SHA256Digest] = []
        private var oldest = 0

        /// An empty memory of at most `capacity` markers.
        init(capacity: Int) {
            self.capacity = max(1, capacity)
        }

        /// How many markers are remembered.
        var count: Int { keys.count }

        /// Whether `key` is new; it is remembered either way, the oldest key forgotten when full.
        mutating func remember(_ key: SHA256Digest) -> Bool {
            guard !keys.contains(key) else { return false }
            if ring.count < capacity {
                ring.append(key)
            } else {
                keys.remove(ring[oldest])
                ring[oldest] = key
                oldest = (oldest + 1) % capacity
            }
            keys.insert(key)
            return true
        }

        /// Whether `key` is remembered.
        func contains(_ key: SHA256Digest) -> Bool { keys.contains(key) }
    }

    /// The most markers remembered by default: 4096 keys of 32 bytes (well under a megabyte).
    static let defaultCapacity = 4096
    /// The most refusals logged one by one for one playlist.
    static let maximumLoggedPerPlaylist = 8

    private let memory: NIOLockedValueBox<Memory>
    private let logger: Logger
    private let metrics: ServerMetrics

    /// A log that remembers at most `capacity` markers.
    init(logger: Logger, metrics: ServerMetrics, capacity: Int = SignalRefusalLog.defaultCapacity) {
        self.logger = logger
        self.metrics = metrics
        memory = NIOLockedValueBox(Memory(capacity: capacity))
    }

    /// How many markers are remembered.
    var remembered: Int { memory.withLockedValue { $0.count } }

    /// Logs and counts the refusals of one playlist of `channel` (its path) not reported before.
    func report(_ refusals: [SignalRefusal], channel: String) {
        guard !refusals.isEmpty else { return }
        let new = memory.withLockedValue { memory in
            refusals.filter { memory.remember(Self.key($0, channel: channel)) }
        }
        for refusal in new { metrics.signalRefused(reason: refusal.diagnostic.rule.rawValue) }
        for refusal in new.prefix(Self.maximumLoggedPerPlaylist) {
            logger.warning(
                "\(channel): SCTE-35 marker refused: \(refusal.diagnostic) [marker: \(refusal.marker)]",
                metadata: ["rule": "\(refusal.diagnostic.rule.rawValue)"])
        }
        if new.count > Self.maximumLoggedPerPlaylist {
            logger.warning(
                "\(channel): \(new.count - Self.maximumLoggedPerPlaylist) more SCTE-35 markers refused in this playlist (counted in hlsi_signals_refused_total, not logged)"
            )
        }
    }

    /// What identifies a refused marker across reloads: its channel, rule, text and date.
    static func key(_ refusal: SignalRefusal, channel: String) -> SHA256Digest {
        var hash = SHA256()
        for part in [
            channel, refusal.diagnostic.rule.rawValue, refusal.marker,
            refusal.date.map { String($0.nanosecondsSinceEpoch) } ?? "",
        ] {
            hash.update(data: Data(part.utf8))
            hash.update(data: Data([0]))
        }
        return hash.finalize()
    }
}
