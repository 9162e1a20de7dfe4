import HLSPlaylist

/// Why a playlist or asset could not be loaded.
public struct LoadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable code for each kind of failure.
    public enum Code: String, Hashable, Sendable, Codable {
        /// The file does not exist or cannot be read.
        case fileUnreadable = "file-unreadable"
        /// The location is neither a file path nor an http(s) URL.
        case invalidLocation = "invalid-location"
        /// The server answered with a status other than 2xx.
        case httpStatus = "http-status"
        /// More redirects than allowed, or a redirect cycle.
        case tooManyRedirects = "too-many-redirects"
        /// No response in time.
        case timeout
        /// Connection or protocol failure.
        case network
        /// The response is larger than allowed.
        case tooLarge = "too-large"
        /// The content is not a playlist (it does not start with `#EXTM3U`).
        case notAPlaylist = "not-a-playlist"
        /// The content is not valid UTF-8.
        case notUTF8 = "not-utf8"
    }

    /// The kind of failure.
    public var code: Code
    /// The path or URL that was being loaded.
    public var location: String
    /// What went wrong.
    public var message: String
    /// The HTTP status, for ``Code/httpStatus``.
    public var httpStatus: Int?
    /// Where in the content the problem is, for content errors (the first byte that is not UTF-8,
    /// the first line that is not `#EXTM3U`).
    public var position: SourceLocation?

    /// Creates an error.
    public init(
        _ code: Code, location: String, _ message: String, httpStatus: Int? = nil, position: SourceLocation? = nil
    ) {
        self.code = code
        self.location = location
        self.message = message
        self.httpStatus = httpStatus
        self.position = position
    }

    /// Whether the failure is in the content itself (an input error) rather than in getting it (I/O).
    public var isContentError: Bool { code == .notAPlaylist || code == .notUTF8 }

    /// The rule ID of the failure as a diagnostic: `load-` and the code, such as `load-network`.
    public var ruleID: RuleID { RuleID(rawValue: "load-\(code.rawValue)") }

    /// The failure as an error diagnostic of rule ``ruleID``, for reports that list diagnostics (the
    /// JSON of `hlsi validate`, `inspect` and `schedule`): at ``position`` when there is one, else at
    /// line 0, column 0 of the location, which means the resource as a whole.
    public var diagnostic: Diagnostic {
        Diagnostic(.error, ruleID, at: position ?? SourceLocation(file: location, line: 0, column: 0), message)
    }

    /// `location: error: [load-code] message` (`file:line:column` when there is a ``position``).
    public var description: String {
        "\(position?.description ?? location): error: [\(ruleID.rawValue)] \(message)"
    }
}
