import Foundation
import HLSInterstitials
import HLSPlaylist
import MediaTiming

extension StreamValidator {
    /// A presentation whose segments are read: the primary, or one interstitial's asset.
    struct MediaTarget {
        /// The multivariant or media playlist it starts from.
        var location: String
        /// The interstitial it is an asset of; nil for the primary.
        var eventID: String?
        /// The interstitial's EXT-X-DATERANGE, where asset-wide diagnostics point.
        var eventLocation: SourceLocation?
        /// Its multivariant playlist, when it has one.
        var multivariant: (playlist: MultivariantPlaylist, document: PlaylistDocument)?
        /// Its media playlists: the URI written, the resolved location and the parse result.
        var media: [(uri: String, location: String, result: ParseResult)]
    }

    /// The state of one media run: the budget spent and the initialization segments read.
    struct MediaRun {
        let options: MediaValidationOptions
        var bytes = 0
        var exhausted = false
        /// Parsed initialization segments (or why not) by URL and byte range.
        var initSegments: [String: Result<InitSegment, MediaFailure>] = [:]

        /// Whether another download may start.
        mutating func mayDownload() -> Bool {
            if bytes >= options.maximumBytes { exhausted = true }
            return !exhausted
        }
    }

    /// Why a segment could not be measured.
    struct MediaFailure: Error, Sendable {
        var message: String
    }

    /// One segment to read: where it is and the initialization segment it needs.
    struct SegmentPlan: Sendable {
        var index: Int
        var uri: String
        var line: Int
        var extinf: Double
        var discontinuity: Bool
        var url: String
        var range: Range<Int>?
        var initKey: String?
    }

    /// Reads the segments of the primary and of every asset, and checks the media rules.
    func validateMedia(
        primary: MediaTarget, assets: [MediaTarget], options: MediaValidationOptions, into report: inout Report
    ) async {
        var run = MediaRun(options: options)
        var media = MediaReport()
        media.sample = options.sample
        let primaryMeasured = await measure(primary, run: &run, into: &report, media: &media)
        for asset in assets {
            let measured = await measure(asset, run: &run, into: &report, media: &media)
            if let eventID = asset.eventID, let location = asset.eventLocation {
                report.diagnostics += MediaValidator.validateAssetMedia(
                    primary: primaryMeasured, asset: measured, eventID: eventID, at: location)
            }
        }
        media.bytesDownloaded = run.bytes
        media.budgetExhausted = run.exhausted
        if run.exhausted {
            report.notes.append(
                "the media download budget of \(options.maximumBytes) bytes was reached; later segments were not read")
        }
        report.media = media
    }

    /// Reads and checks the media playlists of one presentation, then its variants' bit rates.
    private func measure(
        _ target: MediaTarget, run: inout MediaRun, into report: inout Report, media: inout MediaReport
    ) async -> [MeasuredPlaylist] {
        // Subtitles (WebVTT) and closed captions carry no timing this reads.
        let untimed = Set(
            target.multivariant?.playlist.renditions.filter { $0.type != "AUDIO" && $0.type != "VIDEO" }
                .compactMap(\.uri) ?? [])
        var measuredByLocation: [String: MeasuredPlaylist] = [:]
        var documents: [String: PlaylistDocument] = [:]
        var results: [MeasuredPlaylist] = []
        for entry in target.media where !untimed.contains(entry.uri) {
            guard case .media(let playlist) = entry.result.playlist, measuredByLocation[entry.location] == nil
            else { continue }
            let measured = await measurePlaylist(
                playlist, location: entry.location, eventID: target.eventID, run: &run, into: &report)
            let independent =
                playlist.independentSegments || (target.multivariant?.playlist.independentSegments ?? false)
            let start = report.diagnostics.count
            report.diagnostics += MediaValidator.validatePlaylist(
                measured, playlist: playlist, document: entry.result.document, independentSegments: independent,
                options: run.options)
            let found = report.diagnostics[start...]
            for segment in measured.segments {
                var checked = CheckedResource(
                    kind: .segment, location: URIReference.resolve(segment.uri, against: entry.location),
                    interstitial: target.eventID)
                for diagnostic in found
                where diagnostic.location.file == entry.result.document.file && diagnostic.location.line == segment.line
                {
                    switch diagnostic.severity {
                    case .error: checked.errors += 1
                    case .warning: checked.warnings += 1
                    case .note: break
                    }
                }
                report.checked.append(checked)
            }
            measuredByLocation[entry.location] = measured
            documents[entry.location] = entry.result.document
            results.append(measured)
        }
        media.playlists += results
        if let multivariant = target.multivariant {
            var variants: [MediaReport.Variant] = []
            var pairs: Set<[String]> = []
            for variant in multivariant.playlist.variants {
                guard let main = measuredByLocation[URIReference.resolve(variant.uri, against: target.location)]
                else { continue }
                let audio = multivariant.playlist.renditions.filter {
                    $0.type == "AUDIO" && $0.groupID == variant.audio && variant.audio != nil
                }
                .compactMap {
                    $0.uri.flatMap { measuredByLocation[URIReference.resolve($0, against: target.location)] }
                }
                func sum(_ value: (MeasuredPlaylist) -> Int?) -> Int? {
                    guard let base = value(main) else { return nil }
                    return base + (audio.compactMap(value).max() ?? 0)
                }
                for rendition in audio where pairs.insert([main.location, rendition.location]).inserted {
                    guard let document = documents[rendition.location] else { continue }
                    report.diagnostics += MediaValidator.validateRenditionStart(
                        video: main, audio: rendition, audioDocument: document, options: run.options)
                }
                let audioNames = audio.map(\.location)
                variants.append(
                    MediaReport.Variant(
                        playlist: target.location, uri: variant.uri, line: variant.line,
                        bandwidth: variant.bandwidth.map { Int(clamping: $0) },
                        averageBandwidth: variant.averageBandwidth.map { Int(clamping: $0) },
                        measuredPeak: sum(\.peakBitrate), measuredAverage: sum(\.averageBitrate),
                        playlists: [main.location]
                            + (audioNames.isEmpty ? [] : ["max(\(audioNames.joined(separator: ", ")))"])
                    ))
            }
            report.diagnostics += MediaValidator.validateVariants(
                variants, document: multivariant.document, options: run.options)
            media.variants += variants
        }
        return results
    }

