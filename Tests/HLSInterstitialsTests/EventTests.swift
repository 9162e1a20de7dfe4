import HLSInterstitials
import HLSPlaylist
import Testing

@Suite("InterstitialEvent")
struct EventTests {
    static let full =
        "ID=\"ad\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:10.000Z\",CUE=\"PRE,ONCE,LATER\",DURATION=15.000,PLANNED-DURATION=15.5,X-ASSET-LIST=\"list.json?_HLS_interstitial_id=ad\",X-RESUME-OFFSET=-2.50,X-PLAYOUT-LIMIT=12,X-SNAP=\"OUT,IN\",X-RESTRICT=\"SKIP,JUMP,FUTURE\",X-CONTENT-MAY-VARY=\"NO\",X-TIMELINE-OCCUPIES=\"RANGE\",X-TIMELINE-STYLE=\"PRIMARY\",X-SKIP-CONTROL-OFFSET=5,X-SKIP-CONTROL-DURATION=10,X-SKIP-CONTROL-LABEL-ID=\"skip-ad\",X-COM-EXAMPLE-BEACON=123,X-COM-EXAMPLE-HEX=0x1F,X-COM-EXAMPLE-NAME=\"n\",SCTE35-OUT=0xFC00"

    static func event(_ text: String = full) -> InterstitialEvent {
        let playlist = Sample.mediaPlaylist(Sample.media([text]))
        return InterstitialEvent(dateRange: playlist.dateRanges[0])!
    }

