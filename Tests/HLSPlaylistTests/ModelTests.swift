import Foundation
import HLSPlaylist
import Testing

@Suite("Model: every tag of draft-pantos-hls-rfc8216bis-22")
struct ModelTests {
    func media(_ name: String, options: ParseOptions = ParseOptions()) throws -> MediaPlaylist {
        try #require(PlaylistParser.parse(Fixtures.playlist(name), options: options).playlist.media)
    }

    @Test("basic VOD media playlist")
    func vod() throws {
        let playlist = try media("vod-basic.m3u8")
        #expect(playlist.version == 3)
        #expect(playlist.targetDuration == 10)
        #expect(playlist.playlistType == "VOD")
        #expect(playlist.hasEndList)
        #expect(
            playlist.segments.map(\.uri) == [
                "http://media.example.com/first.ts", "http://media.example.com/second.ts",
                "http://media.example.com/third.ts",
            ])
        #expect(playlist.duration == MediaTime(decimal: "21.021"))
        #expect(playlist.segments[2].startTime == MediaTime(decimal: "18.018"))
        #expect(playlist.segments.map(\.mediaSequence) == [0, 1, 2])
    }

    @Test("segment dates and times (profile R1): PDT, extrapolation, discontinuities re-anchor")
    func datesR1() throws {
        let playlist = try media("daterange-update-live.m3u8")
        #expect(playlist.mediaSequence == 1200)
        #expect(playlist.segments.map(\.mediaSequence) == [1200, 1201, 1202, 1203])
        #expect(playlist.segments.map(\.discontinuitySequence) == [3, 3, 4, 4])
        let dates = playlist.segments.map { $0.date?.iso8601 }
        #expect(
            dates == [
                "2026-11-21T12:00:00.000Z", "2026-11-21T12:00:04.000Z", "2026-11-21T12:00:30.000Z",
                "2026-11-21T12:00:34.000Z",
            ])
        // A date inside the re-anchored segment maps through it, not by counting from the start.
        #expect(playlist.time(at: DateTime(iso8601: "2026-11-21T12:00:31.500Z")!) == MediaTime(decimal: "9.5"))
        // A date before the first segment maps to a negative time.
        #expect(playlist.time(at: DateTime(iso8601: "2026-11-21T11:59:58.000Z")!) == MediaTime(seconds: -2))
        #expect(playlist.date(at: MediaTime(decimal: "9.5")!) == DateTime(iso8601: "2026-11-21T12:00:31.500Z"))
        #expect(playlist.isLive)
    }

    @Test("segments before the first PROGRAM-DATE-TIME get dates counted back (R1)")
    func backwardDates() throws {
        let text =
            "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\na.ts\n#EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:06.000Z\n#EXTINF:6,\nb.ts\n"
        let playlist = try #require(PlaylistParser.parse(text).playlist.media)
        #expect(playlist.segments[0].date == DateTime(iso8601: "2024-01-01T00:00:00.000Z"))
        #expect(playlist.segments[0].programDateTime == nil)
    }

    @Test("exact media time (profile R2): 100,000 × 6.006 s is exactly 600,600 s")
    func exactR2() throws {
        let result = PlaylistParser.parse(SyntheticPlaylist.vod(segments: 100_000, interstitialEvery: 0))
        let playlist = try #require(result.playlist.media)
        #expect(playlist.duration == MediaTime(seconds: 600_600))
        #expect(playlist.segments.last?.startTime == MediaTime(decimal: "600593.994"))
        #expect(!result.hasErrors)
    }

    @Test("date ranges: every attribute, client attributes typed and in order, consolidated by ID")
    func dateRanges() throws {
        let playlist = try media("interstitials-vod.m3u8")
        #expect(playlist.dateRanges.map(\.id) == ["pre", "ad1", "post"])
        let ad = playlist.dateRanges[1]
        #expect(ad.className == "com.apple.hls.interstitial")
        #expect(ad.startDate == DateTime(iso8601: "2020-01-02T21:55:44.000Z"))
        #expect(ad.startTime == MediaTime(seconds: 4))
        #expect(ad.duration == MediaTime(seconds: 15))
        #expect(
            ad.clientAttributes.map(\.name) == [
                "X-ASSET-URI", "X-RESUME-OFFSET", "X-RESTRICT", "X-COM-EXAMPLE-BEACON", "X-COM-EXAMPLE-KEY",
                "X-COM-EXAMPLE-NAME",
            ])
        #expect(ad.clientAttributes["X-COM-EXAMPLE-BEACON"]?.kind == .signedDecimalFloatingPoint)
        #expect(ad.clientAttributes["X-COM-EXAMPLE-KEY"]?.kind == .hexadecimalSequence)
        #expect(ad.clientAttributes["X-COM-EXAMPLE-KEY"]?.hexadecimalSequence == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(ad.clientAttributes["X-COM-EXAMPLE-NAME"]?.kind == .quotedString)
        #expect(ad.clientAttributes["X-RESTRICT"]?.enumeratedStringList == ["SKIP", "JUMP"])
        #expect(playlist.dateRanges[0].cue == ["PRE", "ONCE"])
        #expect(playlist.dateRanges[2].plannedDuration == MediaTime(seconds: 20))
        let live = try media("daterange-update-live.m3u8")
        let update = live.dateRanges[0]
        #expect(update.lines == [7, 12])
        #expect(
            update.attributes.map(\.name) == [
                "ID", "CLASS", "START-DATE", "PLANNED-DURATION", "X-ASSET-LIST", "X-SNAP", "X-PLAYOUT-LIMIT",
                "DURATION",
            ])
        #expect(update.duration == MediaTime(seconds: 12))
        #expect(live.dateRanges[1].endOnNext)
        #expect(live.dateRanges[1].scte35Out?.hasPrefix("0xFC30") == true)
    }

    @Test("a same-ID conflict keeps the first value")
    func conflictKeepsFirst() throws {
        let bytes = Fixtures.bytes(Fixtures.root.appendingPathComponent("invalid/daterange-conflict.m3u8"))
        let playlist = try #require(PlaylistParser.parse(bytes).playlist.media)
        #expect(playlist.dateRanges[0].duration == MediaTime(seconds: 5))
        #expect(playlist.dateRanges[0].clientAttributes["X-NEW"]?.quotedString == "added")
    }

    @Test("low-latency tags: PART, PART-INF, SERVER-CONTROL, SKIP, PRELOAD-HINT, RENDITION-REPORT, MAP")
    func lowLatency() throws {
        let playlist = try media("ll-hls-live.m3u8")
        #expect(playlist.partTarget == MediaTime(decimal: "1.004"))
        let control = try #require(playlist.serverControl)
        #expect(control.canBlockReload && control.canSkipDateRanges)
        #expect(control.canSkipUntil == MediaTime(seconds: 24))
        #expect(control.partHoldBack == MediaTime(decimal: "3.012"))
        #expect(control.holdBack == MediaTime(seconds: 12))
        #expect(playlist.skip == Skip(skippedSegments: 3, recentlyRemovedDateRanges: ["old-1", "old-2"]))
        // §4.4.5.2: after SKIPPED-SEGMENTS=3, numbering continues from MEDIA-SEQUENCE + 3 (issue 33).
        #expect(playlist.segments.map(\.mediaSequence) == [269, 270])
        #expect(playlist.segments[1].parts.count == 4)
        #expect(playlist.segments[1].parts[0].independent)
        #expect(playlist.trailingParts.count == 2)
        #expect(playlist.trailingParts[0].byteRange == ByteRange(length: 2000, offset: 0))
        #expect(playlist.trailingParts[1].gap)
        #expect(
            playlist.preloadHints == [
                PreloadHint(type: "PART", uri: "filePart271.2.mp4", byteRangeStart: 0, byteRangeLength: 5000, line: 20)
            ])
        #expect(playlist.renditionReports.map(\.lastMediaSequence) == [271, 271])
        #expect(playlist.segments[0].map?.byteRange == ByteRange(length: 720, offset: 0))
    }

    @Test("segment tags: KEY, MAP, BYTERANGE, GAP, BITRATE, DISCONTINUITY; START, I-FRAMES-ONLY, unknown tags")
    func segmentTags() throws {
        let playlist = try media("segments-keys-byterange.m3u8")
        #expect(playlist.iFramesOnly && playlist.independentSegments)
        #expect(playlist.start == StartPoint(timeOffset: MediaTime(decimal: "-12.5")!, precise: true))
        #expect(playlist.segments[0].keys.map(\.method) == ["AES-128", "SAMPLE-AES"])
        #expect(playlist.segments[0].keys[0].iv == "0x0123456789abcdef0123456789ABCDEF")
        #expect(playlist.segments[0].byteRange == ByteRange(length: 75232, offset: 1000))
        #expect(playlist.segments[1].byteRange == ByteRange(length: 82112))
        #expect(playlist.segments[1].gap)
        #expect(playlist.segments[0].bitrate == 1500)
        #expect(playlist.segments[2].keys.isEmpty)
        #expect(playlist.segments[0].map?.uri == "main.mp4")
        #expect(playlist.unknownTags == [UnknownTag(name: "EXT-X-VENDOR-THING", value: "foo=bar", line: 21)])
    }

    @Test("multivariant: STREAM-INF, I-FRAME-STREAM-INF, MEDIA, SESSION-DATA, SESSION-KEY, CONTENT-STEERING, DEFINE")
    func multivariant() throws {
        let result = PlaylistParser.parse(Fixtures.playlist("multivariant-full.m3u8"))
        let playlist = try #require(result.playlist.multivariant)
        #expect(playlist.version == 12)
        #expect(playlist.variants.count == 2)
        let first = playlist.variants[0]
        #expect(first.uri == "https://cdn.example.com/video/720p.m3u8")
        #expect(first.bandwidth == 1_280_000 && first.averageBandwidth == 1_000_000)
        #expect(first.codecs == ["avc1.640028", "mp4a.40.2"])
        #expect(first.resolution == Resolution(width: 1280, height: 720))
        #expect(first.frameRate == 29.97)
        #expect(first.score == 1.5)
        #expect(first.closedCaptions == "cc")
        #expect(playlist.variants[1].closedCaptions == "NONE")
        #expect(playlist.variants[1].supplementalCodecs == "dvh1.08.07/db4h")
        #expect(playlist.iFrameVariants.map(\.uri) == ["video/720p-iframes.m3u8"])
        #expect(playlist.renditions.map(\.type) == ["AUDIO", "AUDIO", "SUBTITLES", "CLOSED-CAPTIONS", "VIDEO"])
        #expect(playlist.renditions[0].uri == "https://cdn.example.com/audio/en.m3u8")
        #expect(playlist.renditions[1].channels == ["6", "-", "JOC"])
        #expect(playlist.renditions[1].name == "Français")
        #expect(playlist.renditions[4].attributes["X-UNKNOWN-ATTR"]?.quotedString == "kept")
        #expect(playlist.sessionData.map(\.dataID) == ["com.example.title", "com.example.lyrics"])
        #expect(playlist.sessionKeys.first?.method == "SAMPLE-AES")
        #expect(playlist.contentSteering == ContentSteering(serverURI: "/steering?video=00012", pathwayID: "CDN-A"))
        #expect(playlist.start?.timeOffset == MediaTime(seconds: 10))
        #expect(!result.hasErrors)
    }

    @Test("variable substitution with VALUE, QUERYPARAM and IMPORT")
    func variables() throws {
        let options = ParseOptions(
            playlistURL: "https://example.com/media.m3u8?token=abc&x=1",
            importedVariables: ["cdn": "https://cdn2.example.com"])
        let result = PlaylistParser.parse(Fixtures.playlist("define-variables.m3u8"), options: options)
        #expect(!result.hasErrors, "\(result.diagnostics)")
        let playlist = try #require(result.playlist.media)
        #expect(
            playlist.segments.map(\.uri) == [
                "https://media.example.com/v1/seg0.m4s?t=abc", "https://cdn2.example.com/seg1.m4s",
            ])
        #expect(playlist.segments[0].map?.uri == "https://media.example.com/v1/init.mp4?t=abc")
        #expect(playlist.definitions.map(\.source) == [.value, .queryParameter, .import])
        #expect(result.document.write() == Fixtures.playlist("define-variables.m3u8"))
    }

    @Test("the model encodes to JSON and back")
    func codable() throws {
        for name in ["interstitials-vod.m3u8", "multivariant-full.m3u8", "ll-hls-live.m3u8"] {
            let playlist = PlaylistParser.parse(Fixtures.playlist(name)).playlist
            let data = try JSONEncoder().encode(playlist)
            #expect(try JSONDecoder().decode(Playlist.self, from: data) == playlist)
        }
    }
}
