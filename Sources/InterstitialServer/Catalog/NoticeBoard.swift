import HLSInterstitials
import HLSPlaylist

/// The early notices of live breaks (``BreakNotice``): what `POST`, `GET` and `DELETE
/// /admin/v1/channels/{id}/upcoming` do, checked inside the store transaction, and their expiry.
///
/// Bounds: a notice starts after now and at most ``longestLead`` (6 h, as Google DAI's early ad
/// break notification) ahead; it lasts more than 0 and at most ``longestDuration`` (3,600 s); a
/// channel has at most `limits.noticesPerChannel` notices, which do not overlap one another. A
/// notice expires at its start plus its duration plus `limits.noticeTolerance`
/// (``BreakNotice/expiry(tolerance:)``): ``expire(at:)`` removes it, counted as `matched` when a
/// signalled break took its ID, else `unmatched`.
struct NoticeBoard: Sendable {
    /// A notice as asked for: its start (`in` seconds from now, or `at`), duration and ID.
    struct Request: Sendable {
        /// When the break is expected.
        var start: DateTime
        /// How long it is expected to last.
        var duration: MediaTime
        /// The ID (default: `notice-` and the start's milliseconds since 1970).
        var id: String?
    }

    /// How far ahead a notice may start at most: 6 h.
    static let longestLead = MediaTime(seconds: 6 * 3600)
    /// The longest notice: 3,600 s (as a break now).
    static let longestDuration = MediaTime(seconds: 3600)

    let configuration: ServerConfiguration
    let state: ServerState

    /// Reads a request body at `now`: exactly one of `in` (seconds, more than 0) and `at` (ISO 8601
    /// with a time zone), `duration` (seconds), optional `id` (an identifier starting with `notice-`).
    ///
    /// - Throws: 400 `json-schema` with the member's path; 400 `notice-time` for a start not after
    ///   `now` or more than ``longestLead`` ahead.
    static func request(_ body: JSONValue, now: DateTime) throws(APIError) -> Request {
        var reader = try JSONObjectReader(body, path: "")
        let lead = try reader.seconds("in")
        let at = try reader.date("at")
        let duration = try reader.requiredSeconds("duration")
        let id = try reader.string("id")
        try reader.finish()
        let start: DateTime
        let key: String
        switch (lead, at) {
        case (let lead?, nil):
            start = now + lead
            key = "in"
        case (nil, let at?):
            start = at
            key = "at"
        case (nil, nil):
            throw reader.error("in", "missing: give \"in\" (seconds from now) or \"at\" (an ISO 8601 date)")
        case (_?, _?):
            throw reader.error("at", "give \"in\" or \"at\", not both")
        }
        guard start > now, start - now <= longestLead else {
            throw APIError.badRequest(
                code: .noticeTime, path: key,
                "a notice starts after now and at most \(Int(longestLead.seconds)) seconds (6 hours) ahead")
        }
        guard duration > .zero, duration <= longestDuration else {
            throw reader.error("duration", "must be more than 0 and at most \(Int(longestDuration.seconds)) seconds")
        }
        if let id {
            guard JSONObjectReader.isIdentifier(id), id.hasPrefix(BreakNotice.idPrefix),
                id.utf8.count > BreakNotice.idPrefix.utf8.count
            else {
                throw reader.error(
                    "id",
                    "\"\(id.prefix(80))\" is not a notice ID: \(BreakNotice.idPrefix) and up to 57 of A-Z a-z 0-9 - _ ."
                )
            }
        }
        return Request(start: start, duration: duration, id: id)
    }

