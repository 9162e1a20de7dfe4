/// One box of an ISO BMFF file: its type, where it starts, its header size and where it ends.
struct Box {
    /// The box type (`uuid` for extended types).
    let type: FourCC
    /// The offset of the box's first byte (its size field).
    let offset: Int
    /// The size of the header: 8, 16 with a 64-bit `largesize`, plus 16 for a `uuid` extended type.
    let headerSize: Int
    /// One past the box's last byte.
    let end: Int
    /// The box path, such as `moof/traf[1]/trun`.
    let path: String
    /// How deep the box is: 1 for a top-level box.
    let depth: Int

    /// The first byte after the header.
    var payloadStart: Int { offset + headerSize }

    /// A reader of the box's payload.
    func reader(_ bytes: [UInt8]) -> ByteReader { ByteReader(bytes, from: payloadStart, to: end, path: path) }

    /// The box's children, read from its payload after skipping `skipping` bytes of fields.
    func children(_ bytes: [UInt8], skipping: Int = 0) throws(MediaTimingError) -> [Box] {
        try Box.boxes(in: bytes, from: payloadStart + skipping, to: end, parentPath: path, depth: depth + 1)
    }

    /// The first child of type `type`.
    static func first(_ type: FourCC, in boxes: [Box]) -> Box? { boxes.first { $0.type == type } }

    /// Types that repeat once per track; their path components always carry an index.
    private static let indexedTypes: Set<FourCC> = ["trak", "traf"]

    /// The boxes in `bytes[start..<end]` at nesting depth `depth` (1 at the top).
    ///
    /// A size of 0 runs to `end`; a size of 1 is followed by a 64-bit `largesize`; a `uuid` box has a
    /// 16-byte extended type. A size smaller than the header or larger than what is left throws, with
    /// the offset of the box and its path; so does nesting deeper than ``MediaTimingParser/maximumBoxDepth``.
    /// The cost is bounded by the bytes given: nothing is allocated for a declared size.
    static func boxes(
        in bytes: [UInt8], from start: Int, to end: Int, parentPath: String, depth: Int
    ) throws(MediaTimingError) -> [Box] {
        guard depth <= MediaTimingParser.maximumBoxDepth else {
            throw MediaTimingError(
                .boxDepth, offset: start, path: parentPath,
                "boxes are nested more than \(MediaTimingParser.maximumBoxDepth) deep")
        }
        var result: [Box] = []
        var counts: [FourCC: Int] = [:]
        var position = start
        while position < end {
            var reader = ByteReader(bytes, from: position, to: end, path: parentPath.isEmpty ? "(top)" : parentPath)
            guard reader.remaining >= 8 else {
                throw reader.error(.truncated, "a box header needs 8 bytes but \(reader.remaining) are left")
            }
            let size32 = try reader.u32()
            let type = FourCC(try reader.u32())
            let count = counts[type, default: 0] + 1
            counts[type] = count
            let component =
                count > 1 || indexedTypes.contains(type) ? "\(type)[\(count)]" : type.description
            let path = parentPath.isEmpty ? component : parentPath + "/" + component
            reader = ByteReader(bytes, from: reader.position, to: end, path: path)
            var headerSize = 8
            var size: UInt64
            switch size32 {
            case 0:
                size = UInt64(end - position)
            case 1:
                guard reader.remaining >= 8 else {
                    throw reader.error(.truncated, "a box with size 1 needs a 64-bit largesize", at: position)
                }
                size = try reader.u64()
                headerSize = 16
            default:
                size = UInt64(size32)
            }
            if type == "uuid" {
                try reader.require(16, "the extended type of a uuid box")
                headerSize += 16
            }
            guard size >= UInt64(headerSize) else {
                throw MediaTimingError(
                    .boxSize, offset: position, path: path,
                    "box size \(size) is smaller than its \(headerSize)-byte header")
            }
            guard size <= UInt64(end - position) else {
                let code: MediaTimingError.Code = end == bytes.count ? .truncated : .boxSize
                throw MediaTimingError(
                    code, offset: position, path: path,
                    "box size \(size) runs past the end of its \(parentPath.isEmpty ? "input" : "parent") (\(end - position) bytes left)"
                )
            }
            let boxEnd = position + Int(size)
            result.append(
                Box(type: type, offset: position, headerSize: headerSize, end: boxEnd, path: path, depth: depth))
            position = boxEnd
        }
        return result
    }
}
