/// The choices profile R27 makes where Apple's description of Date Range Schedules is silent, in
/// one place: change ``profile`` to change what every reader, resolver and validator does.
public struct DateRangeSchedulePolicy: Sendable, Hashable {
    /// What a bad entry (wrong type, missing ID, CLASS or start, offset out of range, duplicate ID)
    /// does to its document.
    public enum EntryFailure: String, Sendable, Hashable {
        /// The entry is left out and reported; the other entries are kept.
        case dropEntry
        /// The whole document is refused: the schedule adds nothing.
        case wholeDocument
    }

    /// What an entry whose CLASS this client does not know becomes.
    public enum UnknownClass: String, Sendable, Hashable {
        /// A plain date range, as a tag of an unknown class in a playlist: kept, never an event.
        case keep
        /// Refused as a bad entry (`schedule-entry-class`).
        case refuse
    }

    /// What a bad entry does to its document.
    public var entryFailure: EntryFailure
    /// What an entry of an unknown CLASS becomes.
    public var unknownClass: UnknownClass
    /// How many levels of schedules are followed: 1 follows the playlist's schedule tags only, and
    /// an entry of the schedule class inside a document is left out (`schedule-nested`); 2 also
    /// follows those entries' documents, and so on.
    public var maximumDepth: Int
    /// The CLASS values this client knows (an entry of another is ``unknownClass``).
    public var knownClasses: Set<String>

    /// Creates a policy.
    public init(
        entryFailure: EntryFailure, unknownClass: UnknownClass, maximumDepth: Int,
        knownClasses: Set<String> = [
            InterstitialEvent.className, PreloadDateRange.className, DateRangeSchedule.className,
        ]
    ) {
        self.entryFailure = entryFailure
        self.unknownClass = unknownClass
        self.maximumDepth = maximumDepth
        self.knownClasses = knownClasses
    }

    /// Profile R27: a bad entry is left out alone, an unknown CLASS is kept as a plain date range,
    /// and schedules are followed one level deep (nested schedules are left out).
    public static let profile = DateRangeSchedulePolicy(entryFailure: .dropEntry, unknownClass: .keep, maximumDepth: 1)

    /// Whether an entry of `className` is accepted.
    public func accepts(className: String) -> Bool {
        unknownClass == .keep || knownClasses.contains(className)
    }
}