    @Test("reads every attribute of the schema into its typed property")
    func readsEveryAttribute() {
        let event = Self.event()
        #expect(event.identifier == "ad")
        #expect(event.date == DateTime(iso8601: "2026-01-01T00:00:10.000Z"))
        #expect(event.time == nil)
        #expect(event.cue == .join)
        #expect(event.willPlayOnce)
        #expect(event.cueTokens == ["PRE", "ONCE", "LATER"])
        #expect(event.duration == MediaTime(seconds: 15))
        #expect(event.plannedDuration == MediaTime(decimal: "15.5"))
        #expect(event.assetListURI == "list.json?_HLS_interstitial_id=ad")
        #expect(event.assetURI == nil)
        #expect(event.resumptionOffset == .time(MediaTime(decimal: "-2.5")!))
        #expect(event.playoutLimit == MediaTime(seconds: 12))
        #expect(event.alignsStartWithPrimarySegmentBoundary)
        #expect(event.alignsResumptionWithPrimarySegmentBoundary)
        #expect(event.restrictions == [.skip, .jump])
        #expect(event.restrictions.rawValue == 0b101)
        #expect(!event.contentMayVary)
        #expect(event.timelineOccupancy == .fill)
        #expect(event.supplementsPrimaryContent)
        #expect(
            event.skipControl
                == SkipControl(offset: MediaTime(seconds: 5), duration: MediaTime(seconds: 10), labelID: "skip-ad"))
        #expect(
            event.userDefinedAttributes.map(\.name) == [
                "X-COM-EXAMPLE-BEACON", "X-COM-EXAMPLE-HEX", "X-COM-EXAMPLE-NAME",
            ])
        #expect(event.userDefinedAttributes["X-COM-EXAMPLE-BEACON"]?.signedDecimal == MediaTime(seconds: 123))
        #expect(event.userDefinedAttributes["X-COM-EXAMPLE-HEX"]?.hexadecimalSequence == [0x1F])
        #expect(event.otherAttributes.map(\.name) == ["SCTE35-OUT"])
    }

    @Test("writes an untouched event back byte for byte")
    func untouchedRoundTrip() throws {
        #expect(try Self.event().dateRangeAttributes.description == Self.full)
        #expect(try Self.event().dateRangeTag.description == "#EXT-X-DATERANGE:" + Self.full)
    }

    @Test("rewrites only the edited attributes, keeping unknown values and the order")
    func editedRoundTrip() throws {
        var event = Self.event()
        event.restrictions = [.jump]
        event.duration = MediaTime(seconds: 20)
        event.willPlayOnce = false
        event.userDefinedAttributes["X-NEW"] = try .quoted("added")
        let written = try event.dateRangeAttributes.description
        #expect(written.contains("X-RESTRICT=\"JUMP,FUTURE\""))
        #expect(written.contains("DURATION=20,"))
        #expect(written.contains("CUE=\"PRE,LATER\""))
        #expect(written.contains("X-RESUME-OFFSET=-2.50,"))
        #expect(written.contains("PLANNED-DURATION=15.5,"))
        #expect(written.hasSuffix(",SCTE35-OUT=0xFC00,X-NEW=\"added\""))
        // Reading it again gives the edited event.
        let again = InterstitialEvent(attributes: try event.dateRangeAttributes)!
        #expect(again == event)
    }

    @Test("keeps invalid values and duplicates instead of dropping them")
    func keepsInvalidValues() throws {
        let text =
            Sample.interstitial + ",X-RESUME-OFFSET=\"soon\",X-SKIP-CONTROL-OFFSET=2.5,X-TIMELINE-OCCUPIES=\"LINE\""
        let event = Self.event(text)
        #expect(event.resumptionOffset == nil)
        #expect(event.skipControl.offset == nil)
        #expect(event.otherAttributes.map(\.name) == ["X-RESUME-OFFSET", "X-SKIP-CONTROL-OFFSET"])
        #expect(event.timelineOccupiesValue == "LINE")
        #expect(event.timelineOccupancy == .singlePoint)
        #expect(try event.dateRangeAttributes.description == text)
    }

    @Test("defaults follow the schema and profile R24: POINT, HIGHLIGHT, content may vary")
    func defaults() {
        let event = Self.event(Sample.interstitial)
        #expect(event.timelineOccupancy == .singlePoint)  // profile R24
        #expect(!event.supplementsPrimaryContent)
        #expect(event.contentMayVary)
        #expect(event.restrictions.isEmpty)
        #expect(event.cue == InterstitialEvent.Cue.none)
        #expect(!event.willPlayOnce)
        #expect(event.resumptionOffset == nil)  // absent: the interstitial's duration (profile R3)
        #expect(event.playoutLimit == nil)
        #expect(event.skipControl.window == nil)
    }

    @Test("client events resume where they were scheduled (profile R4)")
    func clientEventDefaults() throws {
        let byTime = InterstitialEvent(identifier: "c", time: MediaTime(seconds: 30))
        #expect(byTime.resumptionOffset == .time(.zero))
        #expect(byTime.time == MediaTime(seconds: 30))
        #expect(byTime.date == nil)
        let date = DateTime(iso8601: "2026-01-01T00:00:30.000Z")!
        let byDate = InterstitialEvent(identifier: "d", date: date)
        #expect(byDate.resumptionOffset == .time(.zero))
        #expect(try byDate.dateRangeAttributes["START-DATE"]?.quotedString == "2026-01-01T00:00:30.000Z")
        var indefinite = byDate
        indefinite.resumptionOffset = .indefinite
        #expect(try indefinite.dateRangeAttributes["X-RESUME-OFFSET"] == nil)
    }

    @Test("is not made from other classes or from tags without a quoted ID")
    func otherClasses() throws {
        let playlist = Sample.mediaPlaylist(
            Sample.media(["ID=\"x\",CLASS=\"com.example.other\",START-DATE=\"2026-01-01T00:00:10.000Z\""]))
        #expect(InterstitialEvent(dateRange: playlist.dateRanges[0]) == nil)
        #expect(
            InterstitialEvent(
                attributes: AttributeList([Attribute(name: "CLASS", value: try .quoted(InterstitialEvent.className))]))
                == nil)
    }

    @Test("merges same-ID tags before reading them (later tags add attributes)")
    func consolidated() {
        let playlist = Sample.mediaPlaylist(
            Sample.media([Sample.interstitial, "ID=\"ad\",CLASS=\"com.apple.hls.interstitial\",X-PLAYOUT-LIMIT=5"]))
        let event = InterstitialEvent(dateRange: playlist.dateRanges[0])!
        #expect(event.playoutLimit == MediaTime(seconds: 5))
        #expect(event.assetURI != nil)
    }

    @Test("skip control windows and the asset list's override (App. D.7)")
    func skipControl() {
        let tag = SkipControl(offset: MediaTime(seconds: 2), duration: MediaTime(seconds: 5))
        let list = SkipControl(offset: MediaTime(seconds: 5), duration: MediaTime(seconds: 20))
        let effective = tag.overridden(by: list)
        #expect(effective.window?.start == MediaTime(seconds: 5))
        #expect(effective.window?.end == MediaTime(seconds: 25))
        #expect(SkipControl(offset: .zero).window?.end == nil)
        #expect(tag.overridden(by: nil) == tag)
    }

    @Test("restriction tokens and setters keep unknown identifiers")
    func restrictionTokens() {
        var event = InterstitialEvent(identifier: "r")
        #expect(event.restrictTokens == nil)
        event.restrictions = [.skip, .jump]
        #expect(event.restrictTokens == ["SKIP", "JUMP"])
        event.restrictTokens = ["JUMP", "LATER"]
        event.restrictions = []
        #expect(event.restrictTokens == ["LATER"])
        #expect(InterstitialEvent.Restrictions(token: "SKIP") == .requiresPlaybackAtPreferredRateForAdvancement)
        #expect(InterstitialEvent.Restrictions(token: "JUMP") == .constrainsSeekingForwardInPrimaryContent)
        #expect(InterstitialEvent.Restrictions(token: "OTHER") == nil)
        event.cue = .leave
        event.alignsStartWithPrimarySegmentBoundary = true
        #expect(event.cueTokens == ["POST"])
        #expect(event.snapTokens == ["OUT"])
    }
}
