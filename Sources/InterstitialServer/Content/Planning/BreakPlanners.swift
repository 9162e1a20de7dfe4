import AdDecisioning
import Foundation
import HLSInterstitials
import HLSPlaylist
import NIOConcurrencyHelpers

/// Makes the ``BreakPlanner`` of a content's request, with what it is planned on read once
/// (``PlanningInput``: the state, its version and the target's ad-server settings), and the inputs
/// that depend on those settings: the preload hints' (``preload(_:_:targetDuration:ended:)``), the
/// breaks a VOD asset's VMAP places (``prepareVMAP(_:input:timeline:)``), the creatives'
/// conditioning (``conditioningProfile(_:input:)``), and the timeline breaks are placed on
/// (``referenceTimeline(_:)``).
final class BreakPlanners: Sendable {
    let configuration: ServerConfiguration
    let state: ServerState
    /// The breaks VMAP places on VOD assets.
    let vmapPlans: VMAPPlans
    private let sources: ContentSources
    private let now: @Sendable () -> DateTime
    /// The active audience of a live target, which sizes its preload hints (``PreloadHint``).
    private let activeSessions: @Sendable (Target) -> Int
    /// The start of the absolute URLs written (``ServerConfiguration/publicBase(boundPort:)``).
    private let base: NIOLockedValueBox<String>
    /// The VOD timelines of directory contents (their files do not change while the server runs),
    /// by content ID: an asset-list request does not load the presentation again.
    private let vodTimelines = NIOLockedValueBox<[String: BreakPlanner.Timeline]>([:])
    /// The events of served date ranges, read once for every planner (``ServedEvents``).
    let servedEvents = ServedEvents()
    /// The conditioning profile of each content, by ID.
    private let profiles = NIOLockedValueBox<[String: ConditioningProfile]>([:])
    /// The ad servers' gates, whose learned rates size the preload hints
    /// (``AdServerGates/pacingRate(_:gates:)``); nil: none.
    let gates: AdServerGates?

    /// Planners for `configuration`'s contents on `state`, with VMAP breaks from `vmapPlans`,
    /// presentations from `sources`, the wall clock `now` and the audience `activeSessions`.
    init(
        configuration: ServerConfiguration, state: ServerState, vmapPlans: VMAPPlans, sources: ContentSources,
        now: @escaping @Sendable () -> DateTime, activeSessions: @escaping @Sendable (Target) -> Int,
        gates: AdServerGates? = nil
    ) {
        self.gates = gates
        self.configuration = configuration
        self.state = state
        self.vmapPlans = vmapPlans
        self.sources = sources
        self.now = now
        self.activeSessions = activeSessions
        base = NIOLockedValueBox(configuration.publicBase(boundPort: configuration.port))
    }

    /// Records the port the server is bound to (the configured one may be 0), for absolute URLs.
    func serverBound(port: Int) {
        base.withLockedValue { $0 = configuration.publicBase(boundPort: port) }
    }

    /// The `scheme://host[:port]` absolute URLs start with; it comes from the configuration, never
    /// from a request.
    var publicBase: String { base.withLockedValue { $0 } }

    /// What one request of `target` is planned on: the current state and its version, read together,
    /// and the target's ad-server settings on that state (``AdServerSettings/of(_:configuration:state:)``,
    /// computed once for the request).
    func input(for target: Target) -> PlanningInput {
        let (snapshot, version) = state.versioned
        return PlanningInput(
            state: snapshot, version: version,
            settings: AdServerSettings.of(target, configuration: configuration, state: snapshot))
    }

    /// The planner of a mounted content on the current state.
    func planner(for mounted: ContentLibrary.Mounted) -> BreakPlanner {
        planner(for: mounted.content, target: mounted.target, input: input(for: mounted.target))
    }

    /// The planner of a content's breaks on `state` (the admin catalog plans on the state of its
    /// transaction).
    func planner(
        for content: ServerConfiguration.Content, target: Target, state: StoredState, base: String? = nil
    ) -> BreakPlanner {
        let settings = AdServerSettings.of(target, configuration: configuration, state: state)
        return planner(
            for: content, target: target, input: PlanningInput(state: state, version: 0, settings: settings), base: base
        )
    }

    /// The planner of a content's breaks on `input`, writing absolute URLs from `base` (the public
    /// base now when nil).
    func planner(
        for content: ServerConfiguration.Content, target: Target, input: PlanningInput, base: String? = nil
    ) -> BreakPlanner {
        let publicBase = base ?? publicBase
        var planner = BreakPlanner(
            target: target, state: input.state, assetListURI: content.path + "/asset-list.json",
            adURI: { ad in ad.absoluteURI(publicBase: publicBase) })
        planner.noticeTolerance = configuration.limits.noticeTolerance
        planner.servedEvents = servedEvents
        if target.kind == .vod, let settings = input.settings,
            let plan = vmapPlans.plan(content: content.id, settings: settings)
        {
            planner.vmapBreaks = plan.breaks
        }
        return planner
    }

