import AdDecisioning
import HLSPlaylist
import Testing

struct VASTReaderTests {
    struct Expectation: Sendable, CustomStringConvertible {
        var file: String
        var version: String
        var adIDs: [String]
        var duration: MediaTime?
        var mediaFiles: Int
        var trackingEvents: Int
        var description: String { file }
    }

    static let inlineDocuments: [Expectation] = [
        Expectation(
            file: "inline-2.0.xml", version: "2.0", adIDs: ["v2-ad"], duration: MediaTime(seconds: 15), mediaFiles: 3,
            trackingEvents: 7),
        Expectation(
            file: "inline-3.0.xml", version: "3.0", adIDs: ["v3-ad"], duration: MediaTime(decimal: "20.5"),
            mediaFiles: 1, trackingEvents: 5),
        Expectation(
            file: "inline-4.0.xml", version: "4.0", adIDs: ["v4-ad"], duration: MediaTime(seconds: 30), mediaFiles: 1,
            trackingEvents: 0),
        Expectation(
            file: "inline-4.1.xml", version: "4.1", adIDs: ["v41-ad"], duration: MediaTime(seconds: 10), mediaFiles: 2,
            trackingEvents: 6),
        Expectation(
            file: "inline-4.2.xml", version: "4.2", adIDs: ["v42-ad"], duration: MediaTime(decimal: "6.006"),
            mediaFiles: 1, trackingEvents: 0),
        Expectation(
            file: "wrapped-inline-4.0.xml", version: "4.0", adIDs: ["final"], duration: MediaTime(seconds: 15),
            mediaFiles: 1, trackingEvents: 1),
    ]

