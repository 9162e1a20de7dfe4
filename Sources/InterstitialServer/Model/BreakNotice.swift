import HLSInterstitials
import HLSPlaylist

/// An operator's early notice of a live channel's break (`POST /admin/v1/channels/{id}/upcoming`),
/// as Google DAI's early ad break notification: a break of `duration` is expected at `start`.
///
/// A notice is no date range: nothing is written into the playlist for it. The server decides
/// ahead for it as for a scheduled break (``BreakPlanner/noticed(_:horizon:)``), and the signalled
/// break whose OUT starts within the tolerance of `start` takes its ID (``NoticeMatcher``), so the
/// decisions made ahead answer that break's asset lists. It expires at ``expiry(tolerance:)``.
public struct BreakNotice: Hashable, Sendable {
    /// The live channel.
    public var target: Target
    /// The ID the matched break is served with (its date range ID); unique on the channel.
    public var id: String
    /// When the break is expected to start.
    public var start: DateTime
    /// How long it is expected to last.
    public var duration: MediaTime

    /// Creates a notice.
    public init(target: Target, id: String, start: DateTime, duration: MediaTime) {
        self.target = target
        self.id = id
        self.start = start
        self.duration = duration
    }

    /// How every notice's ID starts (`notice-`): a break served under it is known as a signalled
    /// one, so that the same break found again under another ID is not served twice.
    public static let idPrefix = "notice-"

    /// When it is removed: the end of the break it announces plus `tolerance`. No cue can take it
    /// later than `start + tolerance`.
    public func expiry(tolerance: MediaTime) -> DateTime { start + duration + tolerance }

    /// The notice as the admin API and the store write it: `target`, `id`, `start` (ISO 8601, UTC),
    /// `duration` (seconds).
    public var jsonValue: JSONValue {
        var start = start
        start.utcOffsetSeconds = 0
        return .object([
            "target": .string(target.description), "id": .string(id), "start": .string(start.iso8601),
            "duration": .seconds(duration),
        ])
    }

    /// Reads a notice as ``jsonValue`` writes it (the store's form).
    public static func decode(_ value: JSONValue, path: String = "") throws(APIError) -> BreakNotice {
        var reader = try JSONObjectReader(value, path: path)
        let id = try reader.identifier("id")
        let text = try reader.requiredString("target")
        guard let target = Target(text), target.kind == .live else {
            throw reader.error("target", "expected live/ID, found \"\(text.prefix(80))\"")
        }
        guard let start = try reader.date("start") else { throw reader.error("start", "missing") }
        let duration = try reader.requiredSeconds("duration")
        try reader.finish()
        return BreakNotice(target: target, id: id, start: start, duration: duration)
    }
}
