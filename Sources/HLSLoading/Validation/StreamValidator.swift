import Foundation
import HLSInterstitials
import HLSPlaylist

/// Validates a stream by loading it: one playlist, a whole presentation with its interstitial asset
/// lists and assets (`recursive`), or a live playlist over several reloads (`watch`).
///
/// The rules are the pure validators of `HLSInterstitials`; this type only loads what they need.
/// Problems with referenced resources become diagnostics; only a failure to load the starting
/// playlist throws.
public struct StreamValidator: Sendable {
    /// What a validation found.
    public struct Report: Sendable {
        /// Every diagnostic, ordered by file, line and column.
        public var diagnostics: [Diagnostic] = []
        /// The documents that were loaded, by the location diagnostics name, for rendering source lines.
        public var documents: [String: PlaylistDocument] = [:]
        /// Remarks about the run itself, such as a watched playlist that ended.
        public var notes: [String] = []
        /// Every playlist, asset list and asset that was checked, in order, with its outcome.
        public var checked: [CheckedResource] = []
        /// What was measured in the media segments, when they were read (`media` options given).
        public var media: MediaReport?

        /// Whether any diagnostic is an error.
        public var hasErrors: Bool { diagnostics.containsErrors }

        /// An empty report.
        public init() {}
    }

    /// The loader used for every request.
    public let loader: PlaylistLoader
    private let sleep: @Sendable (Duration) async throws -> Void

    /// Creates a validator.
    ///
    /// - Parameters:
    ///   - loader: the loader used for every request.
    ///   - sleep: waits between reloads in ``watch(_:reloads:interval:)``; tests pass a no-op.
    public init(
        loader: PlaylistLoader,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.loader = loader
        self.sleep = sleep
    }

    /// Validates the playlist at `location`; with `recursive`, also every media playlist of a
    /// multivariant playlist, the cross-playlist rules, and every interstitial's asset list and assets.
    ///
    /// With `media`, the validation is recursive and also downloads the media segments (all, or a
    /// sample) of the primary and of every asset, and checks what they hold against the playlists
    /// (`MediaValidator`); ``Report/media`` has the measurements.
    ///
    /// - Throws: `LoadError` when the starting playlist cannot be loaded.
    public func validate(
        _ location: String, recursive: Bool, media: MediaValidationOptions? = nil
    ) async throws -> Report {
        let recursive = recursive || media != nil
        var report = Report()
        let (_, result) = try await loader.loadPlaylist(location)
        add(result, location: location, to: &report)
        record(result.playlist.media == nil ? .multivariantPlaylist : .mediaPlaylist, location, from: 0, in: &report)
        guard recursive else { return finish(report) }

        var primaries: [(uri: String, location: String, result: ParseResult)] = []
        var multivariant: MultivariantPlaylist?
        switch result.playlist {
        case .media:
            primaries.append((location, location, result))
        case .multivariant(let playlist):
            multivariant = playlist
            var seen: Set<String> = []
            var references: [(uri: String, line: Int)] = playlist.variants.map { ($0.uri, $0.line) }
            references += playlist.renditions.compactMap { rendition in rendition.uri.map { ($0, rendition.line) } }
            for reference in references where seen.insert(reference.uri).inserted {
                let resolved = URIReference.resolve(reference.uri, against: location)
                let start = report.diagnostics.count
                do {
                    let (_, media) = try await loader.loadPlaylist(resolved)
                    guard media.playlist.media != nil else {
                        report.diagnostics.append(
                            Rule.renditionsLoad.diagnostic(
                                at: result.document.location(line: reference.line - 1),
                                "\(reference.uri) is a multivariant playlist, not a media playlist"))
                        record(.multivariantPlaylist, resolved, from: start, in: &report)
                        continue
                    }
                    add(media, location: resolved, to: &report)
                    primaries.append((reference.uri, resolved, media))
                    record(.mediaPlaylist, resolved, from: start, in: &report)
                } catch {
                    report.diagnostics.append(
                        Rule.renditionsLoad.diagnostic(
                            at: result.document.location(line: reference.line - 1),
                            "\(reference.uri) cannot be loaded: \(Self.reason(error))"))
                    record(.playlist, resolved, failure: error, in: &report)
                }
            }
            let crossChecks = report.diagnostics.count
            report.diagnostics += RenditionValidator.validate(
                multivariant: playlist, document: result.document,
                media: primaries.compactMap { entry in
                    entry.result.playlist.media.map {
                        RenditionValidator.MediaPlaylistEntry(
                            uri: entry.uri, playlist: $0, document: entry.result.document)
                    }
                })
            // The cross-playlist rules count for the playlist each diagnostic points into.
            for diagnostic in report.diagnostics[crossChecks...] {
                guard let index = report.checked.firstIndex(where: { $0.location == diagnostic.location.file })
                else { continue }
                count(diagnostic, into: &report.checked[index])
            }
        }
        let resolved = await validateSchedules(primaries: primaries, into: &report)
        var assets: [MediaTarget] = []
        await validateInterstitials(
            primaries: primaries, resolved: resolved, multivariant: multivariant, into: &report, assets: &assets)
        if let media {
            let primary = MediaTarget(
                location: location, multivariant: multivariant.map { ($0, result.document) },
                media: primaries.map { ($0.uri, $0.location, $0.result) })
            await validateMedia(primary: primary, assets: assets, options: media, into: &report)
        }
        return finish(report)
    }

