import AdDecisioning
import Foundation
import HLSInterstitials
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Serves the stitched form of a target's playlists (issue 45; profile R28): the same presentation
/// with the viewer's ads written into the media playlists, for players that do not implement
/// interstitials. A thin driver: the rules are the pure stitchers' (``VODStitcher``,
/// ``LiveStitcher``, ``StitchVariantChooser``, ``StitchRenditionChooser``, ``StitchBeaconPlan``).
///
/// - The playlist stitched is the interstitial form's, as any player gets it
///   (``ContentLibrary/get(_:query:userAgent:viewerIP:)``): the same breaks, planned once.
/// - The ads are the viewer's, decided by the one decision path: the asset-list request a player
///   would make for each break (``ContentLibrary/assetList(_:query:userAgent:viewerIP:stitched:)``)
///   with the viewer's session as `_HLS_primary_id`, once per viewer and break (kept for every
///   variant, rendition and reload).
/// - Each ad's rendition for the variant (or audio rendition) is loaded bounded
///   (``AdRenditionLoader``) and chosen by the pure choosers. An ad that cannot be stitched is
///   left out, logged and counted (`hlsi_stitch_fallbacks_total`), and the target's slate, when it
///   has one, plays in its place. An ad left out for its media whose VAST offered a conditioning
///   source is conditioned for the primary and stitched once ready
///   (``conditioned(_:leftOut:role:key:tracking:_:eventID:position:fMP4:deadline:)``); one that
///   stays out is reported to its `<Error>` URLs (``reportLeftOut(_:key:_:)``).
/// - Ad segments are listed through this server's URLs (``StitchedBeacons``), which fire the
///   ad's beacons as the viewer requests them.
/// - A live viewer's windows go through that viewer's ``LiveStitcher``, kept per viewer and media
///   playlist in a ``StitchedMemo`` bounded by ``ServerLimits/stitchedViewers`` and
///   ``ServerLimits/stitchedViewerBytes``, expiring after ``ServerLimits/stitchedViewerIdle``.
/// - A viewer's stitched media playlist is kept as rendered (``StitchedRenderings``) and served
///   again for the same version of the primary, for at most a minute.
final class StitchedService: Sendable {
    /// What a media playlist of the primary is in its multivariant playlist.
    enum Role: Sendable {
        /// A variant.
        case variant(VariantStream)
        /// An audio rendition, played with `variant`.
        case audio(Rendition, variant: VariantStream)
        /// A subtitle rendition, played with `variant`: during an ad it plays no subtitles, one empty
        /// WebVTT segment (or, after EXT-X-MAP, one empty fMP4 subtitle segment,
        /// ``StitchedEmptySegment``) for each segment of the ad's rendition in `variant`
        /// (``StitchSubtitles``).
        case subtitles(Rendition, variant: VariantStream)

        /// The primary variant the playlist plays in or with.
        var variant: VariantStream {
            switch self {
            case .variant(let variant), .audio(_, let variant), .subtitles(_, let variant): variant
            }
        }
    }

    /// The path of the empty WebVTT document (``StitchSubtitles/emptyDocument``) a stitched subtitle
    /// playlist lists while an ad plays.
    static let emptySubtitlesPath = StitchedBeacons.prefix + "empty.vtt"

    let library: ContentLibrary
    let loader: AdRenditionLoader
    let beacons: StitchedBeacons
    /// Each viewer's asset list of each break, by target, session and break.
    let decisions: StitchedMemo<AssetList>
    /// Each live viewer's stitcher, by target, session and media playlist.
    let live: StitchedMemo<LiveStitcher>
    /// Each live viewer's last stitched window's kept primary segments, by target and session: what
    /// a new stitcher of another media playlist of the viewer aligns its numbers to (``LiveTimeline``).
    let timelines: StitchedMemo<LiveTimeline>
    /// Each viewer's stitched media playlists as last rendered, by target, session and playlist.
    let renderings: StitchedRenderings
    /// The `User-Agent` patterns that select the stitched form.
    let userAgents: StitchedUserAgents
    /// The ads reported to their `<Error>` URLs (``reportLeftOut(_:key:_:)``), by beacon key: once
    /// per viewer and ad.
    let reported: StitchedMemo<Bool>
    /// The first answer of a viewer's break for each ad, by beacon key (viewer, break and position):
    /// stitched, or left out with the first failure. Whatever the reason (`measuring` and
    /// `conditioning` included, which pass), an ad left out stays out of that viewer's break in
    /// every playlist and reload, with that reason and message, and an ad stitched stays in (its
    /// renditions agree even when one asked as the ad's audio was being measured and another
    /// after; a VOD playlist does not change; a live break does not switch from the fallback to the
    /// ad's middle). The viewer's next breaks are decided afresh.
    let answers: StitchedMemo<StitchedAnswer>
    /// The subtitle track of each fMP4 subtitle rendition's initialization segment.
    let subtitleTracks = StitchedSubtitleTracks()
    /// The sample rate and channel count of ads' audio renditions, read from their media.
    let audioProbe: StitchedAudioProbe
    private let deciding = NIOLockedValueBox<[String: Task<AssetList, Never>]>([:])