    /// Downloads and reads the chosen segments of one media playlist (and their initialization segments).
    private func measurePlaylist(
        _ playlist: MediaPlaylist, location: String, eventID: String?, run: inout MediaRun, into report: inout Report
    ) async -> MeasuredPlaylist {
        var measured = MeasuredPlaylist(
            location: location, interstitial: eventID, segmentCount: playlist.segments.count,
            targetDuration: playlist.targetDuration.map { Int(clamping: $0) })
        // Byte ranges without an offset continue the previous range of the same resource.
        var plans: [SegmentPlan] = []
        var rangeEnds: [String: Int] = [:]
        var maps: [String: MediaInitializationSection] = [:]
        for (index, segment) in playlist.segments.enumerated() {
            let url = URIReference.resolve(segment.uri, against: location)
            var range: Range<Int>?
            if let byteRange = segment.byteRange {
                let offset = byteRange.offset.map { Int(clamping: $0) } ?? rangeEnds[url] ?? 0
                let end = offset.addingReportingOverflow(Int(clamping: byteRange.length))
                range = offset..<(end.overflow ? Int.max : end.partialValue)
                rangeEnds[url] = range?.upperBound
            }
            var initKey: String?
            if let map = segment.map {
                let mapURL = URIReference.resolve(map.uri, against: location)
                let key = mapURL + (map.byteRange.map { "#\($0.offset ?? 0)+\($0.length)" } ?? "")
                if maps[key] == nil { maps[key] = map }
                initKey = key
            }
            plans.append(
                SegmentPlan(
                    index: index, uri: segment.uri, line: segment.line, extinf: segment.duration.seconds,
                    discontinuity: segment.discontinuity, url: url, range: range, initKey: initKey))
        }
        // The chosen segments, grouped by resource (byte ranges of one file are downloaded once).
        var jobs: [(url: String, plans: [SegmentPlan])] = []
        var jobIndex: [String: Int] = [:]
        for index in run.options.selectedIndexes(count: plans.count, includeFirst: eventID != nil) {
            let segment = playlist.segments[index]
            if segment.gap || segment.keys.contains(where: { $0.method.uppercased() != "NONE" }) {
                measured.skipped += 1
                continue
            }
            let plan = plans[index]
            if let existing = jobIndex[plan.url] {
                jobs[existing].plans.append(plan)
            } else {
                jobIndex[plan.url] = jobs.count
                jobs.append((plan.url, [plan]))
            }
        }
        // Initialization segments first: every segment of a rendition needs the same one or few.
        for key in Set(jobs.flatMap { $0.plans.compactMap(\.initKey) }).sorted() where run.initSegments[key] == nil {
            guard run.mayDownload() else { break }
            guard let map = maps[key] else { continue }
            let url = URIReference.resolve(map.uri, against: location)
            var checked = CheckedResource(kind: .initSegment, location: url, interstitial: eventID)
            do {
                let resource = try await loader.loadResource(url)
                run.bytes += resource.bytes.count
                var bytes = resource.bytes[...]
                if let byteRange = map.byteRange {
                    let offset = Int(clamping: byteRange.offset ?? 0)
                    let length = Int(clamping: byteRange.length)
                    guard offset <= bytes.count, length <= bytes.count - offset else {
                        throw MediaFailure(
                            message: "its byte range \(byteRange) is outside the \(bytes.count) bytes of \(url)")
                    }
                    bytes = bytes[offset..<(offset + length)]
                }
                run.initSegments[key] = .success(try MediaTimingParser.parseInitSegment(Array(bytes)))
            } catch let error as MediaTimingError {
                run.initSegments[key] = .failure(MediaFailure(message: "cannot be read: \(error)"))
            } catch let error as MediaFailure {
                run.initSegments[key] = .failure(error)
            } catch {
                run.initSegments[key] = .failure(MediaFailure(message: "cannot be loaded: \(Self.reason(error))"))
            }
            if case .failure(let failure) = run.initSegments[key] { checked.failure = failure.message }
            report.checked.append(checked)
        }
        let initSegments = run.initSegments
        // The segments, at most `concurrency` resources at a time, within the byte budget.
        var segments: [MeasuredPlaylist.Segment] = []
        var spent = run.bytes
        var exhausted = run.exhausted
        var notRead = 0
        let loader = loader
        let options = run.options
        await withTaskGroup(of: (bytes: Int, segments: [MeasuredPlaylist.Segment]).self) { group in
            var next = 0
            var running = 0
            while next < jobs.count || running > 0 {
                while next < jobs.count, running < options.concurrency {
                    if spent >= options.maximumBytes { exhausted = true }
                    if exhausted {
                        notRead += jobs[next...].map(\.plans.count).reduce(0, +)
                        next = jobs.count
                        break
                    }
                    let job = jobs[next]
                    next += 1
                    running += 1
                    group.addTask { await Self.read(job.url, job.plans, initSegments: initSegments, loader: loader) }
                }
                guard let result = await group.next() else { break }
                running -= 1
                spent += result.bytes
                segments += result.segments
            }
        }
        run.bytes = spent
        run.exhausted = exhausted
        measured.skipped += notRead
        measured.segments = segments.sorted { $0.index < $1.index }
        return measured
    }

