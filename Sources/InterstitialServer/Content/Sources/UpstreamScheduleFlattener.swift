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
/// document that fails adds nothing (logged, counted in `hlsi_schedule_loads_total`). A document
/// loaded is kept by identity (at most ``limit``), so a live playlist's schedule is fetched once,
/// not on every reload; a failed one is tried again on a later reload.
final class UpstreamScheduleFlattener: Sendable {
    private let upstream: UpstreamClient
    private let logger: Logger
    private let metrics: ServerMetrics
    private let documents = NIOLockedValueBox<[DateRangeSchedule.Identity: DateRangeScheduleDocument]>([:])
    /// The most documents kept; when full, it starts again empty.
    let limit: Int

    init(upstream: UpstreamClient, logger: Logger, metrics: ServerMetrics, limit: Int = 256) {
        self.upstream = upstream
        self.logger = logger
        self.metrics = metrics
        self.limit = max(0, limit)
    }

    /// `result` (fetched from `url`) with its schedules written as plain date ranges; `result` itself
    /// when it names none.
    ///
    /// - Throws: 502 (`playlist`) when the flattened playlist cannot be written.
    func flatten(_ result: ParseResult, url: String) async throws(APIError) -> ParseResult {
        guard case .media(let playlist) = result.playlist else { return result }
        let schedules = DateRangeSchedule.schedules(of: playlist, playlistURL: url)
        guard !schedules.isEmpty else { return result }
        var loaded: [DateRangeSchedule.Identity: Result<DateRangeScheduleDocument, DateRangeScheduleError>] = [:]
        for schedule in schedules {
            loaded[schedule.identity] = await document(schedule.identity)
        }
        let resolution = DateRangeScheduleResolution.resolve(playlist: playlist, playlistURL: url, documents: loaded)
        for problem in resolution.problems {
            logger.warning("\(url): \(problem)")
        }
        return try Self.flattened(result, resolution: resolution)
    }

    /// The document of `identity`: kept, or fetched and decoded (a failure is not kept).
    private func document(
        _ identity: DateRangeSchedule.Identity
    ) async -> Result<DateRangeScheduleDocument, DateRangeScheduleError> {
        if let kept = documents.withLockedValue({ $0[identity] }) { return .success(kept) }
        let result: Result<DateRangeScheduleDocument, DateRangeScheduleError>
        do {
            let bytes = try await upstream.fetchBytes(identity.uri)
            result = Result { () throws(DateRangeScheduleError) in try DateRangeScheduleDocument.decode(bytes) }
        } catch {
            result = .failure(DateRangeScheduleError(.load, "\(error.code): \(error.message)"))
        }
        switch result {
        case .success(let document):
            metrics.scheduleLoad(result: "loaded")
            if limit > 0 {
                documents.withLockedValue { kept in
                    if kept.count >= limit { kept.removeAll(keepingCapacity: true) }
                    kept[identity] = document
                }
            }
        case .failure(let error):
            metrics.scheduleLoad(result: "failed")
            logger.warning("the schedule \(identity) adds nothing: [\(error.code)] \(error.message)")
        }
        return result
    }

    /// `result` with its schedule tags removed and the date ranges their documents gave written
    /// where their START-DATE falls (as the server writes its own), parsed again.
    static func flattened(
        _ result: ParseResult, resolution: DateRangeScheduleResolution
    ) throws(APIError) -> ParseResult {
        var document = result.document
        document.lines.removeAll { line in
            guard let tag = line.content.tag, tag.name == "EXT-X-DATERANGE",
                let attributes = tag.value.attributes
            else { return false }
            return attributes["CLASS"]?.quotedString == DateRangeSchedule.className
        }
        let entries = resolution.dateRanges.filter {
            $0.scheduleIdentifier != nil && $0.dateRange.className != DateRangeSchedule.className
        }
        let file = result.document.file
        let stripped = PlaylistParser.parse(document.write(), options: ParseOptions(file: file))
        guard !entries.isEmpty else { return stripped }
        do {
            let output = try InterstitialInserter.insert(
                events: [], dateRanges: entries.map(\.dateRange.attributes), into: stripped)
            return PlaylistParser.parse(output.document.write(), options: ParseOptions(file: file))
        } catch {
            throw APIError(status: 502, code: .playlist, "cannot flatten the schedules of \(file): \(error.message)")
        }
    }
}