    init(library: ContentLibrary, fetcher: AdServerFetcher) {
        self.library = library
        let configuration = library.configuration
        let limits = configuration.limits
        loader = AdRenditionLoader(
            fetcher: fetcher, adDirectory: configuration.adDirectory, creativeDirectory: configuration.creativeCache,
            maximumBytes: limits.upstreamPlaylistBytes, clock: library.clock)
        audioProbe = StitchedAudioProbe(
            loader: loader, logger: library.logger, clock: library.clock, timeout: configuration.assetListDeadline)
        let memo = StitchedMemo<AssetList>.Limits(
            count: limits.stitchedViewers, bytes: limits.stitchedViewerBytes, idle: limits.stitchedViewerIdle)
        beacons = StitchedBeacons(
            limits: .init(count: memo.count, bytes: memo.bytes, idle: memo.idle), now: library.now)
        decisions = StitchedMemo(limits: memo, now: library.now) { key, list in
            key.utf8.count + list.encoded().utf8.count + 64
        }
        live = StitchedMemo(limits: .init(count: memo.count, bytes: memo.bytes, idle: memo.idle), now: library.now) {
            key, stitcher in key.utf8.count + StitchedService.size(of: stitcher)
        }
        timelines = StitchedMemo(
            limits: .init(count: memo.count, bytes: memo.bytes, idle: memo.idle), now: library.now
        ) { key, timeline in key.utf8.count + 64 + timeline.entries.count * 40 }
        renderings = StitchedRenderings(
            limits: .init(count: memo.count, bytes: memo.bytes, idle: memo.idle), now: library.now)
        userAgents = configuration.stitchedUserAgents
        let reportLimits = StitchedMemo<Bool>.Limits(count: memo.count, bytes: memo.bytes, idle: memo.idle)
        reported = StitchedMemo(limits: reportLimits, now: library.now) { key, _ in key.utf8.count + 48 }
        answers = StitchedMemo(
            limits: .init(count: memo.count, bytes: memo.bytes, idle: memo.idle), now: library.now
        ) { key, answer in
            switch answer {
            case .stitched: key.utf8.count + 64
            case .leftOut(let failure): key.utf8.count + failure.reason.utf8.count + failure.message.utf8.count + 64
            }
        }
    }

    /// Whether a request for `mounted` with `query` from `userAgent` gets the stitched form: a
    /// playlist, asked with `ads=stitched` or from a listed user agent.
    func wants(_ mounted: ContentLibrary.Mounted, query: [String: String], userAgent: String?) -> Bool {
        mounted.rest.hasSuffix(".m3u8")
            && StitchedRequest.wanted(query: query, userAgent: userAgent, patterns: userAgents)
    }

