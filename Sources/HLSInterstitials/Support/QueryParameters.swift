/// The query parameters of a URI reference, percent-decoded, in order.
package struct QueryParameters {
    /// The name/value pairs in order.
    package var pairs: [(name: String, value: String)]

    /// Reads the query of `uri` (between `?` and `#`).
    package init(_ uri: String) {
        let withoutFragment = uri.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard let question = withoutFragment.firstIndex(of: "?") else {
            pairs = []
            return
        }
        pairs = withoutFragment[withoutFragment.index(after: question)...].split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (
                Self.decode(parts[0]),
                parts.count > 1 ? Self.decode(parts[1]) : ""
            )
        }
    }

    /// The names in order.
    package var names: [String] { pairs.map(\.name) }

    /// Every value of `name`.
    package func values(for name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }

    /// `uri` with `name=value` appended to its query (before any fragment), the value percent-encoded.
    package static func appending(_ name: String, _ value: String, to uri: String) -> String {
        let parts = uri.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let base = String(parts[0])
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        let fragment = parts.count > 1 ? "#" + parts[1] : ""
        return base + separator + encode(name) + "=" + encode(value) + fragment
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    package static func encode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                result += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return result
    }

    /// Percent-decodes (and reads `+` as a space, as form encoding does); invalid escapes stay as written.
    package static func decode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex),
                high != utf8.endIndex, let low = utf8.index(high, offsetBy: 1, limitedBy: utf8.endIndex),
                low != utf8.endIndex,
                let value = UInt8(String(decoding: [utf8[high], utf8[low]], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index = utf8.index(after: low)
                continue
            }
            bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index = utf8.index(after: index)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
