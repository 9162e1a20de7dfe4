import SCTE35
import Testing

/// The splice-time lead: how far a section's splice time lies ahead of the segment carrying it.
@Suite("Splice-time lead")
struct SpliceLeadTests {
    /// ANSI/SCTE 35's sample splice_insert (§14.1): event 0x4800008F out of network, pts_time
    /// 0x07369C02E, break_duration 0x0052CCF5 with auto_return.
    static let sample = "/DAvAAAAAAAA///wFAVIAACPf+/+c2nALv4AUsz1AAAAAAAKAAhDVUVJAAABNWLbowo="
    static let samplePTS: UInt64 = 0x0_7369_C02E

    @Test("the sample splice_insert's splice time is its pts_time")
    func sampleTime() throws {
        let section = try SpliceInfoSection.decode(text: Self.sample)
        #expect(section.ptsAdjustment == 0)
        #expect(section.spliceTime == Self.samplePTS)
    }

    @Test(
        "a splice_insert's pts_time against the segment carrying it: ahead gives the lead, else none",
        arguments: [
            (8.0, UInt64?.some(720_000)),  // the segment starts 8 s before the splice
            (0.5, 45_000),
            (0, nil),  // the splice at the segment's start: no lead
            (-2, nil),  // the splice already passed
            (300, 27_000_000),  // the longest lead read
            (300.5, nil),  // more: a clock that does not match
        ])
    func sampleLead(secondsAhead: Double, expected: UInt64?) throws {
        let section = try SpliceInfoSection.decode(text: Self.sample)
        let offset = Int64((secondsAhead * 90_000).rounded())
        let segment = UInt64(bitPattern: Int64(Self.samplePTS) - offset) & Ticks.max33
        #expect(section.spliceLead(segmentPTS: segment) == expected)
    }

    @Test("pts_adjustment is added, and the lead is counted across the 33-bit wrap")
    func adjustmentAndWrap() throws {
        var section = SpliceInfoSection.spliceInsertOut(eventID: 1, ptsTime: 100, duration: 90_000)
        section.ptsAdjustment = 8 * 90_000
        let decoded = try SpliceInfoSection.decode(section.encode())
        #expect(decoded.spliceTime == 100 + 720_000)
        // The segment 100 ticks before the wrap: the splice is 8 s and 200 ticks later.
        #expect(decoded.spliceLead(segmentPTS: Ticks.max33 - 99) == 720_200)
    }

    @Test("no splice time: an immediate splice, a cancel, a time_signal without a time; a time_signal with one")
    func withoutTime() throws {
        #expect(SpliceInfoSection.spliceInsertOut(eventID: 1, ptsTime: nil, duration: nil).spliceTime == nil)
        #expect(SpliceInfoSection.spliceInsertCancel(eventID: 1).spliceTime == nil)
        #expect(
            SpliceInfoSection.timeSignal(
                ptsTime: nil, segmentationEventID: 1, type: .breakStart, duration: nil
            ).spliceTime == nil)
        let signal = SpliceInfoSection.timeSignal(
            ptsTime: 900_000, segmentationEventID: 1, type: .breakStart, duration: 90_000)
        #expect(signal.spliceLead(segmentPTS: 900_000 - 8 * 90_000) == 720_000)
    }
}
