/// Why an X-ASSET-LIST response could not be read: each problem names its JSON path.
///
/// Rendered as `ASSETS[2].DURATION: expected a number, found a string`, one problem per line.
public struct AssetListError: Error, Hashable, Sendable, CustomStringConvertible {
    /// One problem at one place in the JSON.
    public struct Problem: Hashable, Sendable, CustomStringConvertible {
        /// The JSON path, such as `ASSETS[2].DURATION`; empty for the whole document.
        public var path: String
        /// What is wrong.
        public var message: String

        /// Creates a problem.
        public init(path: String, message: String) {
            self.path = path
            self.message = message
        }

        /// `path: message`, or the message alone for the whole document.
        public var description: String { path.isEmpty ? message : "\(path): \(message)" }
    }

    /// The stable codes.
    public enum Code: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The bytes are not JSON.
        case json = "asset-list-json"
        /// The JSON is not of the asset list's shape (App. D.2).
        case schema = "asset-list-schema"

        /// The code as written.
        public var description: String { rawValue }
    }

    /// The stable code: `asset-list-json` (not JSON) or `asset-list-schema` (JSON of the wrong shape).
    public var code: Code
    /// The problems, in document order.
    public var problems: [Problem]

    /// Creates an error.
    public init(code: Code, problems: [Problem]) {
        self.code = code
        self.problems = problems
    }

    /// One line per problem.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
