/// The stable identifier of a diagnostic rule, such as `attribute-duplicate`.
///
/// Rule IDs never change meaning once published: tools and CI configurations filter on them.
public struct RuleID: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The identifier text.
    public var rawValue: String

    /// Creates an identifier.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates an identifier from a literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The identifier text.
    public var description: String { rawValue }

    /// Decodes from a string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes as a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
