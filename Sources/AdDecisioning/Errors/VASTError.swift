/// A VAST or VMAP document that cannot be read: a stable code, the line and column (and the byte
/// offset, when the pre-scan found it), the message and the VAST error code a player reports for it.
public struct VASTError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable codes.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// Not well-formed XML, or a construct refused for safety (a document type declaration, an
        /// encoding other than UTF-8, ASCII or ISO-8859).
        case xml = "vast-xml"
        /// Over a limit of ``XMLLimits`` or of ``VASTReader/Limits``.
        case limit = "vast-limit"
        /// Well-formed, but not a VAST (or VMAP) document: the wrong root element, no `version`.
        case schema = "vast-schema"
        /// A VAST major version other than 2, 3 or 4, or a VMAP version other than 1.
        case version = "vast-version"
    }

    /// The stable code.
    public var code: Code
    /// Where the problem is.
    public var location: XMLLocation
    /// The offset (from 0) of the byte where the problem is, when it is known: the XML pre-scan
    /// gives it, the parser gives only ``location``.
    public var byteOffset: Int?
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, at location: XMLLocation, byteOffset: Int? = nil, _ message: String) {
        self.code = code
        self.location = location
        self.byteOffset = byteOffset
        self.message = message
    }

    /// The VAST error code a player reports for this problem (VAST 4.3 §2.3.6): 100 for XML and
    /// limits, 101 for schema problems, 102 for unsupported versions.
    public var vastErrorCode: VASTErrorCode {
        switch code {
        case .xml, .limit: .xmlParsing
        case .schema: .schemaValidation
        case .version: .versionNotSupported
        }
    }

    /// `line:column: error: [code] message (VAST error N)`, with ` (byte N)` after the column when
    /// the byte offset is known.
    public var description: String {
        let place = byteOffset.map { "\(location) (byte \($0))" } ?? location.description
        return "\(place): error: [\(code.rawValue)] \(message) (VAST error \(vastErrorCode))"
    }
}

/// Something a reader skipped or did not understand in a document that is still read: an unknown
/// element, an attribute that is not a number, an ad with neither `<InLine>` nor `<Wrapper>`.
public struct VASTNote: Hashable, Sendable, CustomStringConvertible {
    /// A stable code such as `vast-unknown-element` or `vast-bad-value`.
    public var code: String
    /// Where it is.
    public var location: XMLLocation
    /// What was skipped and why.
    public var message: String

    /// Creates a note.
    public init(_ code: String, at location: XMLLocation, _ message: String) {
        self.code = code
        self.location = location
        self.message = message
    }

    /// `line:column: note: [code] message`.
    public var description: String { "\(location): note: [\(code)] \(message)" }
}
