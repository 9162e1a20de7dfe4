import HLSPlaylist

/// A playlist's date ranges with its Date Range Schedules followed: each schedule's entries stand
/// where its tag stands, as if their tags were in the playlist (profile R27).
///
/// Pure: the documents are given, loaded or failed, by schedule ``DateRangeSchedule/Identity``.
/// A schedule with no document yet is ``pending`` (load it now); one whose document failed, or was
/// refused whole, adds nothing.
public struct DateRangeScheduleResolution: Sendable, Hashable {
    /// A date range of the resolved playlist and the schedule it came from.
    public struct ScheduledDateRange: Sendable, Hashable {
        /// The date range, as if its tag were in the playlist (lines: its schedule tag's).
        public var dateRange: DateRange
        /// The ID of the schedule tag whose document held it; nil for the playlist's own tags.
        public var scheduleIdentifier: String?

        /// Creates a scheduled date range.
        public init(dateRange: DateRange, scheduleIdentifier: String? = nil) {
            self.dateRange = dateRange
            self.scheduleIdentifier = scheduleIdentifier
        }
    }

    /// A problem of one schedule: its document's or one entry's.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// The schedule tag's ID.
        public var scheduleIdentifier: String
        /// What is wrong, with its code and JSON path in the schedule's document.
        public var error: DateRangeScheduleError

        /// Creates a problem.
        public init(scheduleIdentifier: String, error: DateRangeScheduleError) {
            self.scheduleIdentifier = scheduleIdentifier
            self.error = error
        }

        /// `schedule "id": [code] path: message`.
        public var description: String { "schedule \"\(scheduleIdentifier)\": [\(error.code)] \(error.description)" }
    }

    /// A Preload tag (App. F) whose X-TARGET-CLASS is the schedule class: load the document it names
    /// at a point of its range (as for any preload hint), under ``identity``, so that the schedule tag
    /// finds it loaded when it appears.
    public struct Preload: Sendable, Hashable {
        /// The Preload date range.
        public var hint: PreloadDateRange
        /// The identity the document is loaded under: X-TARGET-ID and X-URI resolved.
        public var identity: DateRangeSchedule.Identity
    }

    /// The date ranges in tag order, each schedule's entries right after its tag, in document order.
    public var dateRanges: [ScheduledDateRange]
    /// Every schedule followed, in the order met (nested ones after their parent's entries begin).
    public var schedules: [DateRangeSchedule]
    /// The schedules with no document yet: to load.
    public var pending: [DateRangeSchedule]
    /// What was left out, in order.
    public var problems: [Problem]
    /// The Preload tags that target a schedule.
    public var preloads: [Preload]

    /// The interstitial events, in tag order, each with its ``InterstitialEvent/scheduleIdentifier``.
    public var events: [InterstitialEvent] {
        dateRanges.compactMap { scheduled in
            guard var event = InterstitialEvent(dateRange: scheduled.dateRange) else { return nil }
            event.scheduleIdentifier = scheduled.scheduleIdentifier
            return event
        }
    }

    /// `playlist` with its date ranges replaced by the resolved ones, for what reads a playlist.
    public func applied(to playlist: MediaPlaylist) -> MediaPlaylist {
        var resolved = playlist
        resolved.dateRanges = dateRanges.map(\.dateRange)
        return resolved
    }

    /// Follows the schedules of `playlist`.
    ///
    /// - An entry dated by X-SCHEDULE-OFFSET starts at its schedule tag's START-DATE plus the offset.
    /// - An entry whose ID is a date range of the playlist, or an entry met earlier, is left out
    ///   (`schedule-entry-collision`).
    /// - An entry of the schedule class is followed while fewer than `policy.maximumDepth` levels
    ///   are open, else left out (`schedule-nested`).
    /// - A failed document adds nothing (its error is a problem); a document's own problems (bad
    ///   entries) are reported here too.
    ///
    /// - Parameters:
    ///   - playlist: the media playlist.
    ///   - playlistURL: its URL, against which schedule X-URIs are resolved (nested: against their
    ///     parent's document URI).
    ///   - documents: what loading each schedule gave, by identity; an absent one is pending.
    ///   - policy: the choices of R27.
    public static func resolve(
        playlist: MediaPlaylist, playlistURL: String? = nil,
        documents: [DateRangeSchedule.Identity: Result<DateRangeScheduleDocument, DateRangeScheduleError>],
        policy: DateRangeSchedulePolicy = .profile
    ) -> DateRangeScheduleResolution {
        var resolution = DateRangeScheduleResolution(
            dateRanges: [], schedules: [], pending: [], problems: [], preloads: [])
        var identifiers = Set(playlist.dateRanges.map(\.id))
        func expand(_ schedule: DateRangeSchedule, depth: Int) {
            resolution.schedules.append(schedule)
            func problem(_ error: DateRangeScheduleError) {
                resolution.problems.append(Problem(scheduleIdentifier: schedule.identifier, error: error))
            }
            let document: DateRangeScheduleDocument
            switch documents[schedule.identity] {
            case nil:
                resolution.pending.append(schedule)
                return
            case .failure(let error)?:
                problem(error)
                return
            case .success(let loaded)?: document = loaded
            }
            document.problems.forEach(problem)
            for entry in document.entries {
                guard !identifiers.contains(entry.identifier) else {
                    problem(
                        DateRangeScheduleError(
                            code: .entryCollision, path: "\(entry.path).ID",
                            "\"\(Diagnostic.clipped(entry.identifier))\" is already a date range of the playlist or of an earlier schedule; left out"
                        ))
                    continue
                }
                let nested = entry.className == DateRangeSchedule.className
                if nested, depth >= policy.maximumDepth {
                    problem(
                        DateRangeScheduleError(
                            code: .nested, path: entry.path,
                            "a schedule inside a schedule is not followed (at most \(policy.maximumDepth) level(s), profile R27); left out"
                        ))
                    continue
                }
                guard
                    let range = DateRange(
                        attributes: entry.tagAttributes(scheduleStart: schedule.startDate), lines: schedule.lines,
                        timeline: playlist)
                else { continue }
                identifiers.insert(entry.identifier)
                resolution.dateRanges.append(
                    ScheduledDateRange(dateRange: range, scheduleIdentifier: schedule.identifier))
                if nested {
                    if let inner = DateRangeSchedule(dateRange: range, playlistURL: schedule.resolvedURI) {
                        expand(inner, depth: depth + 1)
                    } else {
                        let what = DateRangeSchedule.violations(of: range).map(\.attribute).joined(separator: ", ")
                        problem(
                            DateRangeScheduleError(
                                code: .nested, path: entry.path, "a nested schedule that cannot be followed (\(what))"))
                    }
                }
            }
        }
        for range in playlist.dateRanges {
            resolution.dateRanges.append(ScheduledDateRange(dateRange: range))
            if let schedule = DateRangeSchedule(dateRange: range, playlistURL: playlistURL) {
                expand(schedule, depth: 1)
            } else if let hint = PreloadDateRange(dateRange: range), hint.targetClass == DateRangeSchedule.className {
                let uri = playlistURL.map { URIReference.resolve(hint.uri, against: $0) } ?? hint.uri
                resolution.preloads.append(
                    Preload(hint: hint, identity: DateRangeSchedule.Identity(identifier: hint.targetID, uri: uri)))
            }
        }
        return resolution
    }
}