    /// The stitched form of the playlist `mounted` names.
    ///
    /// - Throws: 400 for a bad `session`, the interstitial form's errors, 502 when the playlist
    ///   cannot be stitched (``StitchingError``, quoted).
    func answer(
        _ mounted: ContentLibrary.Mounted, query: [String: String], userAgent: String?, viewerIP: String?
    ) async throws(APIError) -> ContentResponse {
        let request = try StitchedRequest.read(
            query: query, maximumBytes: library.configuration.limits.viewerIDBytes)
        let primary = try await library.get(
            mounted, query: StitchedRequest.primaryQuery(query), userAgent: userAgent, viewerIP: viewerIP)
        // The viewer's rendering of this version of the primary, when kept (``StitchedRenderings``).
        let version: String
        switch primary.body {
        case .rendered(let entry): version = entry.entityTag
        case .bytes(let bytes): version = EntityTag.of(bytes).header
        case .file, .stream: return primary
        }
        let key = "\(mounted.target)|\(request.session)|\(mounted.rest)"
        if let kept = renderings.bytes(key, version: version) {
            return ContentResponse(
                body: .bytes(kept), contentType: primary.contentType, cacheControl: CachePolicy.noStore)
        }
        guard let bytes = primary.bytes else { return primary }
        let name = mounted.content.path + "/" + mounted.rest
        let parsed = PlaylistParser.parse(bytes, options: ParseOptions(file: name))
        switch parsed.playlist {
        case .multivariant:
            let text = request.multivariant(String(decoding: bytes, as: UTF8.self))
            return ContentResponse(
                body: .bytes(Array(text.utf8)), contentType: primary.contentType, cacheControl: CachePolicy.noStore)
        case .media(let media):
            var context = Context(
                mounted: mounted, session: request.session, userAgent: userAgent, viewerIP: viewerIP,
                base: library.publicBase, url: library.publicBase + name)
            let events = ScheduleInput.events(of: media)
            // A live window needs the role without a break too: the viewer's stitcher is made with
            // its slate at the first reload, which may come before any break.
            let found = events.isEmpty && media.hasEndList ? nil : await role(of: mounted)
            let role = found?.role
            context.primaryAudio = found?.audio ?? []
            if case .subtitles? = role, let map = media.segments.first?.map {
                context.fMP4Subtitles = await fMP4Subtitles(map: map, context)
            }
            let deadline = library.clock.deadline(after: library.configuration.assetListDeadline)
            var pods: [String: [StitchAd]] = [:]
            var endKeys: [String: String] = [:]
            for event in events {
                let pod = await pod(
                    for: event, role: role, context, fMP4: media.segments.first?.map != nil, deadline: deadline)
                pods[event.identifier] = pod.ads
                endKeys[event.identifier] = pod.endKey
            }
            do {
                if media.hasEndList {
                    var stitched = try VODStitcher.stitch(parsed, pods: pods)
                    try routeResumptions(of: &stitched, endKeys: endKeys, context)
                    let written = stitched.write()
                    renderings.keep(written, for: key, version: version)
                    return ContentResponse(
                        body: .bytes(written), contentType: primary.contentType, cacheControl: CachePolicy.noStore)
                }
                let breaks = events.compactMap { event -> LiveBreak? in
                    guard let start = event.date, let duration = event.effectiveDuration() else { return nil }
                    return LiveBreak(
                        id: event.identifier, start: start, duration: duration, pod: pods[event.identifier] ?? [])
                }
                let slate = await slate(role: role, context, fMP4: media.segments.first?.map != nil, deadline: deadline)
                let cap = maximumFillSegments(of: mounted.target)
                // The viewer's other media playlists number their discontinuities alike (RFC 8216
                // §6.2.4): a new stitcher aligns to the last window stitched for the session.
                let session = "\(mounted.target)|\(request.session)"
                let sibling = timelines.value(session)
                var timeline = LiveTimeline()
                var stitched = try live.update(
                    key, make: { LiveStitcher(slate: slate, maximumFillSegments: cap) }
                ) {
                    stitcher throws(StitchingError) -> StitchedPlaylist in
                    defer { timeline = stitcher.timeline }
                    return try stitcher.stitch(parsed, breaks: breaks, aligningTo: sibling)
                }
                timelines.update(session, make: { timeline }) { $0 = timeline }
                for id in stitched.cappedBreaks {
                    library.metrics.stitchFallback(reason: "segment-cap")
                    library.logger.warning(
                        "\(context.url): break \(id) of session \(request.session) needs more than \(cap) ad and slate segments (adServer.maxFillSegments); the rest of the break is left empty (the slate's segments are too short for the break)"
                    )
                }
                try routeResumptions(of: &stitched, endKeys: endKeys, context)
                let written = stitched.write()
                renderings.keep(written, for: key, version: version)
                return ContentResponse(
                    body: .bytes(written), contentType: primary.contentType, cacheControl: CachePolicy.noStore)
            } catch let error as StitchingError {
                library.logger.error("\(name): cannot stitch for session \(request.session): \(error)")
                throw APIError(status: 502, code: .playlist, path: name, "cannot stitch the playlist: \(error)")
            } catch {
                throw APIError(status: 502, code: .playlist, path: name, "cannot stitch the playlist: \(error)")
            }
        }
    }

