/// One `NAME=VALUE` pair of an attribute list.
public struct Attribute: Hashable, Sendable, Codable {
    /// The attribute name, such as `BANDWIDTH` or `X-ASSET-URI`.
    public var name: String
    /// The value as written.
    public var value: AttributeValue

    /// Creates an attribute.
    public init(name: String, value: AttributeValue) {
        self.name = name
        self.value = value
    }

    /// Whether this is a client-defined attribute (`X-` prefix).
    public var isClientAttribute: Bool { name.utf8.starts(with: "X-".utf8) }

    /// Checks an AttributeName (§4.2): non-empty, `[A-Z]`, `[0-9]` and `-` only.
    ///
    /// - Throws: ``AttributeSyntaxError`` (`attribute-name`) naming the offending character and its offset.
    public static func checkName(_ name: String) throws(AttributeSyntaxError) {
        try AttributeGrammar.checkName(name)
    }

    /// Checks a client attribute name: `X-` then at least one of `[A-Z]`, `[0-9]` and `-`.
    ///
    /// - Throws: ``AttributeSyntaxError`` (`attribute-name`).
    public static func checkClientName(_ name: String) throws(AttributeSyntaxError) {
        try AttributeGrammar.checkName(name)
        guard name.utf8.starts(with: "X-".utf8), name.utf8.count > 2 else {
            throw AttributeSyntaxError(
                rule: Rule.attributeName.id, text: name, offset: 0, character: name.unicodeScalars.first,
                message:
                    "a client attribute name must start with X- and have at least one more character, found '\(Diagnostic.clipped(name))'; §4.4.5.1: \"X-<client-attribute> … The name MUST begin with 'X-'\""
            )
        }
    }
}

/// An ordered attribute list (§4.2), keeping every attribute, unknown ones included, in order.
///
/// Setting a value through the subscript replaces it in place (keeping the position) or appends
/// a new attribute; setting `nil` removes it.
public struct AttributeList: Hashable, Sendable, RandomAccessCollection, ExpressibleByArrayLiteral, Codable,
    CustomStringConvertible
{
    /// The attributes in written order.
    public private(set) var attributes: [Attribute]

    /// Creates a list from attributes in order.
    public init(_ attributes: [Attribute] = []) { self.attributes = attributes }

    /// Creates a list from `(name, value)` pairs.
    public init(arrayLiteral elements: (String, AttributeValue)...) {
        self.attributes = elements.map { Attribute(name: $0.0, value: $0.1) }
    }

    public var startIndex: Int { attributes.startIndex }
    public var endIndex: Int { attributes.endIndex }
    public subscript(position: Int) -> Attribute { attributes[position] }

    /// The value of the first attribute with this name.
    public subscript(name: String) -> AttributeValue? {
        get {
            for attribute in attributes where attribute.name == name { return attribute.value }
            return nil
        }
        set {
            if let index = attributes.firstIndex(where: { $0.name == name }) {
                if let newValue {
                    attributes[index].value = newValue
                } else {
                    attributes.remove(at: index)
                }
            } else if let newValue {
                attributes.append(Attribute(name: name, value: newValue))
            }
        }
    }

    /// The value of the first attribute of each name, for O(1) lookups over a long list.
    public var firstValues: [String: AttributeValue] {
        var values: [String: AttributeValue] = [:]
        values.reserveCapacity(attributes.count)
        for attribute in attributes where values[attribute.name] == nil { values[attribute.name] = attribute.value }
        return values
    }

    /// Appends an attribute, even if one of the same name exists (callers check for duplicates).
    public mutating func append(_ attribute: Attribute) { attributes.append(attribute) }

    /// Whether an attribute with this name exists.
    public func contains(_ name: String) -> Bool { attributes.contains { $0.name == name } }

    /// Checks that the list can be written without breaking the attribute-list grammar: every name is
    /// an AttributeName and every value is a whole quoted-string or a clean unquoted value.
    ///
    /// Values built with the checked constructors always pass; values read by the parser are kept
    /// verbatim and may not. Writers of user-given data call it before writing.
    ///
    /// - Throws: ``AttributeSyntaxError`` for the first attribute that would break the grammar.
    public func checkWritable() throws(AttributeSyntaxError) {
        for attribute in attributes {
            try AttributeGrammar.checkName(attribute.name)
            try AttributeGrammar.checkRawValue(attribute.value.rawValue)
        }
    }

    /// The canonical text: `NAME=VALUE,NAME=VALUE` with each value as written.
    public var description: String {
        var text = ""
        for (index, attribute) in attributes.enumerated() {
            if index > 0 { text += "," }
            text += attribute.name + "=" + attribute.value.rawValue
        }
        return text
    }
}
