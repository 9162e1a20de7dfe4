/// Moves the timestamps of fragmented MP4 media segments, so that a looped channel's timestamps run
/// on across loops instead of starting again at every loop (no EXT-X-DISCONTINUITY, which some
/// players handle badly when they start or seek next to one).
///
/// Pure and bounded: it walks the box headers of the buffer only, never trusts a size beyond the
/// buffer, and rewrites the 64-bit `baseMediaDecodeTime` of each `moof/traf/tfdt` in place.
enum DecodeTimeShift {
    /// Why a buffer cannot be shifted.
    enum Failure: Error, Equatable {
        /// A box's size runs past its parent or is smaller than its header, at this byte offset.
        case malformed(offset: Int)
        /// There is no `moof/traf/tfdt` of version 1 to rewrite.
        case noDecodeTime
        /// The shifted time does not fit in 64 bits.
        case overflow
    }

    /// The media timescale of the first track of an initialization segment (`moov/trak/mdia/mdhd`).
    static func timescale(ofInitialization bytes: [UInt8]) -> UInt32? {
        guard let mdhd = find(["moov", "trak", "mdia", "mdhd"], in: bytes, from: 0, to: bytes.count) else {
            return nil
        }
        // FullBox header, then creation and modification times (32 or 64 bits each), then the timescale.
        let version = bytes[mdhd]
        let at = mdhd + 4 + (version == 1 ? 16 : 8)
        guard at + 4 <= bytes.count else { return nil }
        let value = read32(bytes, at)
        return value > 0 ? value : nil
    }

    /// `bytes`, a media segment, with every track fragment's decode time moved by `ticks`.
    static func shifted(_ bytes: [UInt8], by ticks: UInt64) throws(Failure) -> [UInt8] {
        var output = bytes
        var count = 0
        var offset = 0
        while offset < bytes.count {
            let (size, type, header) = try box(bytes, at: offset, limit: bytes.count)
            if type == "moof" {
                var inner = offset + header
                while inner < offset + size {
                    let (trafSize, trafType, trafHeader) = try box(bytes, at: inner, limit: offset + size)
                    if trafType == "traf",
                        let tfdt = find(["tfdt"], in: bytes, from: inner + trafHeader, to: inner + trafSize),
                        bytes[tfdt] == 1, tfdt + 12 <= inner + trafSize
                    {
                        let (value, overflow) = read64(bytes, tfdt + 4).addingReportingOverflow(ticks)
                        if overflow { throw .overflow }
                        write64(&output, tfdt + 4, value)
                        count += 1
                    }
                    inner += trafSize
                }
            }
            offset += size
        }
        guard count > 0 else { throw .noDecodeTime }
        return output
    }

    // The size, type and header length of the box at `offset`, checked against `limit`.
    private static func box(_ bytes: [UInt8], at offset: Int, limit: Int) throws(Failure) -> (Int, String, Int) {
        guard offset + 8 <= limit else { throw .malformed(offset: offset) }
        var size = Int(read32(bytes, offset))
        var header = 8
        if size == 1 {
            guard offset + 16 <= limit else { throw .malformed(offset: offset) }
            let large = read64(bytes, offset + 8)
            guard large <= UInt64(Int.max) else { throw .malformed(offset: offset) }
            size = Int(large)
            header = 16
        } else if size == 0 {
            size = limit - offset
        }
        guard size >= header, size <= limit - offset else { throw .malformed(offset: offset) }
        let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
        return (size, type, header)
    }

    // The offset of the payload of the box at `path` below [from, to), or nil.
    private static func find(_ path: [String], in bytes: [UInt8], from: Int, to: Int) -> Int? {
        var offset = from
        while offset < to, let (size, type, header) = try? box(bytes, at: offset, limit: to) {
            if type == path[0] {
                if path.count == 1 { return offset + header }
                if let found = find(Array(path.dropFirst()), in: bytes, from: offset + header, to: offset + size) {
                    return found
                }
            }
            offset += size
        }
        return nil
    }

    private static func read32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func read64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        bytes[at..<(at + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func write64(_ bytes: inout [UInt8], _ at: Int, _ value: UInt64) {
        for index in 0..<8 { bytes[at + index] = UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64(index))) }
    }
}
