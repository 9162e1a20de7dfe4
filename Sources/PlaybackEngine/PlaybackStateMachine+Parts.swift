import HLSInterstitials
import HLSPlaylist
import PlaybackCoordination

extension PlaybackStateMachine {
    /// The settings the machine plays by; the driver's change through their own methods.
    struct Settings: Sendable {
        /// The settings the machine reads.
        let configuration: Configuration
        /// The URL of the item.
        let itemURL: String
        /// The configuration of interstitial items; the driver sets it (the next input applies it).
        private(set) var template: InterstitialItemTemplate
        /// How skip button labels are found; the driver sets it.
        private(set) var skipLabels = SkipControlLabels()

        /// Creates the settings of the item at `itemURL`.
        init(configuration: Configuration, itemURL: String, template: InterstitialItemTemplate) {
            (self.configuration, self.itemURL, self.template) = (configuration, itemURL, template)
        }

        /// The driver set the configuration of interstitial items: what is planned, loaded and
        /// limited from the next input on follows it; what already played stays.
        mutating func adopt(_ template: InterstitialItemTemplate) { self.template = template }

        /// The driver set how skip button labels are found: the next label reported uses it.
        mutating func adopt(_ labels: SkipControlLabels) { skipLabels = labels }
    }

    /// Where the playhead is and how it moves; it changes through its own methods.
    struct Playhead: Sendable {
        /// The clock time of the last input.
        private(set) var clock: Duration = .zero
        /// Primary position (the suspended position during an interstitial).
        private(set) var position: MediaTime = .zero
        /// The rate asked for.
        private(set) var rate: Double = 1
        /// Whether playback was asked for (`play()` or a non-zero rate).
        private(set) var playing = false

        /// The clock reached `now` (an input's time, or a transition on the way to it).
        mutating func tick(to now: Duration) { clock = now }

        /// The clock goes back to `anchor`, so that playback is replayed from there to now (a
        /// coordinated placement as of an earlier time).
        mutating func rewind(to anchor: Duration) { clock = anchor }

        /// Primary media moved forward by `distance` as time passed.
        mutating func advance(by distance: MediaTime) { position = position + distance }

        /// The playhead jumped to `time`: a start point, a seek, a placement or a resumption point.
        mutating func jump(to time: MediaTime) { position = time }

        /// `play()`: playback is asked for, at rate 1 unless a positive rate was set.
        mutating func play() {
            if rate <= 0 { rate = 1 }
            playing = true
        }

        /// Playback is asked for at `rate` (positive).
        mutating func play(at rate: Double) {
            self.rate = rate
            playing = true
        }

        /// Pause, the end, or a hand-off: playback is no longer asked for (the rate stays).
        mutating func pause() { playing = false }

        /// Playback as a coordinated group (or a handed-off session) has it.
        mutating func follow(playing: Bool, rate: Double) { (self.playing, self.rate) = (playing, rate) }
    }

    /// The primary presentation, the events in force and their schedule, and what played; it
    /// changes through its own methods.
    struct Program: Sendable {
        /// The primary presentation once loaded.
        private(set) var timeline: PrimaryTimeline?
        /// The controller's events; nil: the server's.
        private(set) var controllerEvents: [InterstitialEvent]?
        /// `automaticallyHandlesInterstitialEvents`.
        private(set) var automaticallyHandles = true
        /// The schedule of the active events.
        private(set) var schedule: InterstitialSchedule?
        /// Where playback starts (the VOD start position or the live join point, R26).
        private(set) var startPoint: MediaTime?
        /// The scheduled groups.
        private(set) var groups: [Group] = []
        /// The played duration of each event that played.
        private(set) var played: [String: MediaTime] = [:]
        /// ONCE events whose playback has started (R9).
        private(set) var exhausted: Set<String> = []
        /// Groups that resumed before their start and wait for the playhead to move back before them (R8).
        private(set) var suppressed: Set<String> = []

        /// The primary presentation loaded for the first time; playback starts at `start`.
        mutating func loaded(_ timeline: PrimaryTimeline, startingAt start: MediaTime) {
            self.timeline = timeline
            startPoint = start
        }

        /// The primary presentation changed: a reload merged, a schedule document read, a variant
        /// switched.
        mutating func revise(_ timeline: PrimaryTimeline) { self.timeline = timeline }

        /// The schedule of the active events was resolved anew; its scheduled groups are the ones
        /// that play.
        mutating func scheduled(_ schedule: InterstitialSchedule) {
            self.schedule = schedule
            groups = schedule.groups.filter(\.isScheduled).map { Group($0, in: schedule) }
        }

        /// Playback starts at `start` (R26); false when it already did.
        mutating func moveStart(to start: MediaTime) -> Bool {
            guard startPoint != start else { return false }
            startPoint = start
            return true
        }

        /// The controller set its events (nil: the server's again).
        mutating func override(events: [InterstitialEvent]?) { controllerEvents = events }

        /// `automaticallyHandlesInterstitialEvents` set to `on`; false when it already was.
        mutating func handleAutomatically(_ on: Bool) -> Bool {
            guard on != automaticallyHandles else { return false }
            automaticallyHandles = on
            return true
        }

        /// A handed-off session's events, automatic handling and ONCE history.
        mutating func restore(_ session: PlaybackSession) {
            controllerEvents = session.events
            automaticallyHandles = session.automaticallyHandlesInterstitialEvents
            exhausted = Set(session.playedOnce)
        }

        /// A ONCE event started playing: it does not play again (R9).
        mutating func exhaust(_ id: String) { exhausted.insert(id) }

