import HLSInterstitials
import HLSPlaylist
import PlaybackCoordination

extension PlaybackStateMachine {
    /// The settings the machine plays by.
    struct Settings: Sendable {
        /// The settings the machine reads.
        let configuration: Configuration
        /// The URL of the item.
        let itemURL: String
        /// The configuration of interstitial items; the driver sets it (the next input applies it).
        var template: InterstitialItemTemplate
        /// How skip button labels are found; the driver sets it.
        var skipLabels = SkipControlLabels()
    }

    /// Where the playhead is and how it moves.
    struct Playhead: Sendable {
        /// The clock time of the last input.
        var clock: Duration = .zero
        /// Primary position (the suspended position during an interstitial).
        var position: MediaTime = .zero
        /// The rate asked for.
        var rate: Double = 1
        /// Whether playback was asked for (`play()` or a non-zero rate).
        var playing = false
    }

    /// The primary presentation, the events in force and their schedule, and what played.
    struct Program: Sendable {
        /// The primary presentation once loaded.
        var timeline: PrimaryTimeline?
        /// The controller's events; nil: the server's.
        var controllerEvents: [InterstitialEvent]?
        /// `automaticallyHandlesInterstitialEvents`.
        var automaticallyHandles = true
        /// The schedule of the active events.
        var schedule: InterstitialSchedule?
        /// Where playback starts (the VOD start position or the live join point, R26).
        var startPoint: MediaTime?
        /// The scheduled groups.
        var groups: [Group] = []
        /// The played duration of each event that played.
        var played: [String: MediaTime] = [:]
        /// ONCE events whose playback has started (R9).
        var exhausted: Set<String> = []
        /// Groups that resumed before their start and wait for the playhead to move back before them (R8).
        var suppressed: Set<String> = []
    }

    /// The times the driver watches, and those playback crossed.
    struct Watches: Sendable {
        /// Integrated-time boundaries the driver watches (observers).
        var integratedTimes: [MediaTime] = []
        /// Times in interstitial assets the driver watches, by the driver's key.
        var assetTimes: [Int: AssetTimeWatch] = [:]
        /// The watched asset times playback crossed since the driver took them.
        var crossedAssetTimes: [AssetTimeWatch.Crossing] = []
    }

    // MARK: Settings

    /// The settings the machine reads.
    var configuration: Configuration { settings.configuration }
    /// The URL of the item.
    var itemURL: String { settings.itemURL }
    /// The configuration of interstitial items; the driver sets it (the next input applies it).
    package var template: InterstitialItemTemplate {
        get { settings.template }
        set { settings.template = newValue }
    }

    /// How skip button labels are found (the application's strings table and default label).
    package var skipControlLabels: SkipControlLabels {
        get { settings.skipLabels }
        set { settings.skipLabels = newValue }
    }

    // MARK: Playhead

    /// The clock time of the last input.
    package internal(set) var clock: Duration {
        get { playhead.clock }
        set { playhead.clock = newValue }
    }
    /// Primary position (the suspended position during an interstitial).
    package internal(set) var position: MediaTime {
        get { playhead.position }
        set { playhead.position = newValue }
    }
    /// The rate asked for.
    package internal(set) var rate: Double {
        get { playhead.rate }
        set { playhead.rate = newValue }
    }
    /// Whether playback was asked for (`play()` or a non-zero rate).
    package internal(set) var playing: Bool {
        get { playhead.playing }
        set { playhead.playing = newValue }
    }

    // MARK: Program

    /// The primary presentation once loaded.
    package internal(set) var timeline: PrimaryTimeline? {
        get { program.timeline }
        set { program.timeline = newValue }
    }
    /// The controller's events; nil: the server's.
    package internal(set) var controllerEvents: [InterstitialEvent]? {
        get { program.controllerEvents }
        set { program.controllerEvents = newValue }
    }
    /// `automaticallyHandlesInterstitialEvents`.
    package internal(set) var automaticallyHandles: Bool {
        get { program.automaticallyHandles }
        set { program.automaticallyHandles = newValue }
    }
    /// The schedule of the active events.
    package internal(set) var schedule: InterstitialSchedule? {
        get { program.schedule }
        set { program.schedule = newValue }
    }

    // MARK: Variants

    /// The primary's selected renditions.
    package var tracks: TrackSelection { selection.tracks }
    /// The primary's variants (empty for a media playlist).
    package var variants: [PrimaryVariant] { selection.variants }
    /// The variant playing.
    package var variantIndex: Int? { selection.index }
    /// The measured throughput.
    package var throughput: ThroughputEstimator { selection.throughput }
    /// How the variant is chosen; the driver sets it (the next input applies it).
    package var variantPolicy: VariantPolicy {
        get { selection.policy }
        set { selection.policy = newValue }
    }

    // MARK: Coordination and watches

    /// The player's part in a coordinated group.
    package var coordination: Coordination { coordinator.role }

    /// Integrated-time boundaries the driver watches (observers), as media distances.
    package var watchedIntegratedTimes: [MediaTime] {
        get { watches.integratedTimes }
        set { watches.integratedTimes = newValue }
    }
    /// Times in interstitial assets the driver watches (the interstitial player's boundary
    /// observers), by the driver's key: playback stops at each so none is passed over.
    package var watchedAssetTimes: [Int: AssetTimeWatch] {
        get { watches.assetTimes }
        set { watches.assetTimes = newValue }
    }
    /// The watched asset times playback crossed since the driver took them.
    package var crossedAssetTimes: [AssetTimeWatch.Crossing] {
        get { watches.crossedAssetTimes }
        set { watches.crossedAssetTimes = newValue }
    }
}
