import HLSPlaylist

extension InterstitialSchedule {
    /// Resolves events against a primary playlist: start times, resumption points, playout lengths
    /// and the items of the playout, following the behavior profile.
    ///
    /// - R1: START-DATE maps to primary time through the segment that contains it.
    /// - R3, R4: the resumption offset is X-RESUME-OFFSET, else the effective duration
    ///   min(X-PLAYOUT-LIMIT, D), D being the resolved assets' total, DURATION, END-DATE − START-DATE,
    ///   PLANNED-DURATION, or the time played once known (which wins); client events default to 0,
    ///   and an indefinite offset is the time played.
    /// - R5: events sharing a start, or starting inside the primary range their group skips, form one
    ///   group whose offsets add up.
    /// - R6: X-SNAP OUT moves the start to the nearest segment boundary (ties: earlier; several
    ///   playlists: the earliest), IN moves the resumption point (ties: later; several: the latest).
    /// - R7: an empty asset list plays nothing and resumes at X-RESUME-OFFSET or 0; a failed load
    ///   plays nothing and resumes at 0.
    /// - R8: a group that resumes before its start is not played again.
    /// - R9: PRE plays before primary, POST after its end (and resumes nowhere: its `resumeTime` is
    ///   the end of primary).
    /// - R22, R23: events after the end of a VOD primary get no item; live durations are indefinite.
    public static func resolve(_ input: ScheduleInput) -> InterstitialSchedule {
        let primary = input.primary
        let startOfPrimary = primary.segments.first?.startTime ?? .zero
        let endOfPrimary = primary.segments.last?.endTime ?? startOfPrimary
        let playlists = [primary] + input.otherPlaylists

        // Start, playout length and offset of each event.
        var events: [Event] = []
        var placed: [(index: Int, start: MediaTime, cue: InterstitialEvent.Cue)] = []
        for (index, event) in input.events.enumerated() {
            let id = event.identifier
            var start: MediaTime
            var problem: String?
            switch event.cue {
            case .join: start = startOfPrimary
            case .leave: start = endOfPrimary
            case .none:
                if let time = event.time {
                    start = time
                } else if let date = event.date, let time = primary.time(at: date) {
                    start = time
                } else {
                    start = startOfPrimary
                    problem =
                        event.date == nil
                        ? "it has neither a time nor a START-DATE"
                        : "its START-DATE cannot be placed: the playlist has no EXT-X-PROGRAM-DATE-TIME"
                }
                if event.alignsStartWithPrimarySegmentBoundary,
                    let snapped = snap(start, in: playlists, preferLater: false)
                {
                    start = snapped
                }
            }
            let failed = input.failedEvents.contains(id)
            let played = input.playedDurations[id]
            let nothing = failed || event.assetList.map { $0.assets.isEmpty } == true
            var length: MediaTime
            if nothing {
                length = .zero
            } else if let played {
                length = played
            } else {
                let known =
                    event.assetList.map(\.totalDuration) ?? event.duration
                    ?? event.endDate.flatMap { end in event.date.map { end - $0 } } ?? event.plannedDuration ?? .zero
                length = event.playoutLimit.map { min($0, known) } ?? known
            }
            // An END-DATE before START-DATE (or a negative time played) plays nothing; times saturate,
            // so every range below has lowerBound <= upperBound whatever the input.
            length = max(length, .zero)
            let offset: MediaTime
            switch event.resumptionOffset {
            case .time(let value)?: offset = failed ? .zero : value
            case .indefinite?: offset = failed ? .zero : length
            case nil: offset = nothing ? .zero : length
            }
            let reachable: Bool
            switch event.cue {
            case .join: reachable = true
            case .leave: reachable = !input.isLive
            case .none:
                reachable = problem == nil && start >= startOfPrimary && (input.isLive || start <= endOfPrimary)
            }
            events.append(
                Event(
                    event: event, start: start, resumeTime: start + offset, resumptionOffset: offset,
                    playoutDuration: length, isScheduled: reachable, problem: problem))
            if reachable { placed.append((index, start, event.cue)) }
        }

        // Groups in playout order: PRE first, then by start (tag order among equal starts), POST last.
        func rank(_ cue: InterstitialEvent.Cue) -> Int { cue == .join ? 0 : cue == .leave ? 2 : 1 }
        placed.sort { a, b in
            if rank(a.cue) != rank(b.cue) { return rank(a.cue) < rank(b.cue) }
            if a.start != b.start { return a.start < b.start }
            return a.index < b.index
        }
        var groups: [[Int]] = []
        var groupStart = MediaTime.zero
        var groupResume = MediaTime.zero
        var groupCue = InterstitialEvent.Cue.none
        for entry in placed {
            let joins =
                !groups.isEmpty && entry.cue == groupCue
                && (entry.start == groupStart
                    || (entry.cue == .none && entry.start > groupStart && entry.start < groupResume))
            if joins {
                groups[groups.count - 1].append(entry.index)
            } else {
                groups.append([entry.index])
                groupStart = entry.start
                groupResume = entry.start
                groupCue = entry.cue
            }
            // After POST there is no primary left to resume into.
            if entry.cue != .leave { groupResume = groupResume + events[entry.index].resumptionOffset }
            var resume = groupResume
            if input.events[entry.index].alignsResumptionWithPrimarySegmentBoundary,
                let snapped = snap(resume, in: playlists, preferLater: true)
            {
                resume = snapped
                groupResume = snapped
            }
            events[entry.index].resumeTime = resume
        }

        // Items.
        var items: [Item] = []
        var cursor = startOfPrimary
        var playout = MediaTime.zero
        var integrated = MediaTime.zero
        func addPrimary(to end: MediaTime) {
            guard end > cursor else { return }
            let length = end - cursor
            items.append(
                Item(
                    kind: .primary, eventIndex: nil, primary: cursor..<end, playout: playout..<(playout + length),
                    integrated: integrated..<(integrated + length)))
            playout = playout + length
            integrated = integrated + length
            cursor = end
        }
        for group in groups {
            let first = events[group[0]]
            if first.event.cue == .leave { addPrimary(to: endOfPrimary) } else { addPrimary(to: first.start) }
            var from = first.event.cue == .leave ? max(cursor, first.start) : first.start
            for index in group {
                let event = events[index]
                let length = event.playoutDuration
                let drawn = event.event.timelineOccupancy == .fill ? length : .zero
                let to = event.event.cue == .join ? from + event.resumptionOffset : event.resumeTime
                items.append(
                    Item(
                        kind: .interstitial, eventIndex: index, primary: min(from, to)..<max(from, to),
                        playout: playout..<(playout + length), integrated: integrated..<(integrated + drawn)))
                playout = playout + length
                integrated = integrated + drawn
                from = to
            }
            cursor = from
        }
        addPrimary(to: endOfPrimary)
        let live = input.isLive
        return InterstitialSchedule(
            events: events, items: items, primaryDuration: live ? nil : endOfPrimary - startOfPrimary,
            playoutDuration: live ? nil : playout, integratedDuration: live ? nil : integrated, isLive: live)
    }

    /// The segment boundary nearest `time` across `playlists` (R6): per playlist the nearest one
    /// (ties: earlier, or later with `preferLater`), then the earliest (OUT) or latest (IN) of those.
    /// Nil when `time` is outside every playlist's range.
    package static func snap(_ time: MediaTime, in playlists: [MediaPlaylist], preferLater: Bool) -> MediaTime? {
        var candidates: [MediaTime] = []
        for playlist in playlists {
            guard let first = playlist.segments.first, let last = playlist.segments.last,
                time >= first.startTime, time <= last.endTime
            else { continue }
            var low = 0
            var high = playlist.segments.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if playlist.segments[middle].startTime <= time { low = middle } else { high = middle - 1 }
            }
            let before = playlist.segments[low].startTime
            let after = playlist.segments[low].endTime
            let toBefore = time - before
            let toAfter = after - time
            candidates.append(toBefore < toAfter || (toBefore == toAfter && !preferLater) ? before : after)
        }
        return preferLater ? candidates.max() : candidates.min()
    }
}
