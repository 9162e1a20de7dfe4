import HLSPlaylist

extension Rule {
    // MARK: Date Range Schedules (Apple 26.4; profile R27)

    /// `schedule-uri`: a schedule date range has no X-URI quoted-string.
    public static let scheduleURI = Rule(
        id: "schedule-uri", severity: .error,
        summary: "A Date Range Schedule has no X-URI quoted-string; clients cannot load its document.",
        reference:
            "§4.4.5.1 X-<client-attribute>, as Apple (26.4) defines it for CLASS com.apple.hls.daterange-schedule: X-URI names the JSON document of its date ranges (profile R27)."
    )
    /// `schedule-uri-invalid`: X-URI is empty or holds whitespace or control characters.
    public static let scheduleURIInvalid = Rule(
        id: "schedule-uri-invalid", severity: .error,
        summary: "A Date Range Schedule's X-URI is not a URI reference (empty, or with spaces or control characters).",
        reference:
            "§4.4.5.1 X-<client-attribute>, as Apple (26.4) defines it for a Date Range Schedule: X-URI is the URI of the schedule's JSON document (profile R27)."
    )
    /// `schedule-start-date`: a schedule date range has no START-DATE.
    public static let scheduleStartDate = Rule(
        id: "schedule-start-date", severity: .error,
        summary: "A Date Range Schedule has no valid START-DATE, from which X-SCHEDULE-OFFSET counts.",
        reference:
            "§4.4.5.1: START-DATE is REQUIRED; Apple (26.4) counts a schedule entry's X-SCHEDULE-OFFSET in seconds from the schedule tag's START-DATE (profile R27)."
    )

    /// The rule of each problem a schedule document can have: its ID is the problem's code.
    public static func schedule(_ code: DateRangeScheduleError.Code) -> Rule {
        let origin = "§4.4.5.1 date ranges published in a Date Range Schedule document (Apple, 26.4). "
        let entry = origin + "The entry is left out; the schedule's other entries are kept (profile R27)."
        let whole = origin + "The schedule adds no date ranges (profile R27)."
        let (severity, summary, reference): (Diagnostic.Severity, String, String) =
            switch code {
            case .tooLarge: (.error, "A schedule document is larger than the limit (1 MiB).", whole)
            case .tooDeep: (.error, "A schedule document nests arrays and objects deeper than the limit (16).", whole)
            case .json: (.error, "A schedule document is not JSON.", whole)
            case .schema: (.error, "A schedule document is not an object with a DATERANGES array.", whole)
            case .tooManyEntries: (.error, "A schedule document has more entries than the limit (1000).", whole)
            case .load: (.error, "A schedule document cannot be loaded.", whole)
            case .entryType:
                (.error, "A schedule entry is not an object, or an attribute has the wrong JSON type.", entry)
            case .entryID: (.error, "A schedule entry has no ID.", entry + " Apple (26.4): ID is required.")
            case .entryClass:
                (.error, "A schedule entry has no CLASS (or one refused).", entry + " Apple (26.4): CLASS is required.")
            case .entryStart:
                (
                    .error,
                    "A schedule entry has neither or both of START-DATE and X-SCHEDULE-OFFSET, or a bad START-DATE.",
                    entry + " Apple (26.4): an entry is dated by START-DATE or X-SCHEDULE-OFFSET."
                )
            case .entryOffset:
                (.error, "A schedule entry's X-SCHEDULE-OFFSET is negative or beyond the bound.", entry)
            case .entryValue:
                (.error, "A schedule entry's attribute name or value cannot be written on an EXT-X-DATERANGE.", entry)
            case .entryDuplicate:
                (.error, "A schedule entry repeats the ID of an earlier entry of its document.", entry)
            case .entryCollision:
                (
                    .error, "A schedule entry's ID is already a date range of the playlist or of an earlier schedule.",
                    "§4.4.5.1: an ID is unique in the playlist. " + String(entry.dropFirst(origin.count))
                )
            case .nested:
                (.warning, "A schedule entry is itself a schedule; nested schedules are not followed.", entry)
            }
        return Rule(id: RuleID(rawValue: code.rawValue), severity: severity, summary: summary, reference: reference)
    }

    /// The Date Range Schedule rules: the tag's, then one per document problem code.
    public static let scheduleRules: [Rule] =
        [.scheduleURI, .scheduleURIInvalid, .scheduleStartDate] + DateRangeScheduleError.Code.allCases.map(schedule)
}
