/// Follows VAST wrappers to InLine ads, as a value: responses in, actions out.
///
/// The resolver does no I/O and keeps no clock. Its driver starts it, performs each
/// ``Action/fetch(_:)`` (with its own deadline), feeds the outcome back with
/// ``receive(_:for:bytes:)``, requests the URLs of each ``Action/reportError(_:)``, and stops at
/// ``Action/done(_:)`` or ``Action/fail(_:)``. ``expire()`` ends a resolution whose deadline
/// passed: fetches still open count as timed out (VAST error 301).
///
/// The rules, from VAST 4.3:
/// - §3.19.1: "In VAST 4 the player is only required to accept five wrappers"; the depth is
///   ``Configuration/maximumDepth`` (default 5); one wrapper more is error 302.
/// - §2.3.5.1: "Infinite Loops and Dead Ends": a URL already requested in the same chain is a loop,
///   also reported as 302 (the limit a player would eventually reach) with reason `wrapper-loop`.
/// - A wrapper response without ads is error 303 ("No VAST response after one or more Wrappers");
///   a request that fails or times out is 301; an unreadable response its reader's code (100–102).
/// - §3.19 `followAdditionalWrappers="false"`: wrappers in later responses are ignored.
///   `allowMultipleAds="false"` (the default): only the first stand-alone ad of the response is
///   used (if the response has only pod ads, its first pod ad: servers often mark a single ad
///   `sequence="1"`). `fallbackOnNoAd="true"`: when this wrapper yields nothing, a stand-alone ad of
///   the same response takes its place.
/// - §3.3.1 pods: ads with `sequence` play in that order; stand-alone ads are the fallback when
///   every pod ad fails, or the choice when there is no pod (the first that resolves).
///
/// Every wrapper's error URLs are reported with the failures below it, once per failure.
///
/// A resolution's cost is bounded across all its branches, however far a wrapper tree fans out:
/// at most ``Configuration/maximumFetches`` requests and ``Configuration/maximumDocumentBytes``
/// bytes of documents received; a wrapper beyond either budget is not requested and fails with
/// error 302 (reason `request-budget` or `byte-budget`), and the resolution settles with the ads it
/// has. At most ``Configuration/maximumReportedURLs`` error URLs are reported.
public struct WrapperResolver: Hashable, Sendable {
    /// How far to follow wrappers.
    public struct Configuration: Hashable, Sendable {
        /// The most wrappers followed in one chain (VAST 4.3 §3.19.1 asks players to accept five).
        public var maximumDepth: Int
        /// The most ads a resolution returns.
        public var maximumAds: Int
        /// The most documents requested in one resolution, the ad-decision request included, across
        /// every wrapper branch.
        public var maximumFetches: Int
        /// The most bytes of documents received in one resolution.
        public var maximumDocumentBytes: Int
        /// The most error URLs reported in one resolution (each is a request to an ad server).
        public var maximumReportedURLs: Int

        /// Creates a configuration.
        public init(
            maximumDepth: Int = 5, maximumAds: Int = 32, maximumFetches: Int = 32,
            maximumDocumentBytes: Int = 4 << 20, maximumReportedURLs: Int = 64
        ) {
            self.maximumDepth = maximumDepth
            self.maximumAds = maximumAds
            self.maximumFetches = maximumFetches
            self.maximumDocumentBytes = maximumDocumentBytes
            self.maximumReportedURLs = maximumReportedURLs
        }
    }

    /// A request the driver must make.
    public struct FetchRequest: Hashable, Sendable {
        /// The identifier to pass back to ``WrapperResolver/receive(_:for:bytes:)``.
        public var id: Int
        /// The URL (macros not yet filled).
        public var url: String
        /// The number of wrappers followed to reach it (0 for the ad-decision request itself).
        public var depth: Int
        /// The most bytes its document may have: what is left of
        /// ``Configuration/maximumDocumentBytes`` when it is requested.
        public var maximumBytes: Int
    }

    /// The outcome of a fetch.
    public enum Response: Hashable, Sendable {
        /// A readable VAST document.
        case document(VASTDocument)
        /// The request failed: a timeout or a network error (301), or an unreadable document (its
        /// ``VASTError/vastErrorCode``).
        case failed(VASTErrorCode, String)
    }

