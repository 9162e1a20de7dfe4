import AdDecisioning
import Foundation
import HLSInterstitials
import HLSLoading
import HLSPlaylist
import Logging

/// Answers asset-list requests for the breaks the server fills: the break's ads from the target's
/// VAST ad decision server when it has one (``AdServerSettings``), else from the inventory, within
/// ``ServerConfiguration/assetListDeadline``, fitted to its effective duration from the requested
/// start offset, with the viewer's attempt counted for rebinding.
struct AssetListService: Sendable {
    let configuration: ServerConfiguration
    let state: ServerState
    let inventory: any AdInventory
    let logger: Logger
    /// Counts answers, fills and VAST decisions.
    let metrics: ServerMetrics
    /// Asks the targets' VAST ad servers; nil when the server was made without one (tests).
    var vast: VASTDecisionClient? = nil
    /// The server's clock: the deadlines of decisions, and the wall clock for `[TIMESTAMP]`.
    var clock: any ServerClock = SystemServerClock()
    /// The breaks VMAP places on VOD assets, with their ad sources.
    var vmapPlans: VMAPPlans? = nil
    /// Conditions progressive creatives into HLS; nil leaves them out.
    var conditioner: CreativeConditioner? = nil
    /// Writes and checks the URLs of `tracking: relay`.
    var relay: BeaconRelay? = nil
    /// The lists made from the inventory, by what they depend on.
    var memo = AssetListMemo()
    /// The decisions made ahead of live breaks (``PrefetchService``); nil: none.
    var prefetched: PrefetchCache? = nil
    /// Where replicas claim and share decisions; only a shared one (``DecisionLedger/isShared``) is
    /// asked on the live path.
    var ledger: (any DecisionLedger)? = nil
    /// Counts the live decisions, for the pacing of decisions made ahead.
    var liveDecisions: LiveDecisions? = nil
    /// This replica's name in the ledger's claims.
    var owner = ""
    /// The viewers seen on live channels: an asset-list request counts as seen too, so that viewers
    /// whose playlists come from a CDN cache are decided ahead from their next break on.
    var sessions: ViewerSessions? = nil

    /// The request's query, read, and the break it names with its effective duration; what an
    /// asset-list request is checked against before anything is decided (and all a `HEAD` does).
    ///
    /// - Throws: 400 for a bad request, 404 for a break that is not there or not filled by the server.
    @discardableResult
    func check(
        query: [String: String], target: Target, planner: BreakPlanner, timeline: BreakPlanner.Timeline
    ) throws(APIError) -> (AssetListQuery, BreakPlanner.Planned, MediaTime) {
        let request: AssetListQuery
        do {
            request = try AssetListQuery(parameters: query, maximumPrimaryIDLength: configuration.limits.viewerIDBytes)
        } catch {
            throw APIError.badRequest(code: .assetListRequest, path: error.parameter, error.message)
        }
        let id = request.interstitialID
        guard let planned = planner.lookup(id: id, timeline, reach: reach(target, timeline)),
            planned.source?.usesServerAssetList ?? true,
            let duration = planned.event.effectiveDuration()
        else { throw APIError.notFound("break \"\(id)\" of \(target)") }
        return (request, planned, duration)
    }

    /// How far past a live channel's edge a cadence break's asset list is answered: its look-ahead
    /// and the ``BreakWindows/horizon`` of its ad server's windows (the defaults without one), as
    /// far as breaks are prepared ahead. Nil for VOD.
    private func reach(_ target: Target, _ timeline: BreakPlanner.Timeline) -> MediaTime? {
        guard case .live(_, _, let lookahead) = timeline else { return nil }
        let settings = AdServerSettings.of(target, configuration: configuration, state: state.snapshot)
        return lookahead + (settings?.prefetch.windows ?? BreakWindows()).horizon
    }