        /// An event played for `duration` (what the schedule resumes after).
        mutating func record(played duration: MediaTime, for id: String) { played[id] = duration }

        /// A group resumed before its start: it waits for the playhead to move back before it (R8).
        mutating func suppress(_ key: String) { suppressed.insert(key) }

        /// The playhead moved back to `time`: the groups after it may fire again (R8).
        mutating func release(after time: MediaTime) {
            for group in groups where group.start > time { suppressed.remove(group.key) }
        }
    }

    /// The times the driver watches, and those playback crossed; it changes through its own
    /// methods.
    struct Watches: Sendable {
        /// Integrated-time boundaries the driver watches (observers).
        private(set) var integratedTimes: [MediaTime] = []
        /// Times in interstitial assets the driver watches, by the driver's key.
        private(set) var assetTimes: [Int: AssetTimeWatch] = [:]
        /// The watched asset times playback crossed since the driver took them.
        private(set) var crossedAssetTimes: [AssetTimeWatch.Crossing] = []

        /// The driver's observers watch these integrated times (all of them, replacing the last).
        mutating func watch(integratedTimes times: [MediaTime]) { integratedTimes = times }

        /// The driver watches `watch` in interstitial assets under `key` (replacing one it had).
        mutating func watch(_ watch: AssetTimeWatch, key: Int) { assetTimes[key] = watch }

        /// The driver no longer watches the asset times under `key`.
        mutating func unwatch(key: Int) { assetTimes.removeValue(forKey: key) }

        /// Playback crossed a watched asset time: it waits for the driver to take it.
        mutating func crossed(_ crossing: AssetTimeWatch.Crossing) { crossedAssetTimes.append(crossing) }

        /// The crossings since the last take, in the order playback crossed them; each is taken once.
        mutating func takeCrossings() -> [AssetTimeWatch.Crossing] {
            defer { crossedAssetTimes = [] }
            return crossedAssetTimes
        }
    }

    // MARK: Settings

    /// The settings the machine reads.
    var configuration: Configuration { settings.configuration }
    /// The URL of the item.
    var itemURL: String { settings.itemURL }
    /// The configuration of interstitial items; the driver sets it with `use(_:)`.
    package var template: InterstitialItemTemplate { settings.template }

    /// How skip button labels are found (the application's strings table and default label); the
    /// driver sets it with `use(_:)`.
    package var skipControlLabels: SkipControlLabels { settings.skipLabels }

    /// Plays by the configuration of interstitial items `template` from the next input on.
    package mutating func use(_ template: InterstitialItemTemplate) { settings.adopt(template) }

    /// Finds skip button labels with `labels` from the next label reported on.
    package mutating func use(_ labels: SkipControlLabels) { settings.adopt(labels) }

    // MARK: Playhead

    /// The clock time of the last input.
    package var clock: Duration { playhead.clock }
    /// Primary position (the suspended position during an interstitial).
    package var position: MediaTime { playhead.position }
    /// The rate asked for.
    package var rate: Double { playhead.rate }
    /// Whether playback was asked for (`play()` or a non-zero rate).
    package var playing: Bool { playhead.playing }

    // MARK: Program

    /// The primary presentation once loaded.
    package var timeline: PrimaryTimeline? { program.timeline }
    /// The controller's events; nil: the server's.
    package var controllerEvents: [InterstitialEvent]? { program.controllerEvents }
    /// `automaticallyHandlesInterstitialEvents`.
    package var automaticallyHandles: Bool { program.automaticallyHandles }
    /// The schedule of the active events.
    package var schedule: InterstitialSchedule? { program.schedule }

    // MARK: Variants

    /// The primary's selected renditions.
    package var tracks: TrackSelection { selection.tracks }
    /// The primary's variants (empty for a media playlist).
    package var variants: [PrimaryVariant] { selection.variants }
    /// The variant playing.
    package var variantIndex: Int? { selection.index }
    /// The measured throughput.
    package var throughput: ThroughputEstimator { selection.throughput }
    /// How the variant is chosen; the driver sets it with `use(_:)`.
    package var variantPolicy: VariantPolicy { selection.policy }

    /// Chooses variants by `policy` from the next input on.
    package mutating func use(_ policy: VariantPolicy) { selection.adopt(policy) }

    // MARK: Coordination and watches

    /// The player's part in a coordinated group.
    package var coordination: Coordination { coordinator.role }

    /// Integrated-time boundaries the driver watches (observers), as media distances.
    package var watchedIntegratedTimes: [MediaTime] { watches.integratedTimes }
    /// Times in interstitial assets the driver watches (the interstitial player's boundary
    /// observers), by the driver's key: playback stops at each so none is passed over.
    package var watchedAssetTimes: [Int: AssetTimeWatch] { watches.assetTimes }
    /// The watched asset times playback crossed since the driver took them
    /// (``takeCrossedAssetTimes()``).
    package var crossedAssetTimes: [AssetTimeWatch.Crossing] { watches.crossedAssetTimes }

    /// Watches the integrated times `times` (the driver's observers, all of them): playback stops
    /// at each so none is passed over.
    package mutating func watch(integratedTimes times: [MediaTime]) { watches.watch(integratedTimes: times) }

    /// Watches `watch` in interstitial assets under the driver's `key`.
    package mutating func watch(_ watch: AssetTimeWatch, key: Int) { watches.watch(watch, key: key) }

    /// Stops watching the asset times under `key`.
    package mutating func unwatch(key: Int) { watches.unwatch(key: key) }

    /// The watched asset times playback crossed since the last take, in order; each is taken once.
    package mutating func takeCrossedAssetTimes() -> [AssetTimeWatch.Crossing] { watches.takeCrossings() }
}
