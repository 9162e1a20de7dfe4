import AdDecisioning
import HLSPlaylist
import Testing

/// The cap on the breaks one VMAP places (issue 37, item 11: one VMAP placed 25,856 interstitials).
@Suite("VMAP break limits")
struct VMAPLimitTests {
    /// A VMAP of `count` (at most 600) linear breaks at 0 s, 1 s, 2 s…, each repeating every `repeatAfter` when given.
    static func vmap(breaks count: Int, repeatAfter: String? = nil) -> String {
        let repeats = repeatAfter.map { " repeatAfter=\"\($0)\"" } ?? ""
        var text = "<vmap:VMAP xmlns:vmap=\"http://www.iab.net/videosuite/vmap\" version=\"1.0\">"
        for index in 0..<count {
            text += "<vmap:AdBreak timeOffset=\"00:0\(index / 60):\(String(format2: index % 60))\" breakType=\"linear\""
            text += " breakId=\"b\(index)\"\(repeats)><vmap:AdSource><vmap:AdTagURI>https://ads.example/v?b=\(index)"
            text += "</vmap:AdTagURI></vmap:AdSource></vmap:AdBreak>"
        }
        return text + "</vmap:VMAP>"
    }

    @Test("the reader keeps 100 breaks and says in one note how many more it skipped")
    func readerCap() throws {
        #expect(try VMAPReader().read(Self.vmap(breaks: 100)).breaks.count == 100)
        let document = try VMAPReader().read(Self.vmap(breaks: 150))
        #expect(document.breaks.count == 100 && document.breaks.last?.breakId == "b99")
        let notes = document.notes.filter { $0.code == .limit }
        #expect(notes.count == 1)
        #expect(notes.first?.message.contains("the 49 after it") == true)
        #expect(try VMAPReader(maximumBreaks: 150).read(Self.vmap(breaks: 150)).breaks.count == 150)
    }

    @Test("repeated breaks are capped as placed: 100 breaks repeating every second place 100, not 10,100")
    func placementCap() throws {
        let document = try VMAPReader().read(Self.vmap(breaks: 100, repeatAfter: "00:00:01"))
        let duration = MediaTime(seconds: 100_000)
        let placement = document.placement(duration: duration)
        #expect(placement.breaks.count == VMAPPlacement.defaultMaximumBreaks)
        #expect(placement.dropped == 100 * 101 - 100)
        // The earliest are kept, in time order.
        let times = placement.breaks.map { $0.time(duration: duration) }
        #expect(times == times.sorted() && times.last! < MediaTime(seconds: 100))
        #expect(document.placedBreaks(duration: duration) == placement.breaks)
        #expect(document.placement(duration: duration, maximumBreaks: 20_000).dropped == 0)
        // At the limit nothing is dropped.
        let exact = try VMAPReader().read(Self.vmap(breaks: 100)).placement(duration: duration)
        #expect(exact.breaks.count == 100 && exact.dropped == 0)
    }
}

extension String {
    /// A number of two digits at least.
    fileprivate init(format2 value: Int) {
        self = value < 10 ? "0\(value)" : "\(value)"
    }
}