    /// The asset list of the break a request names, planned with `planner` on `timeline`: the one
    /// function that answers an asset-list request, for both lanes.
    ///
    /// Known at once (``Pending/now(_:)``, the viewer's attempt counted) for a break filled from
    /// the server's own inventory while the server counts viewers itself; otherwise found later
    /// (``Pending/later(_:)``, nothing counted before): from a VAST ad server, an inventory that
    /// must be asked, or viewers counted in a shared store.
    ///
    /// A VAST ad server hears the viewer's `userAgent` and `viewerIP` (``ViewerAddress``) as VAST 4.1
    /// asks of a server that requests on a client's behalf: `X-Device-User-Agent` and `X-Device-IP`
    /// headers, and the `[DEVICEUA]` and `[DEVICEIP]` macros. `profile` is asked only then.
    ///
    /// `stitched`: the request is the stitched form's (``StitchedService``), made for a player that
    /// knows nothing of the ads: no impression is fired now and the list carries the ad server's
    /// own tracking URLs whatever the `tracking` setting (not relay URLs), for the server to fire
    /// as the viewer requests each ad's segments.
    ///
    /// - Throws: 400 for a bad request, 404 for a break that is not there or not filled by the server.
    func assetList(
        query: [String: String], target: Target, planner: BreakPlanner, timeline: BreakPlanner.Timeline,
        publicBase: String, userAgent: String? = nil, viewerIP: String? = nil,
        profile: @escaping @Sendable () async -> ConditioningProfile? = { nil }, stitched: Bool = false
    ) throws(APIError) -> Pending<ContentResponse> {
        let (request, planned, duration) = try check(query: query, target: target, planner: planner, timeline: timeline)
        if let settings = AdServerSettings.of(target, configuration: configuration, state: state.snapshot), let vast {
            return .later { [self] () async throws(APIError) -> ContentResponse in
                await vastList(
                    request, target: target, planned: planned, duration: duration, settings: settings, vast: vast,
                    publicBase: publicBase, userAgent: userAgent, viewerIP: viewerIP, profile: await profile(),
                    stitched: stitched)
            }
        }
        let id = request.interstitialID
        let once = planned.event.willPlayOnce
        let inventoryAds = candidates(for: target, breakID: id)
        let viewer = request.primaryID
        guard let ads = inventoryAds.known else {
            return .later { [self] () async throws(APIError) -> ContentResponse in
                if target.kind == .live { sessions?.seen(viewer, on: target) }
                let attempt = try await state.attempt(viewer: viewer, target: target, id: id, logger: logger).resolve()
                var ads: [Ad] = []
                if !(once && attempt > 0) { ads = try await inventoryAds.resolve() }
                return inventoryList(
                    request, target: target, planned: planned, duration: duration, ads: ads, attempt: attempt,
                    publicBase: publicBase)
            }
        }
        let attempt = state.attempt(viewer: viewer, target: target, id: id, logger: logger)
        // Known at once without a closure (this is the fast lane's path): no copy of the service.
        if let counted = attempt.known {
            if target.kind == .live { sessions?.seen(viewer, on: target) }
            return .now(
                inventoryList(
                    request, target: target, planned: planned, duration: duration, ads: once && counted > 0 ? [] : ads,
                    attempt: counted, publicBase: publicBase))
        }
        return .later { [self] () async throws(APIError) -> ContentResponse in
            let counted = try await attempt.resolve()
            if target.kind == .live { sessions?.seen(viewer, on: target) }
            return inventoryList(
                request, target: target, planned: planned, duration: duration, ads: once && counted > 0 ? [] : ads,
                attempt: counted, publicBase: publicBase)
        }
    }

