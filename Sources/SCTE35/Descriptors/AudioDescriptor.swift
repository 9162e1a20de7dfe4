/// An `audio_descriptor()` (tag 0x04): the audio services of the program (SCTE 35 2016 and later).
///
/// ANSI/SCTE 35 §10.3.5: audio_count (4 bits) entries of component_tag, ISO_code (24 bits),
/// Bit_Stream_Mode (3), Num_Channels (4) and Full_Srvc_Audio (1).
public struct AudioDescriptor: Hashable, Sendable {
    /// The audio components (at most 15).
    public var components: [Component]
    /// The 4 reserved bits after audio_count as read; all ones by default.
    public var reservedBits: UInt8
    /// Bytes after the last field, within descriptor_length.
    public var trailingBytes: [UInt8]

    /// An audio descriptor.
    public init(components: [Component], reservedBits: UInt8 = 0x0F, trailingBytes: [UInt8] = []) {
        self.components = components
        self.reservedBits = reservedBits
        self.trailingBytes = trailingBytes
    }

    /// One audio component.
    public struct Component: Hashable, Sendable {
        /// component_tag.
        public var componentTag: UInt8
        /// ISO_code: an ISO 639-2 language code in 24 bits, such as `eng`.
        public var isoCode: UInt32
        /// Bit_Stream_Mode (3 bits).
        public var bitStreamMode: UInt8
        /// Num_Channels (4 bits).
        public var numChannels: UInt8
        /// Full_Srvc_Audio.
        public var fullServiceAudio: Bool

        /// An audio component.
        public init(
            componentTag: UInt8, isoCode: UInt32, bitStreamMode: UInt8, numChannels: UInt8, fullServiceAudio: Bool
        ) {
            self.componentTag = componentTag
            self.isoCode = isoCode
            self.bitStreamMode = bitStreamMode
            self.numChannels = numChannels
            self.fullServiceAudio = fullServiceAudio
        }

        /// The language code as three characters when printable.
        public var isoCodeText: String? {
            let bytes = [16, 8, 0].map { UInt8(isoCode >> UInt32($0) & 0xFF) }
            guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    init(reading reader: inout BitReader) throws(SCTE35Error) {
        let count = Int(try reader.bits(4, "audio_count"))
        reservedBits = UInt8(try reader.bits(4, "reserved"))
        components = []
        for index in 0..<count {
            let prefix = "components[\(index)]."
            components.append(
                Component(
                    componentTag: try reader.uint8(prefix + "component_tag"),
                    isoCode: UInt32(try reader.bits(24, prefix + "ISO_code")),
                    bitStreamMode: UInt8(try reader.bits(3, prefix + "Bit_Stream_Mode")),
                    numChannels: UInt8(try reader.bits(4, prefix + "Num_Channels")),
                    fullServiceAudio: try reader.flag(prefix + "Full_Srvc_Audio")))
        }
        trailingBytes = try reader.rest("trailing_bytes")
    }

    func write(to writer: inout BitWriter) throws(SCTE35Error) {
        try writer.bits(UInt64(components.count), 4, "audio_count")
        try writer.bits(UInt64(reservedBits), 4, "reserved")
        for (index, component) in components.enumerated() {
            let prefix = "components[\(index)]."
            try writer.bits(UInt64(component.componentTag), 8, prefix + "component_tag")
            try writer.bits(UInt64(component.isoCode), 24, prefix + "ISO_code")
            try writer.bits(UInt64(component.bitStreamMode), 3, prefix + "Bit_Stream_Mode")
            try writer.bits(UInt64(component.numChannels), 4, prefix + "Num_Channels")
            try writer.flag(component.fullServiceAudio, prefix + "Full_Srvc_Audio")
        }
        writer.append(trailingBytes)
    }

    var jsonFields: [(String, JSONNode)] {
        [
            ("audio_count", .uint(components.count)),
            (
                "components",
                .array(
                    components.map {
                        .object([
                            ("component_tag", .uint($0.componentTag)),
                            ("ISO_code", $0.isoCodeText.map(JSONNode.string) ?? .uint($0.isoCode)),
                            ("Bit_Stream_Mode", .uint($0.bitStreamMode)), ("Num_Channels", .uint($0.numChannels)),
                            ("Full_Srvc_Audio", .bool($0.fullServiceAudio)),
                        ])
                    })
            ),
        ]
    }
}
