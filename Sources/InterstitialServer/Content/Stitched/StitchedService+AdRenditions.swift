import Foundation
import HLSInterstitials
import HLSPlaylist
import NIOCore

extension StitchedService {
    // MARK: Ads' renditions

    /// The ad at `url` as stitched into a playlist of `role`: the rendition the choosers pick, its
    /// segments listed through ``StitchedBeacons`` under `key`.
    func stitchAd(
        _ url: String, role: Role?, key: String, tracking: [String: [String]], _ context: Context,
        deadline: NIODeadline
    ) async throws(AdRenditionLoader.Failure) -> StitchAd {
        let loaded = try await loader.playlist(url, publicBase: context.base, deadline: deadline)
        var mediaURL = url
        var media: MediaPlaylist
        switch loaded.playlist {
        case .media(let playlist):
            // One media playlist: its segments are the ad's, whatever subtitles mirror; it has no
            // audio rendition for a demuxed primary (``audioFit(of:at:adVariant:_:)``).
            _ = try audioFit(of: loaded.playlist, at: url, adVariant: nil, context)
            media = playlist
        case .multivariant(let multivariant):
            guard let role else {
                throw AdRenditionLoader.Failure(
                    reason: "media",
                    message:
                        "the primary playlist is not a variant of a multivariant playlist with CODECS, so no ad variant can be shown to match it"
                )
            }
            let adVariant: VariantStream
            do throws(StitchingError) {
                adVariant = try StitchVariantChooser.choose(for: role.variant, in: multivariant, at: "ad \(url)")
            } catch {
                throw AdRenditionLoader.Failure(reason: "media", message: "\(error)")
            }
            // Whether the ad's audio fits is one answer for every rendition of the viewer's break.
            let audio = try audioFit(of: loaded.playlist, at: url, adVariant: adVariant, context)
            var chosen = adVariant.uri
            if case .audio(let rendition, _) = role {
                guard let ad = audio.first(where: { $0.primary == rendition })?.ad.uri else {
                    throw AdRenditionLoader.Failure(
                        reason: "media",
                        message:
                            "the primary's audio rendition \"\(rendition.name)\" is not in the AUDIO group of the variant \(role.variant.uri)"
                    )
                }
                chosen = ad
            }
            mediaURL = URIReference.resolve(chosen, against: url)
            guard
                case .media(let playlist) = try await loader.playlist(
                    mediaURL, publicBase: context.base, deadline: deadline
                ).playlist
            else {
                throw AdRenditionLoader.Failure(reason: "playlist", message: "\(mediaURL) is not a media playlist")
            }
            media = playlist
        }
        if case .subtitles? = role {
            // No beacon fires from a subtitle segment: the video and audio ones fire them.
            let mirrored = StitchAd(playlist: media, url: mediaURL)
            switch context.fMP4Subtitles {
            case nil:
                return StitchSubtitles.blank(mirroring: mirrored, documentURL: context.base + Self.emptySubtitlesPath)
            case .success(let rendition)?:
                return StitchSubtitles.blank(
                    mirroring: mirrored, map: rendition.map, timescale: rendition.track.timescale
                ) { span in
                    StitchedEmptySegment.url(base: context.base, track: rendition.track, span: span)
                }
            case .failure(let failure)?:
                throw failure
            }
        }
        let routed = beacons.routed(media, url: mediaURL, key: key, tracking: tracking, publicBase: context.base)
        return StitchAd(playlist: routed, url: mediaURL)
    }

    /// The subtitle track and map a subtitle playlist with EXT-X-MAP `map` (as the playlist stitched
    /// lists it) blanks its ads with (``StitchSubtitles/blank(mirroring:map:timescale:segmentURL:)``):
    /// the map's URI made absolute, and the track of the initialization segment it names, read
    /// through the content's source (``StitchedSubtitleTracks``); a failure (`subtitles`) when it
    /// cannot be read or has no WebVTT or TTML track.
    func fMP4Subtitles(
        map: MediaInitializationSection, _ context: Context
    ) async -> Result<StitchedSubtitleTracks.Rendition, AdRenditionLoader.Failure> {
        let absolute = URIReference.resolve(map.uri, against: context.url)
        let source = library.source(context.mounted.content)
        let own = context.base + context.mounted.content.path + "/"
        var location = absolute
        if absolute.hasPrefix(own) {
            var rest = absolute.dropFirst(own.count)
            if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<query] }
            location = Self.location(
                String(rest).removingPercentEncoding ?? String(rest), entry: source.entryLocation,
                content: context.mounted.content)
        }
        do throws(AdRenditionLoader.Failure) {
            let track = try await subtitleTracks.track(location: location, name: absolute, byteRange: map.byteRange) {
                try await source.fetchBytes($0)
            }
            var section = map
            section.uri = absolute
            return .success(StitchedSubtitleTracks.Rendition(map: section, track: track))
        } catch {
            return .failure(error)
        }
    }

    /// ``VODStitcher/check(_:eventID:position:fMP4:)``, as a loader failure with its metric reason.
    static func check(
        _ ad: StitchAd, eventID: String, position: Int, fMP4: Bool
    ) throws(AdRenditionLoader.Failure) {
        do throws(StitchingError) {
            try VODStitcher.check(ad, eventID: eventID, position: position, fMP4: fMP4)
        } catch {
            throw AdRenditionLoader.Failure(reason: error.code == .format ? "format" : "playlist", message: "\(error)")
        }
    }

    /// The target's slate (``AdServerSettings/slate``, an inventory ad) as stitched into a playlist
    /// of `role`, with `tracking` (the pod's events, when it stands in for the pod's first or last
    /// ad); nil when it has none or it cannot be stitched (logged).
    func slate(
        role: Role?, _ context: Context, fMP4: Bool, deadline: NIODeadline, key: String? = nil,
        tracking: [String: [String]] = [:]
    ) async -> StitchAd? {
        let state = library.state.snapshot
        guard
            let id = AdServerSettings.of(context.mounted.target, configuration: library.configuration, state: state)?
                .slate,
            let ad = state.ads[id]
        else { return nil }
        let beaconKey = key.map(Self.slateKey) ?? "\(context.mounted.target)|\(context.session)|slate"
        do throws(AdRenditionLoader.Failure) {
            let stitched = try await stitchAd(
                ad.absoluteURI(publicBase: context.base), role: role, key: beaconKey, tracking: tracking, context,
                deadline: deadline)
            try Self.check(stitched, eventID: "slate", position: 0, fMP4: fMP4)
            return stitched
        } catch {
            library.logger.warning(
                "\(context.mounted.content.path): the slate \(id) cannot be stitched: \(error.message)")
            return nil
        }
    }

    /// The most fill segments one live break writes for `target`: its ad server's
    /// ``AdServerSettings/maximumFillSegments``, else the default.
    func maximumFillSegments(of target: Target) -> Int {
        AdServerSettings.of(target, configuration: library.configuration, state: library.state.snapshot)?
            .maximumFillSegments ?? LiveStitcher.defaultMaximumFillSegments
    }

    /// Logs and counts an ad left out.
    func fallback(_ reason: String, event: String, position: Int?, _ context: Context, _ message: String) {
        library.metrics.stitchFallback(reason: reason)
        let ad = position.map { " ad \($0 + 1)" } ?? ""
        library.logger.warning(
            "\(context.url): break \(event)\(ad) left out of the stitched form for session \(context.session) (\(reason)): \(message)"
        )
    }
}