    /// The asset list of a break a VAST ad server fills (a decision made ahead, or live), with the
    /// inventory (or the slate) filling when the ad server does not answer: the driver of the
    /// viewer's ``DecisionMachine``, doing the I/O its actions ask for, on ``clock``.
    private func vastList(
        _ request: AssetListQuery, target: Target, planned: BreakPlanner.Planned, duration: MediaTime,
        settings given: AdServerSettings, vast: VASTDecisionClient, publicBase: String, userAgent: String?,
        viewerIP: String?, profile: ConditioningProfile?, stitched: Bool
    ) async -> ContentResponse {
        // The stitched form fires every beacon itself, from the ad server's own URLs.
        let settings = {
            var settings = given
            if stitched { settings.tracking = .client }
            return settings
        }()
        let id = request.interstitialID
        let offset = request.startOffset ?? .zero
        let viewer = request.primaryID
        let device = DeviceFields(userAgent: userAgent, ip: viewerIP)
        // Seen with its device fields: the decisions made ahead for it send them too.
        if target.kind == .live { sessions?.seen(viewer, on: target, device: device) }
        let started = clock.now
        var adRequest = Self.adRequest(breakID: id, duration: duration, session: viewer, target: target, at: clock.wall)
        device.fill(&adRequest)
        // A VMAP break asks its own ad source; any other break the target's VAST template.
        var url = settings.vast?.url(for: adRequest)
        var shared = settings.vast?.isShared ?? false
        var root: VASTDocument?
        let vmapPlan = vmapPlans?.plan(content: target.id, settings: settings)
        if let source = vmapPlan?.sources[id] {
            switch source.content {
            case .adTagURI(let template, _):
                let tag = AdTagTemplate(template, serverUA: "hlsi")
                url = tag.url(for: adRequest)
                shared = tag.isShared
            case .vast(let document):
                url = "vmap:" + id
                root = document
                shared = false
            case .custom: break
            }
        }
        // A decision made ahead can exist for a break of the target's own tag on a live channel,
        // for the viewer's session (or for every viewer: a shared tag).
        let key =
            root == nil && vmapPlan?.sources[id] == nil && target.kind == .live && (shared || viewer != nil)
            ? DecisionKey(target: target, breakID: id, session: shared ? "" : viewer ?? "") : nil
        // Claimed and kept only for a break the planner follows: a request for a break further
        // ahead claims no ledger row and keeps no decision.
        let follows = key.map { prefetched?.follows(PrefetchCache.BreakKey(target: $0.target, breakID: id)) == true }
        // With standing decisions on, the viewer's (or, for a shared tag, everyone's) for the
        // channel's next break, made before the cue.
        let standing =
            key.flatMap { key in
                StandingBreak(target: target, settings: settings.prefetch, at: clock.wall)?.lookups(
                    session: key.session)
            } ?? []
        var machine = DecisionMachine(
            .live(
                .init(
                    key: key, once: planned.event.willPlayOnce, hasURL: url != nil, follows: follows ?? false,
                    sharedLedger: ledger?.isShared ?? false, standing: standing)),
            deadline: configuration.assetListDeadline)
        let relayURL =
            stitched
            ? nil
            : relay.map { relay in
                { @Sendable (url: String, type: String) in
                    relay.url(for: url, type: type, viewer: viewer, base: publicBase)
                }
            }
        func fitted(_ prepared: PreparedDecision) -> VASTFill.Result {
            VASTFill.assetList(
                prepared, duration: duration, startOffset: offset, tracking: settings.tracking,
                skipControl: planned.source?.assetListSkipControl, podTracking: vmapPlan?.tracking[id] ?? [],
                relay: relayURL, stitched: stitched)
        }
        var attempt = 0
        var deciding: DecisionKey?
        defer { if let deciding { prefetched?.finished(deciding) } }
        // The asset list fitted from the ad server's answer, once asked.
        var fill: VASTFill.Result?
        var actions = machine.start(now: started)
        while !actions.isEmpty {
            var next: [DecisionMachine.Action] = []
            for action in actions {
                switch action {
                case .countAttempt:
                    attempt =
                        (try? await state.attempt(viewer: viewer, target: target, id: id, logger: logger).resolve())
                        ?? 0
                    next += machine.counted(attempt, now: clock.now)
                case .countAttemptHere:
                    attempt = state.attemptHere(viewer: viewer, target: target, id: id, logger: logger)
                    next += machine.counted(attempt, now: clock.now)
                case .lookUpKept(let key, let limit):
                    let found = await prefetched?.prepared(key, waitingUpTo: limit, clock: clock)
                    next += machine.kept(found, now: clock.now)
                case .lookUpStanding(let keys):
                    // R30: the first standing decision with an ad that fits the break is taken (and
                    // its fitted list answered: it is fitted once).
                    let found = keys.lazy.compactMap {
                        key -> (key: DecisionKey, decision: PreparedDecision, fitted: VASTFill.Result)? in
                        guard let decision = self.prefetched?.prepared(key) else { return nil }
                        let result = fitted(decision)
                        return result.adCount > 0 ? (key, decision, result) : nil
                    }.first
                    if let found { fill = found.fitted }
                    next += machine.standing(found.map { ($0.key, $0.decision) }, now: clock.now)
                case .consume(let key):
                    _ = prefetched?.take(key)
                case .lookUpLedger(let key, let limit), .poll(let key, let limit):
                    let ledger = ledger
                    let found = await clock.within(limit) { try await ledger?.decisions([key]) }
                    let bytes = found.flatMap { $0?[key] }
                    next += machine.published(bytes.flatMap(PreparedDecision.init(encoded:)), now: clock.now)
                case .claim(let key, let lifetime, let limit):
                    let (ledger, owner, at) = (ledger, owner, clock.wall)
                    let won = await clock.within(limit) {
                        try await ledger?.claim([key], owner: owner, until: at + lifetime, now: at)
                    }
                    let claim: DecisionMachine.Claim =
                        won.flatMap { $0 }.map { $0.contains(key) ? .won : .lost } ?? .failed
                    next += machine.claimed(claim, now: clock.now)
                case .wait(let duration):
                    try? await clock.sleep(for: duration)
                    next += machine.tick(now: clock.now)
                case .ask(let key, let deadline):
                    // Decided live: nothing decides this viewer ahead meanwhile.
                    if let key, prefetched?.begin(key) == true { deciding = key }
                    let outcome = await ask(
                        url: url ?? "", root: root, shared: shared, settings: settings, vast: vast,
                        headers: device.headers(shared: shared), deadline: deadline,
                        cacheBuster: adRequest.cacheBuster)
                    let prepared = prepare(outcome.ads, profile: profile, publicBase: publicBase)
                    var result = fitted(prepared)
                    result.rejected = prepared.rejected
                    for report in result.rejected { vast.send(report, cacheBuster: adRequest.cacheBuster) }
                    let elapsed = clock.now - started
                    metrics.vastDecision(
                        target: target.description, seconds: elapsed.seconds, requests: outcome.requests,
                        errorCodes: (outcome.errors + result.rejected).map(\.code.rawValue), timedOut: outcome.timedOut)
                    fill = result
                    next += machine.decided(
                        .init(
                            prepared: prepared, unanswered: outcome.unanswered, coalesced: outcome.coalesced,
                            fitted: result.adCount),
                        now: clock.now)
                case .keep(let key, let prepared):
                    keep(prepared, for: key, until: planned.event.date.map { $0 + duration })
                case .answer(let prepared, let path):
                    let result = fill ?? fitted(prepared)
                    vast.dispatcher.send(result.impressions, kind: "impression")
                    metrics.adDecision(target: target.description, path: path.rawValue)
                    metrics.assetListAnswered(
                        target: target.description, source: "vast", ads: result.adCount, filled: result.adCount > 0)
                    logger.debug(
                        "asset list from VAST",
                        metadata: [
                            "target": "\(target)", "break": "\(id)", "viewer": "\(viewer ?? "-")",
                            "path": "\(path.rawValue)", "ads": "\(result.adCount)",
                        ])
                    return .json(result.list.encoded())
                case .fallBack:
                    var ads = (try? await candidates(for: target, breakID: id).resolve()) ?? []
                    if let slate = settings.slate, let ad = ads.first(where: { $0.id == slate }) { ads = [ad] }
                    guard !ads.isEmpty else {
                        next += machine.noFallback(now: clock.now)
                        continue
                    }
                    metrics.adDecision(target: target.description, path: DecisionMachine.Path.fallback.rawValue)
                    return inventoryList(
                        request, target: target, planned: planned, duration: duration, ads: ads, attempt: attempt,
                        publicBase: publicBase)
                case .nothing(let why):
                    metrics.assetListAnswered(target: target.description, source: "vast", ads: 0, filled: false)
                    let skipControl = why == .noAdTag ? planned.source?.assetListSkipControl : nil
                    return .json(AssetList(assets: [], skipControl: skipControl).encoded())
                case .discard:
                    break
                }
            }
            actions = next
        }
        // Every path of the machine ends in an answer; should one not, the break is empty.
        metrics.assetListAnswered(target: target.description, source: "vast", ads: 0, filled: false)
        return .json(AssetList(assets: []).encoded())
    }

