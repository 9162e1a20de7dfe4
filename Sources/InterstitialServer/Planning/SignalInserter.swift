import HLSInterstitials
import HLSPlaylist
import SCTE35

/// SCTE-35 markers a looped channel writes into its own playlists, as an encoder upstream would
/// (pure): a break of ``duration`` every ``every`` from ``offset`` after the channel's epoch.
///
/// Break *k* starts at `epoch + offset + k × every` and lasts ``duration``; every rendition signals the
/// same dates and sections (whatever its segment boundaries), so the breaks found in each are the
/// same. Each break is one splice event, `splice_event_id` *k*, made with the SCTE35 builders:
///
/// - ``Form/dateRange``: `EXT-X-DATERANGE` with `START-DATE` the break's start, `SCTE35-OUT` and
///   `PLANNED-DURATION`, and the same ID with `SCTE35-IN` and `DURATION` (§4.4.5.1.1).
/// - ``Form/cueOut``: `EXT-OATCLS-SCTE35` and `EXT-X-CUE-OUT:DURATION` before the first segment at or
///   after the start, `EXT-X-CUE-OUT-CONT:ElapsedTime=…,Duration=…,SCTE35=…` before the segments
///   inside, `EXT-X-CUE-IN` before the first segment at or after the end. With a ``lead``, the
///   `EXT-OATCLS-SCTE35` goes on the first segment at or after the start minus the lead, as an
///   encoder's splice_insert sent ahead of its splice time: its pts_time is the break's start.
///
/// The sections' times are on the channel's PTS clock (``clock(epoch:)``): the time since the epoch.
public struct SignalInserter: Hashable, Sendable {
    /// How the markers are written.
    public enum Form: String, Hashable, Sendable {
        /// EXT-X-DATERANGE with SCTE35-OUT and SCTE35-IN.
        case dateRange = "daterange"
        /// EXT-OATCLS-SCTE35, EXT-X-CUE-OUT, EXT-X-CUE-OUT-CONT and EXT-X-CUE-IN.
        case cueOut = "cue-out"
    }

    /// The time from one break's planned start to the next.
    public var every: MediaTime
    /// The planned length of a break.
    public var duration: MediaTime
    /// The planned start of the first break after the epoch.
    public var offset: MediaTime
    /// The form of the markers.
    public var form: Form
    /// How far ahead of the break the splice_insert is sent (``Form/cueOut`` only: the
    /// `EXT-OATCLS-SCTE35` line); zero: on the break's first segment.
    public var lead: MediaTime = .zero

    /// An inserter; `duration` must be shorter than `every`, `lead` shorter than `every - duration`.
    public init(
        every: MediaTime, duration: MediaTime, offset: MediaTime = .zero, form: Form = .dateRange,
        lead: MediaTime = .zero
    ) {
        self.every = every
        self.duration = duration
        self.offset = offset
        self.form = form
        self.lead = lead
    }

    /// The channel's PTS clock, the one its sections' pts_time are on: the time since `epoch`
    /// (33 bits of 90 kHz ticks). The recognizer reads a splice time ahead of its segment with it.
    public static func clock(epoch: DateTime) -> SpliceClock { SpliceClock(date: epoch, pts: 0) }

    /// Reads `{"every": 60, "duration": 10, "offset": 30, "form": "daterange"|"cue-out", "lead": 8}`.
    static func decode(_ value: JSONValue, path: String) throws(APIError) -> SignalInserter {
        var reader = try JSONObjectReader(value, path: path)
        let every = try reader.requiredSeconds("every")
        let duration = try reader.requiredSeconds("duration")
        let offset = try reader.seconds("offset") ?? .zero
        let lead = try reader.seconds("lead") ?? .zero
        var form = Form.dateRange
        if let text = try reader.string("form") {
            guard let value = Form(rawValue: text) else {
                throw reader.error("form", "expected \"daterange\" or \"cue-out\", found \"\(text)\"")
            }
            form = value
        }
        guard duration > .zero, duration < every else {
            throw reader.error("duration", "a break must be longer than 0 and shorter than every (\(every) s)")
        }
        guard every >= MediaTime(seconds: 1), every <= MediaTime(seconds: 86_400) else {
            throw reader.error("every", "must be 1 to 86400 seconds")
        }
        guard lead >= .zero, lead < every - duration else {
            throw reader.error("lead", "must be at least 0 and less than every - duration (\(every - duration) s)")
        }
        guard lead == .zero || form == .cueOut else {
            throw reader.error("lead", "only the \"cue-out\" form sends its splice_insert ahead")
        }
        try reader.finish()
        return SignalInserter(every: every, duration: duration, offset: offset, form: form, lead: lead)
    }

