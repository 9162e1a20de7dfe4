/// A splice descriptor kept as bytes: a reserved tag, or a private descriptor (an identifier other than
/// "CUEI").
public struct RawDescriptor: Hashable, Sendable {
    /// splice_descriptor_tag.
    public var tag: UInt8
    /// Every byte after descriptor_length, the identifier included (at most 255).
    public var bytes: [UInt8]

    /// A raw descriptor.
    public init(tag: UInt8, bytes: [UInt8]) {
        self.tag = tag
        self.bytes = bytes
    }

    /// The identifier (the first four bytes), or `nil` when the descriptor is shorter.
    public var identifier: UInt32? {
        guard bytes.count >= 4 else { return nil }
        return bytes[0..<4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
