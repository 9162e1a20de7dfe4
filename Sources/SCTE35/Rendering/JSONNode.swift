/// An ordered JSON tree: the one field list of a decoded section, rendered as JSON and as text.
enum JSONNode: Hashable, Sendable {
    case object([(String, JSONNode)])
    case array([JSONNode])
    case string(String)
    case int(Int64)
    /// A count of 90 kHz ticks: a number in JSON, `ticks (seconds s)` in text.
    case ticks(UInt64)
    case bool(Bool)
    case null

    static func == (lhs: JSONNode, rhs: JSONNode) -> Bool { lhs.json(pretty: false) == rhs.json(pretty: false) }
    func hash(into hasher: inout Hasher) { hasher.combine(json(pretty: false)) }

    /// An unsigned value as a number.
    static func uint(_ value: some BinaryInteger) -> JSONNode { .int(Int64(value)) }

    /// JSON text; pretty output indents by two spaces and keeps the field order.
    func json(pretty: Bool) -> String {
        var output = ""
        write(into: &output, pretty: pretty, indent: 0)
        return output
    }

    private func write(into output: inout String, pretty: Bool, indent: Int) {
        let newline = pretty ? "\n" : ""
        let pad = pretty ? String(repeating: "  ", count: indent + 1) : ""
        let closing = pretty ? String(repeating: "  ", count: indent) : ""
        switch self {
        case .object(let fields):
            guard !fields.isEmpty else { return output += "{}" }
            output += "{" + newline
            for (index, (key, value)) in fields.enumerated() {
                output += pad + Self.quoted(key) + (pretty ? ": " : ":")
                value.write(into: &output, pretty: pretty, indent: indent + 1)
                output += (index + 1 < fields.count ? "," : "") + newline
            }
            output += closing + "}"
        case .array(let items):
            guard !items.isEmpty else { return output += "[]" }
            output += "[" + newline
            for (index, item) in items.enumerated() {
                output += pad
                item.write(into: &output, pretty: pretty, indent: indent + 1)
                output += (index + 1 < items.count ? "," : "") + newline
            }
            output += closing + "]"
        case .string(let text): output += Self.quoted(text)
        case .int(let value): output += String(value)
        case .ticks(let value): output += String(value)
        case .bool(let value): output += value ? "true" : "false"
        case .null: output += "null"
        }
    }

    /// A JSON string literal, escaping quotes, backslashes and control characters.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// Indented `key: value` lines; ticks are shown with their seconds.
    func text(indent: Int = 0) -> String {
        var lines: [String] = []
        appendText(to: &lines, indent: indent)
        return lines.joined(separator: "\n")
    }

    private func appendText(to lines: inout [String], indent: Int) {
        let pad = String(repeating: "  ", count: indent)
        switch self {
        case .object(let fields):
            for (key, value) in fields {
                switch value {
                case .object(let inner) where inner.isEmpty: lines.append(pad + key + ": {}")
                case .array(let items) where items.isEmpty: lines.append(pad + key + ": []")
                case .object:
                    lines.append(pad + key + ":")
                    value.appendText(to: &lines, indent: indent + 1)
                case .array(let items):
                    for (index, item) in items.enumerated() {
                        if case .object = item {
                            lines.append(pad + "\(key)[\(index)]:")
                            item.appendText(to: &lines, indent: indent + 1)
                        } else {
                            lines.append(pad + "\(key)[\(index)]: " + item.scalarText)
                        }
                    }
                default: lines.append(pad + key + ": " + value.scalarText)
                }
            }
        case .array(let items):
            for (index, item) in items.enumerated() {
                lines.append(pad + "[\(index)]:")
                item.appendText(to: &lines, indent: indent + 1)
            }
        default: lines.append(pad + scalarText)
        }
    }

    private var scalarText: String {
        switch self {
        case .string(let text): Self.escapingControls(text)
        case .int(let value): String(value)
        case .ticks(let value): "\(value) (\(Ticks.secondsText(value)) s)"
        case .bool(let value): value ? "true" : "false"
        case .null: "null"
        case .object, .array: json(pretty: false)
        }
    }

    /// Text from the input with control characters escaped, so rendering never drives a terminal.
    static func escapingControls(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
