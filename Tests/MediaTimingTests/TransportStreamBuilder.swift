/// Builds small MPEG-TS streams for tests: a PAT, a PMT and PES packets with chosen timestamps.
enum TransportStreamBuilder {
    /// One 188-byte packet; a payload shorter than 184 bytes is preceded by adaptation field stuffing.
    static func packet(
        pid: UInt16, unitStart: Bool, counter: UInt8, payload: [UInt8], randomAccess: Bool = false
    )
        -> [UInt8]
    {
        precondition(payload.count <= 184)
        var bytes: [UInt8] = [0x47, UInt8(pid >> 8) | (unitStart ? 0x40 : 0), UInt8(pid & 0xFF)]
        if payload.count == 184 && !randomAccess {
            bytes.append(0x10 | counter & 0x0F)
        } else {
            let length = 183 - payload.count
            bytes.append(0x30 | counter & 0x0F)
            bytes.append(UInt8(length))
            if length > 0 {
                bytes.append(randomAccess ? 0x40 : 0)
                bytes += [UInt8](repeating: 0xFF, count: length - 1)
            }
        }
        return bytes + payload
    }

    /// A PSI section in one packet (the CRC is not checked by the reader and left zero).
    static func section(pid: UInt16, tableID: UInt8, body: [UInt8]) -> [UInt8] {
        let length = body.count + 5 + 4
        var section: [UInt8] = [tableID, 0xB0 | UInt8(length >> 8), UInt8(length & 0xFF), 0, 1, 0xC1, 0, 0]
        section += body + [0, 0, 0, 0]
        let payload = [0] + section + [UInt8](repeating: 0xFF, count: 183 - section.count)
        return packet(pid: pid, unitStart: true, counter: 0, payload: payload)
    }

    /// A PAT naming program 1 at PMT PID 0x1000 and a PMT with `streams` (stream type, PID).
    static func tables(_ streams: [(type: UInt8, pid: UInt16)]) -> [UInt8] {
        let pat = section(pid: 0, tableID: 0, body: [0, 1, 0xF0, 0x00])
        var body: [UInt8] = [0xE1, 0x00, 0xF0, 0x00]  // PCR PID 0x100, no program descriptors
        for stream in streams {
            body += [stream.type, 0xE0 | UInt8(stream.pid >> 8), UInt8(stream.pid & 0xFF), 0xF0, 0x00]
        }
        return pat + section(pid: 0x1000, tableID: 2, body: body)
    }

    /// The five bytes of a 33-bit timestamp with the 4-bit prefix `prefix`.
    static func timestamp(_ value: UInt64, prefix: UInt8) -> [UInt8] {
        [
            prefix << 4 | UInt8((value >> 29) & 0x0E) | 1, UInt8((value >> 22) & 0xFF),
            UInt8((value >> 14) & 0xFE) | 1, UInt8((value >> 7) & 0xFF), UInt8((value << 1) & 0xFE) | 1,
        ]
    }

    /// One PES packet (stream_id 0xE0) with `pts` and `data`, in one TS packet.
    static func pes(pid: UInt16, counter: UInt8, pts: UInt64, data: [UInt8], randomAccess: Bool = false) -> [UInt8] {
        let header: [UInt8] = [0, 0, 1, 0xE0, 0, 0, 0x80, 0x80, 5] + timestamp(pts, prefix: 2)
        return packet(pid: pid, unitStart: true, counter: counter, payload: header + data, randomAccess: randomAccess)
    }

    /// An H.264 access unit: an SPS (High profile, level 3.1) and a slice of NAL type `sliceType`.
    static func accessUnit(sliceType: UInt8) -> [UInt8] {
        [0, 0, 0, 1, 0x67, 0x64, 0x00, 0x1F, 0xAC, 0, 0, 1, 0x60 | sliceType, 0x88, 0x84, 0x21]
    }
}
