import HLSInterstitials
import HLSPlaylist

/// One line of a playback trace: what the engine did, when, and where primary was.
///
/// `hlsi play` prints these, one JSON object per line with `t` (clock seconds), `event`,
/// `primaryTime` and the event's fields, or as a readable log.
public struct PlaybackEvent: Sendable, Hashable, CustomStringConvertible {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// The schedule's events changed (loaded, reloaded, set by the controller).
        case eventsChanged
        /// An asset list was requested (late binding, profile R18).
        case assetListRequested
        /// An asset list arrived and was read.
        case assetListLoaded
        /// An event that played before plays again, so its asset list is requested anew (client
        /// rebinding, ``InterstitialItemTemplate/rebindsAssetLists``).
        case assetListRebound
        /// An interstitial event began: primary is suspended.
        case interstitialStarted
        /// An asset of the current event began to play.
        case assetStarted
        /// The asset ended (played through, skipped, cut by a playout limit or abandoned).
        case assetEnded
        /// The event ended; `resumeTime` is where primary resumes after it.
        case interstitialEnded
        /// Primary playback resumed (or started).
        case primaryResumed
        /// A seek was asked for.
        case seekRequested
        /// A seek completed.
        case seekCompleted
        /// A seek was refused by a restriction.
        case seekRefused
        /// A rate change was refused by a restriction.
        case rateRefused
        /// A skip was refused.
        case skipRefused
        /// The current event was skipped.
        case eventSkipped
        /// The current event's skippable state changed (`state`: notSkippable, notYetEligible,
        /// eligible, noLongerEligible), with the skip button's `label` unless not skippable.
        case skippableStateChanged
        /// The current interstitial was cancelled by the controller.
        case interstitialCancelled
        /// An event that had not started was removed from the schedule; `error` when its content
        /// had failed to load.
        case eventUnscheduled
        /// Playback started or its rate changed.
        case rateChanged
        /// Playback paused.
        case paused
        /// Primary reached the live edge and waits for the playlist to grow.
        case stalled
        /// Input that was ignored, with the reason (e.g. a reload that changed a date range value).
        case warning
        /// A load or playback error, with its message.
        case error
        /// Playback ended.
        case ended
        /// The player placed itself where its coordinated group is (`PlaybackCoordinator`).
        case coordinated
        /// The player finished an interstitial whose content may vary and waits for the others of
        /// its group to finish theirs.
        case waitingForGroup
        /// The audio or subtitle selection changed (the application's, or an asset's to match it).
        case tracksSelected
        /// The primary switched to another variant (measured throughput, a peak bit rate or a pin).
        case variantSwitched
        /// The session was handed off to another player; this one stopped.
        case handedOff
        /// A Date Range Schedule's document was requested (`schedule`, `url`; R27).
        case scheduleRequested
        /// A Date Range Schedule's document loaded (`entries`, and `leftOut` for entries left out) or
        /// failed (`code`, `error`): a failed one adds no events (R27).
        case scheduleRequestCompleted
        /// An ad tracking beacon was sent, with its `type`, `url` and the HTTP `status` or the `error`.
        case beaconSent
    }

    /// A field value.
    public enum Value: Sendable, Hashable, CustomStringConvertible {
        /// Text.
        case string(String)
        /// A media time, in seconds.
        case time(MediaTime)
        /// An integer.
        case integer(Int)
        /// A number.
        case number(Double)
        /// A truth value.
        case bool(Bool)
        /// Nothing (JSON null).
        case null

        /// The value as JSON.
        public var json: String {
            switch self {
            case .string(let text): PlaybackEvent.quote(text)
            case .time(let time): time.formatted(fractionDigits: 3)
            case .integer(let value): String(value)
            case .number(let value): value.isFinite ? String(value) : "null"
            case .bool(let value): value ? "true" : "false"
            case .null: "null"
            }
        }

        /// The value for a readable log.
        public var description: String {
            switch self {
            case .string(let text): text
            default: json
            }
        }
    }

    /// Clock time since the player started.
    public var time: Duration
    /// What happened.
    public var kind: Kind
    /// The primary position at that moment (the suspended one during an interstitial).
    public var primaryTime: MediaTime?
    /// The event's fields, in order.
    public var fields: [(name: String, value: Value)]

    /// Creates an event.
    public init(
        time: Duration, kind: Kind, primaryTime: MediaTime?, fields: [(name: String, value: Value)] = []
    ) {
        self.time = time
        self.kind = kind
        self.primaryTime = primaryTime
        self.fields = fields
    }

    /// The value of a field.
    public subscript(name: String) -> Value? { fields.first { $0.name == name }?.value }

    /// Clock seconds with millisecond precision.
    public var seconds: MediaTime { Self.seconds(of: time) }

    /// One JSON object: `{"t":…,"event":…,"primaryTime":…,…}`.
    public var json: String { Self.json(time: time, kind: kind.rawValue, primaryTime: primaryTime, fields: fields) }

    /// A readable log line: `  12.000  interstitialStarted  primary 12.000  id=ad1`.
    public var description: String {
        Self.line(time: time, kind: kind.rawValue, primaryTime: primaryTime, fields: fields)
    }

    /// A trace time in seconds with millisecond precision.
    package static func seconds(of time: Duration) -> MediaTime {
        MediaTime(time)
    }

    /// One trace line as JSON, for every kind of line a play trace has.
    package static func json(
        time: Duration, kind: String, primaryTime: MediaTime?, fields: [(name: String, value: Value)]
    ) -> String {
        var text = "{\"t\":\(seconds(of: time).formatted(fractionDigits: 3)),\"event\":\(quote(kind))"
        text += ",\"primaryTime\":" + (primaryTime.map { $0.formatted(fractionDigits: 3) } ?? "null")
        for field in fields { text += ",\(quote(field.name)):\(field.value.json)" }
        return text + "}"
    }

    /// One trace line for people, for every kind of line a play trace has.
    package static func line(
        time: Duration, kind: String, primaryTime: MediaTime?, fields: [(name: String, value: Value)]
    ) -> String {
        let clock = seconds(of: time).formatted(fractionDigits: 3)
        let padding = String(repeating: " ", count: max(0, 9 - clock.count))
        let primary = primaryTime.map { "primary " + $0.formatted(fractionDigits: 3) } ?? "primary -"
        let name = kind.padding(toLength: 21, withPad: " ", startingAt: 0)
        let details = fields.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
        return "\(padding)\(clock)  \(name) \(primary)\(details.isEmpty ? "" : "  " + details)"
    }

    /// Events are equal when every part is.
    public static func == (lhs: PlaybackEvent, rhs: PlaybackEvent) -> Bool {
        lhs.time == rhs.time && lhs.kind == rhs.kind && lhs.primaryTime == rhs.primaryTime
            && lhs.fields.map(\.name) == rhs.fields.map(\.name) && lhs.fields.map(\.value) == rhs.fields.map(\.value)
    }

    /// Hashes the time and kind.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(time)
        hasher.combine(kind)
    }

    static func quote(_ text: String) -> String {
        var result = ""
        JSONValue.writeString(text, to: &result)
        return result
    }
}