    /// One request's inputs.
    struct Context: Sendable {
        var mounted: ContentLibrary.Mounted
        var session: String
        var userAgent: String?
        var viewerIP: String?
        /// The public base of absolute URLs.
        var base: String
        /// The absolute URL of the playlist stitched.
        var url: String
        /// For a subtitle playlist with EXT-X-MAP, its subtitle track and map, or why they cannot be
        /// read (``fMP4Subtitles(map:_:)``); nil for any other playlist.
        var fMP4Subtitles: Result<StitchedSubtitleTracks.Rendition, AdRenditionLoader.Failure>? = nil
        /// The primary's audio renditions with a URI in the AUDIO group of the variant the playlist
        /// plays in or with (``audioFit(of:at:adVariant:_:)``); empty when its audio is muxed.
        var primaryAudio: [Rendition] = []
    }

    // MARK: Decisions

    /// The first primary segment after each break whose pod was cut, listed through this server's
    /// URL that fires the pod's `breakEnd` (kept in the entry of the pod's last ad, `endKeys` by break,
    /// so it fires once per viewer and break whichever of that segment and the last ad's last
    /// segment comes first).
    private func routeResumptions(
        of stitched: inout StitchedPlaylist, endKeys: [String: String], _ context: Context
    ) throws(StitchingError) {
        for resumption in stitched.resumptions {
            guard let key = endKeys[resumption.breakID], let uri = stitched.uri(ofSegment: resumption.segment),
                let routed = beacons.resumption(
                    key: key, url: URIReference.resolve(uri, against: context.url), publicBase: context.base)
            else { continue }
            try stitched.replaceURI(ofSegment: resumption.segment, with: routed)
        }
    }

    /// A viewer's pod for a break in one playlist: the ads, and the key of the beacon entry that
    /// holds the pod's `breakEnd` (its last ad's, or the slate's in its place) when it has one.
    struct Pod {
        var ads: [StitchAd] = []
        var endKey: String?
    }