    /// Downloads one resource and reads each segment in it.
    private static func read(
        _ url: String, _ plans: [SegmentPlan], initSegments: [String: Result<InitSegment, MediaFailure>],
        loader: PlaylistLoader
    ) async -> (bytes: Int, segments: [MeasuredPlaylist.Segment]) {
        func failed(_ plan: SegmentPlan, _ message: String) -> MeasuredPlaylist.Segment {
            MeasuredPlaylist.Segment(
                index: plan.index, uri: plan.uri, line: plan.line, extinf: plan.extinf,
                discontinuity: plan.discontinuity, failure: message)
        }
        let resource: PlaylistLoader.Resource
        do {
            resource = try await loader.loadResource(url)
        } catch {
            return (0, plans.map { failed($0, "cannot be loaded: \(reason(error))") })
        }
        var segments: [MeasuredPlaylist.Segment] = []
        for plan in plans {
            var bytes = resource.bytes[...]
            if let range = plan.range {
                guard range.upperBound <= bytes.count else {
                    segments.append(
                        failed(
                            plan,
                            "its byte range \(range.lowerBound)-\(range.upperBound - 1) is outside the \(bytes.count) bytes of \(url)"
                        ))
                    continue
                }
                bytes = bytes[range]
            }
            var initSegment: InitSegment?
            if let key = plan.initKey {
                switch initSegments[key] {
                case .success(let value): initSegment = value
                case .failure(let failure):
                    segments.append(failed(plan, "its initialization segment \(failure.message)"))
                    continue
                case nil:
                    segments.append(failed(plan, "its initialization segment was not read (download budget)"))
                    continue
                }
            }
            var segment = MeasuredPlaylist.Segment(
                index: plan.index, uri: plan.uri, line: plan.line, extinf: plan.extinf,
                discontinuity: plan.discontinuity, byteCount: bytes.count)
            if bytes.starts(with: Array("WEBVTT".utf8))
                || bytes.starts(with: [0xEF, 0xBB, 0xBF] + Array("WEBVTT".utf8))
            {
                // WebVTT carries no timing this reads; its size still counts for the bit rate.
                segments.append(segment)
                continue
            }
            do {
                let timing = try MediaTimingParser.parse(Array(bytes), initSegment: initSegment)
                segment.format = timing.format
                segment.tracks = timing.tracks
                segment.readerWarnings = timing.warnings.count
            } catch {
                segment.failure = "cannot be read: \(error)"
            }
            segments.append(segment)
        }
        return (resource.bytes.count, segments)
    }
}
