import AdDecisioning
import HLSInterstitials
import HLSPlaylist
import NIOCore

extension StitchedService {
    // MARK: Ads whose HLS does not fit

    /// The metric reasons of an ad left out for its media (``AdRenditionLoader/Failure/reason``):
    /// no variant or audio rendition that fits, or the other segment format. Such an ad is
    /// conditioned when it has a source, and reported to its `<Error>` URLs when it stays out.
    static let mediaReasons: Set<String> = ["media", "format"]

    /// What an ad left out for its media (`failure`, one of ``mediaReasons``) becomes when its VAST
    /// offered a conditioning source (`info`): the renditions the conditioner made of it for this
    /// primary (``stitchingProfile(_:fMP4:)``), stitched when they are ready and pass the same
    /// choosers and checks as any ad (``stitchAd(_:role:key:tracking:_:deadline:)``,
    /// ``check(_:eventID:position:fMP4:)``); until then the job is queued (once: the conditioner's
    /// key dedupes it) and the failure's reason is `conditioning`, which the caller keeps for this
    /// viewer's break (`key`, ``answers``): the next viewers and breaks get the renditions. Any other
    /// failure is returned as it is, its message saying why nothing was conditioned.
    func conditioned(
        _ info: StitchedAdInfo, leftOut failure: AdRenditionLoader.Failure, role: Role?, key: String,
        tracking: [String: [String]], _ context: Context, eventID: String, position: Int, fMP4: Bool,
        deadline: NIODeadline
    ) async -> Result<StitchAd, AdRenditionLoader.Failure> {
        guard Self.mediaReasons.contains(failure.reason), let source = info.source else { return .failure(failure) }
        let waiting = AdRenditionLoader.Failure(
            reason: "conditioning",
            message:
                "\(failure.message); \(source) is being conditioned for this primary: until it is ready the fallback plays, and this viewer's break keeps it"
        )
        let notConditioned = { (why: String) in
            AdRenditionLoader.Failure(reason: failure.reason, message: "\(failure.message); not conditioned: \(why)")
        }
        guard let conditioner = library.assetLists.conditioner else {
            return .failure(notConditioned("this server conditions no creatives (no creativeCache)"))
        }
        let profile: ConditioningProfile
        switch await stitchingProfile(context.mounted, fMP4: fMP4) {
        case nil:
            return .failure(
                notConditioned("the primary's multivariant playlist is not known, so no profile matches it"))
        case .failure(let refusal)?:
            return .failure(notConditioned("\(refusal)"))
        case .success(let made)?:
            profile = made
        }
        let cacheKey = CreativeConditioner.key(creative: info.creativeKey ?? source, profile: profile)
        guard conditioner.isReady(cacheKey) else {
            if conditioner.failedRecently(cacheKey) {
                return .failure(
                    notConditioned(
                        "conditioning \(source) failed (the server log says why); it is tried again \(Int(CreativeConditioner.retryDelay.seconds)) s after it failed"
                    ))
            }
            conditioner.request(.init(key: cacheKey, url: source, profile: profile))
            return .failure(waiting)
        }
        do throws(AdRenditionLoader.Failure) {
            let ad = try await stitchAd(
                context.base + "/creatives/\(cacheKey)/master.m3u8", role: role, key: key, tracking: tracking, context,
                deadline: deadline)
            try Self.check(ad, eventID: eventID, position: position, fMP4: fMP4)
            return .success(ad)
        } catch {
            return .failure(
                AdRenditionLoader.Failure(
                    reason: error.reason,
                    message:
                        "\(failure.message); the asset conditioned from \(source) does not fit either: \(error.message)"
                ))
        }
    }

    /// What the conditioner makes for the stitched form of `mounted`'s media playlists, whose
    /// segments are fMP4 (`fMP4`) or MPEG-TS: the interstitial form's profile of the content
    /// (``BreakPlanners/conditioningProfile(_:input:)``: its ladder, frame rates, audio, segment
    /// duration) in the primary's segment format and audio layout
    /// (``ConditioningProfile/stitching(into:fMP4:)``), or why there can be none; nil when the
    /// target has no ad server or its entry is not a multivariant playlist.
    func stitchingProfile(
        _ mounted: ContentLibrary.Mounted, fMP4: Bool
    ) async -> Result<ConditioningProfile, ConditioningProfile.Refusal>? {
        let planners = library.planners
        guard let base = await planners.conditioningProfile(mounted, input: planners.input(for: mounted.target)) else {
            return nil
        }
        let source = library.source(mounted.content)
        guard case .multivariant(let multivariant)? = try? await source.playlist(source.entryLocation).playlist else {
            return nil
        }
        do throws(ConditioningProfile.Refusal) {
            return .success(try base.stitching(into: multivariant, fMP4: fMP4))
        } catch {
            return .failure(error)
        }
    }

    /// Reports an ad left out of the stitched form for its media (`failure`) to its `<Error>` URLs
    /// with VAST error 403 ("Couldn't find MediaFile that is supported by this video player"),
    /// once per viewer and ad (`key`, the ad's beacon key: every variant, rendition and reload
    /// shares it), through the ad server client's report path (the tracking dispatcher, bounded
    /// like every beacon).
    func reportLeftOut(_ info: StitchedAdInfo, key: String, _ failure: AdRenditionLoader.Failure) {
        guard Self.mediaReasons.contains(failure.reason), !info.errorURLs.isEmpty, let vast = library.adDecisions
        else { return }
        let first = reported.update(key, make: { false }) { sent -> Bool in
            defer { sent = true }
            return !sent
        }
        guard first else { return }
        vast.send(
            VASTErrorReport(
                code: .noSupportedMediaFile, urls: info.errorURLs, depth: 0, url: nil, reason: .noHLSMediaFile,
                message: "the ad \(key) is left out of the stitched form (\(failure.reason)): \(failure.message)"),
            cacheBuster: AssetListService.cacheBuster())
    }
}
