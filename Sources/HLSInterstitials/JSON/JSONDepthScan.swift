/// One pass over JSON bytes that finds nesting deeper than a bound before any parser sees them, so a
/// document of a million `[` costs one read of its bytes.
package enum JSONDepthScan {
    /// The byte offset of the first `[` or `{` (outside strings) that opens a level deeper than
    /// `maximum`; nil when the nesting stays within it.
    package static func firstOffset(beyond maximum: Int, in bytes: some Collection<UInt8>) -> Int? {
        var depth = 0
        var inString = false
        var escaped = false
        for (offset, byte) in bytes.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maximum { return offset }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(0, depth - 1)
            default: break
            }
        }
        return nil
    }
}
