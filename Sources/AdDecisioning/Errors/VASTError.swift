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
    /// The stable codes of notes. Their raw values are what `hlsi vast` prints and writes in JSON.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// An element the reader does not know, ignored (`vast-unknown-element`).
        case unknownElement = "vast-unknown-element"
        /// A value that is not what its element or attribute allows, ignored (`vast-bad-value`).
        case badValue = "vast-bad-value"
        /// A URL element with no URL in it, skipped (`vast-empty-url`).
        case emptyURL = "vast-empty-url"
        /// Something known but not read by this version, such as a nested ad pod (`vast-not-read`).
        case notRead = "vast-not-read"
        /// Past a limit of ``VASTReader/Limits`` or of the VMAP reader: the rest is skipped
        /// (`vast-limit`, as ``VASTError/Code/limit``).
        case limit = "vast-limit"
        /// A part that does not have the shape VAST or VMAP requires, skipped (`vast-schema`, as
        /// ``VASTError/Code/schema``).
        case schema = "vast-schema"
        /// An inline VAST document inside a VMAP that is not well-formed, skipped (`vast-xml`).
        case xml = "vast-xml"
        /// An inline VAST document inside a VMAP of a version not read, skipped (`vast-version`).
        case version = "vast-version"

        /// The note for an error that made a part of a document be skipped: the same code.
        public init(_ error: VASTError.Code) {
            switch error {
            case .xml: self = .xml
            case .limit: self = .limit
            case .schema: self = .schema
            case .version: self = .version
            }
        }
    }

    /// The stable code.
    public var code: Code
    /// Where it is.
    public var location: XMLLocation
    /// What was skipped and why.
    public var message: String

    /// Creates a note.
    public init(_ code: Code, at location: XMLLocation, _ message: String) {
        self.code = code
        self.location = location
        self.message = message
    }

    /// `line:column: note: [code] message`.
    public var description: String { "\(location): note: [\(code.rawValue)] \(message)" }
}
