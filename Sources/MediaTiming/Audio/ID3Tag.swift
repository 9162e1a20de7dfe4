/// An ID3v2 tag (id3.org ID3v2.3/2.4 §3), as HLS packed audio starts with: read for its size, so it
/// can be skipped, and for the timestamp HLS puts in it.
///
/// RFC 8216 §3.4: "Each Packed Audio Segment MUST signal the timestamp of its first sample with an
/// ID3 Private frame (PRIV) tag … The ID3 PRIV owner identifier MUST be
/// com.apple.streaming.transportStreamTimestamp. The ID3 payload MUST be a 33-bit MPEG-2 Program
/// Elementary Stream timestamp expressed as a big-endian eight-octet number, with the upper 31 bits
/// set to zero."
public struct ID3Tag: Hashable, Sendable {
    /// The PRIV owner identifier of the HLS timestamp.
    public static let timestampOwner = "com.apple.streaming.transportStreamTimestamp"

    /// The tag's whole length in bytes: header, body and footer.
    public var length: Int
    /// The ID3v2 major version (2, 3 or 4).
    public var version: UInt8
    /// The 33-bit 90 kHz timestamp of the `com.apple.streaming.transportStreamTimestamp` PRIV frame.
    public var transportStreamTimestamp: UInt64?

    /// Whether an ID3v2 tag starts at `offset`.
    public static func starts(_ bytes: [UInt8], at offset: Int) -> Bool {
        offset >= 0 && offset + 3 <= bytes.count && bytes[offset] == 0x49 && bytes[offset + 1] == 0x44
            && bytes[offset + 2] == 0x33
    }

    /// Reads the tag at `offset`; throws ``MediaTimingError/Code/id3Tag`` or
    /// ``MediaTimingError/Code/truncated`` with the offset when it is malformed.
    public static func parse(_ bytes: [UInt8], at offset: Int) throws(MediaTimingError) -> ID3Tag {
        var reader = ByteReader(bytes, from: offset, to: bytes.count, path: "ID3")
        try reader.require(10, "an ID3 header")
        try reader.skip(3)
        let version = try reader.u8()
        try reader.skip(1)
        let flags = try reader.u8()
        guard (2...4).contains(version) else {
            throw reader.error(.id3Tag, "ID3v2.\(version) is not a known version", at: offset + 3)
        }
        let sizeOffset = reader.position
        guard let size = syncsafe(try reader.read(4)) else {
            throw reader.error(.id3Tag, "the tag size is not a syncsafe integer", at: sizeOffset)
        }
        let bodyStart = reader.position
        let length = 10 + size + (flags & 0x10 != 0 ? 10 : 0)
        guard offset + length <= bytes.count else {
            throw reader.error(
                .truncated, "the ID3 tag declares \(length) bytes but \(bytes.count - offset) are left", at: offset)
        }
        var tag = ID3Tag(length: length, version: version)
        var body = ByteReader(bytes, from: bodyStart, to: bodyStart + size, path: "ID3")
        if flags & 0x40 != 0, version >= 3 {
            let extended = try body.read(4)
            let extendedSize =
                version == 4 ? (syncsafe(extended) ?? 0) - 4 : Int(extended.reduce(0) { $0 << 8 | Int($1) })
            try body.skip(max(extendedSize, 0))
        }
        let headerSize = version == 2 ? 6 : 10
        while body.remaining >= headerSize, bytes[body.position] != 0 {
            let frameOffset = body.position
            let id = try body.read(version == 2 ? 3 : 4)
            let sizeBytes = try body.read(version == 2 ? 3 : 4)
            let frameSize =
                version == 4 ? syncsafe(sizeBytes) ?? Int.max : sizeBytes.reduce(0) { $0 << 8 | Int($1) }
            if version != 2 { try body.skip(2) }
            guard frameSize <= body.remaining else {
                throw body.error(
                    .id3Tag, "the ID3 frame declares \(frameSize) bytes but \(body.remaining) are left", at: frameOffset
                )
            }
            let data = try body.read(frameSize)
            guard id.elementsEqual("PRIV".utf8) || id.elementsEqual("PRV".utf8) else { continue }
            guard let zero = data.firstIndex(of: 0) else { continue }
            guard data[data.startIndex..<zero].elementsEqual(timestampOwner.utf8) else { continue }
            let payload = data[(zero + 1)...]
            guard payload.count >= 8 else {
                throw body.error(
                    .id3Tag, "the \(timestampOwner) PRIV frame has \(payload.count) bytes, not 8", at: frameOffset)
            }
            let value = payload.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            tag.transportStreamTimestamp = value & ((1 << 33) - 1)
        }
        return tag
    }

    /// A 28-bit syncsafe integer (seven bits per byte), or nil when a byte has its top bit set.
    private static func syncsafe(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard byte & 0x80 == 0 else { return nil }
            value = value << 7 | Int(byte)
        }
        return value
    }
}