    @Test(arguments: inlineDocuments)
    func readsInlineDocuments(_ expected: Expectation) throws {
        let document = try Fixtures.vast(expected.file)
        #expect(document.version == expected.version)
        #expect(document.ads.map { $0.id ?? "" } == expected.adIDs)
        let ad = try #require(document.ads.first)
        #expect(ad.isInLine)
        let linear = try #require(ad.linearCreatives.first?.linear)
        #expect(linear.duration == expected.duration)
        #expect(linear.mediaFiles.count == expected.mediaFiles)
        #expect(linear.tracking.count == expected.trackingEvents)
        #expect(!ad.impressions.isEmpty)
        #expect(
            ad.impressions.allSatisfy {
                $0.url.hasPrefix("https://") && !$0.url.contains(" ") && !$0.url.contains("\n")
            })
    }

    @Test func vast2AttributesCDATAAndWhitespace() throws {
        let ad = try #require(try Fixtures.vast("inline-2.0.xml").ads.first)
        #expect(ad.adTitle == "VAST 2 spot")
        #expect(ad.adSystem == VASTAdSystem(name: "Example Ads", version: "2.0"))
        #expect(
            ad.impressions == [
                VASTImpression(url: "https://ads.example.com/imp?ad=v2"),
                VASTImpression(url: "https://third.example.com/imp?ad=v2", id: "third"),
            ])
        let creative = try #require(ad.creatives.first)
        #expect(creative.adId == "v2-creative")
        #expect(creative.sequence == 1)
        let file = try #require(creative.linear?.mediaFiles.first)
        #expect(file.url == "https://cdn.example.com/v2/spot-360.mp4")
        #expect(file.width == 640 && file.height == 360 && file.bitrate == 800)
        #expect(file.scalable == true && file.maintainAspectRatio == true)
        #expect(creative.linear?.mediaFiles.last?.apiFramework == "VPAID")
        #expect(
            creative.linear?.videoClicks
                == VASTVideoClicks(
                    clickThrough: "https://advertiser.example.com/", clickTracking: ["https://ads.example.com/click"]))
    }

    @Test func vast3OffsetsIconsCompanionsAndNotes() throws {
        let document = try Fixtures.vast("inline-3.0.xml")
        #expect(document.errorURLs == ["https://ads.example.com/vast-error?code=[ERRORCODE]"])
        let ad = try #require(document.ads.first)
        #expect(ad.errorURLs == ["https://ads.example.com/error?code=[ERRORCODE]&cb=[CACHEBUSTING]"])
        #expect(ad.pricing == VASTPricing(value: "12.50", model: "CPM", currency: "USD"))
        let linear = try #require(ad.creatives[0].linear)
        #expect(linear.skipOffset == .time(MediaTime(seconds: 5)))
        #expect(linear.adParameters == "{\"k\":\"v\"}")
        let progress = linear.tracking.filter { $0.event == "progress" }
        #expect(progress.map(\.offset) == [.time(MediaTime(seconds: 10)), .percent(10)])
        #expect(linear.mediaFiles[0].minBitrate == 500 && linear.mediaFiles[0].maxBitrate == 6000)
        #expect(linear.icons.first?.program == "AdChoices")
        #expect(linear.icons.first?.offset == MediaTime(seconds: 1))
        #expect(linear.icons.first?.viewTracking == ["https://ads.example.com/icon-view"])
        let companion = try #require(ad.creatives[1].companionAds?.companions.first)
        #expect(companion.width == 300 && companion.resources.first?.kind == .staticResource)
        #expect(companion.tracking.map(\.event) == ["creativeView"])
        let overlay = try #require(ad.creatives[2].nonLinearAds)
        #expect(overlay.nonLinears.first?.resources.first?.value == "<div>overlay</div>")
        #expect(ad.linearCreatives.count == 1)
        #expect(document.notes.contains { $0.code == .unknownElement && $0.message.contains("Unexpected") })
        #expect(document.notes.contains { $0.message.contains("progress event needs an offset") })
    }

    @Test func vast4IdentifiersMezzanineVerificationsExtensions() throws {
        let v40 = try #require(try Fixtures.vast("inline-4.0.xml").ads.first)
        #expect(v40.conditionalAd == false)
        #expect(
            v40.categories == [VASTCategory(value: "IAB1-6", authority: "https://www.iabtechlab.com/categoryauthority")]
        )
        #expect(v40.creatives[0].universalAdIds == [VASTUniversalAdId(value: "CNPA0484000H", idRegistry: "ad-id.org")])
        let linear40 = try #require(v40.creatives[0].linear)
        #expect(linear40.mezzanines.first?.fileSize == 250_000_000)
        #expect(linear40.interactiveCreativeFiles.first?.variableDuration == true)
        #expect(linear40.mediaFiles.first?.codec == "avc1.640028")

        let v41 = try #require(try Fixtures.vast("inline-4.1.xml").ads.first)
        #expect(v41.adServingId == "serving-41" && v41.expires == 3600 && v41.adType == "video")
        #expect(v41.advertiser == "Example Advertiser" && v41.survey == "https://survey.example.com")
        let verification = try #require(v41.verifications.first)
        #expect(verification.vendor == "verifier.example.com-omid")
        #expect(
            verification.javaScriptResources == [
                VASTResourceURL(url: "https://verifier.example.com/omid.js", apiFramework: "omid", type: "true")
            ])
        #expect(verification.parameters == "{\"campaign\":\"41\"}")
        #expect(verification.tracking.map(\.event) == ["verificationNotExecuted"])
        #expect(
            v41.creatives[0].linear?.closedCaptionFiles == [
                VASTClosedCaptionFile(url: "https://cdn.example.com/v41/captions.vtt", type: "text/vtt", language: "en")
            ])

        let v42 = try #require(try Fixtures.vast("inline-4.2.xml").ads.first)
        #expect(v42.creatives[0].universalAdIds.map(\.idRegistry) == ["ad-id.org", "clearcast.co.uk"])
        #expect(v42.extensions.map(\.type) == ["waterfall", "creative_signaling"])
        #expect(v42.extensions[0].xml.contains("<Tag name=\"x\">a &amp; b</Tag>"))
        #expect(v42.extensions[1].xml.contains("999|abc"))
    }

    @Test func podOrderAndStandaloneAds() throws {
        let document = try Fixtures.vast("pod-4.3.xml")
        #expect(document.podAds.map(\.id) == ["pod-1", "pod-2", "pod-3"])
        #expect(document.standaloneAds.map(\.id) == ["standalone-1"])
    }

    @Test func wrapperAttributes() throws {
        let ad = try #require(try Fixtures.vast("wrapper-a-4.2.xml").ads.first)
        #expect(
            ad.wrapper
                == VASTWrapper(
                    adTagURI: "https://b.example.com/vast?src=a", followAdditionalWrappers: true,
                    allowMultipleAds: false,
                    fallbackOnNoAd: false))
        #expect(ad.adTitle == nil)
        #expect(ad.creatives[0].linear?.tracking.count == 2)
        let b = try #require(try Fixtures.vast("wrapper-b-4.1.xml").ads.first)
        #expect(b.wrapper?.followAdditionalWrappers == true && b.wrapper?.allowMultipleAds == false)
    }

    @Test func emptyDocumentsHaveNoAds() throws {
        #expect(try Fixtures.vast("empty-4.2.xml").ads.isEmpty)
        let noAd = try Fixtures.vast("no-ad-error-4.2.xml")
        #expect(noAd.ads.isEmpty && noAd.errorURLs == ["https://ads.example.com/noad?code=[ERRORCODE]"])
    }

    struct Failure: Sendable, CustomStringConvertible {
        var file: String
        var code: VASTError.Code
        var vastCode: VASTErrorCode
        var line: Int
        var description: String { file }
    }

    static let failures: [Failure] = [
        Failure(file: "bad-xml.xml", code: .xml, vastCode: .xmlParsing, line: 6),
        Failure(file: "version-5.xml", code: .version, vastCode: .versionNotSupported, line: 1),
        Failure(file: "not-vast.xml", code: .schema, vastCode: .schemaValidation, line: 2),
    ]

    @Test(arguments: failures)
    func unreadableDocumentsThrowLocatedErrors(_ expected: Failure) throws {
        let bytes = try Fixtures.bytes(expected.file)
        do {
            _ = try VASTReader().read(bytes)
            Issue.record("\(expected.file) was read")
        } catch {
            #expect(error.code == expected.code)
            #expect(error.vastErrorCode == expected.vastCode)
            #expect(error.location.line >= expected.line)
            #expect(error.description.contains("[\(expected.code.rawValue)]"))
        }
    }

    @Test func limitsAreEnforced() throws {
        let big = "<VAST version=\"4.2\">" + String(repeating: "<Error>https://e</Error>", count: 100) + "</VAST>"
        let small = VASTReader(limits: .init(xml: XMLLimits(maximumBytes: 100)))
        #expect(throws: VASTError.self) { try small.read(big) }
        let deep =
            "<VAST version=\"4.2\">" + String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100)
            + "</VAST>"
        do {
            _ = try VASTReader().read(deep)
            Issue.record("a deep document was read")
        } catch {
            #expect(error.code == .limit)
        }
        let manyAds =
            "<VAST version=\"4.2\">" + String(repeating: "<Ad><InLine><AdTitle>x</AdTitle></InLine></Ad>", count: 5)
            + "</VAST>"
        let document = try VASTReader(limits: .init(maximumAds: 2)).read(manyAds)
        #expect(document.ads.count == 2)
        #expect(document.notes.contains { $0.code == .limit })
    }

    @Test func entitiesAreNeitherExpandedNorResolved() {
        let bomb = """
            <?xml version="1.0"?>
            <!DOCTYPE VAST [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
            <VAST version="4.2"><Error>&b;</Error></VAST>
            """
        // Refused (where XMLParser reports the declaration) or read with the entity left out.
        if let document = try? VASTReader().read(bomb) {
            #expect(document.errorURLs.allSatisfy { !$0.contains("aaaaaaaaaa") })
        }
        let external = """
            <?xml version="1.0"?>
            <!DOCTYPE VAST [<!ENTITY x SYSTEM "file:///etc/passwd">]>
            <VAST version="4.2"><Error>&x;</Error></VAST>
            """
        if let document = try? VASTReader().read(external) {
            #expect(document.errorURLs.allSatisfy { !$0.contains("root:") })
        }
    }

    @Test(
        arguments: [
            ("00:00:15", MediaTime(seconds: 15)), ("01:02:03.250", MediaTime(decimal: "3723.25")),
            ("00:00:06.006", MediaTime(decimal: "6.006")),
            ("0:00:05", MediaTime(seconds: 5)), ("00:60:00", nil), ("15", nil), ("-00:00:01", nil), ("00:00:1x", nil),
        ] as [(String, MediaTime?)])
    func clockValues(_ text: String, _ expected: MediaTime?) {
        #expect(VASTClock.parse(text) == expected)
    }
}
