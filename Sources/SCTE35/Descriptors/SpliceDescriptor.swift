/// One `splice_descriptor()` of a section's descriptor loop.
///
/// ANSI/SCTE 35 §10.2: each descriptor has a splice_descriptor_tag, a descriptor_length and a 32-bit
/// identifier; the tags of Table 16 apply when the identifier is "CUEI" (0x43554549). Descriptors with
/// another identifier or a reserved tag are kept as bytes (``RawDescriptor``).
public enum SpliceDescriptor: Hashable, Sendable {
    /// avail_descriptor (tag 0x00).
    case avail(AvailDescriptor)
    /// DTMF_descriptor (tag 0x01).
    case dtmf(DTMFDescriptor)
    /// segmentation_descriptor (tag 0x02).
    case segmentation(SegmentationDescriptor)
    /// time_descriptor (tag 0x03).
    case time(TimeDescriptor)
    /// audio_descriptor (tag 0x04).
    case audio(AudioDescriptor)
    /// A descriptor kept as bytes: a reserved tag, or an identifier other than "CUEI".
    case raw(RawDescriptor)

    /// splice_descriptor_tag.
    public var tag: UInt8 {
        switch self {
        case .avail: 0x00
        case .dtmf: 0x01
        case .segmentation: 0x02
        case .time: 0x03
        case .audio: 0x04
        case .raw(let raw): raw.tag
        }
    }

    /// The spec's name, such as `segmentation_descriptor`; `private_descriptor` for raw ones.
    public var name: String {
        switch self {
        case .avail: "avail_descriptor"
        case .dtmf: "DTMF_descriptor"
        case .segmentation: "segmentation_descriptor"
        case .time: "time_descriptor"
        case .audio: "audio_descriptor"
        case .raw: "private_descriptor"
        }
    }

    /// The segmentation descriptor, if this is one.
    public var segmentation: SegmentationDescriptor? {
        if case .segmentation(let descriptor) = self { return descriptor }
        return nil
    }

    /// Reads one descriptor whose tag and length were read; the reader's window is its body.
    init(tag: UInt8, reading reader: inout BitReader) throws(SCTE35Error) {
        let start = reader.offset
        guard reader.remainingBytes >= 4 else {
            self = .raw(RawDescriptor(tag: tag, bytes: try reader.rest("bytes")))
            return
        }
        let identifier = try reader.uint32("identifier")
        guard identifier == FourCharacterCode.cuei, tag <= 0x04 else {
            self = .raw(RawDescriptor(tag: tag, bytes: Array(reader.bytes[start..<reader.end])))
            _ = try reader.rest("bytes")
            return
        }
        switch tag {
        case 0x00: self = .avail(try AvailDescriptor(reading: &reader))
        case 0x01: self = .dtmf(try DTMFDescriptor(reading: &reader))
        case 0x02: self = .segmentation(try SegmentationDescriptor(reading: &reader))
        case 0x03: self = .time(try TimeDescriptor(reading: &reader))
        default: self = .audio(try AudioDescriptor(reading: &reader))
        }
    }

    /// Writes the body after splice_descriptor_tag and descriptor_length.
    func writeBody(to writer: inout BitWriter) throws(SCTE35Error) {
        if case .raw(let raw) = self {
            if raw.tag <= 0x04, raw.bytes.count >= 4, raw.bytes[0..<4] == [0x43, 0x55, 0x45, 0x49] {
                throw writer.error(
                    .valueRange, "identifier", "a CUEI descriptor with tag \(raw.tag) must be written as its typed form"
                )
            }
            writer.append(raw.bytes)
            return
        }
        try writer.bits(UInt64(FourCharacterCode.cuei), 32, "identifier")
        switch self {
        case .avail(let descriptor): try descriptor.write(to: &writer)
        case .dtmf(let descriptor): try descriptor.write(to: &writer)
        case .segmentation(let descriptor): try descriptor.write(to: &writer)
        case .time(let descriptor): try descriptor.write(to: &writer)
        case .audio(let descriptor): try descriptor.write(to: &writer)
        case .raw: break
        }
    }

    /// The fields after the tag, the length, the identifier and the name.
    var jsonFields: [(String, JSONNode)] {
        switch self {
        case .avail(let descriptor): descriptor.jsonFields
        case .dtmf(let descriptor): descriptor.jsonFields
        case .segmentation(let descriptor): descriptor.jsonFields
        case .time(let descriptor): descriptor.jsonFields
        case .audio(let descriptor): descriptor.jsonFields
        case .raw(let raw): [("bytes", .string(SectionText.hex(raw.bytes, prefix: false, uppercase: false)))]
        }
    }

    /// Bytes after the fields the syntax defines.
    var trailingBytes: [UInt8] {
        switch self {
        case .avail(let descriptor): descriptor.trailingBytes
        case .dtmf(let descriptor): descriptor.trailingBytes
        case .segmentation(let descriptor): descriptor.trailingBytes
        case .time(let descriptor): descriptor.trailingBytes
        case .audio(let descriptor): descriptor.trailingBytes
        case .raw: []
        }
    }
}
