import Foundation
import SCTE35

/// The section corpus of Tests/Fixtures/scte35: `ours/*.hex` (this library's encoder) and
/// `threefive/*.b64` (threefive's encoder), shared with E2E/scte35_crosscheck.py and the fuzzer's seeds.
enum Corpus {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/scte35")

    /// `folder/name` and the text of every section file of the corpus.
    static func files() -> [(name: String, text: String)] {
        var result: [(String, String)] = []
        for folder in ["ours", "threefive"] {
            let directory = root.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for name in names.sorted() where name.hasSuffix(".hex") || name.hasSuffix(".b64") {
                let text = (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
                result.append(("\(folder)/\(name)", text.trimmingCharacters(in: .whitespacesAndNewlines)))
            }
        }
        return result
    }

    /// The names of the corpus files, for parameterised tests.
    static var names: [String] { files().map(\.name) }

    /// The text of the corpus file `name`.
    static func text(_ name: String) -> String { files().first { $0.name == name }?.text ?? "" }
}

/// Section bytes built field by field, independently of the library's encoder, for hand-made tests.
struct HandBuilt {
    private(set) var bits: [Bool] = []

    mutating func put(_ value: UInt64, _ count: Int) {
        for index in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> UInt64(index)) & 1 == 1) }
    }

    mutating func put(bytes: [UInt8]) { for byte in bytes { put(UInt64(byte), 8) } }

    var bytes: [UInt8] {
        stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<min(start + 8, bits.count)].enumerated().reduce(UInt8(0)) {
                $0 | ($1.element ? 0x80 >> $1.offset : 0)
            }
        }
    }

    /// A whole section: the header with `ptsAdjustment`, the command of `type`, the descriptor loop, and a CRC.
    static func section(
        commandType: UInt8, command: [UInt8], descriptors: [UInt8] = [], ptsAdjustment: UInt64 = 0,
        commandLength: Int? = nil, crc: UInt32? = nil
    ) -> [UInt8] {
        var body = HandBuilt()
        body.put(0, 8)  // protocol_version
        body.put(0, 1)  // encrypted_packet
        body.put(0, 6)  // encryption_algorithm
        body.put(ptsAdjustment, 33)
        body.put(0xFF, 8)  // cw_index
        body.put(0xFFF, 12)  // tier
        body.put(UInt64(commandLength ?? command.count), 12)
        body.put(UInt64(commandType), 8)
        body.put(bytes: command)
        body.put(UInt64(descriptors.count), 16)
        body.put(bytes: descriptors)
        var head = HandBuilt()
        head.put(0xFC, 8)
        head.put(0, 1)
        head.put(0, 1)
        head.put(3, 2)
        head.put(UInt64(body.bytes.count + 4), 12)
        let bytes = head.bytes + body.bytes
        let value = crc ?? crc32(bytes)
        return bytes + [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// A bitwise MPEG-2 CRC-32 (polynomial 0x04C11DB7), written independently of the library's table.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            for bit in 0..<8 {
                let incoming = (byte >> (7 - bit)) & 1 == 1
                let top = crc & 0x8000_0000 != 0
                crc <<= 1
                if top != incoming { crc ^= 0x04C1_1DB7 }
            }
        }
        return crc
    }

    /// One CUEI descriptor: tag, length, "CUEI" and `body`.
    static func descriptor(tag: UInt8, body: [UInt8]) -> [UInt8] {
        [tag, UInt8(body.count + 4), 0x43, 0x55, 0x45, 0x49] + body
    }
}
