/// The rule for a request's `Connection` field (RFC 9110 §7.6.1): whether the server closes the
/// connection once it has answered the request (``closesAfterAnswer(_:http10:)``). It does when the
/// field carries the `close` connection option (RFC 9112 §9.6), and for an HTTP/1.0 request unless
/// the field carries `keep-alive` (RFC 9112 §9.3: "If the received protocol is HTTP/1.0, the
/// "keep-alive" connection option is present, ... the connection will persist after the current
/// response; otherwise, the connection will close after the current response").
///
/// The field is a comma-separated list of tokens, with optional spaces and tabs around each comma
/// and empty elements allowed (RFC 9110 §5.6.1), matched without regard to case; several
/// `Connection` field lines are one list (RFC 9110 §5.3). So `close`, `Close`, `keep-alive, close`,
/// ` close ` and `Upgrade, HTTP2-Settings, close` carry it; `closed`, `enclose` and `"close"` do not.
/// One pass over the bytes, no allocation: linear in the field's size, whatever it holds.
enum ConnectionOptions {
    private static let close = Array("close".utf8)
    private static let keepAlive = Array("keep-alive".utf8)

    /// Whether the server closes the connection once it has answered a request whose `Connection`
    /// field lines have the values `values`: the field carries `close`, or the request is HTTP/1.0
    /// (`http10`) and the field does not carry `keep-alive`.
    static func closesAfterAnswer(_ values: some Collection<ArraySlice<UInt8>>, http10: Bool) -> Bool {
        carriesClose(values) || (http10 && !values.contains { lists(keepAlive, in: $0) })
    }

    /// Whether the `Connection` field whose lines have the values `values` carries the `close` option.
    static func carriesClose(_ values: some Sequence<ArraySlice<UInt8>>) -> Bool {
        values.contains { lists(close, in: $0) }
    }

    /// Whether one `Connection` field line's value `value` lists `option` (lower case).
    private static func lists(_ option: [UInt8], in value: ArraySlice<UInt8>) -> Bool {
        var start = value.startIndex
        while start <= value.endIndex {
            let end = value[start...].firstIndex(of: 0x2C) ?? value.endIndex
            if HTTPBytes.equalsLowercased(HTTPBytes.trimmed(value[start..<end]), option) { return true }
            start = end + 1
        }
        return false
    }
}
