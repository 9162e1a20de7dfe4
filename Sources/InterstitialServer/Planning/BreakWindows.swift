import HLSInterstitials
import HLSPlaylist

/// When the server prepares an upcoming live break, and when it asks viewers to (pure): the one
/// place where the preload hint's range (App. F) and the retrieval window of decisions made ahead
/// are computed, from the break's start, the audience and the ad server's capacity.
///
/// Both end before the viewers' normal request time (`endsBefore` ahead of the break). The hint's
/// range is as long as the ad server needs to decide for the audience one by one
/// (`sessions / perSecond`), within `[minimum, maximum]`, so that viewers spread their requests
/// over it (each at a random point, App. F). The retrieval window ends where the hint's range starts,
/// so the decisions are made before the first viewer may ask, and is as long again with a quarter
/// more for errors and the viewers' own requests, within `[minimumRetrieval, maximumRetrieval]`.
public struct BreakWindows: Sendable, Hashable {
    /// How long before a break the viewers' normal request time is (a player asks for the asset
    /// list about 10 s ahead, give or take 1.5 s): both windows end this much before the break.
    public var endsBefore = MediaTime(seconds: 12)
    /// The shortest preload hint range.
    public var minimum = MediaTime(seconds: 6)
    /// The longest preload hint range.
    public var maximum = MediaTime(seconds: 120)
    /// The shortest retrieval window.
    public var minimumRetrieval = MediaTime(seconds: 10)
    /// The longest retrieval window.
    public var maximumRetrieval = MediaTime(seconds: 300)

    /// Creates the default windows.
    public init() {}

    /// How far past a live channel's look-ahead a break is prepared: the longest retrieval window
    /// before the longest hint range, which ends ``endsBefore`` the break. Breaks further ahead are
    /// not followed for decisions made ahead, and their asset lists are not answered.
    public var horizon: MediaTime { maximumRetrieval + max(minimum, maximum) + endsBefore }

    /// The preload hint's range for a break starting at `start`, with `sessions` viewers and an ad
    /// server that decides `perSecond` times a second.
    public func hint(start: DateTime, sessions: Int, perSecond: Int) -> Range<DateTime> {
        let end = start - endsBefore
        let length = Self.clamped(Self.seconds(sessions, perSecond), minimum, maximum)
        return (end - length)..<end
    }

    /// The retrieval window for a break starting at `start` whose hint range starts at `hintStart`
    /// (``hint(start:sessions:perSecond:)``, or as first served).
    public func retrieval(hintStart: DateTime, sessions: Int, perSecond: Int) -> Range<DateTime> {
        let needed = Self.seconds(sessions + (sessions + 3) / 4, perSecond)
        let length = Self.clamped(needed, minimumRetrieval, maximumRetrieval)
        return (hintStart - length)..<hintStart
    }

    /// The time `count` decisions take at `perSecond`, rounded up to the whole second.
    static func seconds(_ count: Int, _ perSecond: Int) -> MediaTime {
        let rate = max(1, perSecond)
        return MediaTime(seconds: (max(0, count) + rate - 1) / rate)
    }

    static func clamped(_ value: MediaTime, _ low: MediaTime, _ high: MediaTime) -> MediaTime {
        min(max(value, low), max(low, high))
    }
}