    /// Asks the ad server of `url` (`root`: a VMAP break's own VAST document) within `deadline`: a
    /// URL the same for every viewer (`shared`) once for all the viewers asking together.
    private func ask(
        url: String, root: VASTDocument?, shared: Bool, settings: AdServerSettings, vast: VASTDecisionClient,
        headers: [(String, String)], deadline: MediaTime, cacheBuster: String
    ) async -> VASTDecisionClient.Outcome {
        let liveDecisions = liveDecisions
        if shared {
            return await vast.coalescer.share(url) {
                liveDecisions?.started(url)
                return await vast.decide(
                    url: url, settings: settings, headers: headers, deadline: deadline, cacheBuster: cacheBuster)
            }
        }
        liveDecisions?.started(url)
        return await vast.decide(
            url: url, root: root, settings: settings, headers: headers, deadline: deadline, cacheBuster: cacheBuster)
    }

    /// The ad server's ads, prepared for the viewer's renditions (`profile`): a progressive-only
    /// creative is conditioned into HLS from its ``CreativeSelection/conditioningSource`` (a
    /// `<Mezzanine>`, else its best progressive MP4), and left out until it is ready.
    private func prepare(_ ads: [ResolvedAd], profile: ConditioningProfile?, publicBase: String) -> PreparedDecision {
        let conditioner = conditioner
        return VASTFill.prepare(
            ads: ads,
            conditioned: { selection in
                guard let conditioner, let profile, let file = selection.conditioningSource else {
                    return .unavailable
                }
                let url = URIReference.resolve(file.url, against: selection.ad.requestURLs.last ?? "")
                let key = CreativeConditioner.key(creative: selection.creativeKey ?? url, profile: profile)
                if conditioner.isReady(key) { return .ready(publicBase + "/creatives/\(key)/master.m3u8") }
                conditioner.request(.init(key: key, url: url, profile: profile))
                return .pending
            })
    }

