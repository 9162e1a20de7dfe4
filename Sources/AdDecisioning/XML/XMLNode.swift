/// One element of a parsed XML document: its name, attributes, children, text and where it starts.
///
/// VAST and VMAP are read in two steps: Foundation's `XMLParser` builds this tree (bounded by
/// ``XMLLimits``), then the VAST and VMAP readers walk it. The tree keeps qualified names
/// (`vmap:AdBreak`) so that extensions can be written back as XML text unchanged.
public struct XMLNode: Hashable, Sendable {
    /// The qualified name, such as `MediaFile` or `vmap:AdBreak`.
    public var name: String
    /// The attributes, by qualified name.
    public var attributes: [String: String]
    /// The attribute names in document order, so that writing the element back keeps their order.
    public var attributeOrder: [String]
    /// The child elements in document order.
    public var children: [XMLNode]
    /// The text directly inside the element (character data and CDATA sections, concatenated).
    public var text: String
    /// Where the element starts.
    public var location: XMLLocation

    /// Creates an element.
    public init(
        name: String, attributes: [String: String] = [:], attributeOrder: [String]? = nil,
        children: [XMLNode] = [], text: String = "", location: XMLLocation = XMLLocation(line: 0, column: 0)
    ) {
        self.name = name
        self.attributes = attributes
        self.attributeOrder = attributeOrder ?? attributes.keys.sorted()
        self.children = children
        self.text = text
        self.location = location
    }

    /// The name without its namespace prefix: `AdBreak` for `vmap:AdBreak`.
    public var localName: Substring {
        guard let colon = name.lastIndex(of: ":") else { return name[...] }
        return name[name.index(after: colon)...]
    }

    /// The text with leading and trailing white space removed (CDATA content included).
    public var trimmedText: String { text.trimmingXMLWhitespace() }

    /// The trimmed text, or nil when it is empty.
    public var value: String? {
        let trimmed = trimmedText
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The children whose local name is `localName`.
    public func children(named localName: String) -> [XMLNode] {
        children.filter { $0.localName == localName }
    }

    /// The first child whose local name is `localName`.
    public func child(named localName: String) -> XMLNode? {
        children.first { $0.localName == localName }
    }

    /// The attribute `name` with white space trimmed, or nil when absent or empty.
    public func attribute(_ name: String) -> String? {
        guard let raw = attributes[name] else { return nil }
        let trimmed = raw.trimmingXMLWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The element written back as XML text: the same names, attributes and children; text is
    /// escaped, so CDATA sections come back as escaped character data with the same content, and
    /// parsing the text gives the same tree (CR, and tab and LF in attributes, as character references).
    public var xmlText: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        output += "<" + name
        for key in attributeOrder {
            guard let value = attributes[key] else { continue }
            output += " " + key + "=\"" + Self.escaped(value, attribute: true) + "\""
        }
        if children.isEmpty && text.isEmpty {
            output += "/>"
            return
        }
        output += ">"
        output += Self.escaped(text, attribute: false)
        for child in children { child.write(to: &output) }
        output += "</" + name + ">"
    }

    private static func escaped(_ text: String, attribute: Bool) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"" where attribute: result += "&quot;"
            // As references: the parser reads a written CR as LF, and tab or LF in an attribute as a space.
            case "\r": result += "&#13;"
            case "\n" where attribute: result += "&#10;"
            case "\t" where attribute: result += "&#9;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

/// A 1-based line and column in an XML document, as `XMLParser` reports them.
public struct XMLLocation: Hashable, Sendable, CustomStringConvertible {
    /// The line, from 1.
    public var line: Int
    /// The column, from 1.
    public var column: Int

    /// Creates a location.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }
}

extension String {
    /// The string without leading and trailing XML white space (space, tab, CR, LF).
    func trimmingXMLWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
