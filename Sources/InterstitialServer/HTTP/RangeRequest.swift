/// What a `Range` request field asks of a representation of a known size (RFC 9110, section 14).
///
/// One `bytes` range is served as `206 Partial Content`. Anything else is the whole representation
/// (a server may ignore `Range`: an unknown unit, several ranges, a malformed value), except a
/// valid range that starts past the end, which is `416 Range Not Satisfiable`.
enum RangeRequest: Equatable, Sendable {
    /// Send the whole representation (`200`).
    case whole
    /// Send these bytes (`206`, `Content-Range: bytes first-last/size`).
    case partial(ClosedRange<Int>)
    /// `416`, `Content-Range: bytes */size`.
    case unsatisfiable

    /// The answer to `Range: value` for a representation of `size` bytes.
    static func evaluate(_ value: Substring?, size: Int) -> RangeRequest {
        guard let value else { return .whole }
        let trimmed = value.trimmingSpaces
        guard let equals = trimmed.firstIndex(of: "="),
            trimmed[..<equals].trimmingSpaces.lowercased() == "bytes"
        else { return .whole }
        let specs = trimmed[trimmed.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false)
        guard specs.count == 1, let dash = specs[0].firstIndex(of: "-") else { return .whole }
        let first = specs[0][..<dash].trimmingSpaces
        let last = specs[0][specs[0].index(after: dash)...].trimmingSpaces
        if first.isEmpty {
            // suffix-range: the last N bytes.
            guard let suffix = position(last) else { return .whole }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .partial(max(0, size - suffix)...(size - 1))
        }
        guard let start = position(first) else { return .whole }
        var end = Int.max
        if !last.isEmpty {
            guard let value = position(last), value >= start else { return .whole }
            end = value
        }
        guard start < size else { return .unsatisfiable }
        return .partial(start...min(end, size - 1))
    }

    /// A decimal position; one too large for `Int` is `Int.max` (beyond any file).
    private static func position(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int(text) ?? Int.max
    }
}
