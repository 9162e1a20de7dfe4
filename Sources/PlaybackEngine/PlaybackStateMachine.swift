import HLSInterstitials
import HLSPlaylist
import PlaybackCoordination

/// The playback engine as a value: inputs (commands, load results, the passing of time) go in,
/// actions (loads to start, trace events, monitor notifications) come out. No I/O, no clock of its
/// own: every input carries the clock time, so a test replays hours of playback deterministically.
///
/// It follows AVFoundation's execution model (reference §2.2, §3): primary plays until it reaches an
/// event; primary then waits (reason `.interstitialEvent`) while the interstitial player plays the
/// event's assets back to back, and primary resumes at the resumption point. Where the sources leave
/// a choice it follows the behavior profile (R7–R20, R25, R26). Groups, resumption points, start
/// offsets and effective durations are the schedule's (``InterstitialSchedule``); the machine only
/// plays them. Its ``State`` says where playback is, each case with its own data; every input
/// returns an ``Outcome``.
///
/// Its parts change through their own methods: the playhead (``Playhead``), the program
/// (``Program``), the load bookkeeping (``LoadBook``), the group playing (``GroupRun``, carried by
/// ``State/interstitial(_:)``), the coordinated group (``CoordinationMachine``), the beacons
/// (``BeaconTracker``) and the variants (``VariantMachine``). The state changes only through
/// ``transition(to:because:)``, which refuses a move its ``Cause`` does not allow; that, a change
/// to the group run or to primary playback in another mode, an input the state cannot take, and a
/// loop that reaches its limit (``Configuration/transitionLimit``, ``Configuration/stepLimit``)
/// each end in a trace warning (in release builds too), never in a silent change.
package struct PlaybackStateMachine: Sendable {
    /// What a load is for.
    package enum LoadKey: Hashable, Sendable {
        /// The primary presentation (first load and live reloads).
        case primary
        /// An event's asset list.
        case assetList(String)
        /// An asset of an event: its playlist.
        case asset(String, Int)
        /// A media segment, by its identity (``PlaybackStateMachine/segmentIdentity(_:eventID:assetIndex:)``):
        /// a primary segment's URL, or an asset's segment URL with the event and asset it plays in.
        case segment(String)
        /// Another variant's media playlist (a switch), with its renditions matched to the tracks.
        case variant(Int)
        /// A Date Range Schedule's document, by the schedule's identity (R27).
        case schedule(DateRangeSchedule.Identity)
    }

    /// A load to start.
    package struct LoadRequest: Sendable, Hashable {
        /// What it is for.
        package var key: LoadKey
        /// The URL, with `_HLS_primary_id` (R19).
        package var url: String
        /// For a media segment: its source and rendition.
        package var origin: SegmentOrigin? = nil
    }

    /// An input.
    package enum Input: Sendable {
        /// A command from the application.
        case command(PlaybackCommand)
        /// The primary presentation loaded (or reloaded).
        case primaryLoaded(PrimaryPresentation)
        /// An asset list loaded.
        case assetListLoaded(String, AssetList)
        /// An asset's playlist loaded.
        case assetLoaded(String, Int, AssetMedia)
        /// A media segment loaded (its load key's identity).
        case segmentLoaded(String)
        /// A load brought `bytes` in `duration` of clock time (a throughput sample).
        case throughputMeasured(bytes: Int, duration: Duration)
        /// Another variant's media playlist loaded: playback switches to it.
        case variantLoaded(Int, PrimaryPresentation)
        /// A Date Range Schedule's document loaded and was read, or failed to (R27).
        case scheduleLoaded(DateRangeSchedule.Identity, Result<DateRangeScheduleDocument, DateRangeScheduleError>)
        /// A load failed.
        case loadFailed(LoadKey, String)
        /// A load was abandoned before it finished (the driver stopped); it may be asked for again.
        case loadCancelled(LoadKey)
        /// The player joined (true) or left (false) a coordinated group.
        case setCoordinated(Bool)
        /// Place playback where the group is: at `location` as of clock time `anchor` (nil: now),
        /// then play forward to now.
        case coordinate(CoordinatedLocation, playing: Bool, rate: Double, anchor: Duration?)
        /// Continue a handed-off session (before the primary loads).
        case restore(PlaybackSession)
        /// The session went to another player (at `to`): this one stops.
        case handedOff(to: String)
    }

    /// What the coordinator must tell its group.
    package enum Signal: Sendable, Hashable {
        /// A local command changed where or how playback moves: propose the new state.
        case changed
        /// An interstitial group whose content may vary started: the player plays it on its own.
        case suspended(String)
        /// That group ended; the player waits at `resume` for the others.
        case arrived(String, MediaTime)
    }

    /// An action for the driver.
    package enum Action: Sendable {
        /// Start a load.
        case load(LoadRequest)
        /// Record a trace event.
        case emit(PlaybackEvent)
        /// Post a monitor notification.
        case notify(InterstitialEventNotification)
        /// Drop buffered media (after a seek).
        case flush
        /// Tell the coordinated group.
        case signal(Signal)
        /// Send an ad tracking beacon (fire-and-forget; the answer goes in the trace as `beaconSent`).
        case fire(TrackingBeacon)
    }

    /// What an input led to: the actions to carry out and, for a command that was refused, why.
    package struct Outcome: Sendable {
        /// The actions, in order.
        package var actions: [Action]
        /// Why the command was refused (it also appears in the trace); nil when it was not.
        package var refusal: Refusal?
    }

    /// Where playback is.
    package enum Mode: Sendable, Equatable {
        /// Waiting for the primary presentation.
        case loading
        /// Playing (or paused in) primary.
        case primary
        /// Playing an interstitial group; primary waits.
        case interstitial
        /// Ended.
        case ended
    }

    /// A scheduled group of the schedule (R5), its members by ID.
    struct Group: Sendable, Equatable {
        /// Its first member's ID: how the group is named (coordination, R8).
        var key: String
        var cue: InterstitialEvent.Cue
        var start: MediaTime
        var members: [String]
        /// Where primary resumes after it.
        var resume: MediaTime
        /// Its playout length from the playback start point (R26).
        var playout: MediaTime

        init(
            key: String, cue: InterstitialEvent.Cue, start: MediaTime, members: [String], resume: MediaTime,
            playout: MediaTime
        ) {
            (self.key, self.cue, self.start, self.members, self.resume, self.playout) = (
                key, cue, start, members, resume, playout
            )
        }

        init(_ group: InterstitialSchedule.Group, in schedule: InterstitialSchedule) {
            members = group.members.map { schedule.events[$0].id }
            key = members[0]
            cue = group.cue
            start = group.start
            resume = group.resumeTime
            playout = group.playoutDuration
        }
    }

    /// The settings: the configuration, the item's URL, the template of interstitial items.
    var settings: Settings
    /// The clock, the primary position, the rate asked for and whether playback was asked for.
    var playhead = Playhead()
    /// Where playback is, with what each place needs; it changes only through
    /// ``transition(to:because:)``.
    package private(set) var state: State = .loading(nil)
    /// The primary presentation, its events and schedule, and what played.
    var program = Program()
    /// The load bookkeeping.
    var loads = LoadBook()
    /// The variants and renditions, the one playing and the tracks selected.
    var selection = VariantMachine()
    /// The player's part in a coordinated group.
    var coordinator = CoordinationMachine()
    /// Which ad tracking beacons have fired and which are due next.
    var beacons = BeaconTracker()
    /// The times the driver watches, and those playback crossed.
    var watches = Watches()
    /// The actions of the input being handled.
    var actions: [Action] = []

    /// Creates a machine for the item at `url`.
    package init(url: String, configuration: Configuration) {
        self.settings = Settings(
            configuration: configuration, itemURL: url,
            template: InterstitialItemTemplate(lookahead: configuration.lookahead))
    }

    // MARK: Inputs

    /// Starts: the first action loads the primary presentation. Only a machine that waits for its
    /// primary and is not loading it starts; a second start is ignored with a trace warning.
    package mutating func start() -> Outcome {
        switch state {
        case .loading where !loads.inFlight.contains(.primary):
            request(.primary, url: tagged(itemURL))
        case .loading, .primary, .interstitial, .ended, .handedOff:
            ignore("start", in: mode, because: "playback started already")
        }
        return take()
    }

    /// Handles an input at clock time `now` (time passes first). What the input does depends on the
    /// state first (``dispatch(_:)``): an input the state cannot take is not applied, and a trace
    /// warning says so (``ignore(_:in:because:)``).
    package mutating func handle(_ input: Input, at now: Duration) -> Outcome {
        move(to: now)
        let refusal = dispatch(input)
        settle()
        if let change = coordinator.takeChange() { actions.append(.signal(change)) }
        return take(refusal)
    }

    /// Lets time pass until `now`.
    package mutating func advance(to now: Duration) -> Outcome {
        move(to: now)
        settle()
        return take()
    }

    /// The next clock time at which something happens without any input (an event start, the end
    /// of an asset, a live reload); nil when nothing will.
    package var nextDeadline: Duration? {
        var deadline = loads.nextReload.flatMap { mode == .ended ? nil : $0 }
        let speed = effectiveRate
        if speed > 0, var distance = mediaBoundary() {
            distance = max(distance, MediaTime(nanoseconds: 1))
            let at = clock + Self.clockDuration(distance, rate: speed)
            deadline = min(deadline ?? at, at)
        }
        return deadline
    }

    /// The clock time at which integrated time reaches `target`, if it gets there before the next
    /// deadline at the current rate.
    package func clockTime(whenIntegratedReaches target: MediaTime) -> Duration? {
        guard let now = integratedTime, target > now else { return nil }
        let speed = effectiveRate
        guard speed > 0, integratedAdvances else { return nil }
        return clock + Self.clockDuration(target - now, rate: speed)
    }

    // MARK: Time

    /// The rate media moves at now: 0 when paused, waiting or stalled; at most 1 under SKIP (R13).
    package var effectiveRate: Double {
        guard playing, rate > 0, coordination != .held else { return 0 }
        switch state {
        case .loading, .ended, .handedOff: return 0
        case .primary(let primary): return primary.stalled || !primary.started ? 0 : rate
        case .interstitial(let run):
            guard !run.waiting, run.assetIndex != nil else { return 0 }
            return run.event.restrictions.contains(.skip) ? min(rate, 1) : rate
        }
    }

    static func clockDuration(_ media: MediaTime, rate: Double) -> Duration {
        if rate == 1 { return Duration(media) }
        return .nanoseconds(Int64((Double(media.nanoseconds) / rate).rounded(.up)))
    }

    /// Moves the playhead to clock time `now`, stopping at every transition on the way.
    mutating func move(to now: Duration) {
        settle()
        var steps = 0
        while clock < now && steps < configuration.stepLimit {
            steps += 1
            let speed = effectiveRate
            guard speed > 0 else {
                playhead.tick(to: now)
                break
            }
            let available = MediaTime(
                nanoseconds: speed == 1
                    ? (now - clock).wholeNanoseconds : Int64(Double((now - clock).wholeNanoseconds) * speed))
            if var distance = mediaBoundary(), max(distance, MediaTime(nanoseconds: 1)) <= available {
                distance = max(distance, MediaTime(nanoseconds: 1))
                step(by: distance)
                playhead.tick(to: min(now, clock + Self.clockDuration(distance, rate: speed)))
                settle()
            } else {
                step(by: available)
                playhead.tick(to: now)
            }
        }
        if clock < now {
            warnLimit("\(steps) steps of time in one input")
            playhead.tick(to: now)
        }
    }

    /// Reports that a loop stopped at its limit (``Configuration/stepLimit``,
    /// ``Configuration/transitionLimit``): a trace warning, so that a loop that would not end shows.
    mutating func warnLimit(_ what: String) {
        emit(.warning, [("message", .string("playback stopped after \(what): the limit was reached"))])
    }

    /// Moves media by `distance` in the current mode.
    mutating func step(by distance: MediaTime) {
        guard distance > .zero else { return }
        switch mode {
        case .primary:
            playhead.advance(by: distance)
            updatePrimary { $0.moved() }
        case .interstitial:
            guard let from = updateRun({ $0.play(distance) }), let current = run else { return }
            if let index = current.assetIndex {
                for watch in currentAssetWatches where from < watch.time && watch.time <= current.assetPosition {
                    watches.crossed(
                        AssetTimeWatch.Crossing(
                            key: watch.key, eventID: current.eventID, assetIndex: index, time: watch.time))
                }
            }
        default: break
        }
    }

    /// The media distance to the next transition in the current mode.
    func mediaBoundary() -> MediaTime? {
        var best: MediaTime?
        func consider(_ distance: MediaTime?) {
            guard let distance, distance >= .zero else { return }
            best = min(best ?? distance, distance)
        }
        switch mode {
        case .primary:
            guard let timeline else { return nil }
            if let next = nextGroup(after: position, inclusive: false) { consider(next.start - position) }
            consider(timeline.end - position)
            consider(bufferDistance())
            consider(integratedBoundary)
        case .interstitial:
            guard let run else { return nil }
            if let media = run.currentMedia { consider(media.duration - run.assetPosition) }
            consider(beaconDistance)
            for watch in currentAssetWatches where watch.time > run.assetPosition {
                consider(watch.time - run.assetPosition)
            }
            if let limit = playoutLimit(of: run.event) { consider(limit - run.elapsed) }
            if let window = run.skipControl.window {
                if window.start > run.elapsed { consider(window.start - run.elapsed) }
                if let end = window.end, end > run.elapsed { consider(end - run.elapsed) }
            }
            consider(integratedBoundary)
        default: return nil
        }
        return best
    }

    var integratedBoundary: MediaTime? {
        guard integratedAdvances, let now = integratedTime else { return nil }
        return watchedIntegratedTimes.filter { $0 > now }.min().map { $0 - now }
    }

    // MARK: Transitions

    /// Reports an input the state cannot take (`what`, in `mode`, and why): a trace warning; the
    /// input is not applied.
    mutating func ignore(_ what: String, in mode: Mode, because why: String) {
        emit(.warning, [("message", .string("\(what) cannot be taken in mode \(mode): \(why); it was ignored"))])
    }

    /// Moves playback to `next`: the one place the state changes. A move that `cause` does not
    /// allow from the current mode (``Cause/allows(from:to:)``), or out of a hand-off by any cause
    /// but another hand-off, is refused with a trace warning, in release builds too, and the state
    /// stays; false then.
    @discardableResult
    mutating func transition(to next: State, because cause: Cause) -> Bool {
        var handedOff = false
        if case .handedOff = state { handedOff = true }
        guard cause.allows(from: state.mode, to: next.mode), !handedOff || cause == .handedOff else {
            emit(
                .warning,
                [
                    (
                        "message",
                        .string(
                            "playback cannot go from \(state.mode) to \(next.mode) because \(cause.rawValue): the change was refused"
                        )
                    )
                ])
            return false
        }
        state = next
        return true
    }

    // MARK: Helpers

    /// Queues an action.
    mutating func emit(_ kind: PlaybackEvent.Kind, _ fields: [(name: String, value: PlaybackEvent.Value)] = []) {
        actions.append(
            .emit(PlaybackEvent(time: clock, kind: kind, primaryTime: timeline == nil ? nil : position, fields: fields))
        )
    }

    mutating func notify(_ notification: InterstitialEventNotification) { actions.append(.notify(notification)) }

    mutating func take(_ refusal: Refusal? = nil) -> Outcome {
        defer { actions = [] }
        return Outcome(actions: actions, refusal: refusal)
    }

    mutating func request(_ key: LoadKey, url: String, origin: SegmentOrigin? = nil) {
        loads.started(key)
        actions.append(.load(LoadRequest(key: key, url: url, origin: origin)))
    }

    /// `url` with `_HLS_primary_id` (R19).
    func tagged(_ url: String) -> String { Self.tagged(url, primaryID: configuration.primaryID) }

    /// `url` with `_HLS_primary_id=primaryID`, unless it has one; a file is read as it is named
    /// (R19 tags requests).
    package static func tagged(_ url: String, primaryID: String) -> String {
        guard !URIReference.isFile(url), !QueryParameters(url).names.contains("_HLS_primary_id") else { return url }
        return QueryParameters.appending("_HLS_primary_id", primaryID, to: url)
    }
}
