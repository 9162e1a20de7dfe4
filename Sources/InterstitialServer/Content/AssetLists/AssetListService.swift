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
    /// The wall clock, for `[TIMESTAMP]`.
    var now: @Sendable () -> DateTime = { DateTime(Date()) }
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
    /// inventory (or the slate) filling when the ad server does not answer.
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
        let asked = request
        if target.kind == .live { sessions?.seen(viewer, on: target) }
        let attempt = (try? await state.attempt(viewer: viewer, target: target, id: id, logger: logger).resolve()) ?? 0
        let once = planned.event.willPlayOnce
        guard !(once && attempt > 0) else {
            metrics.assetListAnswered(target: target.description, source: "vast", ads: 0, filled: false)
            return .json(AssetList(assets: []).encoded())
        }
        let started = ContinuousClock.now
        // One deadline for all the viewer waits for: a decision on its way, the ledger, the ad server.
        let due = started + configuration.assetListDeadline.duration
        var request = Self.adRequest(breakID: id, duration: duration, session: viewer, target: target, at: now())
        let device = DeviceFields(userAgent: userAgent, ip: viewerIP)
        device.fill(&request)
        // A VMAP break asks its own ad source; any other break the target's VAST template.
        var url = settings.vast?.url(for: request)
        var shared = settings.vast?.isShared ?? false
        var root: VASTDocument?
        let vmapPlan = vmapPlans?.plan(content: target.id, settings: settings)
        if let source = vmapPlan?.sources[id] {
            switch source.content {
            case .adTagURI(let template, _):
                let tag = AdTagTemplate(template, serverUA: "hlsi")
                url = tag.url(for: request)
                shared = tag.isShared
            case .vast(let document):
                url = "vmap:" + id
                root = document
                shared = false
            case .custom: break
            }
        }
        guard let url else {
            metrics.assetListAnswered(target: target.description, source: "vast", ads: 0, filled: false)
            return .json(AssetList(assets: [], skipControl: planned.source?.assetListSkipControl).encoded())
        }
        // The viewer's decision made ahead (the first attempt of a session, a break of the target's
        // own tag): answered at once, fitted to this viewer as a live decision would be.
        let relayURL =
            stitched
            ? nil
            : relay.map { relay in
                { @Sendable (url: String, type: String) in
                    relay.url(for: url, type: type, viewer: viewer, base: publicBase)
                }
            }
        func answer(_ prepared: PreparedDecision, path: String) -> ContentResponse {
            let fill = VASTFill.assetList(
                prepared, duration: duration, startOffset: offset, tracking: settings.tracking,
                skipControl: planned.source?.assetListSkipControl, podTracking: vmapPlan?.tracking[id] ?? [],
                relay: relayURL)
            vast.dispatcher.send(fill.impressions, kind: "impression")
            metrics.adDecision(target: target.description, path: path)
            metrics.assetListAnswered(
                target: target.description, source: "vast", ads: fill.adCount, filled: fill.adCount > 0)
            return .json(fill.list.encoded())
        }
        var claim: DecisionKey?
        if attempt == 0, root == nil, vmapPlan?.sources[id] == nil, target.kind == .live,
            shared || viewer != nil
        {
            let key = DecisionKey(target: target, breakID: id, session: shared ? "" : viewer ?? "")
            if let prepared = await ahead(key, due: due) { return answer(prepared, path: "prefetch") }
            // Claimed and kept only for a break the planner follows: a request for a break further
            // ahead claims no ledger row and keeps no decision.
            if prefetched?.follows(PrefetchCache.BreakKey(target: target, breakID: id)) == true { claim = key }
        }
        if let key = claim, let ledger, ledger.isShared,
            let prepared = await claimOrWait(key, ledger: ledger, due: due)
        {
            return answer(prepared, path: "prefetch")
        }
        // Decided live: nothing decides this viewer ahead meanwhile.
        let deciding = claim.map { prefetched?.begin($0) ?? false } ?? false
        defer { if deciding, let claim { prefetched?.finished(claim) } }
        // A decision every viewer shares carries no viewer's device (``DeviceFields``).
        let headers = device.headers(shared: shared)
        let deadline = Self.left(until: due)
        let cacheBuster = request.cacheBuster
        // A URL the same for every viewer is asked once for all the viewers asking together.
        let liveDecisions = liveDecisions
        let outcome: VASTDecisionClient.Outcome
        if shared {
            outcome = await vast.coalescer.share(url) {
                liveDecisions?.started(url)
                return await vast.decide(
                    url: url, settings: settings, headers: headers, deadline: deadline, cacheBuster: cacheBuster)
            }
        } else {
            liveDecisions?.started(url)
            outcome = await vast.decide(
                url: url, root: root, settings: settings, headers: headers, deadline: deadline,
                cacheBuster: cacheBuster)
        }
        let prepared = VASTFill.prepare(
            ads: outcome.ads,
            conditioned: { selection in
                guard let conditioner, let profile, let file = selection.progressiveFiles.first else {
                    return .unavailable
                }
                let url = URIReference.resolve(file.url, against: selection.ad.requestURLs.last ?? "")
                let key = CreativeConditioner.key(creative: selection.creativeKey ?? url, profile: profile)
                if conditioner.isReady(key) { return .ready(publicBase + "/creatives/\(key)/master.m3u8") }
                conditioner.request(.init(key: key, url: url, profile: profile))
                return .pending
            })
        if let key = claim, !outcome.unanswered, prepared.pending == 0 {
            keep(prepared, for: key, until: planned.event.date.map { $0 + duration })
        }
        var fill = VASTFill.assetList(
            prepared, duration: duration, startOffset: offset, tracking: settings.tracking,
            skipControl: planned.source?.assetListSkipControl, podTracking: vmapPlan?.tracking[id] ?? [],
            relay: relayURL)
        fill.rejected = prepared.rejected
        for report in fill.rejected { vast.send(report, cacheBuster: request.cacheBuster) }
        vast.dispatcher.send(fill.impressions, kind: "impression")
        let elapsed = ContinuousClock.now - started
        metrics.vastDecision(
            target: target.description,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            requests: outcome.requests, errorCodes: (outcome.errors + fill.rejected).map(\.code.rawValue),
            timedOut: outcome.timedOut)
        // The ad server failed, timed out or was not asked: the inventory (or the slate) fills.
        if fill.adCount == 0, outcome.unanswered {
            var ads = (try? await candidates(for: target, breakID: id).resolve()) ?? []
            if let slate = settings.slate, let ad = ads.first(where: { $0.id == slate }) { ads = [ad] }
            if !ads.isEmpty {
                metrics.adDecision(target: target.description, path: "fallback")
                return inventoryList(
                    asked, target: target, planned: planned, duration: duration, ads: ads,
                    attempt: attempt, publicBase: publicBase)
            }
        }
        metrics.adDecision(
            target: target.description,
            path: fill.adCount == 0 ? "empty" : outcome.coalesced ? "coalesced" : "live")
        metrics.assetListAnswered(
            target: target.description, source: "vast", ads: fill.adCount, filled: fill.adCount > 0)
        logger.debug(
            "asset list from VAST",
            metadata: [
                "target": "\(target)", "break": "\(id)", "viewer": "\(viewer ?? "-")",
                "requests": "\(outcome.requests)", "ads": "\(fill.adCount)", "errors": "\(outcome.errors.count)",
            ])
        return .json(fill.list.encoded())
    }

    /// What is left of the time until `due` (zero once it passed).
    private static func left(until due: ContinuousClock.Instant) -> MediaTime {
        let left = (due - ContinuousClock.now).components
        // At most the asset-list deadline, a MediaTime: its nanoseconds fit.
        let nanoseconds = left.seconds * 1_000_000_000 + left.attoseconds / 1_000_000_000
        return MediaTime(nanoseconds: max(0, nanoseconds))
    }

    /// The decision made ahead for `key`: kept here, else (with a shared ledger) published by
    /// another replica, asked within a quarter of the deadline; never past `due`.
    private func ahead(_ key: DecisionKey, due: ContinuousClock.Instant) async -> PreparedDecision? {
        // A decision on its way (the viewer asked while it is being made ahead) is waited for, up
        // to half the deadline, rather than asked for again.
        let deadline = configuration.assetListDeadline
        let half = min(MediaTime(nanoseconds: deadline.nanoseconds / 2), Self.left(until: due))
        if let bytes = await prefetched?.decision(key, waitingUpTo: half.duration) {
            return PreparedDecision(encoded: bytes)
        }
        guard let ledger, ledger.isShared else { return nil }
        let wait = min(MediaTime(nanoseconds: deadline.nanoseconds / 4), Self.left(until: due))
        guard let found = await Self.within(wait, { try await ledger.decisions([key]) }), let bytes = found[key]
        else { return nil }
        return PreparedDecision(encoded: bytes)
    }

    /// Claims `key` before it is decided live, so that two replicas do not ask the ad server for one
    /// viewer; when another replica holds the claim, waits for its decision (polling the ledger)
    /// until half the deadline, never past `due`. Nil: decide live (won, failed or waited in vain).
    private func claimOrWait(
        _ key: DecisionKey, ledger: any DecisionLedger, due: ContinuousClock.Instant
    ) async -> PreparedDecision? {
        let at = now()
        let deadline = configuration.assetListDeadline
        let half = MediaTime(nanoseconds: deadline.nanoseconds / 2)
        let owner = owner
        guard
            let won = await Self.within(
                min(half, Self.left(until: due)),
                { try await ledger.claim([key], owner: owner, until: at + deadline + deadline, now: at) }),
            !won.contains(key)
        else { return nil }
        let until = min(ContinuousClock.now + half.duration, due)
        while ContinuousClock.now < until {
            try? await Task.sleep(for: .milliseconds(50))
            if let found = await Self.within(Self.left(until: until), { try await ledger.decisions([key]) }),
                let bytes = found[key]
            {
                return PreparedDecision(encoded: bytes)
            }
        }
        return nil
    }

    /// Keeps a live decision of a viewer's first request for a live break the planner follows, so
    /// that it is not made again ahead, and with a shared ledger publishes it for the replicas (in
    /// the background).
    private func keep(_ prepared: PreparedDecision, for key: DecisionKey, until end: DateTime?) {
        guard let end, end > now() else { return }
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

    /// `operation`'s result, or nil when it fails or takes longer than `limit` (not waiting for an
    /// operation that does not stop when cancelled, a ledger whose database is down).
    private static func within<T: Sendable>(
        _ limit: MediaTime, _ operation: @escaping @Sendable () async throws -> T
    ) async -> T? {
        try? await withTimeLimitAbandoning(limit.duration, operation)
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

    /// Asks the inventory, within the asset-list deadline.
    private func ask(for target: Target, breakID: String) async -> [Ad] {
        let inventory = inventory
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
                try? await Task.sleep(nanoseconds: UInt64(max(0, deadline.nanoseconds)))
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