    /// Loads the media playlist at `location` `reloads` more times, waiting its target duration (or
    /// `interval`) in between, and checks the reload rules between each load and the next.
    ///
    /// A multivariant playlist is followed to its first variant. Watching stops early when the
    /// playlist gets EXT-X-ENDLIST.
    ///
    /// - Throws: `LoadError` when the first load fails.
    public func watch(_ location: String, reloads: Int, interval: Duration? = nil) async throws -> Report {
        var report = Report()
        let presentation: PresentationLoader.Presentation
        do {
            presentation = try await PresentationLoader(fetcher: loader).load(
                location, options: .init(selectAudio: nil))
        } catch let error as PresentationLoader.PresentationError {
            report.notes.append("nothing to watch: \(error)")
            return finish(report)
        }
        if let multivariant = presentation.multivariant {
            add(multivariant.result, location: location, to: &report)
            record(.multivariantPlaylist, location, from: 0, in: &report)
            report.notes.append("watching the first variant, \(presentation.primaryPlaylist.location)")
        }
        let target = presentation.primaryPlaylist.location
        var previous = presentation.primary
        let start = report.diagnostics.count
        add(presentation.primaryPlaylist.result, location: target, to: &report)
        record(.mediaPlaylist, target, from: start, in: &report)
        var seen = Set(report.diagnostics.map { "\($0.rule)|\($0.message)" })
        for reload in 0..<reloads {
            if previous.hasEndList {
                report.notes.append("\(target) has EXT-X-ENDLIST; stopped watching after \(reload) reloads")
                break
            }
            try await sleep(interval ?? .seconds(Int64(previous.targetDuration ?? 1)))
            let current: ParseResult
            let file = "\(target) (reload \(reload + 1))"
            do {
                (_, current) = try await loader.loadPlaylist(target)
            } catch {
                report.notes.append("reload \(reload + 1) of \(target) failed: \(Self.reason(error))")
                record(.reload, file, failure: error, in: &report)
                continue
            }
            guard case .media(let playlist) = current.playlist else { continue }
            var fresh = InterstitialValidator.validate(current)
            fresh += ReloadValidator.validate(previous: previous, current: playlist, document: current.document)
            let new = fresh.filter { seen.insert("\($0.rule)|\($0.message)").inserted }
            let start = report.diagnostics.count
            defer { record(.reload, file, from: start, in: &report) }
            if !new.isEmpty {
                var document = current.document
                document.file = file
                report.documents[file] = document
                report.diagnostics += new.map { diagnostic in
                    var diagnostic = diagnostic
                    diagnostic.location.file = file
                    return diagnostic
                }
            }
            previous = playlist
        }
        return finish(report)
    }

    // MARK: Date Range Schedules

