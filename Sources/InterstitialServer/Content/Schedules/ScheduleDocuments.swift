import HLSInterstitials
import HLSPlaylist
import Logging

/// The Date Range Schedules of the contents that write them (`interstitials: schedule`): the
/// schedule that stands for a playlist's planned breaks (``publish(_:mounted:)``), its document
/// kept for the `schedule.json` route (``document(_:query:servedPrimary:)``), and a served playlist
/// read back with its schedules' date ranges in place of their tags (``withPublished(_:content:)``).
final class ScheduleDocuments: Sendable {
    /// The primary media playlist of a content exactly as a player gets it now (the playlist route's
    /// answer, parsed); the error names the document asked for.
    typealias ServedPrimary =
        @Sendable (_ mounted: ContentLibrary.Mounted, _ name: String) async throws(APIError) ->
        MediaPlaylist

    /// The documents of the schedules written into playlists, by content and schedule ID.
    let memo: PublishedScheduleMemo
    private let logger: Logger

    /// Documents kept in `memo`; what does not fit one document is logged to `logger`.
    init(memo: PublishedScheduleMemo = PublishedScheduleMemo(), logger: Logger) {
        self.memo = memo
        self.logger = logger
    }

    /// The schedule that stands for `planned` in a playlist of `mounted`, its document kept for the
    /// `schedule.json` route; nil when the content writes plain tags (or the breaks do not fit one
    /// document: they are then written as plain tags).
    func publish(
        _ planned: [BreakPlanner.Planned], mounted: ContentLibrary.Mounted
    ) throws(APIError) -> PublishedSchedule? {
        guard mounted.content.interstitials == .schedule else { return nil }
        let schedule: PublishedSchedule?
        do {
            schedule = try PublishedSchedule.make(events: planned.map(\.event), contentPath: mounted.content.path)
        } catch {
            throw APIError(status: 502, code: .playlist, "cannot write the breaks' schedule: \(error.message)")
        }
        if let schedule {
            memo.keep(schedule, content: mounted.content.id)
        } else if planned.count > DateRangeScheduleDocument.Limits.default.maximumEntries {
            logger.warning(
                "\(mounted.content.path): \(planned.count) breaks do not fit one schedule document; written as plain tags"
            )
        }
        return schedule
    }

    /// `GET schedule.json[?id=ID]`: the document of a schedule the content's playlists name (`id`),
    /// or, without `id`, of the one its primary media playlist names now (`servedPrimary`).
    ///
    /// - Throws: 404 when the content does not publish schedules or the schedule is not known (any
    ///   longer); 400 for a malformed `id`.
    func document(
        _ mounted: ContentLibrary.Mounted, query: [String: String], servedPrimary: @escaping ServedPrimary
    ) throws(APIError) -> Pending<ContentResponse> {
        let name = mounted.content.path + "/" + PublishedSchedule.documentName
        guard mounted.content.interstitials == .schedule else {
            throw APIError.notFound(name)
        }
        let memo = memo
        if let id = query["id"] {
            guard id.hasPrefix(PublishedSchedule.identifierPrefix), id.utf8.count <= 64,
                JSONObjectReader.isIdentifier(id)
            else {
                throw APIError.badRequest(
                    code: .badPath, path: "id", "not the ID of a schedule this server writes")
            }
            @Sendable func answer(_ document: [UInt8]) -> ContentResponse {
                ContentResponse(
                    body: .bytes(document), contentType: ContentResponse.jsonType,
                    cacheControl: CachePolicy.publishedSchedule)
            }
            if let document = memo.document(content: mounted.content.id, identifier: id) {
                return .now(answer(document))
            }
            // Another replica wrote the playlist that names it (or this one has let it go): the
            // primary's playlist as served now (kept, or planned on the shared state) writes the
            // same schedule while its breaks are the same.
            return .later { () async throws(APIError) -> ContentResponse in
                _ = try await servedPrimary(mounted, name)
                guard let document = memo.document(content: mounted.content.id, identifier: id) else {
                    throw APIError.notFound(name + "?id=" + id)
                }
                return answer(document)
            }
        }
        return .later { () async throws(APIError) -> ContentResponse in
            let media = try await servedPrimary(mounted, name)
            guard let schedule = DateRangeSchedule.schedules(of: media).first,
                let document = memo.document(content: mounted.content.id, identifier: schedule.identifier)
            else { throw APIError.notFound(name) }
            return ContentResponse(
                body: .bytes(document), contentType: ContentResponse.jsonType, cacheControl: CachePolicy.noStore)
        }
    }

    /// `media`, served by `content`, with the date ranges of the schedules it names (the documents
    /// kept in ``memo``) in place of their tags.
    func withPublished(_ media: MediaPlaylist, content: ServerConfiguration.Content) -> MediaPlaylist {
        var documents: [DateRangeSchedule.Identity: Result<DateRangeScheduleDocument, DateRangeScheduleError>] = [:]
        for schedule in DateRangeSchedule.schedules(of: media) {
            guard let bytes = memo.document(content: content.id, identifier: schedule.identifier) else {
                continue
            }
            documents[schedule.identity] = Result { () throws(DateRangeScheduleError) in
                try DateRangeScheduleDocument.decode(bytes)
            }
        }
        return DateRangeScheduleResolution.resolve(playlist: media, documents: documents).applied(to: media)
    }
}
