/// Reads an `stsd` sample entry (ISO/IEC 14496-12 §8.5.2 and §12.1–12.2) into the codec string HLS
/// `CODECS` writes (RFC 6381 §3) and the video size or audio layout.
enum SampleEntryParser {
    /// What one sample entry says.
    struct Entry {
        var type: FourCC
        var codec: String?
        var width: Int?
        var height: Int?
        var sampleRate: Int?
        var channelCount: Int?
    }

    private static let visualTypes: Set<FourCC> = [
        "avc1", "avc2", "avc3", "avc4", "hvc1", "hev1", "dvh1", "dvhe", "av01", "vp08", "vp09", "encv", "mp4v",
    ]
    private static let audioTypes: Set<FourCC> = [
        "mp4a", "ac-3", "ec-3", "ac-4", "enca", "Opus", "fLaC", "alac", ".mp3", "dtsc", "dtse", "dtsh", "dtsx",
    ]

    /// The sampling frequencies of MPEG-4 audio's `samplingFrequencyIndex` (ISO/IEC 14496-3 §1.6.3.4).
    static let mpeg4SampleRates = [
        96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350,
    ]

    /// Reads the sample entry `box`.
    static func parse(_ box: Box, _ bytes: [UInt8]) throws(MediaTimingError) -> Entry {
        var entry = Entry(type: box.type)
        if visualTypes.contains(box.type) {
            var reader = box.reader(bytes)
            try reader.skip(24)  // reserved (6), data_reference_index, pre_defined and reserved (16)
            entry.width = Int(try reader.u16())
            entry.height = Int(try reader.u16())
            // resolutions (8), reserved (4), frame_count (2), compressorname (32), depth (2), pre_defined (2)
            try reader.require(50, "the rest of a visual sample entry")
            let children = try box.children(bytes, skipping: 78)
            entry.codec = try videoCodec(box.type, children, bytes)
        } else if audioTypes.contains(box.type) {
            var reader = box.reader(bytes)
            try reader.skip(8)  // reserved (6), data_reference_index
            let version = try reader.u16()  // QuickTime sound description version; 0 in ISO files
            try reader.skip(6)
            entry.channelCount = Int(try reader.u16())
            try reader.skip(6)  // samplesize, pre_defined, reserved
            entry.sampleRate = Int(try reader.u32() >> 16)
            let extra = version == 1 ? 16 : version == 2 ? 36 : 0
            try reader.require(extra, "a version \(version) sound description")
            let children = try box.children(bytes, skipping: 28 + extra)
            try audioCodec(&entry, box.type, children, bytes)
        } else {
            entry.codec = box.type.description
        }
        return entry
    }

    /// The format an encrypted entry (`encv`, `enca`) protects, from `sinf/frma`.
    private static func originalFormat(
        _ type: FourCC, _ children: [Box], _ bytes: [UInt8]
    ) throws(MediaTimingError)
        -> FourCC
    {
        guard type == "encv" || type == "enca", let sinf = Box.first("sinf", in: children),
            let frma = Box.first("frma", in: try sinf.children(bytes))
        else { return type }
        var reader = frma.reader(bytes)
        return FourCC(try reader.u32())
    }

    private static func videoCodec(
        _ type: FourCC, _ children: [Box], _ bytes: [UInt8]
    ) throws(MediaTimingError)
        -> String
    {
        let format = try originalFormat(type, children, bytes)
        switch format {
        case "avc1", "avc2", "avc3", "avc4":
            guard let avcC = Box.first("avcC", in: children) else { return format.description }
            var reader = avcC.reader(bytes)
            try reader.skip(1)  // configurationVersion
            let profile = try reader.u8()
            let compatibility = try reader.u8()
            let level = try reader.u8()
            return "\(format).\(hex(profile))\(hex(compatibility))\(hex(level))"
        case "hvc1", "hev1", "dvh1", "dvhe":
            guard let hvcC = Box.first("hvcC", in: children) else { return format.description }
            var reader = hvcC.reader(bytes)
            try reader.skip(1)  // configurationVersion
            let first = try reader.u8()
            let compatibility = try reader.u32()
            let constraints = Array(try reader.read(6))
            let level = try reader.u8()
            return hevcCodec(format, first: first, compatibility: compatibility, constraints: constraints, level: level)
        case "av01":
            guard let av1C = Box.first("av1C", in: children) else { return format.description }
            var reader = av1C.reader(bytes)
            try reader.skip(1)  // marker, version
            let profileLevel = try reader.u8()
            let flags = try reader.u8()
            let profile = profileLevel >> 5
            let level = profileLevel & 0x1F
            let tier = flags & 0x80 != 0 ? "H" : "M"
            let depth = flags & 0x40 == 0 ? 8 : flags & 0x20 != 0 ? 12 : 10
            return "av01.\(profile).\(twoDigits(Int(level)))\(tier).\(twoDigits(depth))"
        case "vp09":
            guard let vpcC = Box.first("vpcC", in: children) else { return format.description }
            var reader = vpcC.reader(bytes)
            try reader.skip(4)  // version and flags
            let profile = try reader.u8()
            let level = try reader.u8()
            let depth = try reader.u8() >> 4
            return "vp09.\(twoDigits(Int(profile))).\(twoDigits(Int(level))).\(twoDigits(Int(depth)))"
        default:
            return format.description
        }
    }

