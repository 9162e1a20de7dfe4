import HLSPlaylist

/// How many times each viewer asked for each break, in two generations: when the current one
/// reaches half the limits (entries or bytes), or is half the viewer expiry old, it becomes the
/// previous one, and the previous one is dropped. Memory stays within the limits; recent viewers
/// keep their counts, and a count unused for the expiry is gone. Time is an input: the server's
/// monotonic clock (``ServerClock/now``).
struct ViewerLedger {
    private var current: [String: Int] = [:]
    private var previous: [String: Int] = [:]
    private var currentBytes = 0
    private var previousBytes = 0
    private var currentStarted: MediaTime?
    private let maxEntries: Int
    private let maxBytes: Int
    private let generation: MediaTime
    /// What an entry costs besides its key's bytes.
    static let entryOverhead = 48

    init(limits: ServerLimits) {
        maxEntries = max(2, limits.ledgerEntries / 2)
        maxBytes = max(2 * Self.entryOverhead, limits.ledgerBytes / 2)
        generation = MediaTime(nanoseconds: limits.viewerExpiry.nanoseconds / 2)
    }

    var entries: Int { current.count + previous.count }
    var bytes: Int { currentBytes + previousBytes }

    /// The count before this request at `now`, counting this one.
    mutating func count(_ key: String, now: MediaTime) -> Int {
        let started = currentStarted ?? now
        if now - started >= generation {
            // Half the expiry on; a generation older than the whole expiry is dropped outright.
            startGeneration(at: now, keepingCurrent: now - started < generation + generation)
        } else if currentStarted == nil {
            currentStarted = now
        }
        if let attempt = current[key] {
            current[key] = attempt + 1
            return attempt
        }
        let attempt = previous[key] ?? 0
        let cost = key.utf8.count + Self.entryOverhead
        if current.count + 1 > maxEntries || currentBytes + cost > maxBytes {
            startGeneration(at: now, keepingCurrent: true)
        }
        current[key] = attempt + 1
        currentBytes += cost
        return attempt
    }

    /// Starts a new current generation at `now`; the current one becomes the previous one, or is
    /// dropped with it.
    private mutating func startGeneration(at now: MediaTime, keepingCurrent: Bool) {
        previous = keepingCurrent ? current : [:]
        previousBytes = keepingCurrent ? currentBytes : 0
        current = [:]
        currentBytes = 0
        currentStarted = now
    }
}
