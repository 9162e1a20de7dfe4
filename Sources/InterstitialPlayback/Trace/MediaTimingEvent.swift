import HLSPlaylist
import PlaybackEngine

/// One line of the media part of a play trace (``MediaTimingRenderer``): a transition's gap or
/// overlap in one track, a segment that could not be read, or the summary.
///
/// It prints like a `PlaybackEvent`: one JSON object with `t` (clock seconds), `event` and
/// `primaryTime` then its fields, or a readable log line.
public struct MediaTimingEvent: Sendable, Hashable, CustomStringConvertible {
    /// What the line reports.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The timestamps of one track across a change of source (primary→interstitial,
        /// asset→asset, interstitial→primary).
        case mediaTransition
        /// A loaded segment whose timing could not be read.
        case mediaError
        /// What was measured over the whole session.
        case mediaSummary
    }

    /// Clock time since the player started.
    public var time: Duration
    /// What it reports.
    public var kind: Kind
    /// The primary position at that moment, when known.
    public var primaryTime: MediaTime?
    /// The fields, in order.
    public var fields: [Field]

    /// A named value.
    public struct Field: Sendable, Hashable {
        /// The name.
        public var name: String
        /// The value.
        public var value: PlaybackEvent.Value
    }

    /// Creates a line.
    public init(time: Duration, kind: Kind, primaryTime: MediaTime?, fields: [(String, PlaybackEvent.Value)]) {
        self.time = time
        self.kind = kind
        self.primaryTime = primaryTime
        self.fields = fields.map { Field(name: $0.0, value: $0.1) }
    }

    /// The value of a field.
    public subscript(name: String) -> PlaybackEvent.Value? { fields.first { $0.name == name }?.value }

    /// One JSON object: `{"t":…,"event":…,"primaryTime":…,…}`.
    public var json: String {
        PlaybackEvent.json(time: time, kind: kind.rawValue, primaryTime: primaryTime, fields: pairs)
    }

    /// A readable log line, laid out as `PlaybackEvent.description`.
    public var description: String {
        PlaybackEvent.line(time: time, kind: kind.rawValue, primaryTime: primaryTime, fields: pairs)
    }

    private var pairs: [(name: String, value: PlaybackEvent.Value)] { fields.map { ($0.name, $0.value) } }
}
