import HLSInterstitials
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers

/// Writes the Date Range Schedules of an upstream's media playlist as plain date ranges
/// (`flattenSchedules`), for players that do not read schedules.
///
/// Each schedule's document is fetched with the upstream's limits (``UpstreamClient/fetchBytes(_:)``:
/// allowed origins, one slot per origin, the playlist byte cap and timeout), decoded within
/// ``DateRangeScheduleDocument/Limits/default`` and resolved with the pure resolution (profile R27):
/// entries become date ranges where the schedule tag stood, the schedule tags are left out, a
/// document that fails adds nothing (logged once per identity, counted in `hlsi_schedule_loads_total`).
/// The documents one playlist names are fetched concurrently, so a render waits one
/// ``ServerLimits/upstreamTimeout`` at most, not one per document. A document loaded is kept by
/// identity (at most ``limit``), so a live playlist's schedule is fetched once, not on every reload;
/// a failed one is remembered for ``failureMemory`` (on the server's clock) before it is tried again.
///
/// Bounded in total (issue 42, item 7): at most ``scheduleTagLimit`` schedule tags are followed, at
/// most ``entryLimit`` date ranges are written into one playlist, and the flattened playlist is at
/// most ``ServerLimits/upstreamPlaylistBytes``; beyond any of them the playlist is a 502
/// `upstream-too-large`.
final class UpstreamScheduleFlattener: Sendable {
    private let upstream: UpstreamClient
    private let logger: Logger
    private let metrics: ServerMetrics
    private let now: @Sendable () -> DateTime
    private let documents = NIOLockedValueBox<[DateRangeSchedule.Identity: DateRangeScheduleDocument]>([:])
    /// Documents that failed, with when and why; tried again ``failureMemory`` after.
    private let failures = NIOLockedValueBox<
        [DateRangeSchedule.Identity: (at: DateTime, error: DateRangeScheduleError)]
    >(
        [:])
    /// The most documents kept, and the most failures remembered; when full, each starts again empty.
    let limit: Int

    /// The most schedule tags of one playlist whose documents are followed.
    static let scheduleTagLimit = 16
    /// The most date ranges the schedules of one playlist write into it, all documents together.
    static let entryLimit = 1000
    /// How long a document that failed is not fetched again (its schedule adds nothing meanwhile).
    static let failureMemory = MediaTime(seconds: 30)

    init(
        upstream: UpstreamClient, logger: Logger, metrics: ServerMetrics, now: @escaping @Sendable () -> DateTime,
        limit: Int = 256
    ) {
        self.upstream = upstream
        self.logger = logger
        self.metrics = metrics
        self.now = now
        self.limit = max(0, limit)
    }

    /// `result` (fetched from `url`) with its schedules written as plain date ranges; `result` itself
    /// when it names none.
    ///
    /// - Throws: 502 (`upstream-too-large`) beyond ``scheduleTagLimit`` schedule tags,
    ///   ``entryLimit`` date ranges or ``ServerLimits/upstreamPlaylistBytes``; 502 (`playlist`) when
    ///   the flattened playlist cannot be written.
    func flatten(_ result: ParseResult, url: String) async throws(APIError) -> ParseResult {
        guard case .media(let playlist) = result.playlist else { return result }
        let schedules = DateRangeSchedule.schedules(of: playlist, playlistURL: url)
        guard !schedules.isEmpty else { return result }
        guard schedules.count <= Self.scheduleTagLimit else {
            throw APIError(
                status: 502, code: .upstreamTooLarge,
                "\(url) names \(schedules.count) Date Range Schedules; at most \(Self.scheduleTagLimit) are followed")
        }
        let identities = Array(Set(schedules.map(\.identity)))
        let (loaded, fetched) = await documents(identities)
        let resolution = DateRangeScheduleResolution.resolve(playlist: playlist, playlistURL: url, documents: loaded)
        // Logged when a document was fetched for this render, not on every render that reuses it.
        if fetched {
            for problem in resolution.problems {
                logger.warning("\(url): \(problem)")
            }
        }
        return try Self.flattened(
            result, resolution: resolution, url: url, byteLimit: upstream.configuration.limits.upstreamPlaylistBytes)
    }

