/// A problem with a Date Range Schedule: its document, one of its entries, or how an entry joins the
/// playlist. Each has a stable code and the JSON path of the place (`DATERANGES[2].X-SCHEDULE-OFFSET`).
///
/// Thrown by `DateRangeScheduleDocument.decode(_:limits:)` for a document that cannot be read at
/// all; listed in ``DateRangeScheduleDocument/problems`` for entries left out, and in
/// ``DateRangeScheduleResolution/problems`` (with the schedule's ID) for what resolution leaves out.
public typealias DateRangeScheduleError = LocatedJSONError<DateRangeScheduleErrorCode>

/// The stable codes of ``DateRangeScheduleError`` (profile R27).
public enum DateRangeScheduleErrorCode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The document is larger than ``DateRangeScheduleDocument/Limits/maximumBytes``.
    case tooLarge = "schedule-too-large"
    /// Arrays and objects are nested deeper than ``DateRangeScheduleDocument/Limits/maximumDepth``.
    case tooDeep = "schedule-too-deep"
    /// The bytes are not JSON.
    case json = "schedule-json"
    /// The document is not an object with a `DATERANGES` array.
    case schema = "schedule-schema"
    /// `DATERANGES` has more than ``DateRangeScheduleDocument/Limits/maximumEntries`` entries.
    case tooManyEntries = "schedule-too-many-entries"
    /// The document could not be loaded (network, HTTP status, deadline).
    case load = "schedule-load"
    /// An entry is not an object, or an attribute's value has the wrong JSON type for it.
    case entryType = "schedule-entry-type"
    /// An entry has no `ID`, or an empty one.
    case entryID = "schedule-entry-id"
    /// An entry has no `CLASS` (or one the policy refuses).
    case entryClass = "schedule-entry-class"
    /// An entry has neither `START-DATE` nor `X-SCHEDULE-OFFSET`, or both, or an invalid START-DATE.
    case entryStart = "schedule-entry-start"
    /// `X-SCHEDULE-OFFSET` is negative, not finite or beyond ``DateRangeScheduleDocument/Limits/maximumOffset``.
    case entryOffset = "schedule-entry-offset"
    /// An attribute name or value cannot be written on an EXT-X-DATERANGE tag.
    case entryValue = "schedule-entry-value"
    /// An entry repeats the ID of an earlier entry of the same document.
    case entryDuplicate = "schedule-entry-duplicate"
    /// An entry's ID is already a date range of the playlist or an entry of another schedule.
    case entryCollision = "schedule-entry-collision"
    /// An entry is itself a schedule, nested deeper than the policy follows.
    case nested = "schedule-nested"

    /// The code as written.
    public var description: String { rawValue }
}