    /// The viewer's pod for `event` in a playlist of `role`: its ads' renditions for that playlist,
    /// the slate (when the target has one) in place of an ad that cannot be stitched.
    private func pod(
        for event: InterstitialEvent, role: Role?, _ context: Context, fMP4: Bool, deadline: NIODeadline
    ) async -> Pod {
        let assets: [AssetList.Asset]
        var podTracking: [String: [String]] = [:]
        if let uri = event.assetURI {
            assets = [
                AssetList.Asset(uri: URIReference.resolve(uri, against: context.url), duration: event.duration ?? .zero)
            ]
        } else if let list = event.assetListURI {
            let own = context.base + context.mounted.content.path + "/asset-list.json"
            let resolved = URIReference.resolve(list, against: context.url)
            guard resolved == own || resolved.hasPrefix(own + "?") else {
                fallback(
                    "asset-list", event: event.identifier, position: nil, context,
                    "its X-ASSET-LIST \(resolved) is not this server's; only the server's own decisions are stitched")
                return Pod()
            }
            let list = await decision(for: event.identifier, context)
            assets = list.assets
            podTracking = Self.podTracking(of: list)
        } else {
            return Pod()
        }
        var pod = Pod()
        // A subtitle playlist's segments fire nothing (``StitchSubtitles``).
        let fires: Bool
        if case .subtitles? = role { fires = false } else { fires = true }
        let stitched = assets.prefix(Self.maximumAds)
        for (position, asset) in stitched.enumerated() {
            let key = "\(context.mounted.target)|\(context.session)|\(event.identifier)|\(position)"
            // The pod's own events go with its first ad's first segment and its last ad's last.
            var own: [String: [String]] = [:]
            if position == 0, let urls = podTracking[StitchBeaconPlan.podStart] {
                own[StitchBeaconPlan.podStart] = urls
            }
            if position == stitched.count - 1, let urls = podTracking[StitchBeaconPlan.podEnd] {
                own[StitchBeaconPlan.podEnd] = urls
            }
            let tracking = Self.tracking(of: asset).merging(own) { $1 }
            let attempt = { [self] () async -> Result<StitchAd, AdRenditionLoader.Failure> in
                let result = await stitchChecked(
                    asset, role: role, key: key, tracking: tracking, context, eventID: event.identifier,
                    position: position, fMP4: fMP4, deadline: deadline)
                // HLS that does not fit: the conditioner's renditions, once ready.
                guard case .failure(let error) = result, let info = StitchedAdInfo.of(asset) else { return result }
                return await conditioned(
                    info, leftOut: error, role: role, key: key, tracking: tracking, context,
                    eventID: event.identifier, position: position, fMP4: fMP4, deadline: deadline)
            }
            // Left out of this viewer's break once: out of every playlist and reload of it.
            var result: Result<StitchAd, AdRenditionLoader.Failure>
            if case .leftOut(let failure)? = answers.value(key) {
                result = .failure(failure)
            } else {
                result = await attempt()
                // The first answer kept answers every later playlist of the viewer's break, and a
                // request that raced another takes it (``StitchedAnswer/settle(_:)``).
                let made = result
                switch answers.update(key, make: { StitchedAnswer(made) }, { $0 }).settle(made) {
                case .answer(let settled): result = settled
                case .again: result = await attempt()
                }
            }
            switch result {
            case .success(let ad):
                pod.ads.append(ad)
                if fires, own[StitchBeaconPlan.podEnd] != nil { pod.endKey = key }
            case .failure(let failure):
                let info = StitchedAdInfo.of(asset)
                fallback(failure.reason, event: event.identifier, position: position, context, failure.message)
                if let info { reportLeftOut(info, key: key, failure) }
                if let slate = await slate(role: role, context, fMP4: fMP4, deadline: deadline, key: key, tracking: own)
                {
                    pod.ads.append(slate)
                    if fires, own[StitchBeaconPlan.podEnd] != nil { pod.endKey = Self.slateKey(key) }
                }
            }
        }
        return pod
    }

    /// `asset` stitched into a playlist of `role` (``stitchAd(_:role:key:tracking:_:deadline:)``) and
    /// checked (``check(_:eventID:position:fMP4:)``), or why it cannot be.
    private func stitchChecked(
        _ asset: AssetList.Asset, role: Role?, key: String, tracking: [String: [String]], _ context: Context,
        eventID: String, position: Int, fMP4: Bool, deadline: NIODeadline
    ) async -> Result<StitchAd, AdRenditionLoader.Failure> {
        do throws(AdRenditionLoader.Failure) {
            let ad = try await stitchAd(
                asset.uri, role: role, key: key, tracking: tracking, context, deadline: deadline)
            try Self.check(ad, eventID: eventID, position: position, fMP4: fMP4)
            return .success(ad)
        } catch {
            return .failure(error)
        }
    }

    /// The beacon entry key of the slate standing in for the ad at `key`.
    static func slateKey(_ key: String) -> String { key + "|slate" }

    /// The most ads of one break stitched.
    static let maximumAds = 32

    /// The viewer's asset list for break `id`: asked once per viewer and break (concurrent requests
    /// for it wait for the one asking), kept for every variant, rendition and reload; empty when the
    /// request fails (logged).
    private func decision(for id: String, _ context: Context) async -> AssetList {
        let key = "\(context.mounted.target)|\(context.session)|\(id)"
        if let kept = decisions.value(key) { return kept }
        let (task, asking) = deciding.withLockedValue { deciding -> (Task<AssetList, Never>, Bool) in
            if let task = deciding[key] { return (task, false) }
            let task = Task { [self] in await ask(id, context) }
            deciding[key] = task
            return (task, true)
        }
        let list = await task.value
        if asking {
            decisions.update(key, make: { list }) { _ in }
            _ = deciding.withLockedValue { $0.removeValue(forKey: key) }
        }
        return list
    }