    /// What the driver must do next.
    public enum Action: Hashable, Sendable {
        /// Request a URL and pass the outcome to ``WrapperResolver/receive(_:for:bytes:)``.
        case fetch(FetchRequest)
        /// Request these error URLs with `[ERRORCODE]` set to the code.
        case reportError(VASTErrorReport)
        /// Finished with these ads, in play order.
        case done([ResolvedAd])
        /// Finished without ads. The report's URLs (the response's own `<Error>` URLs for a no-ad
        /// response) have not been reported otherwise.
        case fail(VASTErrorReport)
    }

    /// The configuration.
    public let configuration: Configuration
    /// The ad-decision request URL.
    public let rootURL: String
    /// Whether the resolution has finished.
    public private(set) var isFinished = false

    private var nodes: [Int: Node] = [:]
    private var nextID = 0
    private var expired = false
    private var firstFailure: VASTErrorReport?
    /// The documents requested so far.
    public private(set) var fetches = 0
    /// The bytes of documents received so far.
    public private(set) var documentBytes = 0
    private var reportedURLs = 0

    /// Creates a resolver for the ad-decision request `rootURL`.
    public init(rootURL: String, configuration: Configuration = Configuration()) {
        self.rootURL = rootURL
        self.configuration = configuration
    }

    /// The first actions: fetch the ad-decision request.
    public mutating func start() -> [Action] {
        guard nodes.isEmpty, !isFinished else { return [] }
        let id = allocate()
        let chain = Chain(wrappers: [], urls: [rootURL], follow: true)
        nodes[id] = .fetch(Fetch(parent: nil, ad: nil, chain: chain, url: rootURL))
        fetches += 1
        return [.fetch(FetchRequest(id: id, url: rootURL, depth: 0, maximumBytes: remainingBytes))]
    }

    /// The ids of the fetches still open.
    public var pendingFetches: [Int] {
        nodes.compactMap { id, node in
            if case .fetch(let fetch) = node, fetch.open { return id }
            return nil
        }.sorted()
    }

    /// What is left of ``Configuration/maximumDocumentBytes``.
    public var remainingBytes: Int { max(0, configuration.maximumDocumentBytes - documentBytes) }

    /// Feeds the outcome of the fetch `id`, a document of `bytes` bytes (counted against
    /// ``Configuration/maximumDocumentBytes``: a document beyond it fails as error 302); unknown or
    /// already answered ids are ignored.
    public mutating func receive(_ response: Response, for id: Int, bytes: Int = 0) -> [Action] {
        guard !isFinished, case .fetch(var fetch) = nodes[id], fetch.open else { return [] }
        fetch.open = false
        nodes[id] = .fetch(fetch)
        var actions: [Action] = []
        if case .document = response {
            guard bytes <= remainingBytes else {
                settleFetchFailure(
                    id, fetch, code: .wrapperLimit, reason: .byteBudget, message: byteBudgetMessage, actions: &actions
                )
                return actions
            }
            documentBytes += max(0, bytes)
        }
        switch response {
        case .failed(let code, let message):
            let reason: VASTErrorReport.Reason = code == .wrapperTimeout ? .wrapperTimeout : .fetchFailed
            settleFetchFailure(id, fetch, code: code, reason: reason, message: message, actions: &actions)
        case .document(let document):
            startGroup(for: id, fetch: fetch, document: document, actions: &actions)
        }
        return actions
    }

    /// Ends the resolution at its deadline: open fetches fail as timeouts (301) and no new fetch
    /// starts; the ads resolved so far are returned.
    public mutating func expire() -> [Action] {
        guard !isFinished else { return [] }
        expired = true
        var actions: [Action] = []
        for id in pendingFetches {
            actions += receive(.failed(.wrapperTimeout, "the deadline passed before the response"), for: id)
        }
        return actions
    }

    // MARK: - Nodes

    private struct Chain: Hashable, Sendable {
        var wrappers: [VASTAd]
        var urls: [String]
        var follow: Bool
        var depth: Int { wrappers.count }
        var errorURLs: [String] { wrappers.flatMap(\.errorURLs) }
    }

    private struct Fetch: Hashable, Sendable {
        var parent: Int?
        var ad: VASTAd?
        var chain: Chain
        var url: String
        var open = true
    }

