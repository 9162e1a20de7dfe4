extension SpliceInfoSection {
    /// The most a splice time may lie ahead of the segment carrying its section and still be read as
    /// that segment's lead: 300 s (ANSI/SCTE 67 asks for a few seconds of pre-roll; a larger gap is
    /// more likely a clock that does not match than a break announced that far ahead).
    public static let maximumSpliceLead: UInt64 = 300 * Ticks.perSecond

    /// The section's splice time, 33 bits of 90 kHz ticks: the pts_time of a splice_insert's program
    /// splice (not immediate) or of a time_signal, plus pts_adjustment, modulo 2^33 (ANSI/SCTE 35
    /// §9.6: "pts_adjustment … shall be added to … pts_time … The result of the addition is modulo
    /// 2^33"). Nil for an encrypted section, a cancel, an immediate or component splice, a time not
    /// given, and other commands.
    public var spliceTime: UInt64? {
        guard case .clear(let content) = payload else { return nil }
        let time: UInt64?
        switch content.command {
        case .spliceInsert(let insert):
            guard let splice = insert.splice, !splice.spliceImmediate, case .program(let given) = splice.mode else {
                return nil
            }
            time = given?.ptsTime
        case .timeSignal(let given):
            time = given.ptsTime
        default:
            time = nil
        }
        guard let time else { return nil }
        return (time &+ ptsAdjustment) & Ticks.max33
    }

    /// How far ahead of `segmentPTS` (the first presentation time of the segment carrying the
    /// section, 33 bits) its splice time lies, in 90 kHz ticks, counted modulo 2^33 (across a PTS
    /// wrap): the lead the section gives, as an early notice would. Nil when the section has no
    /// splice time (``spliceTime``), when the splice is not ahead (at or before the segment's start)
    /// or lies more than `maximum` ahead.
    public func spliceLead(segmentPTS: UInt64, maximum: UInt64 = maximumSpliceLead) -> UInt64? {
        guard let time = spliceTime else { return nil }
        let lead = (time &- (segmentPTS & Ticks.max33)) & Ticks.max33
        guard lead > 0, lead <= maximum else { return nil }
        return lead
    }
}