    /// Stores a notice of `channel`'s break.
    ///
    /// - Throws: 409 `not-signalled` for a channel without `signals`, `exists` for an ID in use (a
    ///   notice, a break or a served date range of the channel), `break-in-progress` when it
    ///   overlaps another notice, `limit-reached` when the channel has `noticesPerChannel` notices.
    func announce(
        _ channel: ServerConfiguration.Content, _ request: Request, now: DateTime
    ) async throws(APIError) -> BreakNotice {
        guard channel.signals == .scte35 else {
            throw APIError.conflict(
                code: .notSignalled,
                "live channel \"\(channel.id)\" does not convert signalled breaks (\"signals\": \"scte35\"): no cue could take the notice"
            )
        }
        let target = Target(.live, channel.id)
        var start = request.start
        start.utcOffsetSeconds = 0
        let id = request.id ?? BreakNotice.idPrefix + String(start.nanosecondsSinceEpoch / 1_000_000)
        let notice = BreakNotice(target: target, id: id, start: start, duration: request.duration)
        let tolerance = configuration.limits.noticeTolerance
        let limit = configuration.limits.noticesPerChannel
        return try await state.change { transaction in
            let stored = transaction.state
            guard stored.notices[notice.key] == nil, stored.breaks[id] == nil, stored.served[notice.key] == nil else {
                throw APIError.conflict(code: .exists, "\"\(id)\" of \(target) exists")
            }
            let others = Self.notices(of: target, stored, now: now, tolerance: tolerance)
            let end = notice.start + notice.duration
            if let other = others.first(where: { $0.start < end && notice.start < $0.start + $0.duration }) {
                throw APIError.conflict(
                    code: .breakInProgress,
                    "notice \"\(other.id)\" of \(target) overlaps [\(notice.start.iso8601), +\(notice.duration) s)")
            }
            guard others.count < limit else {
                throw APIError.conflict(
                    code: .limitReached, "\(target) has \(limit) notices (limits.noticesPerChannel); delete one first")
            }
            transaction.apply(.saveNotice(notice))
            return notice
        }
    }

    /// Removes a notice no break has taken yet.
    ///
    /// - Throws: 404 when it is not there; 409 `served-break` when a signalled break was served
    ///   under its ID (the date range stays as served).
    func withdraw(_ channel: ServerConfiguration.Content, id: String) async throws(APIError) {
        let key = ServedKey(Target(.live, channel.id), id)
        try await state.change { transaction in
            guard transaction.state.notices[key] != nil else {
                throw APIError.notFound("notice \"\(id)\" of \(key.target)")
            }
            guard transaction.state.served[key] == nil else {
                throw APIError.conflict(
                    code: .servedBreak, "a signalled break of \(key.target) was served as \"\(id)\": it stays")
            }
            transaction.apply(.deleteNotice(key))
        }
    }

    /// The notices of `channel` not expired at `now`, by start: each as ``BreakNotice/jsonValue``
    /// with `expires` and `state` (`pending`, or `matched` once a signalled break was served under
    /// its ID).
    func list(_ channel: ServerConfiguration.Content, now: DateTime) -> JSONValue {
        let target = Target(.live, channel.id)
        let snapshot = state.snapshot
        let tolerance = configuration.limits.noticeTolerance
        return .object([
            "upcoming": .array(
                Self.notices(of: target, snapshot, now: now, tolerance: tolerance).map { notice in
                    guard case .object(var fields) = notice.jsonValue else { return notice.jsonValue }
                    fields["expires"] = .string(notice.expiry(tolerance: tolerance).iso8601)
                    fields["state"] = .string(snapshot.served[notice.key] == nil ? "pending" : "matched")
                    return .object(fields)
                })
        ])
    }

    /// Removes the notices expired at `now`.
    ///
    /// - Returns: how many a signalled break had taken (`matched`) and how many none had (`unmatched`).
    @discardableResult
    func expire(at now: DateTime) async throws -> (matched: Int, unmatched: Int) {
        let tolerance = configuration.limits.noticeTolerance
        guard state.snapshot.notices.values.contains(where: { $0.expiry(tolerance: tolerance) <= now }) else {
            return (0, 0)
        }
        return try await state.update { transaction in
            var counts = (matched: 0, unmatched: 0)
            for notice in transaction.state.notices.values where notice.expiry(tolerance: tolerance) <= now {
                if transaction.state.served[notice.key] == nil { counts.unmatched += 1 } else { counts.matched += 1 }
                transaction.apply(.deleteNotice(notice.key))
            }
            return counts
        }
    }

    /// The notices of `target` in `state` not expired at `now`, by start then ID.
    static func notices(
        of target: Target, _ state: StoredState, now: DateTime, tolerance: MediaTime
    ) -> [BreakNotice] {
        state.notices.values.filter { $0.target == target && $0.expiry(tolerance: tolerance) > now }
            .sorted { ($0.start.nanosecondsSinceEpoch, $0.id) < ($1.start.nanosecondsSinceEpoch, $1.id) }
    }
}

extension BreakNotice {
    /// Its key among the channel's date ranges. (Here, not in the model: the model is also compiled
    /// alone, into the fuzzers, without the store's types.)
    public var key: ServedKey { ServedKey(target, id) }
}