    private enum SlotState: Hashable, Sendable {
        case pending(Int)
        case resolved([ResolvedAd])
        case failed(fallback: Bool)
    }

    private struct Group: Hashable, Sendable {
        var parent: Int
        var chain: Chain
        var slots: [SlotState]
        var fallbackQueue: [VASTAd]
        var fallbackPhase = false
        var needed = 0
    }

    private enum Node: Hashable, Sendable {
        case fetch(Fetch)
        case group(Group)
    }

    private mutating func allocate() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    private var byteBudgetMessage: String {
        "the resolution's documents would exceed \(configuration.maximumDocumentBytes) bytes"
    }

    private mutating func report(_ report: VASTErrorReport, _ actions: inout [Action]) {
        if firstFailure == nil { firstFailure = report }
        var report = report
        report.urls = Array(report.urls.prefix(max(0, configuration.maximumReportedURLs - reportedURLs)))
        reportedURLs += report.urls.count
        if !report.urls.isEmpty { actions.append(.reportError(report)) }
    }

    private mutating func settleFetchFailure(
        _ id: Int, _ fetch: Fetch, code: VASTErrorCode, reason: VASTErrorReport.Reason, message: String,
        actions: inout [Action]
    ) {
        let failure = VASTErrorReport(
            code: code, urls: fetch.chain.errorURLs, depth: fetch.chain.depth, url: fetch.url, reason: reason,
            message: message)
        guard let parent = fetch.parent else {
            isFinished = true
            firstFailure = firstFailure ?? failure
            actions.append(.fail(failure))
            return
        }
        report(failure, &actions)
        settleSlot(
            group: parent, child: id, state: .failed(fallback: fetch.ad?.wrapper?.fallbackOnNoAd ?? false), &actions)
    }

    private mutating func startGroup(for id: Int, fetch: Fetch, document: VASTDocument, actions: inout [Action]) {
        var ads = document.ads
        if !fetch.chain.follow {
            ads = ads.filter(\.isInLine)
        }
        let allowMultiple = fetch.ad?.wrapper?.allowMultipleAds ?? true
        let pod = VASTDocument(version: document.version, ads: ads).podAds
        let standalone = ads.filter { $0.sequence == nil }
        var initial: [VASTAd]
        var fallback: [VASTAd]
        if allowMultiple && !pod.isEmpty {
            initial = pod
            fallback = standalone
        } else if let first = standalone.first {
            initial = [first]
            fallback = Array(standalone.dropFirst())
        } else if let first = pod.first {
            initial = [first]
            fallback = []
        } else {
            initial = []
            fallback = []
        }
        guard !initial.isEmpty else {
            let failure = VASTErrorReport(
                code: .noAdsAfterWrapper, urls: fetch.chain.errorURLs + document.errorURLs, depth: fetch.chain.depth,
                url: fetch.url, reason: .noAds,
                message: document.ads.isEmpty
                    ? "the response has no ads" : "the response has only wrappers, which are not followed")
            guard let parent = fetch.parent else {
                isFinished = true
                firstFailure = firstFailure ?? failure
                actions.append(.fail(failure))
                return
            }
            report(failure, &actions)
            settleSlot(
                group: parent, child: id, state: .failed(fallback: fetch.ad?.wrapper?.fallbackOnNoAd ?? false), &actions
            )
            return
        }
        let groupID = allocate()
        nodes[groupID] = .group(Group(parent: id, chain: fetch.chain, slots: [], fallbackQueue: fallback))
        for ad in initial {
            startSlot(group: groupID, ad: ad, actions: &actions)
        }
        finishGroupIfSettled(groupID, &actions)
    }