    /// Keeps a live decision of a viewer's first request for a live break the planner follows, so
    /// that it is not made again ahead, and with a shared ledger publishes it for the replicas (in
    /// the background).
    private func keep(_ prepared: PreparedDecision, for key: DecisionKey, until end: DateTime?) {
        guard let end, end > clock.wall else { return }
        let bytes = prepared.encoded()
        guard prefetched?.keepLive(key, bytes, expires: end) == true else { return }
        guard let ledger, ledger.isShared else { return }
        let logger = logger
        Task {
            do { try await ledger.publish([key: bytes], expires: end) } catch {
                logger.debug("cannot publish the live decision of \(key): \(error)")
            }
        }
    }

    /// The asset list of a break filled from the inventory's `ads` (none for a `ONCE` break the
    /// viewer asked for before), fitted to the break from the viewer's start offset.
    private func inventoryList(
        _ request: AssetListQuery, target: Target, planned: BreakPlanner.Planned, duration: MediaTime, ads: [Ad],
        attempt: Int, publicBase: String
    ) -> ContentResponse {
        let id = request.interstitialID
        let offset = request.startOffset ?? .zero
        let candidates = AdDecision.candidates(ads)
        let key = AssetListMemo.Key(
            breakID: id, duration: duration, offset: offset, skipControl: planned.source?.assetListSkipControl,
            candidates: candidates,
            start: AdDecision.rotationStart(
                viewer: request.primaryID, breakID: id, attempt: attempt, count: candidates.count),
            publicBase: publicBase)
        let list = memo.list(key) {
            // A long break repeats the same few ads: each one's URL is made once.
            var urls: [String: String] = [:]
            let list = AdDecision.assetList(
                duration: duration, startOffset: offset, candidates: candidates, start: key.start,
                skipControl: key.skipControl,
                url: { ad in
                    if let url = urls[ad.uri] { return url }
                    let url = InsertionRequest.addingInterstitialID(id, to: ad.absoluteURI(publicBase: publicBase))
                    urls[ad.uri] = url
                    return url
                })
            return AssetListMemo.List(json: Array(list.encoded().utf8), adCount: list.assets.count)
        }
        metrics.assetListAnswered(
            target: target.description, source: "inventory", ads: list.adCount, filled: list.adCount > 0)
        logger.debug(
            "asset list",
            metadata: [
                "target": "\(target)", "break": "\(id)", "viewer": "\(request.primaryID ?? "-")",
                "attempt": "\(attempt)", "offset": "\(offset)", "ads": "\(list.adCount)",
            ])
        return .json(list.json)
    }

