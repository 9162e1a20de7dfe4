import Foundation

/// A problem found in a playlist, with a stable rule ID and a location.
///
/// Parsing never throws on malformed text: it records diagnostics and keeps every byte, so the
/// playlist still round-trips. Render them with ``render(sourceLine:)`` like a compiler would.
public struct Diagnostic: Hashable, Sendable, Codable, CustomStringConvertible {
    /// How serious a diagnostic is.
    public enum Severity: String, Hashable, Sendable, Codable, Comparable {
        /// A MUST of the specification is broken; the input is not valid.
        case error
        /// A SHOULD of the specification is not followed, or something is suspicious.
        case warning
        /// Information that needs no action.
        case note

        private var rank: Int {
            switch self {
            case .error: 2
            case .warning: 1
            case .note: 0
            }
        }
        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    /// The severity.
    public var severity: Severity
    /// The stable rule ID, such as `attribute-duplicate`.
    public var rule: RuleID
    /// Where the problem is.
    public var location: SourceLocation
    /// What is wrong, quoting the rule where there is one.
    public var message: String

    /// Creates a diagnostic.
    public init(_ severity: Severity, _ rule: RuleID, at location: SourceLocation, _ message: String) {
        self.severity = severity
        self.rule = rule
        self.location = location
        self.message = message
    }

    /// `file:line:column: severity: [RULE] message`.
    public var description: String {
        "\(location): \(severity.rawValue): [\(rule.rawValue)] \(message)"
    }

    /// The compiler-style rendering: the summary line, the source line and a caret under the column.
    public func render(sourceLine: String?) -> String {
        guard let sourceLine else { return description }
        let visible = sourceLine.replacingTabs()
        let prefix = Array(sourceLine.utf8.prefix(max(0, location.column - 1)))
        let caretOffset = String(decoding: prefix, as: UTF8.self).replacingTabs().count
        return description + "\n" + visible + "\n" + String(repeating: " ", count: caretOffset) + "^"
    }

    private enum CodingKeys: String, CodingKey {
        case severity, rule, file, line, column, message
    }

    /// Decodes the flat form `{"severity","rule","file","line","column","message"}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        severity = try container.decode(Severity.self, forKey: .severity)
        rule = try container.decode(RuleID.self, forKey: .rule)
        location = SourceLocation(
            file: try container.decode(String.self, forKey: .file),
            line: try container.decode(Int.self, forKey: .line),
            column: try container.decode(Int.self, forKey: .column)
        )
        message = try container.decode(String.self, forKey: .message)
    }

    /// Encodes the flat form `{"severity","rule","file","line","column","message"}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(severity, forKey: .severity)
        try container.encode(rule, forKey: .rule)
        try container.encode(location.file, forKey: .file)
        try container.encode(location.line, forKey: .line)
        try container.encode(location.column, forKey: .column)
        try container.encode(message, forKey: .message)
    }
}

extension String {
    fileprivate func replacingTabs() -> String {
        contains("\t") ? replacingOccurrences(of: "\t", with: " ") : self
    }
}

extension Sequence where Element == Diagnostic {
    /// Whether any diagnostic is an error.
    public var containsErrors: Bool { contains { $0.severity == .error } }
}