    /// The inputs of the preload hints of a media playlist of `target` (``BreakPlanner/Preload``): a
    /// live channel whose breaks a VAST ad server fills, with hints on, and a playlist that has not
    /// `ended` (EXT-X-ENDLIST: App. F, clients ignore hints there); nil otherwise.
    func preload(
        _ target: Target, _ input: PlanningInput, targetDuration: UInt64?, ended: Bool = false
    ) -> BreakPlanner.Preload? {
        guard target.kind == .live, !ended, let settings = input.settings, settings.vast != nil,
            settings.preload.isEnabled
        else { return nil }
        return BreakPlanner.Preload(
            windows: settings.preload.windows(), sessions: max(0, activeSessions(target)),
            perSecond: AdServerGates.pacingRate(settings, gates: gates),
            targetDuration: MediaTime(seconds: Int(clamping: targetDuration ?? 6)))
    }

    /// Whether the breaks VMAP places on `content` are settled for `input` (a playlist planned
    /// before they are may not be kept).
    func isVMAPSettled(_ content: ServerConfiguration.Content, input: PlanningInput) -> Bool {
        vmapPlans.isSettled(content: content.id, settings: input.settings)
    }

    /// What progressive creatives become for `mounted`: renditions that match its primary's
    /// multivariant playlist (``ConditioningProfile``), read once per content; nil when the target
    /// has no ad server (no VAST creatives to condition) or its entry is not a multivariant playlist.
    func conditioningProfile(_ mounted: ContentLibrary.Mounted, input: PlanningInput) async -> ConditioningProfile? {
        guard input.settings != nil else { return nil }
        if let profile = profiles.withLockedValue({ $0[mounted.content.id] }) { return profile }
        let source = sources.source(mounted.content)
        guard case .multivariant(let multivariant)? = try? await source.playlist(source.entryLocation).playlist else {
            return nil
        }
        let target = try? await source.primary().playlist.targetDuration
        let profile = ConditioningProfile(
            primary: multivariant, targetDuration: (target ?? nil).map { Int(clamping: $0) })
        profiles.withLockedValue { $0[mounted.content.id] = profile }
        return profile
    }

    /// Whether the breaks the VOD asset's VMAP places are still to be loaded.
    func needsVMAP(_ mounted: ContentLibrary.Mounted, input: PlanningInput) -> Bool {
        guard let settings = input.settings else { return false }
        return settings.vmap != nil && vmapPlans.plan(content: mounted.content.id, settings: settings) == nil
    }

    /// Loads the breaks the VOD asset's VMAP places, once (``VMAPPlans``), within the asset-list
    /// deadline.
    func prepareVMAP(_ mounted: ContentLibrary.Mounted, input: PlanningInput) async throws(APIError) {
        guard needsVMAP(mounted, input: input), let settings = input.settings,
            case .vod(let duration, _) = try await referenceTimeline(mounted).resolve()
        else { return }
        await vmapPlans.load(
            content: mounted.content.id, target: mounted.target, settings: settings, duration: duration,
            deadline: configuration.assetListDeadline)
    }

    /// The timeline breaks of `mounted` are placed on: a live channel's from now, a VOD asset's from
    /// its primary, known at once once loaded for a directory's (its files do not change).
    func referenceTimeline(_ mounted: ContentLibrary.Mounted) -> Pending<BreakPlanner.Timeline> {
        switch mounted.target.kind {
        case .live:
            let at = now()
            let content = mounted.content
            return .now(
                .live(epoch: content.epoch, window: (at - MediaTime(seconds: 60))..<at, lookahead: content.lookahead))
        case .vod:
            if let timeline = vodTimelines.withLockedValue({ $0[mounted.content.id] }) { return .now(timeline) }
            let source = sources.source(mounted.content)
            return .later { [vodTimelines] () async throws(APIError) -> BreakPlanner.Timeline in
                let timeline = PlaylistRenderer.vodTimeline(try await source.primary().playlist).0
                if case .directory = mounted.content.origin {
                    vodTimelines.withLockedValue { $0[mounted.content.id] = timeline }
                }
                return timeline
            }
        }
    }
}

/// What one request of a target is planned on, read once (``BreakPlanners/input(for:)``).
struct PlanningInput: Sendable {
    /// The stored state.
    var state: StoredState
    /// Its version (``ServerState/versioned``): what a rendered playlist is kept by.
    var version: Int
    /// The target's ad-server settings on ``state``; nil when it has none.
    var settings: AdServerSettings?
}