    private mutating func startSlot(group groupID: Int, ad: VASTAd, actions: inout [Action]) {
        guard case .group(var group) = nodes[groupID] else { return }
        let state: SlotState
        if let wrapper = ad.wrapper {
            var chain = group.chain
            chain.wrappers.append(ad)
            chain.follow = chain.follow && wrapper.followAdditionalWrappers
            let url = wrapper.adTagURI
            if chain.depth > configuration.maximumDepth {
                report(
                    VASTErrorReport(
                        code: .wrapperLimit, urls: chain.errorURLs, depth: chain.depth, url: url,
                        reason: .wrapperLimit,
                        message: "more than \(configuration.maximumDepth) wrappers"), &actions)
                state = .failed(fallback: wrapper.fallbackOnNoAd)
            } else if chain.urls.contains(url) {
                report(
                    VASTErrorReport(
                        code: .wrapperLimit, urls: chain.errorURLs, depth: chain.depth, url: url,
                        reason: .wrapperLoop,
                        message: "the wrapper chain requests \(url) a second time"), &actions)
                state = .failed(fallback: wrapper.fallbackOnNoAd)
            } else if fetches >= configuration.maximumFetches || remainingBytes == 0 {
                let requests = fetches >= configuration.maximumFetches
                report(
                    VASTErrorReport(
                        code: .wrapperLimit, urls: chain.errorURLs, depth: chain.depth, url: url,
                        reason: requests ? .requestBudget : .byteBudget,
                        message: requests
                            ? "the resolution has made its \(configuration.maximumFetches) requests"
                            : byteBudgetMessage), &actions)
                state = .failed(fallback: wrapper.fallbackOnNoAd)
            } else if expired {
                report(
                    VASTErrorReport(
                        code: .wrapperTimeout, urls: chain.errorURLs, depth: chain.depth, url: url,
                        reason: .wrapperTimeout, message: "the deadline passed before the request"), &actions)
                state = .failed(fallback: wrapper.fallbackOnNoAd)
            } else {
                chain.urls.append(url)
                let id = allocate()
                nodes[id] = .fetch(Fetch(parent: groupID, ad: ad, chain: chain, url: url))
                fetches += 1
                actions.append(
                    .fetch(FetchRequest(id: id, url: url, depth: chain.depth, maximumBytes: remainingBytes)))
                state = .pending(id)
            }
        } else {
            state = .resolved([ResolvedAd(inline: ad, wrappers: group.chain.wrappers, requestURLs: group.chain.urls)])
        }
        group.slots.append(state)
        nodes[groupID] = .group(group)
    }

    private mutating func settleSlot(group groupID: Int, child: Int, state: SlotState, _ actions: inout [Action]) {
        guard case .group(var group) = nodes[groupID],
            let index = group.slots.firstIndex(of: .pending(child))
        else { return }
        group.slots[index] = state
        nodes[groupID] = .group(group)
        nodes[child] = nil
        finishGroupIfSettled(groupID, &actions)
    }

    private mutating func finishGroupIfSettled(_ groupID: Int, _ actions: inout [Action]) {
        guard case .group(var group) = nodes[groupID] else { return }
        let pending = group.slots.contains { if case .pending = $0 { return true } else { return false } }
        if pending { return }
        let resolved = group.slots.contains { if case .resolved = $0 { return true } else { return false } }
        if !group.fallbackPhase {
            group.fallbackPhase = true
            if resolved {
                group.needed = group.slots.filter { $0 == .failed(fallback: true) }.count
            } else {
                group.needed = 1
            }
        } else if case .resolved = group.slots.last {
            group.needed -= 1
        }
        if group.needed > 0, !group.fallbackQueue.isEmpty {
            let next = group.fallbackQueue.removeFirst()
            nodes[groupID] = .group(group)
            startSlot(group: groupID, ad: next, actions: &actions)
            finishGroupIfSettled(groupID, &actions)
            return
        }
        nodes[groupID] = nil
        var ads: [ResolvedAd] = []
        for slot in group.slots {
            if case .resolved(let list) = slot { ads += list }
        }
        ads = Array(ads.prefix(configuration.maximumAds))
        guard case .fetch(let fetch) = nodes[group.parent] else { return }
        if let parent = fetch.parent {
            let state: SlotState =
                ads.isEmpty ? .failed(fallback: fetch.ad?.wrapper?.fallbackOnNoAd ?? false) : .resolved(ads)
            settleSlot(group: parent, child: group.parent, state: state, &actions)
        } else {
            isFinished = true
            if ads.isEmpty {
                let failure =
                    firstFailure
                    ?? VASTErrorReport(
                        code: .noAdsAfterWrapper, urls: [], depth: 0, url: rootURL, reason: .noAds,
                        message: "no ad could be resolved")
                var final = failure
                final.urls = []
                actions.append(.fail(final))
            } else {
                actions.append(.done(ads))
            }
        }
    }
}
