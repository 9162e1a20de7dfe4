/// The rule for a request's `Connection` field (RFC 9110 §7.6.1): whether it carries the `close`
/// connection option, after which the server closes the connection once it has answered the
/// request (RFC 9112 §9.6).
///
/// The field is a comma-separated list of tokens, with optional spaces and tabs around each comma
/// and empty elements allowed (RFC 9110 §5.6.1), matched without regard to case; several
/// `Connection` field lines are one list (RFC 9110 §5.3). So `close`, `Close`, `keep-alive, close`,
/// ` close ` and `Upgrade, HTTP2-Settings, close` carry it; `closed`, `enclose` and `"close"` do not.
/// One pass over the bytes, no allocation: linear in the field's size, whatever it holds.
enum ConnectionOptions {
    private static let close = Array("close".utf8)

    /// Whether the `Connection` field whose lines have the values `values` carries the `close` option.
    static func carriesClose(_ values: some Sequence<ArraySlice<UInt8>>) -> Bool {
        values.contains(where: listsClose)
    }

    /// Whether one `Connection` field line's value `value` lists the `close` option.
    private static func listsClose(_ value: ArraySlice<UInt8>) -> Bool {
        var start = value.startIndex
        while start <= value.endIndex {
            let end = value[start...].firstIndex(of: 0x2C) ?? value.endIndex
            if HTTPBytes.equalsLowercased(HTTPBytes.trimmed(value[start..<end]), close) { return true }
            start = end + 1
        }
        return false
    }
}
