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

    /// Appends an attribute, even if one of the same name exists (callers check for duplicates).
    public mutating func append(_ attribute: Attribute) { attributes.append(attribute) }

    /// Whether an attribute with this name exists.
    public func contains(_ name: String) -> Bool { attributes.contains { $0.name == name } }

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
