/// What a schedule belongs to: a VOD asset or a live channel, written `vod/ID` or `live/ID`.
public struct Target: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// VOD or live.
    public enum Kind: String, Hashable, Sendable {
        /// A VOD asset.
        case vod
        /// A live channel.
        case live
    }

    /// VOD or live.
    public var kind: Kind
    /// The asset's or channel's identifier.
    public var id: String

    /// Creates a target.
    public init(_ kind: Kind, _ id: String) {
        self.kind = kind
        self.id = id
    }

    /// Reads `vod/ID` or `live/ID`.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let kind = Kind(rawValue: String(parts[0])),
            JSONObjectReader.isIdentifier(parts[1])
        else { return nil }
        self.init(kind, String(parts[1]))
    }

    /// `vod/ID` or `live/ID`.
    public var description: String { "\(kind.rawValue)/\(id)" }

    /// Ordered by their text.
    public static func < (lhs: Target, rhs: Target) -> Bool { lhs.description < rhs.description }
}