    /// The documents of `identities`, kept, remembered as failed, or fetched concurrently; and
    /// whether any was fetched.
    private func documents(
        _ identities: [DateRangeSchedule.Identity]
    ) async -> ([DateRangeSchedule.Identity: Result<DateRangeScheduleDocument, DateRangeScheduleError>], Bool) {
        var loaded: [DateRangeSchedule.Identity: Result<DateRangeScheduleDocument, DateRangeScheduleError>] = [:]
        var missing: [DateRangeSchedule.Identity] = []
        let at = now()
        for identity in identities {
            if let kept = documents.withLockedValue({ $0[identity] }) {
                loaded[identity] = .success(kept)
            } else if let failure = failures.withLockedValue({ $0[identity] }), at < failure.at + Self.failureMemory {
                loaded[identity] = .failure(failure.error)
            } else {
                missing.append(identity)
            }
        }
        guard !missing.isEmpty else { return (loaded, false) }
        await withTaskGroup(
            of: (DateRangeSchedule.Identity, Result<DateRangeScheduleDocument, DateRangeScheduleError>).self
        ) { group in
            for identity in missing {
                group.addTask { (identity, await self.fetch(identity)) }
            }
            for await (identity, result) in group { loaded[identity] = result }
        }
        return (loaded, true)
    }

    /// The document of `identity`, fetched and decoded; kept when loaded, remembered when it failed
    /// (logged only when it was not already remembered as failed).
    private func fetch(
        _ identity: DateRangeSchedule.Identity
    ) async -> Result<DateRangeScheduleDocument, DateRangeScheduleError> {
        let result: Result<DateRangeScheduleDocument, DateRangeScheduleError>
        do {
            let bytes = try await upstream.fetchBytes(identity.uri)
            result = Result { () throws(DateRangeScheduleError) in try DateRangeScheduleDocument.decode(bytes) }
        } catch {
            result = .failure(DateRangeScheduleError(code: .load, "\(error.code): \(error.message)"))
        }
        let limit = limit
        switch result {
        case .success(let document):
            metrics.scheduleLoad(result: "loaded")
            failures.withLockedValue { _ = $0.removeValue(forKey: identity) }
            if limit > 0 {
                documents.withLockedValue { kept in
                    if kept.count >= limit { kept.removeAll(keepingCapacity: true) }
                    kept[identity] = document
                }
            }
        case .failure(let error):
            metrics.scheduleLoad(result: "failed")
            let at = now()
            let known = failures.withLockedValue { failures in
                let known = failures[identity] != nil
                if !known, failures.count >= max(1, limit) { failures.removeAll(keepingCapacity: true) }
                failures[identity] = (at, error)
                return known
            }
            if !known { logger.warning("the schedule \(identity) adds nothing: [\(error.code)] \(error.message)") }
        }
        return result
    }

    /// `result` with its schedule tags removed and the date ranges their documents gave written
    /// where their START-DATE falls (as the server writes its own), parsed again.
    ///
    /// - Throws: 502 (`upstream-too-large`) for more than ``entryLimit`` date ranges or a playlist
    ///   larger than `byteLimit`; 502 (`playlist`) when the date ranges cannot be written.
    static func flattened(
        _ result: ParseResult, resolution: DateRangeScheduleResolution, url: String, byteLimit: Int
    ) throws(APIError) -> ParseResult {
        let entries = resolution.dateRanges.filter {
            $0.scheduleIdentifier != nil && $0.dateRange.className != DateRangeSchedule.className
        }
        guard entries.count <= entryLimit else {
            throw APIError(
                status: 502, code: .upstreamTooLarge,
                "the schedules of \(url) give \(entries.count) date ranges; at most \(entryLimit) are written into one playlist"
            )
        }
        var document = result.document
        document.lines.removeAll { line in
            guard let tag = line.content.tag, tag.name == "EXT-X-DATERANGE",
                let attributes = tag.value.attributes
            else { return false }
            return attributes["CLASS"]?.quotedString == DateRangeSchedule.className
        }
        let file = result.document.file
        let stripped = PlaylistParser.parse(document.write(), options: ParseOptions(file: file))
        guard !entries.isEmpty else { return stripped }
        let output: [UInt8]
        do {
            output = try InterstitialInserter.insert(
                events: [], dateRanges: entries.map(\.dateRange.attributes), into: stripped
            ).document.write()
        } catch {
            throw APIError(status: 502, code: .playlist, "cannot flatten the schedules of \(file): \(error.message)")
        }
        guard output.count <= byteLimit else {
            throw APIError(
                status: 502, code: .upstreamTooLarge,
                "\(url) with its schedules flattened is \(output.count) bytes, more than the \(byteLimit) allowed (upstreamPlaylistBytes)"
            )
        }
        return PlaylistParser.parse(output, options: ParseOptions(file: file))
    }
}