    /// Loads and checks the Date Range Schedules of each media playlist (R27); returns each playlist
    /// with its schedules' entries as date ranges, by location.
    private func validateSchedules(
        primaries: [(uri: String, location: String, result: ParseResult)], into report: inout Report
    ) async -> [String: MediaPlaylist] {
        var resolved: [String: MediaPlaylist] = [:]
        for primary in primaries {
            guard case .media(let playlist) = primary.result.playlist,
                playlist.dateRanges.contains(where: { $0.className == DateRangeSchedule.className })
            else { continue }
            let start = report.diagnostics.count
            var store = DateRangeScheduleStore()
            _ = await PresentationLoader(fetcher: loader).loadSchedules(
                of: playlist, playlistURL: primary.location, into: &store)
            let (resolution, diagnostics) = ScheduleValidator.validate(
                playlist, in: primary.result.document, playlistURL: primary.location, documents: store.documents)
            report.diagnostics += diagnostics
            resolved[primary.location] = resolution.applied(to: playlist)
            for schedule in resolution.schedules {
                switch store.documents[schedule.identity] {
                case .failure(let error)? where error.code == .load:
                    record(.schedule, schedule.resolvedURI, failure: error, in: &report)
                case nil: continue
                default: record(.schedule, schedule.resolvedURI, interstitial: nil, from: start, in: &report)
                }
            }
        }
        return resolved
    }

    // MARK: Interstitials

    private func validateInterstitials(
        primaries: [(uri: String, location: String, result: ParseResult)], resolved: [String: MediaPlaylist],
        multivariant: MultivariantPlaylist?, into report: inout Report, assets targets: inout [MediaTarget]
    ) async {
        var checkedLists: Set<String> = []
        var checkedAssets: [String: MediaTime?] = [:]
        var checkedEvents: Set<String> = []
        for primary in primaries {
            guard case .media(let parsed) = primary.result.playlist else { continue }
            let playlist = resolved[primary.location] ?? parsed
            for range in playlist.dateRanges {
                guard let event = InterstitialEvent(dateRange: range) else { continue }
                let here = primary.result.document.location(line: range.lines[0] - 1)
                var assets: [(uri: String, duration: MediaTime?)] = []
                if let listURI = event.assetListURI {
                    let url = URIReference.resolve(listURI, against: primary.location)
                    guard checkedLists.insert(url).inserted else { continue }
                    let start = report.diagnostics.count
                    do {
                        let resource = try await loader.loadResource(url)
                        let (list, diagnostics) = AssetValidator.validateAssetList(
                            resource.bytes, url: url, eventID: event.identifier, at: here)
                        report.diagnostics += diagnostics
                        if let list {
                            assets = list.assets.map { ($0.uri, $0.duration) }
                            if let diagnostic = AssetValidator.validateDuration(
                                event, assetsDuration: list.totalDuration, at: here)
                            {
                                report.diagnostics.append(diagnostic)
                            }
                        }
                        record(.assetList, url, interstitial: event.identifier, from: start, in: &report)
                    } catch {
                        report.diagnostics.append(
                            Rule.interstitialLoad.diagnostic(
                                at: here,
                                "asset list \(url) of interstitial \"\(event.identifier)\" cannot be loaded: \(Self.reason(error))"
                            ))
                        record(.assetList, url, interstitial: event.identifier, failure: error, in: &report)
                    }
                } else if let uri = event.assetURI {
                    guard checkedEvents.insert(event.identifier).inserted else { continue }
                    assets = [(uri, nil)]
                }
                for asset in assets {
                    let url = URIReference.resolve(asset.uri, against: primary.location)
                    let duration: MediaTime?
                    if let known = checkedAssets[url] {
                        duration = known
                    } else {
                        var target = MediaTarget(
                            location: url, eventID: event.identifier, eventLocation: here, media: [])
                        duration = await validateAsset(
                            url, eventID: event.identifier, multivariant: multivariant, at: here, into: &report,
                            target: &target)
                        checkedAssets[url] = duration
                        targets.append(target)
                    }
                    if asset.duration == nil, event.assetURI != nil, let duration,
                        let diagnostic = AssetValidator.validateDuration(event, assetsDuration: duration, at: here)
                    {
                        report.diagnostics.append(diagnostic)
                    }
                }
            }
        }
    }

