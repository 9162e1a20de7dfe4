import HLSPlaylist
import SCTE35

/// An ad break a media playlist signals with SCTE-35 markers, found by ``SignalRecognizer``.
///
/// §4.4.5.1.1: "An SCTE-35 splice out/in pair signaled by a pair of splice_insert() commands SHOULD be
/// represented by one or more EXT-X-DATERANGE tags carrying the same ID attribute"; the older
/// EXT-X-CUE-OUT / EXT-X-CUE-OUT-CONT / EXT-X-CUE-IN and EXT-OATCLS-SCTE35 lines signal the same
/// breaks. A break starts at its OUT and ends at its IN, or at its planned duration when no IN comes.
public struct SignalledBreak: Hashable, Sendable {
    /// How the break's OUT was written.
    public enum Form: String, Hashable, Sendable, CustomStringConvertible {
        /// EXT-X-DATERANGE with SCTE35-OUT (or SCTE35-CMD).
        case dateRange = "daterange"
        /// EXT-X-CUE-OUT (or, when the OUT left the window, EXT-X-CUE-OUT-CONT).
        case cueOut = "cue-out"
        /// EXT-OATCLS-SCTE35.
        case oatcls = "oatcls"

        /// The raw value.
        public var description: String { rawValue }
    }

    /// A stable ID derived from the signal: `scte35-<event ID>-<CRC_32 of the OUT section>` when the
    /// OUT carries a section, `scte35-<date range ID>` for a date range whose section does not decode,
    /// else `scte35-cue-<start, milliseconds since 1970>` (or `scte35-cue-msn<media sequence>` without
    /// dates). The same markers always give the same ID, in every rendition that carries them.
    public var id: String
    /// The start: the OUT's segment date, or the DATERANGE START-DATE.
    public var startDate: DateTime?
    /// Where the break starts on the playlist's timeline.
    public var startTime: MediaTime?
    /// The planned duration (CUE-OUT duration, PLANNED-DURATION, break_duration or
    /// segmentation_duration); `nil` when no marker gives one.
    public var plannedDuration: MediaTime?
    /// The date of the IN that ended the break, if one came.
    public var returnDate: DateTime?
    /// The form of the OUT.
    public var form: Form
    /// The event the sections name, if any.
    public var eventID: BreakSignal.EventID?
    /// The OUT's section, if it carries one.
    public var section: SpliceInfoSection?
    /// Whether a splice_event_cancel_indicator or segmentation_event_cancel_indicator cancelled it.
    public var isCancelled: Bool
    /// The 1-based line of the OUT (or of the CONT the break was found from).
    public var line: Int
    /// The 1-based line of the IN, if one came.
    public var returnLine: Int?
    /// How far the OUT's splice time lay ahead of the segment carrying it, when it did and the
    /// channel's PTS clock was known (``SpliceClock``): ``startDate`` is that segment's date plus it.
    public var spliceLead: MediaTime?

    /// A break.
    public init(
        id: String, startDate: DateTime?, startTime: MediaTime? = nil, plannedDuration: MediaTime?,
        returnDate: DateTime? = nil, form: Form, eventID: BreakSignal.EventID? = nil,
        section: SpliceInfoSection? = nil, isCancelled: Bool = false, line: Int, returnLine: Int? = nil
    ) {
        self.id = id
        self.startDate = startDate
        self.startTime = startTime
        self.plannedDuration = plannedDuration
        self.returnDate = returnDate
        self.form = form
        self.eventID = eventID
        self.section = section
        self.isCancelled = isCancelled
        self.line = line
        self.returnLine = returnLine
    }

    /// The time from the OUT to the IN, when an IN came.
    public var returnedAfter: MediaTime? {
        guard let returnDate, let startDate else { return nil }
        return returnDate - startDate
    }

    /// The actual duration of a break whose IN came before its planned end (an early return); `nil`
    /// when no IN came, or when it came at or after the planned end.
    public var actualDuration: MediaTime? {
        guard let returned = returnedAfter else { return nil }
        guard let plannedDuration else { return returned }
        return returned < plannedDuration ? returned : nil
    }

    /// The duration the break takes: the actual duration of an early return, else the planned one.
    public var duration: MediaTime? { actualDuration ?? plannedDuration }

    /// Whether an IN ended the break, so its duration is final.
    public var hasReturned: Bool { returnDate != nil }
}
