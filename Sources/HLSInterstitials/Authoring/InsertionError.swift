/// Why `insert` refused a request: the input, the JSON path or option, and the reason.
public struct InsertionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable code, such as `insert-request` (a bad request) or `insert-playlist` (a playlist
    /// that cannot take interstitials).
    public var code: String
    /// Where: a JSON path (`interstitials[1].duration`) or an option name (`--asset-uri`); may be empty.
    public var path: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(code: String, path: String = "", _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    /// `path: message`, or the message alone.
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
