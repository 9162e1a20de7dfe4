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

    /// `file:line:column: severity: [RULE] message`, with control characters in the file and the
    /// message escaped (`escapingControls(_:)`), so that the text is safe for a terminal.
    public var description: String {
        Self.escapingControls("\(location): \(severity.rawValue): [\(rule.rawValue)] \(message)")
    }

    /// The compiler-style rendering: the summary line, the source line and a caret under the column.
    ///
    /// A long source line is shown as a window of at most ``renderedLineWidth`` characters around the
    /// column, with `…` where it is cut, so rendering costs the same for any line length.
    public func render(sourceLine: String?) -> String {
        guard let sourceLine else { return description }
        return description + "\n" + Self.excerptLine(Array(sourceLine.utf8)[...], column: location.column)
    }

    /// The compiler-style rendering with the source line taken from `document` (see
    /// ``render(sourceLine:)``); only the shown window of the line is read.
    public func render(in document: PlaylistDocument?) -> String {
        let index = location.line - 1
        guard let document, document.lines.indices.contains(index) else { return description }
        return description + "\n" + Self.excerptLine(document.lineBytes(index), column: location.column)
    }

    /// The most characters of a source line ``render(sourceLine:)`` shows.
    public static let renderedLineWidth = 120

    /// The most diagnostics kept for one line; the others are counted in one `diagnostic-limit` summary.
    public static let maximumPerLine = 20

    /// The most diagnostics kept for one file; the others are counted in one `diagnostic-limit` summary.
    public static let maximumPerFile = 1000

    /// The window of `bytes` around the 1-based byte `column`, and a caret line under it.
    package static func excerptLine(_ bytes: ArraySlice<UInt8>, column: Int) -> String {
        let base = bytes.startIndex
        let count = bytes.count
        let caret = Swift.min(Swift.max(column - 1, 0), count)
        let half = renderedLineWidth / 2
        var start = Swift.max(0, caret - half)
        var end = Swift.min(count, start + renderedLineWidth)
        if end - start < renderedLineWidth { start = Swift.max(0, end - renderedLineWidth) }
        // Cut on character boundaries (UTF-8 continuation bytes are 10xxxxxx); a character has at most
        // three, so invalid runs of them move the cut no further.
        for _ in 0..<3 where start > 0 && start < count && bytes[base + start] & 0xC0 == 0x80 { start -= 1 }
        for _ in 0..<3 where end < count && end > start && bytes[base + end] & 0xC0 == 0x80 { end -= 1 }
        func visible(_ from: Int, _ to: Int) -> String {
            var text = ""
            for character in String(decoding: bytes[(base + from)..<(base + to)], as: UTF8.self) {
                // Tabs and control characters would move the caret or drive the terminal.
                let isControl = character.unicodeScalars.contains {
                    $0.value < 0x20 || (0x7F...0x9F).contains($0.value)
                }
                text.append(isControl ? " " : character)
            }
            return text
        }
        let lead = start > 0 ? "…" : ""
        let trail = end < count ? "…" : ""
        let caretStart = Swift.min(Swift.max(caret, start), end)
        let caretOffset = lead.count + visible(start, caretStart).count
        return lead + visible(start, end) + trail + "\n" + String(repeating: " ", count: caretOffset) + "^"
    }

    /// Text from the input for a message, cut to `limit` bytes with `…` and the full length.
    package static func clipped(_ text: some StringProtocol, limit: Int = 80) -> String {
        let utf8 = text.utf8
        if utf8.count <= limit { return escapingControls(String(text)) }
        let head = Array(utf8.prefix(limit + 1))
        var cut = Swift.max(limit, 0)
        while cut > 0, head[cut] & 0xC0 == 0x80 { cut -= 1 }
        return escapingControls(String(decoding: head[..<cut], as: UTF8.self)) + "… (\(utf8.count) bytes)"
    }

    /// `text` with control characters written as `\n`, `\r`, `\t` or `\u{1B}`, so that quoting
    /// input in a message never sends raw control bytes (terminal escapes) to a terminal.
    package static func escapingControls(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: AttributeGrammar.isControl) else {
            return text
        }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0x09: result += "\\t"
            case _ where AttributeGrammar.isControl(scalar):
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
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

extension Sequence where Element == Diagnostic {
    /// Whether any diagnostic is an error.
    public var containsErrors: Bool { contains { $0.severity == .error } }
}

extension Array where Element == Diagnostic {
    /// At most `total` diagnostics, in order, and when some are left out one `diagnostic-limit` summary
    /// "N more diagnostics not shown" with the highest severity of those left out (so `containsErrors`
    /// does not change).
    public func limited(total: Int = Diagnostic.maximumPerFile) -> [Diagnostic] {
        let total = Swift.max(total, 0)
        guard count > total else { return self }
        var kept = Array(prefix(total))
        let rest = self[total...]
        let severity = rest.map(\.severity).max() ?? .note
        let first = rest[rest.startIndex].location
        kept.append(
            Diagnostic(
                severity, Rule.diagnosticLimit.id, at: first,
                "\(rest.count) more diagnostics not shown (at most \(total) are kept)"))
        return kept
    }
}

/// Keeps at most ``Diagnostic/maximumPerLine`` diagnostics per line and counts the others, so that
/// reporting costs O(1) per dropped diagnostic (their location and message are never computed).
package struct DiagnosticCollector: Sendable {
    package private(set) var diagnostics: [Diagnostic] = []
    private var keptPerLine: [Int: Int] = [:]
    private var dropped: [Int: (count: Int, severity: Diagnostic.Severity)] = [:]
    private var droppedOrder: [Int] = []
    private let file: String
    private let perLine: Int

    package init(file: String, perLine: Int = Diagnostic.maximumPerLine) {
        self.file = file
        self.perLine = perLine
    }

    /// Adds the diagnostic `make` builds, unless line `line` (1-based) already has its share.
    package mutating func add(line: Int, severity: Diagnostic.Severity, _ make: () -> Diagnostic) {
        let kept = keptPerLine[line, default: 0]
        if kept < perLine {
            keptPerLine[line] = kept + 1
            diagnostics.append(make())
            return
        }
        if let entry = dropped[line] {
            dropped[line] = (entry.count + 1, Swift.max(entry.severity, severity))
        } else {
            dropped[line] = (1, severity)
            droppedOrder.append(line)
        }
    }

    /// Reports `rule` at line `index` (0-based) of `document`, at `attribute` when given. Past the
    /// per-line limit neither the location nor the message is computed.
    package mutating func report(
        _ rule: Rule, in document: PlaylistDocument, line index: Int, attribute: String? = nil,
        _ message: () -> String
    ) {
        add(line: index + 1, severity: rule.severity) {
            let location =
                attribute.map { document.location(line: index, attribute: $0) } ?? document.location(line: index)
            return rule.diagnostic(at: location, message())
        }
    }

    /// The diagnostics kept, then one summary per line that had more.
    package func finished() -> [Diagnostic] {
        var result = diagnostics
        for line in droppedOrder {
            guard let entry = dropped[line] else { continue }
            result.append(
                Diagnostic(
                    entry.severity, Rule.diagnosticLimit.id, at: SourceLocation(file: file, line: line, column: 1),
                    "\(entry.count) more diagnostics on this line not shown (at most \(perLine) per line are kept)"))
        }
        return result
    }
}
