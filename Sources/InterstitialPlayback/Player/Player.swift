import Foundation
import HLSInterstitials
import HLSLoading
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers
import PlaybackCoordination
import PlaybackEngine

/// A player of a primary HLS presentation with interstitials (AVFoundation's `AVPlayer` with an
/// interstitial event monitor, reference §2).
///
/// The logic lives in a state machine value; the player is its driver: it loads what the machine
/// asks for over HTTP, hands media to a ``MediaRenderer``, keeps time on an injected clock and
/// publishes a trace of `PlaybackEvent`s and the monitor's notifications as `AsyncSequence`s.
///
/// Drive it with ``run(until:)`` (structured: loads are child tasks). With a ``ManualClock`` the
/// player is virtual: it moves the clock from one thing that happens to the next once every load
/// has finished, so an hour of playback takes milliseconds and the trace is deterministic.
public final class Player: Sendable {
    /// Player settings.
    public struct Configuration: Sendable {
        /// The session's `_HLS_primary_id`, also sent as `X-PLAYBACK-SESSION-ID` (R19); a UUID by
        /// default.
        public var primaryID: String
        /// How far ahead of an event its asset list is requested (R18); 10 s by default.
        public var lookahead: MediaTime
        /// How much primary media is buffered ahead; 30 s by default.
        public var forwardBuffer: MediaTime
        /// Whether media segments are loaded and enqueued in the renderer (playlists and asset
        /// lists always are); on by default.
        public var loadsSegments: Bool
        /// Where primary starts (seconds from its first segment); nil: 0 for VOD, the live start
        /// point (hold back from the live edge) for live.
        public var startTime: MediaTime?
        /// The time allowed for each response (R20); 60 s by default.
        public var timeout: Duration
        /// The most redirects followed (R20); 5 by default.
        public var maximumRedirects: Int
        /// The most trace events kept in ``Player/trace`` (subscribers get all of them).
        public var traceLimit: Int
        /// The audio and subtitles to select in the primary (language, then characteristics;
        /// `TrackMatcher`); by default its DEFAULT=YES audio and no subtitles.
        public var preferredTracks: TrackSelection
        /// How the primary's variant is chosen (throughput, a peak bit rate, a pinned variant);
        /// by measured throughput without a cap by default.
        public var variantPolicy: VariantPolicy
        /// Whether the ad tracking beacons of played assets (their `X-AD-CREATIVE-SIGNALING`,
        /// SVTA2053-2) are sent; on by default.
        public var sendsBeacons = true
        /// The time allowed for each beacon; 5 s by default. Playback never waits for a beacon.
        public var beaconTimeout: Duration = .seconds(5)
        /// The most beacons sent and not yet answered; a beacon due when this many are in flight is
        /// not sent (the trace says so). 16 by default.
        public var maximumBeaconsInFlight = 16
        /// What sends the beacons; nil (the default): an HTTP GET through the player's own loading.
        public var beaconSender: (any BeaconSender)?
        /// How the time limits of network operations wait (``timeout`` for each response,
        /// ``beaconTimeout`` for each beacon): real time by default, whatever the player's clock.
        ///
        /// Not the player's clock: on a ``ManualClock`` the player moves time only once no load is in
        /// flight (loads take no clock time), so a deadline on it could never pass, and a server that
        /// never answers would hold a virtual player for ever. A test injects a sleep of its own here
        /// (one that returns when the test moves its timer past the duration asked), so that a
        /// deadline passes when the test says, whatever the machine's load.
        public var timeLimitSleep: TimeLimitSleep = { try await Task.sleep(for: $0) }

        /// Creates a configuration.
        public init(
            primaryID: String = UUID().uuidString, lookahead: MediaTime = MediaTime(seconds: 10),
            forwardBuffer: MediaTime = MediaTime(seconds: 30), loadsSegments: Bool = true,
            startTime: MediaTime? = nil, timeout: Duration = .seconds(60), maximumRedirects: Int = 5,
            traceLimit: Int = 100_000, preferredTracks: TrackSelection = TrackSelection(),
            variantPolicy: VariantPolicy = VariantPolicy()
        ) {
            self.preferredTracks = preferredTracks
            self.variantPolicy = variantPolicy
            self.primaryID = primaryID
            self.lookahead = lookahead
            self.forwardBuffer = forwardBuffer
            self.loadsSegments = loadsSegments
            self.startTime = startTime
            self.timeout = timeout
            self.maximumRedirects = maximumRedirects
            self.traceLimit = traceLimit
        }
    }

