import HLSInterstitials
import HLSPlaylist

/// The project's one JSON reader (``JSONReader``), throwing the server's HTTP errors: a 400 with code
/// `json-schema` and the JSON path.
typealias JSONObjectReader = JSONReader<APIError>

extension JSONReader where Failure == APIError {
    /// A reader of `value` for the admin API and the configuration file.
    init(_ value: JSONValue, path: String) throws(APIError) {
        try self.init(value, path: path, code: .jsonSchema)
    }

    /// A non-empty identifier of letters, digits, `-`, `_` and `.`, usable in a URL path and as a
    /// date range ID.
    mutating func identifier(_ key: String) throws(APIError) -> String {
        let text = try requiredString(key)
        guard Self.isIdentifier(text) else {
            throw error(key, "\"\(text)\" is not an identifier: use 1 to 64 of A-Z a-z 0-9 - _ .")
        }
        return text
    }

    static func isIdentifier(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.count <= 64 && text != "." && text != ".."
            && text.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                    || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E
            }
    }

    /// A whole number from 0 to 999,999 (counts, ports, sizes).
    mutating func count(_ key: String) throws(APIError) -> Int? {
        try integer(key, in: 0...999_999)
    }
}

extension APIError: JSONPathError {
    /// A 400 for a problem at a JSON path.
    public static func jsonProblem(code: Code, path: String, message: String) -> APIError {
        .badRequest(code: code, path: path, message)
    }
}