    /// What fills a break's ad tag for a viewer (`session`, nil: none) at `date`: the break, its
    /// duration, the content and a new cache buster; the same live and ahead of the break.
    static func adRequest(
        breakID: String, duration: MediaTime, session: String?, target: Target, at date: DateTime
    ) -> AdTagTemplate.Request {
        var request = AdTagTemplate.Request(breakID: breakID, cacheBuster: cacheBuster(), timestamp: date)
        request.breakDuration = duration
        request.sessionID = session
        request.contentID = target.id
        return request
    }

    /// A VAST cache buster: 8 random digits (VAST 4.3 §6.2, `[CACHEBUSTING]`).
    static func cacheBuster() -> String {
        var generator = SystemRandomNumberGenerator()
        return VASTMacroValues.cacheBuster(&generator)
    }

    /// The inventory's candidates: the server's own at once; another inventory's when asked, or
    /// none when it fails or misses the deadline.
    private func candidates(for target: Target, breakID: String) -> Pending<[Ad]> {
        if let stored = inventory as? StoredInventory { return .now(stored.ads) }
        return .later { [self] in await ask(for: target, breakID: breakID) }
    }

    /// Asks the inventory, within the asset-list deadline (on the server's clock).
    private func ask(for target: Target, breakID: String) async -> [Ad] {
        let inventory = inventory
        let clock = clock
        let deadline = configuration.assetListDeadline
        let logger = logger
        return await withTaskGroup(of: [Ad]?.self) { group in
            group.addTask {
                do {
                    return try await inventory.candidates(for: target, breakID: breakID)
                } catch {
                    logger.warning("the ad inventory failed for \(breakID) of \(target); the break is empty: \(error)")
                    return []
                }
            }
            group.addTask {
                try? await clock.sleep(for: deadline)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            guard let ads = first else {
                logger.warning(
                    "the ad inventory missed the \(deadline) s deadline for \(breakID) of \(target); the break is empty"
                )
                return []
            }
            return ads
        }
    }
}
