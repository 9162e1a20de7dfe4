import HLSInterstitials
import HLSPlaylist
import SCTE35
import Testing

/// A splice time ahead of the segment carrying its section starts the break then (the splice-time
/// lead), when the channel's PTS clock is known.
@Suite("Splice-time lead in playlists")
struct SpliceClockTests {
    /// ANSI/SCTE 35's sample splice_insert (§14.1): pts_time 0x07369C02E, break_duration 0x0052CCF5
    /// (60.293566 s).
    static let sample = "/DAvAAAAAAAA///wFAVIAACPf+/+c2nALv4AUsz1AAAAAAAKAAhDVUVJAAABNWLbowo="
    static let samplePTS: UInt64 = 0x0_7369_C02E
    static let epoch = DateTime(iso8601: "2026-06-01T12:00:00.000Z")!

    /// 2 s segments from the epoch; `lines[i]` before segment i.
    static func playlist(_ lines: [Int: [String]], count: Int = 12) -> MediaPlaylist {
        var text = "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:\(epoch.iso8601)\n"
        for index in 0..<count {
            text += (lines[index] ?? []).map { $0 + "\n" }.joined()
            text += "#EXTINF:2,\ns\(index).ts\n"
        }
        guard case .media(let playlist) = PlaylistParser.parse(text).playlist else { fatalError("not media") }
        return playlist
    }

    /// The clock where segment 1 (epoch + 2 s) is 8 s before the sample's splice time.
    static let clock = SpliceClock(date: epoch + MediaTime(seconds: 2), pts: samplePTS - 8 * 90_000)

    @Test("the PTS at a date, across the 33-bit wrap")
    func ptsAtDate() {
        let clock = SpliceClock(date: Self.epoch, pts: Ticks.max33 - 89_999)
        #expect(clock.pts(at: Self.epoch) == Ticks.max33 - 89_999)
        #expect(clock.pts(at: Self.epoch + MediaTime(seconds: 1)) == 0)
        #expect(clock.pts(at: Self.epoch + MediaTime(seconds: 9)) == 720_000)
        #expect(clock.pts(at: Self.epoch - MediaTime(seconds: 1)) == Ticks.max33 - 179_999)
    }

    @Test(
        "an EXT-OATCLS-SCTE35 whose splice_insert lies 8 s ahead starts the break 8 s after its segment; the CUE-OUT at the splice point is the same break",
        arguments: [false, true])
    func oatclsAhead(withCueOut: Bool) throws {
        var lines = [1: ["#EXT-OATCLS-SCTE35:\(Self.sample)"]]
        // Segment 5 starts at epoch + 10 s: the splice time.
        if withCueOut { lines[5] = ["#EXT-X-CUE-OUT:60.293"] }
        let recognition = SignalRecognizer.recognize(Self.playlist(lines), clock: Self.clock)
        #expect(recognition.diagnostics.isEmpty, "\(recognition.diagnostics.map(\.description))")
        #expect(recognition.breaks.count == 1)
        let item = try #require(recognition.breaks.first)
        let section = try SpliceInfoSection.decode(text: Self.sample)
        #expect(item.id == "scte35-\(0x4800_008F)-\(section.crcText!)")
        #expect(item.spliceLead == MediaTime(seconds: 8))
        #expect(item.startDate == Self.epoch + MediaTime(seconds: 10))
        #expect(item.startTime == MediaTime(seconds: 10))
        #expect(item.plannedDuration.map { abs(($0 - MediaTime(seconds: 60.293566)).seconds) < 0.001 } == true)
    }

    @Test("without the clock, or with a splice time not ahead, the break starts at its segment")
    func noLead() throws {
        let lines = [1: ["#EXT-OATCLS-SCTE35:\(Self.sample)"]]
        let without = SignalRecognizer.recognize(Self.playlist(lines))
        #expect(without.breaks.first?.startDate == Self.epoch + MediaTime(seconds: 2))
        #expect(without.breaks.first?.spliceLead == nil)
        let behind = SpliceClock(date: Self.epoch + MediaTime(seconds: 2), pts: Self.samplePTS + 90_000)
        let late = SignalRecognizer.recognize(Self.playlist(lines), clock: behind)
        #expect(late.breaks.first?.startDate == Self.epoch + MediaTime(seconds: 2))
        #expect(late.breaks.first?.spliceLead == nil)
    }

    @Test("a date range's START-DATE is its start whatever its section's time")
    func dateRangeKeepsItsDate() throws {
        let section = try SpliceInfoSection.decode(text: Self.sample)
        let line =
            "#EXT-X-DATERANGE:ID=\"d\",START-DATE=\"\((Self.epoch + MediaTime(seconds: 2)).iso8601)\",SCTE35-OUT=\(try section.encodedHex())"
        let recognition = SignalRecognizer.recognize(Self.playlist([1: [line]]), clock: Self.clock)
        #expect(recognition.breaks.first?.startDate == Self.epoch + MediaTime(seconds: 2))
        #expect(recognition.breaks.first?.spliceLead == nil)
    }
}
