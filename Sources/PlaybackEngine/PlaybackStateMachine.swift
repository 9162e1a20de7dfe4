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

        init(_ group: InterstitialSchedule.Group, in schedule: InterstitialSchedule) {
            members = group.members.map { schedule.events[$0].id }
            key = members[0]
            cue = group.cue
            start = group.start
            resume = group.resumeTime
            playout = group.playoutDuration
        }
    }

    enum ListState: Sendable, Equatable {
        case requested
        case loaded(AssetList)
        case failed(String)
    }

    enum AssetState: Sendable, Equatable {
        case requested
        case loaded(AssetMedia)
        case failed(String)
    }

    /// The settings the machine reads.
    let configuration: Configuration
    /// The URL of the item.
    let itemURL: String
    /// The clock time of the last input.
    package internal(set) var clock: Duration = .zero
    /// The primary presentation once loaded.
    package internal(set) var timeline: PrimaryTimeline?
    /// The controller's events; nil: the server's.
    package internal(set) var controllerEvents: [InterstitialEvent]?
    /// `automaticallyHandlesInterstitialEvents`.
    package internal(set) var automaticallyHandles = true
    var lists: [String: ListState] = [:]
    var listURLs: [String: String] = [:]
    var assets: [String: [Int: AssetState]] = [:]
    var played: [String: MediaTime] = [:]
    /// ONCE events whose playback has started (R9).
    var exhausted: Set<String> = []
    /// Groups that resumed before their start and wait for the playhead to move back before them (R8).
    var suppressed: Set<String> = []
    /// The schedule of the active events.
    package internal(set) var schedule: InterstitialSchedule?
    /// Where playback starts (the VOD start position or the live join point, R26).
    var startPoint: MediaTime?
    var groups: [Group] = []
    /// Where playback is, with what each place needs.
    package internal(set) var state: State = .loading(nil)
    /// Primary position (the suspended position during an interstitial).
    package internal(set) var position: MediaTime = .zero
    /// The rate asked for.
    package internal(set) var rate: Double = 1
    /// Whether playback was asked for (`play()` or a non-zero rate).
    package internal(set) var playing = false
    var inFlight: Set<LoadKey> = []
    var bufferLoad: LoadKey?
    var nextReload: Duration?
    /// The segments loaded and failed, by identity (``segmentIdentity(_:eventID:assetIndex:)``).
    var loadedSegments: Set<String> = []
    var failedSegments: Set<String> = []
    /// The point of each preload hint at which its load starts (App. F: a random point of its range).
    var preloadPoints: [String: MediaTime] = [:]
    /// The target event of each preload hint whose load was issued, by hint ID: discarded if the
    /// hint is removed before the event plays (App. F).
    var preloaded: [String: String] = [:]
    /// Events whose preloaded content is discarded when its load completes (the hint was removed).
    var discardOnArrival: Set<String> = []
    /// The primary's selected renditions.
    package internal(set) var tracks = TrackSelection()
    /// The renditions the primary offers.
    var renditions: [Rendition] = []
    /// The player's part in a coordinated group.
    package internal(set) var coordination: Coordination = .off
    /// The primary's variants (empty for a media playlist) and the one playing.
    package internal(set) var variants: [PrimaryVariant] = []
    package internal(set) var variantIndex: Int?
    /// Variants whose playlist failed to load: not chosen again.
    var failedVariants: Set<Int> = []
    /// The measured throughput.
    package internal(set) var throughput = ThroughputEstimator()
    /// How the variant is chosen; the driver sets it (the next input applies it).
    package var variantPolicy = VariantPolicy()
    /// The configuration of interstitial items; the driver sets it (the next input applies it).
    package var template: InterstitialItemTemplate
    var actions: [Action] = []
    var signalChange = false
    /// Which ad tracking beacons have fired and which are due next.
    var beacons = BeaconTracker()

    /// Creates a machine for the item at `url`.
    package init(url: String, configuration: Configuration) {
        self.itemURL = url
        self.configuration = configuration
        self.template = InterstitialItemTemplate(lookahead: configuration.lookahead)
    }

    // MARK: Inputs

    /// Starts: the first action loads the primary presentation.
    package mutating func start() -> Outcome {
        request(.primary, url: tagged(itemURL))
        return take()
    }

    /// Handles an input at clock time `now` (time passes first).
    package mutating func handle(_ input: Input, at now: Duration) -> Outcome {
        move(to: now)
        var refusal: Refusal?
        switch input {
        case .command(let command):
            let following = coordination == .following
            refusal = apply(command)
            if following, refusal == nil, command.isTiming { signalChange = true }
        case .setCoordinated(let on):
            coordination = on ? (coordination == .off ? .following : coordination) : .off
        case .coordinate(let location, let playing, let rate, let anchor):
            coordinate(location, playing: playing, rate: rate, anchor: anchor, continuing: false)
        case .restore(let session): restore(session)
        case .handedOff(let target):
            playing = false
            state = .ended
            emit(.handedOff, [("to", .string(target))])
        case .primaryLoaded(let presentation): primaryLoaded(presentation)
        case .assetListLoaded(let id, let list): assetListLoaded(id, list)
        case .assetLoaded(let id, let index, let media):
            inFlight.remove(.asset(id, index))
            finishBufferLoad(.asset(id, index))
            if index == 0, discardOnArrival.remove(id) != nil {
                assets[id]?.removeValue(forKey: 0)
            } else {
                assets[id, default: [:]][index] = .loaded(media)
                recompute()
            }
        case .segmentLoaded(let url):
            inFlight.remove(.segment(url))
            finishBufferLoad(.segment(url))
            loadedSegments.insert(url)
        case .throughputMeasured(let bytes, let duration): throughput.add(bytes: bytes, duration: duration)
        case .variantLoaded(let index, let presentation): variantLoaded(index, presentation)
        case .loadFailed(let key, let message): loadFailed(key, message)
        case .loadCancelled(let key):
            inFlight.remove(key)
            finishBufferLoad(key)
            if case .assetList(let id) = key { lists.removeValue(forKey: id) }
            if case .asset(let id, let index) = key { assets[id]?.removeValue(forKey: index) }
        }
        settle()
        if signalChange {
            signalChange = false
            actions.append(.signal(.changed))
        }
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
        var deadline = nextReload.flatMap { mode == .ended ? nil : $0 }
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
        case .loading, .ended: return 0
        case .primary(let primary): return primary.stalled || !primary.started ? 0 : rate
        case .interstitial(let run):
            guard !run.waiting, run.assetIndex != nil else { return 0 }
            return run.event.restrictions.contains(.skip) ? min(rate, 1) : rate
        }
    }

    static func clockDuration(_ media: MediaTime, rate: Double) -> Duration {
        if rate == 1 { return .nanoseconds(media.nanoseconds) }
        return .nanoseconds(Int64((Double(media.nanoseconds) / rate).rounded(.up)))
    }

    package static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }

    /// Moves the playhead to clock time `now`, stopping at every transition on the way.
    mutating func move(to now: Duration) {
        settle()
        var guardCount = 0
        while clock < now && guardCount < 100_000 {
            guardCount += 1
            let speed = effectiveRate
            guard speed > 0 else {
                clock = now
                break
            }
            let available = MediaTime(
                nanoseconds: speed == 1
                    ? Self.nanoseconds(now - clock) : Int64(Double(Self.nanoseconds(now - clock)) * speed))
            if var distance = mediaBoundary(), max(distance, MediaTime(nanoseconds: 1)) <= available {
                distance = max(distance, MediaTime(nanoseconds: 1))
                step(by: distance)
                clock = min(now, clock + Self.clockDuration(distance, rate: speed))
                settle()
            } else {
                step(by: available)
                clock = now
            }
        }
        if clock < now { clock = now }
    }

    /// Moves media by `distance` in the current mode.
    mutating func step(by distance: MediaTime) {
        guard distance > .zero else { return }
        switch mode {
        case .primary:
            position = position + distance
            primary?.handledKey = nil
        case .interstitial:
            guard var current = run else { return }
            let from = current.assetPosition
            current.elapsed = current.elapsed + distance
            current.assetPosition = current.assetPosition + distance
            if let index = current.assetIndex {
                for watch in currentAssetWatches where from < watch.time && watch.time <= current.assetPosition {
                    crossedAssetTimes.append(
                        AssetTimeWatch.Crossing(
                            key: watch.key, eventID: current.eventID, assetIndex: index, time: watch.time))
                }
            }
            run = current
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
            if let limit = playoutLimit(of: run) { consider(limit - run.elapsed) }
            if let window = run.skipControl.window {
                if window.start > run.elapsed { consider(window.start - run.elapsed) }
                if let end = window.end, end > run.elapsed { consider(end - run.elapsed) }
            }
            consider(integratedBoundary)
        default: return nil
        }
        return best
    }

    /// Integrated-time boundaries the driver watches (observers), as media distances.
    package var watchedIntegratedTimes: [MediaTime] = []
    /// Times in interstitial assets the driver watches (the interstitial player's boundary
    /// observers), by the driver's key: playback stops at each so none is passed over.
    package var watchedAssetTimes: [Int: AssetTimeWatch] = [:]
    /// The watched asset times playback crossed since the driver took them.
    package var crossedAssetTimes: [AssetTimeWatch.Crossing] = []

    var integratedBoundary: MediaTime? {
        guard integratedAdvances, let now = integratedTime else { return nil }
        return watchedIntegratedTimes.filter { $0 > now }.min().map { $0 - now }
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
        inFlight.insert(key)
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

    mutating func finishBufferLoad(_ key: LoadKey) {
        if bufferLoad == key { bufferLoad = nil }
    }
}