    /// Loads one asset and its media playlists; returns its duration (of its first variant).
    private func validateAsset(
        _ url: String, eventID: String, multivariant: MultivariantPlaylist?, at location: SourceLocation,
        into report: inout Report, target: inout MediaTarget
    ) async -> MediaTime? {
        let result: ParseResult
        let start = report.diagnostics.count
        do {
            (_, result) = try await loader.loadPlaylist(url)
        } catch {
            report.diagnostics.append(
                Rule.interstitialLoad.diagnostic(
                    at: location, "asset \(url) of interstitial \"\(eventID)\" cannot be loaded: \(Self.reason(error))")
            )
            record(.asset, url, interstitial: eventID, failure: error, in: &report)
            return nil
        }
        report.diagnostics += result.diagnostics.filter { $0.severity == .error }
        report.documents[url] = result.document
        switch result.playlist {
        case .media(let playlist):
            target.media = [(url, url, result)]
            report.diagnostics += AssetValidator.validateAssetPlaylist(
                playlist, url: url, eventID: eventID, at: location)
            if let multivariant {
                report.diagnostics += AssetValidator.validateCompatibility(
                    primary: multivariant, asset: nil, url: url, eventID: eventID, at: location)
            }
            record(.asset, url, interstitial: eventID, from: start, in: &report)
            return playlist.duration
        case .multivariant(let asset):
            target.multivariant = (asset, result.document)
            if let multivariant {
                report.diagnostics += AssetValidator.validateCompatibility(
                    primary: multivariant, asset: asset, url: url, eventID: eventID, at: location)
            }
            record(.asset, url, interstitial: eventID, from: start, in: &report)
            var duration: MediaTime?
            var seen: Set<String> = []
            let uris = asset.variants.map(\.uri) + asset.renditions.compactMap(\.uri)
            for uri in uris where seen.insert(uri).inserted {
                let mediaURL = URIReference.resolve(uri, against: url)
                let start = report.diagnostics.count
                do {
                    let (_, media) = try await loader.loadPlaylist(mediaURL)
                    report.diagnostics += media.diagnostics.filter { $0.severity == .error }
                    report.documents[mediaURL] = media.document
                    if case .media(let playlist) = media.playlist {
                        target.media.append((uri, mediaURL, media))
                        report.diagnostics += AssetValidator.validateAssetPlaylist(
                            playlist, url: mediaURL, eventID: eventID, at: location)
                        if duration == nil { duration = playlist.duration }
                    }
                    record(.assetMediaPlaylist, mediaURL, interstitial: eventID, from: start, in: &report)
                } catch {
                    report.diagnostics.append(
                        Rule.interstitialLoad.diagnostic(
                            at: location,
                            "media playlist \(mediaURL) of asset \(url) (interstitial \"\(eventID)\") cannot be loaded: \(Self.reason(error))"
                        ))
                    record(.assetMediaPlaylist, mediaURL, interstitial: eventID, failure: error, in: &report)
                }
            }
            return duration
        }
    }

    // MARK: Helpers

    /// Adds a checked resource whose diagnostics are those added to the report since `start`.
    private func record(
        _ kind: CheckedResource.Kind, _ location: String, interstitial: String? = nil, from start: Int,
        in report: inout Report
    ) {
        var checked = CheckedResource(kind: kind, location: location, interstitial: interstitial)
        for diagnostic in report.diagnostics[start...] { count(diagnostic, into: &checked) }
        report.checked.append(checked)
    }

    /// Adds a resource that could not be loaded.
    private func record(
        _ kind: CheckedResource.Kind, _ location: String, interstitial: String? = nil, failure: any Error,
        in report: inout Report
    ) {
        report.checked.append(
            CheckedResource(kind: kind, location: location, interstitial: interstitial, failure: Self.reason(failure)))
    }

    /// Why a load failed, without the location the message already names.
    static func reason(_ error: any Error) -> String {
        (error as? LoadError)?.message ?? "\(error)"
    }

    private func count(_ diagnostic: Diagnostic, into checked: inout CheckedResource) {
        switch diagnostic.severity {
        case .error: checked.errors += 1
        case .warning: checked.warnings += 1
        case .note: break
        }
    }

    private func add(_ result: ParseResult, location: String, to report: inout Report) {
        report.documents[location] = result.document
        report.diagnostics += InterstitialValidator.validate(result)
    }

    private func finish(_ report: Report) -> Report {
        var report = report
        var seen: Set<Diagnostic> = []
        report.diagnostics = report.diagnostics.filter { seen.insert($0).inserted }.sortedByLocation()
        return report
    }
}