    /// `hvc1.[A-C]PROFILE.COMPAT.[LH]LEVEL.C1.C2…` (ISO/IEC 14496-15 Annex E.3): the compatibility flags
    /// bit-reversed in hex, the constraint bytes in hex without trailing zero bytes.
    static func hevcCodec(
        _ format: FourCC, first: UInt8, compatibility: UInt32, constraints: [UInt8], level: UInt8
    )
        -> String
    {
        let space = ["", "A", "B", "C"][Int(first >> 6)]
        let tier = first & 0x20 != 0 ? "H" : "L"
        var reversed: UInt32 = 0
        for bit in 0..<32 where compatibility & (1 << UInt32(bit)) != 0 { reversed |= 1 << UInt32(31 - bit) }
        var text = "\(format).\(space)\(first & 0x1F).\(String(reversed, radix: 16, uppercase: true)).\(tier)\(level)"
        var kept = constraints
        while let last = kept.last, last == 0 { kept.removeLast() }
        for byte in kept { text += "." + String(byte, radix: 16, uppercase: true) }
        return text
    }

    private static func audioCodec(
        _ entry: inout Entry, _ type: FourCC, _ children: [Box], _ bytes: [UInt8]
    )
        throws(MediaTimingError)
    {
        let format = try originalFormat(type, children, bytes)
        entry.codec = format.description
        guard format == "mp4a", let esds = Box.first("esds", in: children) else { return }
        var reader = esds.reader(bytes)
        try reader.skip(4)  // version and flags
        guard let config = try decoderConfig(&reader) else { return }
        if config.objectType == 0x69 || config.objectType == 0x6B {
            entry.codec = "mp4a.40.34"  // MPEG-1/2 audio (MP3), as HLS writes it
            return
        }
        guard config.objectType == 0x40, let specific = config.specific else {
            entry.codec = "mp4a." + hex(config.objectType, uppercase: true)
            return
        }
        var bits = BitReader(specific)
        var audioObjectType = bits.read(5)
        if audioObjectType == 31 { audioObjectType = 32 + bits.read(6) }
        let frequencyIndex = Int(bits.read(4))
        let rate =
            frequencyIndex == 15
            ? Int(bits.read(24))
            : mpeg4SampleRates.indices.contains(frequencyIndex) ? mpeg4SampleRates[frequencyIndex] : nil
        let channels = Int(bits.read(4))
        guard !bits.overrun else { return }
        entry.codec = "mp4a.40.\(audioObjectType)"
        if entry.sampleRate == nil || entry.sampleRate == 0, let rate { entry.sampleRate = rate }
        if (1...7).contains(channels) {  // the sample entry's channelcount is often a fixed 2
            entry.channelCount = channels == 7 ? 8 : channels
        }
    }

    /// The object type and `DecoderSpecificInfo` of an `ES_Descriptor` (ISO/IEC 14496-1 §7.2.6.5).
    private static func decoderConfig(
        _ reader: inout ByteReader
    ) throws(MediaTimingError)
        -> (objectType: UInt8, specific: ArraySlice<UInt8>?)?
    {
        guard try reader.u8() == 0x03 else { return nil }
        _ = try descriptorLength(&reader)
        try reader.skip(2)  // ES_ID
        let flags = try reader.u8()
        if flags & 0x80 != 0 { try reader.skip(2) }  // dependsOn_ES_ID
        if flags & 0x40 != 0 { try reader.skip(Int(try reader.u8())) }  // URL
        if flags & 0x20 != 0 { try reader.skip(2) }  // OCR_ES_Id
        guard try reader.u8() == 0x04 else { return nil }
        let length = try descriptorLength(&reader)
        let end = reader.position + length
        let objectType = try reader.u8()
        try reader.skip(12)  // streamType, bufferSizeDB, maxBitrate, avgBitrate
        guard reader.position < end, reader.remaining > 0, try reader.u8() == 0x05 else { return (objectType, nil) }
        let specificLength = try descriptorLength(&reader)
        return (objectType, try reader.read(min(specificLength, reader.remaining)))
    }

    /// An expandable descriptor length: up to four bytes of seven bits.
    private static func descriptorLength(_ reader: inout ByteReader) throws(MediaTimingError) -> Int {
        var length = 0
        for _ in 0..<4 {
            let byte = try reader.u8()
            length = length << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 { break }
        }
        return length
    }

    /// Two hex digits.
    static func hex(_ byte: UInt8, uppercase: Bool = false) -> String {
        let text = String(byte, radix: 16, uppercase: uppercase)
        return byte < 16 ? "0" + text : text
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