    /// Whether the player is playing, paused or waiting (`AVPlayer.TimeControlStatus`).
    public enum TimeControlStatus: String, Sendable, Hashable {
        /// Paused.
        case paused
        /// Asked to play, but waiting; see ``reasonForWaitingToPlay``.
        case waitingToPlayAtSpecifiedRate
        /// Playing.
        case playing
    }

    /// Why the player waits (`AVPlayer.WaitingReason`).
    public enum WaitingReason: String, Sendable, Hashable {
        /// Waiting for the completion of an interstitial event (`.interstitialEvent`).
        case interstitialEvent
        /// Waiting for media to load (`.toMinimizeStalls`).
        case toMinimizeStalls
        /// Waiting for the first load (`.evaluatingBufferingRate`).
        case evaluatingBufferingRate
        /// Waiting for the other participants of a coordinated group (`.waitingForCoordinatedPlayback`).
        case waitingForCoordinatedPlayback
    }

    struct State: Sendable {
        var machine: PlaybackStateMachine
        var pendingLoads: [PlaybackStateMachine.LoadRequest] = []
        var inFlight = 0
        var trace: [PlaybackEvent] = []
        var traceSubscribers: [Int: AsyncStream<PlaybackEvent>.Continuation] = [:]
        var notificationSubscribers: [Int: AsyncStream<InterstitialEventNotification>.Continuation] = [:]
        var nextSubscriber = 0
        /// Whether ``Player/shutdown()`` ran: a stream asked for later is finished at once.
        var isShutDown = false
        var scheduled: [(time: Duration, command: PlaybackCommand)] = []
        var observers = TimelineObservers()
        /// The interstitial player's boundary observers, by key (``PlaybackStateMachine/watchedAssetTimes``).
        var assetObservers: [Int: @Sendable (MediaTime) -> Void] = [:]
        var nextAssetObserver = 0
        var running = false
        var traceLimit = 100_000
        /// Where the machine's signals go while the player is in a coordinated group.
        var coordination: (@Sendable (PlaybackStateMachine.Signal) -> Void)?
        /// Ad tracking beacons due and not yet handed to a sending task.
        var pendingBeacons: [TrackingBeacon] = []
        /// Beacons sent and not yet answered.
        var beaconsInFlight = 0
    }

    /// The item it plays.
    public let currentItem: PlayerItem
    /// The player of interstitial assets (an `AVQueuePlayer` in AVFoundation).
    public let interstitialPlayer: QueuePlayer
    /// The settings.
    public let configuration: Configuration
    let state: NIOLockedValueBox<State>
    let clock: PlaybackClock
    let loader: SessionLoader
    let renderer: any MediaRenderer
    let wake: AsyncStream<Void>
    let wakeContinuation: AsyncStream<Void>.Continuation
    let logger: Logger?