    /// One break: its event ID and its OUT and IN dates.
    struct Signalled {
        var eventID: UInt32
        var out: DateTime
        var `in`: DateTime
    }

    /// The breaks planned around `date`.
    func breaks(around date: DateTime, epoch: DateTime) -> [Signalled] {
        guard every > .zero else { return [] }
        let since = (date - epoch - offset).nanoseconds
        let index = since < 0 ? -1 : since / every.nanoseconds
        return (max(0, index - 1)...max(0, index + 1)).compactMap { k in
            guard k < Int64(UInt32.max) else { return nil }
            let out = epoch + offset + MediaTime(nanoseconds: k * every.nanoseconds)
            return Signalled(eventID: UInt32(k), out: out, in: out + duration)
        }
    }

    /// The marker lines before the segment that starts at `date`, whose previous segment (in the loop,
    /// in the window or not) starts at `previous`; `first`: the window's first segment.
    ///
    /// A marker goes on the first segment that starts at or after its date; the date ranges of a break
    /// still in the window are written again before the window's first segment.
    func lines(beforeSegmentAt date: DateTime, previous: DateTime, first: Bool, epoch: DateTime) -> [String] {
        var lines: [String] = []
        for item in breaks(around: date, epoch: epoch) {
            let outHere = previous < item.out && item.out <= date
            let announced = lead > .zero && previous < item.out - lead && item.out - lead <= date
            let inHere = previous < item.in && item.in <= date
            let inside = item.out <= previous && date < item.in
            guard outHere || inHere || announced || (first && inside) else { continue }
            let ticks = UInt64((item.out - epoch).nanoseconds / 1_000_000 * 90) & Ticks.max33
            let length = UInt64(duration.nanoseconds / 1_000_000 * 90)
            let out = SpliceInfoSection.spliceInsertOut(eventID: item.eventID, ptsTime: ticks, duration: length)
            let back = SpliceInfoSection.spliceInsertIn(eventID: item.eventID, ptsTime: (ticks + length) & Ticks.max33)
            let seconds = duration.formatted(fractionDigits: 3)
            switch form {
            case .dateRange:
                let id = "splice-\(item.eventID)"
                let start = item.out.iso8601
                if outHere || first, let hex = try? out.encodedHex() {
                    lines.append(
                        "#EXT-X-DATERANGE:ID=\"\(id)\",START-DATE=\"\(start)\",PLANNED-DURATION=\(seconds),SCTE35-OUT=\(hex)"
                    )
                }
                if inHere, let hex = try? back.encodedHex() {
                    lines.append(
                        "#EXT-X-DATERANGE:ID=\"\(id)\",START-DATE=\"\(start)\",DURATION=\(seconds),SCTE35-IN=\(hex)")
                }
            case .cueOut:
                guard let base64 = try? out.encodedBase64() else { continue }
                if announced { lines.append("#EXT-OATCLS-SCTE35:\(base64)") }
                if outHere {
                    if lead == .zero { lines.append("#EXT-OATCLS-SCTE35:\(base64)") }
                    lines.append("#EXT-X-CUE-OUT:DURATION=\(seconds)")
                } else if inside {
                    let elapsed = (date - item.out).formatted(fractionDigits: 3)
                    lines.append("#EXT-X-CUE-OUT-CONT:ElapsedTime=\(elapsed),Duration=\(seconds),SCTE35=\(base64)")
                } else if inHere, !first {
                    lines.append("#EXT-X-CUE-IN")
                }
            }
        }
        return lines
    }
}
