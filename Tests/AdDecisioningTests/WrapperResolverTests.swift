import AdDecisioning
import Testing

struct WrapperResolverTests {
    /// Drives a resolver against a table of URL → response, answering fetches in order.
    static func run(
        root: String, responses: [String: WrapperResolver.Response],
        configuration: WrapperResolver.Configuration = .init()
    ) -> (final: WrapperResolver.Action?, reports: [VASTErrorReport], fetched: [String]) {
        var resolver = WrapperResolver(rootURL: root, configuration: configuration)
        var queue = resolver.start()
        var reports: [VASTErrorReport] = []
        var fetched: [String] = []
        var final: WrapperResolver.Action?
        var steps = 0
        while !queue.isEmpty, steps < 1000 {
            steps += 1
            let action = queue.removeFirst()
            switch action {
            case .fetch(let request):
                fetched.append(request.url)
                let response = responses[request.url] ?? .failed(.wrapperTimeout, "no response")
                queue += resolver.receive(response, for: request.id)
            case .reportError(let report): reports.append(report)
            case .done, .fail: final = action
            }
        }
        return (final, reports, fetched)
    }

    static func document(_ name: String) throws -> WrapperResolver.Response {
        .document(try Fixtures.vast(name))
    }

    @Test func followsAWrapperChainAndMergesTracking() throws {
        let result = Self.run(
            root: "https://ads.example.com/root",
            responses: [
                "https://ads.example.com/root": try Self.document("wrapper-a-4.2.xml"),
                "https://b.example.com/vast?src=a": try Self.document("wrapper-b-4.1.xml"),
                "https://c.example.com/vast/inline": try Self.document("wrapped-inline-4.0.xml"),
            ])
        #expect(
            result.fetched == [
                "https://ads.example.com/root", "https://b.example.com/vast?src=a", "https://c.example.com/vast/inline",
            ])
        guard case .done(let ads) = result.final else {
            Issue.record("not done: \(String(describing: result.final))")
            return
        }
        #expect(ads.count == 1)
        let ad = ads[0]
        #expect(ad.depth == 2)
        #expect(
            ad.ad.impressions.map(\.url) == [
                "https://c.example.com/imp", "https://b.example.com/imp", "https://a.example.com/imp",
            ])
        #expect(ad.ad.errorURLs.count == 3)
        #expect(ad.ad.verifications.map(\.vendor) == ["b-verifier"])
        let linear = try #require(ad.ad.linearCreatives.first?.linear)
        #expect(
            linear.tracking.map(\.url) == [
                "https://c.example.com/t?e=start", "https://b.example.com/t?e=q1", "https://a.example.com/t?e=start",
                "https://a.example.com/t?e=complete",
            ])
        #expect(linear.videoClicks.clickTracking == ["https://a.example.com/click"])
        #expect(ad.inline.impressions.count == 1)
        #expect(result.reports.isEmpty)
    }

    @Test func timeoutIsReportedAs301ToEveryWrapper() throws {
        let result = Self.run(
            root: "https://ads.example.com/root",
            responses: [
                "https://ads.example.com/root": try Self.document("wrapper-a-4.2.xml"),
                "https://b.example.com/vast?src=a": try Self.document("wrapper-b-4.1.xml"),
            ])
        #expect(result.reports.count == 1)
        #expect(result.reports.first?.code == .wrapperTimeout)
        #expect(
            result.reports.first?.urls == [
                "https://a.example.com/error?code=[ERRORCODE]", "https://b.example.com/error?code=[ERRORCODE]",
            ])
        #expect(result.reports.first?.depth == 2)
        guard case .fail(let failure) = result.final else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.code == .wrapperTimeout && failure.urls.isEmpty)
    }

    @Test func emptyResponseAfterWrapperIs303() throws {
        let result = Self.run(
            root: "https://ads.example.com/root",
            responses: [
                "https://ads.example.com/root": try Self.document("wrapper-a-4.2.xml"),
                "https://b.example.com/vast?src=a": try Self.document("no-ad-error-4.2.xml"),
            ])
        #expect(result.reports.map(\.code) == [.noAdsAfterWrapper])
        #expect(
            result.reports.first?.urls == [
                "https://a.example.com/error?code=[ERRORCODE]", "https://ads.example.com/noad?code=[ERRORCODE]",
            ])
    }

    @Test func emptyRootResponseFailsWithItsErrorURLs() throws {
        let result = Self.run(
            root: "https://ads.example.com/root",
            responses: ["https://ads.example.com/root": try Self.document("no-ad-error-4.2.xml")])
        guard case .fail(let failure) = result.final else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.code == .noAdsAfterWrapper)
        #expect(failure.urls == ["https://ads.example.com/noad?code=[ERRORCODE]"])
    }

    @Test func depthLimitIs302() throws {
        let result = Self.run(
            root: "https://ads.example.com/root",
            responses: [
                "https://ads.example.com/root": try Self.document("wrapper-a-4.2.xml"),
                "https://b.example.com/vast?src=a": try Self.document("wrapper-b-4.1.xml"),
            ],
            configuration: .init(maximumDepth: 1))
        #expect(result.fetched == ["https://ads.example.com/root", "https://b.example.com/vast?src=a"])
        #expect(result.reports.map(\.code) == [.wrapperLimit])
        #expect(result.reports.first?.reason == .wrapperLimit)
    }

    @Test func loopIsDetected() throws {
        let loop = VASTDocument(
            version: "4.2",
            ads: [
                VASTAd(id: "loop", wrapper: VASTWrapper(adTagURI: "https://ads.example.com/root"))
            ])
        var withError = loop
        withError.ads[0].errorURLs = ["https://ads.example.com/loop-error?c=[ERRORCODE]"]
        let result = Self.run(
            root: "https://ads.example.com/root", responses: ["https://ads.example.com/root": .document(withError)])
        #expect(result.fetched == ["https://ads.example.com/root"])
        #expect(result.reports.map(\.reason) == [.wrapperLoop])
        #expect(result.reports.first?.code == .wrapperLimit)
    }

    @Test func podIsOrderedBySequence() throws {
        let result = Self.run(
            root: "https://ads.example.com/pod",
            responses: ["https://ads.example.com/pod": try Self.document("pod-4.3.xml")])
        guard case .done(let ads) = result.final else {
            Issue.record("not done")
            return
        }
        #expect(ads.map(\.ad.id) == ["pod-1", "pod-2", "pod-3"])
    }

    @Test func standaloneAdIsTheFallbackWhenThePodFails() throws {
        var document = try Fixtures.vast("pod-4.3.xml")
        for index in document.ads.indices where document.ads[index].sequence != nil {
            document.ads[index].wrapper = VASTWrapper(adTagURI: "https://dead.example.com/\(index)")
        }
        let result = Self.run(
            root: "https://ads.example.com/pod", responses: ["https://ads.example.com/pod": .document(document)])
        guard case .done(let ads) = result.final else {
            Issue.record("not done: \(String(describing: result.final))")
            return
        }
        #expect(ads.map(\.ad.id) == ["standalone-1"])
        #expect(result.fetched.count == 4)
    }

    @Test func fallbackOnNoAdReplacesOneFailedPodAd() throws {
        var document = try Fixtures.vast("pod-4.3.xml")
        let index = try #require(document.ads.firstIndex { $0.id == "pod-2" })
        document.ads[index].wrapper = VASTWrapper(adTagURI: "https://dead.example.com/2", fallbackOnNoAd: true)
        let result = Self.run(
            root: "https://ads.example.com/pod", responses: ["https://ads.example.com/pod": .document(document)])
        guard case .done(let ads) = result.final else {
            Issue.record("not done")
            return
        }
        #expect(ads.map(\.ad.id) == ["pod-1", "pod-3", "standalone-1"])
    }

    @Test func followAdditionalWrappersFalseIgnoresWrappers() throws {
        var root = try Fixtures.vast("wrapper-a-4.2.xml")
        root.ads[0].wrapper?.followAdditionalWrappers = false
        let result = Self.run(
            root: "https://ads.example.com/root",
            responses: [
                "https://ads.example.com/root": .document(root),
                "https://b.example.com/vast?src=a": try Self.document("wrapper-b-4.1.xml"),
            ])
        #expect(result.fetched.count == 2)
        #expect(result.reports.map(\.code) == [.noAdsAfterWrapper])
    }

    @Test func expireTimesOutOpenFetches() throws {
        var resolver = WrapperResolver(rootURL: "https://ads.example.com/root")
        guard case .fetch(let rootFetch) = resolver.start().first else {
            Issue.record("no fetch")
            return
        }
        let actions = resolver.receive(try Self.document("wrapper-a-4.2.xml"), for: rootFetch.id)
        #expect(resolver.pendingFetches.count == 1)
        #expect(actions.count == 1)
        let expired = resolver.expire()
        #expect(
            expired.contains { if case .reportError(let report) = $0 { report.code == .wrapperTimeout } else { false } }
        )
        #expect(expired.contains { if case .fail = $0 { true } else { false } })
        #expect(resolver.isFinished)
        #expect(resolver.receive(.failed(.wrapperTimeout, "late"), for: 99).isEmpty)
    }

    @Test func unreadableRootFailsWithItsCode() {
        let result = Self.run(
            root: "https://ads.example.com/root",
            responses: ["https://ads.example.com/root": .failed(.xmlParsing, "bad")])
        guard case .fail(let failure) = result.final else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.code == .xmlParsing)
    }

    // MARK: - Budgets (issue 37, item 5: one viewer request made 962-1,356 ad-server requests)

    /// A wrapper response of `fanOut` pod wrappers under `url` (`url/0`, `url/1`...), each with an
    /// `<Error>` URL, or an InLine ad when `inline`.
    static func fanOutDocument(_ url: String, fanOut: Int, inline: Bool) throws -> WrapperResolver.Response {
        let ads = (0..<fanOut).map { index in
            inline
                ? """
                <Ad id="i\(index)" sequence="\(index + 1)"><InLine><AdSystem>t</AdSystem><AdTitle>i</AdTitle>
                <Impression>\(url)/imp</Impression><Creatives><Creative><Linear><Duration>00:00:05</Duration>
                <MediaFiles><MediaFile delivery="streaming" type="application/x-mpegURL">\(url)/m.m3u8</MediaFile></MediaFiles>
                </Linear></Creative></Creatives></InLine></Ad>
                """
                : """
                <Ad id="w\(index)" sequence="\(index + 1)"><Wrapper allowMultipleAds="true"><AdSystem>t</AdSystem>
                <VASTAdTagURI>\(url)/\(index)</VASTAdTagURI><Error>\(url)/err?code=[ERRORCODE]</Error>
                </Wrapper></Ad>
                """
        }
        return .document(try VASTReader().read("<VAST version=\"4.2\">" + ads.joined() + "</VAST>"))
    }

    /// Drives a resolver over a wrapper tree that fans out `fanOut` ways at every level (InLine ads at
    /// `leafDepth`), each document counted as `bytes`; every fetch is answered in order.
    static func runFanOut(
        configuration: WrapperResolver.Configuration, fanOut: Int = 8, leafDepth: Int = 5, bytes: Int = 100
    ) throws -> (final: WrapperResolver.Action?, reports: [VASTErrorReport], fetched: [WrapperResolver.FetchRequest]) {
        var resolver = WrapperResolver(rootURL: "https://ads.example.com/r", configuration: configuration)
        var queue = resolver.start()
        var reports: [VASTErrorReport] = []
        var fetched: [WrapperResolver.FetchRequest] = []
        var final: WrapperResolver.Action?
        while !queue.isEmpty {
            switch queue.removeFirst() {
            case .fetch(let request):
                fetched.append(request)
                let response = try fanOutDocument(
                    request.url, fanOut: fanOut, inline: request.depth >= leafDepth)
                queue += resolver.receive(response, for: request.id, bytes: bytes)
            case .reportError(let report): reports.append(report)
            case let action: final = action
            }
        }
        #expect(resolver.fetches == fetched.count)
        return (final, reports, fetched)
    }

    @Test func aFanningOutTreeMakesAtMostTheRequestBudget() throws {
        // 8 wrappers at each of 5 levels would be 37,449 requests.
        let result = try Self.runFanOut(configuration: .init(maximumFetches: 32))
        #expect(result.fetched.count == 32)
        #expect(result.reports.contains { $0.code == .wrapperLimit && $0.reason == .requestBudget })
        #expect(result.reports.flatMap(\.urls).count <= 64)
        guard case .fail(let failure) = result.final else {
            Issue.record("expected a failure: no branch reaches an InLine ad within 32 requests")
            return
        }
        #expect(failure.code == .wrapperLimit)
    }

    @Test func theBudgetKeepsTheAdsResolvedWithinIt() throws {
        // Root, 4 wrappers, 16 InLine responses of 4 ads: 21 requests would resolve all; 10 allowed.
        let result = try Self.runFanOut(configuration: .init(maximumFetches: 10), fanOut: 4, leafDepth: 2)
        #expect(result.fetched.count == 10)
        guard case .done(let ads) = result.final else {
            Issue.record("expected ads: \(String(describing: result.final))")
            return
        }
        // 5 InLine responses (requests 6 to 10) of 4 ads each.
        #expect(ads.count == 20)
        #expect(result.reports.filter { $0.reason == .requestBudget }.count == 11)
    }

    @Test func documentBytesAreBoundedAcrossBranches() throws {
        let result = try Self.runFanOut(
            configuration: .init(maximumFetches: 1000, maximumDocumentBytes: 1000), bytes: 300)
        // 3 documents of 300 bytes fit; the 4th is refused, and nothing is requested once 100 are left.
        #expect(result.fetched.map(\.maximumBytes).prefix(4) == [1000, 700, 700, 700])
        #expect(result.reports.contains { $0.code == .wrapperLimit && $0.reason == .byteBudget })
        #expect(result.fetched.count < 40)
        #expect(result.fetched.last.map(\.maximumBytes).map { $0 <= 100 } == true)
    }

    @Test func errorURLsReportedAreBounded() throws {
        let result = try Self.runFanOut(
            configuration: .init(maximumDepth: 1, maximumFetches: 1000, maximumReportedURLs: 5), fanOut: 8)
        #expect(result.reports.flatMap(\.urls).count == 5)
    }
}