    /// Creates a player for `item` on `clock` (a ``ManualClock`` makes it virtual).
    public init<C: Clock>(
        item: PlayerItem, configuration: Configuration = Configuration(), clock: C,
        renderer: any MediaRenderer = CountingRenderer(), logger: Logger? = nil
    ) where C.Duration == Duration {
        self.currentItem = item
        self.configuration = configuration
        self.clock = PlaybackClock(clock)
        self.renderer = renderer
        self.logger = logger
        self.loader = SessionLoader(configuration: configuration, logger: logger)
        var machine = PlaybackStateMachine(
            url: item.url,
            configuration: PlaybackStateMachine.Configuration(
                primaryID: configuration.primaryID, lookahead: configuration.lookahead,
                forwardBuffer: configuration.forwardBuffer, loadsSegments: configuration.loadsSegments,
                startTime: configuration.startTime))
        machine.use(configuration.variantPolicy)
        let first = machine.start()
        var initial = State(machine: machine)
        initial.traceLimit = max(1, configuration.traceLimit)
        self.state = NIOLockedValueBox(initial)
        (self.wake, self.wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.interstitialPlayer = QueuePlayer()
        interstitialPlayer.attach(self)
        item.attach(self)
        let actions = first.actions
        var callbacks: [@Sendable () -> Void] = []
        _ = state.withLockedValue { state in
            Self.carryOut(actions, in: &state, renderer: renderer, callbacks: &callbacks)
        }
        if !item.automaticallyHandlesInterstitialEvents {
            _ = perform(.setAutomaticallyHandlesInterstitialEvents(false))
        }
    }

    /// Creates a player on the continuous clock.
    public convenience init(
        item: PlayerItem, configuration: Configuration = Configuration(),
        renderer: any MediaRenderer = CountingRenderer(), logger: Logger? = nil
    ) {
        self.init(
            item: item, configuration: configuration, clock: ContinuousClock(), renderer: renderer, logger: logger)
    }

    /// Shuts the HTTP client down. Call it when done with the player.
    public func shutdown() async {
        // Finished outside the lock: finishing runs the streams' termination handlers, which lock.
        let (traces, notifications, timelines) = state.withLockedValue { state in
            defer {
                state.isShutDown = true
                state.traceSubscribers = [:]
                state.notificationSubscribers = [:]
                state.observers.outOfSync = [:]
                state.observers.periodic = [:]
                state.observers.boundary = [:]
            }
            return (
                Array(state.traceSubscribers.values), Array(state.notificationSubscribers.values),
                Array(state.observers.outOfSync.values)
            )
        }
        for continuation in traces { continuation.finish() }
        for continuation in notifications { continuation.finish() }
        for continuation in timelines { continuation.finish() }
        await loader.shutdown()
    }

    // MARK: Control

    /// Plays (`play()`).
    public func play() { perform(.play) }

    /// Pauses (`pause()`).
    public func pause() { perform(.pause) }

    /// The rate; setting it plays (0 pauses). A rate above 1 is refused while an interstitial with
    /// X-RESTRICT=SKIP plays (R13).
    public var rate: Double {
        get { state.withLockedValue { $0.machine.playing ? $0.machine.rate : 0 } }
        set { perform(.setRate(newValue)) }
    }

    /// Seeks primary to `time`; false when a restriction refused it.
    @discardableResult
    public func seek(to time: MediaTime) -> Bool {
        accepts(.seek(time))
    }

    /// Seeks primary to `date`; false when refused or the primary has no dates.
    @discardableResult
    public func seek(to date: DateTime) -> Bool {
        accepts(.seekToDate(date))
    }

    /// Applies a command now and returns the trace events it produced.
    @discardableResult
    public func perform(_ command: PlaybackCommand) -> [PlaybackEvent] { handle(.command(command)) }

    /// Hands an input to the machine now and returns the trace events it produced.
    @discardableResult
    func handle(_ input: PlaybackStateMachine.Input) -> [PlaybackEvent] { submit(input).events }

    /// Hands an input to the machine now; returns the trace events it produced and, for a refused
    /// command, why.
    func submit(
        _ input: PlaybackStateMachine.Input
    ) -> (events: [PlaybackEvent], refusal: PlaybackStateMachine.Refusal?) {
        let now = clock.now()
        var callbacks: [@Sendable () -> Void] = []
        let result = state.withLockedValue { state in
            let outcome = state.machine.handle(input, at: now)
            return (
                Self.carryOut(outcome.actions, in: &state, renderer: renderer, callbacks: &callbacks), outcome.refusal
            )
        }
        for callback in callbacks { callback() }
        wakeContinuation.yield()
        return result
    }

    /// Applies a command now; false when the machine refused it.
    func accepts(_ command: PlaybackCommand) -> Bool { submit(.command(command)).refusal == nil }

    /// Applies `command` when the clock reaches `time` (since the player was created).
    public func schedule(_ command: PlaybackCommand, at time: Duration) {
        state.withLockedValue { state in
            state.scheduled.append((time, command))
            state.scheduled.sort { $0.time < $1.time }
        }
        wakeContinuation.yield()
    }

    // MARK: State

    /// The primary position (`currentTime()`); during an interstitial, where primary waits.
    public var currentTime: MediaTime { state.withLockedValue { $0.machine.position } }

    /// The date at the primary position, when the primary has dates.
    public var currentDate: DateTime? { state.withLockedValue { $0.machine.currentDate } }

    /// Whether the player plays, waits or is paused.
    public var timeControlStatus: TimeControlStatus {
        state.withLockedValue { state in
            let machine = state.machine
            guard machine.playing, machine.mode != .ended else { return .paused }
            if machine.held || machine.mode == .interstitial || machine.mode == .loading || machine.effectiveRate == 0 {
                return .waitingToPlayAtSpecifiedRate
            }
            return .playing
        }
    }

    /// Why the player waits: `.interstitialEvent` while an interstitial plays.
    public var reasonForWaitingToPlay: WaitingReason? {
        guard timeControlStatus == .waitingToPlayAtSpecifiedRate else { return nil }
        return state.withLockedValue { state in
            if state.machine.held { return .waitingForCoordinatedPlayback }
            return switch state.machine.mode {
            case .interstitial: .interstitialEvent
            case .loading: .evaluatingBufferingRate
            default: .toMinimizeStalls
            }
        }
    }

    /// Loads only the primary presentation at `url` and tells whether it is live (no EXT-X-ENDLIST),
    /// to pick a clock before playing. Throws the load error.
    public static func isLive(url: String, configuration: Configuration = Configuration()) async throws -> Bool {
        let loader = SessionLoader(configuration: configuration, logger: nil)
        do {
            let presentation = try await loader.loadPrimary(
                PlaybackStateMachine.tagged(url, primaryID: configuration.primaryID), mediaOnly: false,
                primaryID: configuration.primaryID)
            await loader.shutdown()
            return presentation.media.isLive
        } catch {
            await loader.shutdown()
            throw error
        }
    }

    /// Where playback is, in the terms a coordinated group shares.
    public var coordinatedLocation: CoordinatedLocation { state.withLockedValue { $0.machine.coordinatedLocation } }

    /// The primary's selected audio and subtitles; interstitial assets select renditions that match
    /// them.
    public var tracks: TrackSelection { state.withLockedValue { $0.machine.tracks } }

    /// The session as it is now, to continue on another player (``Player/init(session:configuration:clock:renderer:logger:)``).
    public func session() -> PlaybackSession {
        state.withLockedValue { $0.machine.session(url: currentItem.url) }
    }

    /// Whether the primary is live (no EXT-X-ENDLIST); nil until it has loaded.
    public var isLive: Bool? { state.withLockedValue { $0.machine.timeline.map(\.isLive) } }

    /// Whether playback has ended.
    public var hasEnded: Bool { state.withLockedValue { $0.machine.mode == .ended } }

    /// The trace so far (the most recent ``Configuration/traceLimit`` events).
    public var trace: [PlaybackEvent] { state.withLockedValue { $0.trace } }

    /// Clock time since the player was created.
    public var clockTime: Duration { clock.now() }

    /// The trace as it happens, from now on; it finishes at ``shutdown()``.
    public func traceEvents() -> AsyncStream<PlaybackEvent> { subscribe(\.traceSubscribers) }

    /// The monitor's notifications, from now on.
    func notifications() -> AsyncStream<InterstitialEventNotification> { subscribe(\.notificationSubscribers) }

    /// A new stream registered in one of the subscriber tables, removed when it terminates.
    private func subscribe<Element: Sendable>(
        _ table: WritableKeyPath<State, [Int: AsyncStream<Element>.Continuation]> & Sendable
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        let id = state.withLockedValue { state -> Int? in
            guard !state.isShutDown else { return nil }
            state.nextSubscriber += 1
            state[keyPath: table][state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        // Asked for after the shutdown: nothing more comes, and a reader must not wait for ever.
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLockedValue { $0[keyPath: table].removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: Actions

    /// Carries out the machine's actions under the lock; returns the trace events among them.
    @discardableResult
    static func carryOut(
        _ actions: [PlaybackStateMachine.Action], in state: inout State, renderer: any MediaRenderer,
        callbacks: inout [@Sendable () -> Void]
    ) -> [PlaybackEvent] {
        var events: [PlaybackEvent] = []
        for action in actions {
            switch action {
            case .load(let request): state.pendingLoads.append(request)
            case .emit(let event):
                events.append(event)
                state.trace.append(event)
                for continuation in state.traceSubscribers.values { continuation.yield(event) }
            case .notify(let notification):
                for continuation in state.notificationSubscribers.values { continuation.yield(notification) }
            case .flush: renderer.flush()
            case .signal(let signal):
                if let coordination = state.coordination { callbacks.append { coordination(signal) } }
            case .fire(let beacon): state.pendingBeacons.append(beacon)
            }
        }
        if state.trace.count > state.traceLimit { state.trace.removeFirst(state.trace.count - state.traceLimit) }
        for crossing in state.machine.takeCrossedAssetTimes() {
            if let block = state.assetObservers[crossing.key] { callbacks.append { block(crossing.time) } }
        }
        state.observers.update(machine: state.machine, callbacks: &callbacks)
        state.machine.watch(integratedTimes: state.observers.watchedTimes)
        return events
    }
}
