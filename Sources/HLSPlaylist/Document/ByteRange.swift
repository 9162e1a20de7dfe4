/// A byte range `n[@o]`: a length and an optional start offset (§4.4.4.2).
public struct ByteRange: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The length in bytes.
    public var length: UInt64
    /// The offset of the first byte; `nil` means right after the previous sub-range.
    public var offset: UInt64?

    /// Creates a byte range.
    public init(length: UInt64, offset: UInt64? = nil) {
        self.length = length
        self.offset = offset
    }

    /// Parses `n[@o]`.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let length = AttributeValue(unchecked: String(parts[0])).decimalInteger
        else { return nil }
        self.length = length
        if parts.count == 2 {
            guard let offset = AttributeValue(unchecked: String(parts[1])).decimalInteger else { return nil }
            self.offset = offset
        } else {
            self.offset = nil
        }
    }

    /// `n[@o]`.
    public var description: String { offset.map { "\(length)@\($0)" } ?? "\(length)" }
}
