/// The value of a tag, read according to the tag's definition.
public enum TagValue: Hashable, Sendable {
    /// No value: `#EXTM3U`, `#EXT-X-ENDLIST`, `#EXT-X-GAP`, …
    case none
    /// A decimal-integer: EXT-X-VERSION, EXT-X-TARGETDURATION, EXT-X-MEDIA-SEQUENCE, … The raw
    /// text is kept for writing.
    case integer(UInt64)
    /// `#EXTINF:<duration>,[<title>]`.
    case extinf(duration: MediaTime, title: String)
    /// `#EXT-X-BYTERANGE:<n>[@<o>]`.
    case byteRange(ByteRange)
    /// `#EXT-X-PROGRAM-DATE-TIME:<date-time>`.
    case dateTime(DateTime)
    /// An enumerated-string: EXT-X-PLAYLIST-TYPE.
    case enumerated(String)
    /// An attribute list.
    case attributes(AttributeList)
    /// The text after `:` of an unknown tag, or of a known tag whose value is malformed.
    case text(String)

    /// The attribute list, if the value is one.
    public var attributes: AttributeList? {
        if case .attributes(let list) = self { return list }
        return nil
    }
}

/// A tag line: `#NAME` or `#NAME:VALUE`.
public struct Tag: Hashable, Sendable, CustomStringConvertible {
    /// The tag name.
    public var name: TagName
    /// The value.
    public var value: TagValue

    /// Creates a tag.
    public init(_ name: TagName, _ value: TagValue = .none) {
        self.name = name
        self.value = value
    }

    /// A tag with an attribute list.
    public init(_ name: TagName, attributes: AttributeList) {
        self.init(name, .attributes(attributes))
    }

    /// The canonical text of the tag, `#` included. EXTINF durations are written in their
    /// shortest exact form (`6.006`), with three decimals for whole seconds under version 3+
    /// clients expecting decimals (`6.000`).
    public var description: String {
        let head = "#" + name.rawValue
        switch value {
        case .none: return head
        case .integer(let value): return head + ":" + String(value)
        case .extinf(let duration, let title):
            let text =
                duration.nanoseconds % 1_000_000 == 0 ? duration.formatted(fractionDigits: 3) : duration.description
            return head + ":" + text + "," + title
        case .byteRange(let range): return head + ":" + range.description
        case .dateTime(let date): return head + ":" + date.iso8601
        case .enumerated(let value): return head + ":" + value
        case .attributes(let list): return head + ":" + list.description
        case .text(let text): return head + ":" + text
        }
    }
}