    /// The asset-list request a player would make for break `id`, as the viewer's session.
    private func ask(_ id: String, _ context: Context) async -> AssetList {
        let mounted = ContentLibrary.Mounted(
            content: context.mounted.content, target: context.mounted.target, rest: "asset-list.json")
        let query = ["_HLS_interstitial_id": id, "_HLS_primary_id": context.session]
        do {
            let response = try await library.assetList(
                mounted, query: query, userAgent: context.userAgent, viewerIP: context.viewerIP, stitched: true
            ).resolve()
            guard let bytes = response.bytes else { return AssetList(assets: []) }
            return try AssetList.decode(bytes)
        } catch {
            library.logger.warning(
                "\(context.mounted.content.path): the stitched form has no ads for break \(id) of session \(context.session): \(error)"
            )
            return AssetList(assets: [])
        }
    }

    /// The pod's own tracking URLs (VMAP `breakStart`, `breakEnd`) by event type, from the asset
    /// list's Ad Creative Signaling.
    static func podTracking(of list: AssetList) -> [String: [String]] {
        guard let json = list.otherKeys[AdCreativeSignaling.key],
            let signaling = try? AdCreativeSignaling(json: json)
        else { return [:] }
        var tracking: [String: [String]] = [:]
        for entry in signaling.podTracking { tracking[entry.type, default: []] += entry.urls }
        return tracking
    }

    /// The ad's tracking URLs by event type, from its Ad Creative Signaling slot.
    static func tracking(of asset: AssetList.Asset) -> [String: [String]] {
        guard let json = asset.otherKeys[AdCreativeSignaling.key],
            let signaling = try? AdCreativeSignaling(json: json), let slot = signaling.slots.first
        else { return [:] }
        var tracking: [String: [String]] = [:]
        for entry in slot.tracking { tracking[entry.type, default: []] += entry.urls }
        return tracking
    }

    // MARK: The primary

    /// What the media playlist `mounted` names is in its content's multivariant playlist, and the
    /// audio renditions with a URI of its variant's AUDIO group (empty when that variant's audio is
    /// muxed); nil when the entry is not one or does not list it.
    private func role(of mounted: ContentLibrary.Mounted) async -> (role: Role, audio: [Rendition])? {
        let source = library.source(mounted.content)
        let entry = source.entryLocation
        guard case .multivariant(let multivariant)? = try? await source.playlist(entry).playlist else { return nil }
        let found = Self.role(of: mounted, in: multivariant, entry: entry)
        return found.map { role in
            let group = role.variant.audio
            return (
                role,
                multivariant.renditions.filter { $0.type == "AUDIO" && $0.groupID == group && $0.uri != nil }
            )
        }
    }

    /// What the media playlist `mounted` names is in `multivariant` (the content's entry, at `entry`).
    private static func role(
        of mounted: ContentLibrary.Mounted, in multivariant: MultivariantPlaylist, entry: String
    ) -> Role? {
        let wanted = Self.location(mounted.rest, entry: entry, content: mounted.content)
        if let variant = multivariant.variants.first(where: { URIReference.resolve($0.uri, against: entry) == wanted })
        {
            return .variant(variant)
        }
        for rendition in multivariant.renditions where rendition.type == "AUDIO" || rendition.type == "SUBTITLES" {
            guard let uri = rendition.uri, URIReference.resolve(uri, against: entry) == wanted else { continue }
            if rendition.type == "AUDIO",
                let variant = multivariant.variants.first(where: { $0.audio == rendition.groupID })
            {
                return .audio(rendition, variant: variant)
            }
            if rendition.type == "SUBTITLES",
                let variant = multivariant.variants.first(where: { $0.subtitles == rendition.groupID })
            {
                return .subtitles(rendition, variant: variant)
            }
        }
        return nil
    }

    /// The location of `rest` (a path under the content) as the entry's URIs resolve to.
    static func location(_ rest: String, entry: String, content: ServerConfiguration.Content) -> String {
        switch content.origin {
        case .directory: return URIReference.resolve(rest, against: entry)
        case .upstream(let upstream):
            guard let path = SafePath(rest) else { return rest }
            return UpstreamClient.upstreamURL(entry: upstream, path: path, query: [:])
        }
    }

    /// The bytes a live stitcher holds, roughly (its decisions for one window).
    static func size(of stitcher: LiveStitcher) -> Int {
        512 + stitcher.keptCount * 96 + (stitcher.slate?.playlist.segments.count ?? 0) * 160
    }
}
