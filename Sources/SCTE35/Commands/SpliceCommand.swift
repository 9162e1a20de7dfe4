/// The splice command of a section, by splice_command_type.
///
/// ANSI/SCTE 35 §9.7 Table 7: 0x00 splice_null, 0x04 splice_schedule, 0x05 splice_insert, 0x06
/// time_signal, 0x07 bandwidth_reservation, 0xFF private_command. Other types are kept as bytes.
public enum SpliceCommand: Hashable, Sendable {
    /// splice_null (0x00): no command; a heartbeat, or a carrier of descriptors.
    case spliceNull
    /// splice_schedule (0x04).
    case spliceSchedule(SpliceSchedule)
    /// splice_insert (0x05).
    case spliceInsert(SpliceInsert)
    /// time_signal (0x06): a splice_time() whose meaning the descriptors give.
    case timeSignal(SpliceTime)
    /// bandwidth_reservation (0x07): no fields.
    case bandwidthReservation
    /// private_command (0xFF).
    case privateCommand(PrivateCommand)
    /// A reserved command type, kept as its bytes.
    case unknown(type: UInt8, bytes: [UInt8])

    /// splice_command_type.
    public var type: UInt8 {
        switch self {
        case .spliceNull: 0x00
        case .spliceSchedule: 0x04
        case .spliceInsert: 0x05
        case .timeSignal: 0x06
        case .bandwidthReservation: 0x07
        case .privateCommand: 0xFF
        case .unknown(let type, _): type
        }
    }

    /// The spec's name, such as `splice_insert`; `reserved` for unknown types.
    public var name: String {
        switch self {
        case .spliceNull: "splice_null"
        case .spliceSchedule: "splice_schedule"
        case .spliceInsert: "splice_insert"
        case .timeSignal: "time_signal"
        case .bandwidthReservation: "bandwidth_reservation"
        case .privateCommand: "private_command"
        case .unknown: "reserved"
        }
    }

    /// Whether a command of `type` is one this library decodes (not kept as bytes).
    static func isKnown(_ type: UInt8) -> Bool { [0x00, 0x04, 0x05, 0x06, 0x07, 0xFF].contains(type) }

    /// Reads a command of `type` filling the reader's window (private and unknown commands take it all).
    init(type: UInt8, reading reader: inout BitReader) throws(SCTE35Error) {
        switch type {
        case 0x00: self = .spliceNull
        case 0x04: self = .spliceSchedule(try SpliceSchedule(reading: &reader))
        case 0x05: self = .spliceInsert(try SpliceInsert(reading: &reader))
        case 0x06: self = .timeSignal(try SpliceTime(reading: &reader))
        case 0x07: self = .bandwidthReservation
        case 0xFF:
            self = .privateCommand(
                PrivateCommand(
                    identifier: try reader.uint32("identifier"), privateBytes: try reader.rest("private_byte")))
        default: self = .unknown(type: type, bytes: try reader.rest("bytes"))
        }
    }

    func write(to writer: inout BitWriter) throws(SCTE35Error) {
        switch self {
        case .spliceNull, .bandwidthReservation: break
        case .spliceSchedule(let schedule): try schedule.write(to: &writer)
        case .spliceInsert(let insert): try insert.write(to: &writer)
        case .timeSignal(let time): try time.write(to: &writer)
        case .privateCommand(let command):
            try writer.bits(UInt64(command.identifier), 32, "identifier")
            writer.append(command.privateBytes)
        case .unknown(let type, let bytes):
            guard !Self.isKnown(type) else {
                throw writer.error(
                    .valueRange, "splice_command_type", "type \(type) is a known command; it cannot be kept as bytes")
            }
            writer.append(bytes)
        }
    }

    /// The fields after `name`, in the order of the syntax.
    var jsonFields: [(String, JSONNode)] {
        switch self {
        case .spliceNull, .bandwidthReservation: []
        case .spliceSchedule(let schedule): schedule.jsonFields
        case .spliceInsert(let insert): insert.jsonFields
        case .timeSignal(let time):
            if case .object(let fields) = time.json { fields } else { [] }
        case .privateCommand(let command):
            [
                ("identifier", .uint(command.identifier)),
                ("identifier_text", command.identifierText.map(JSONNode.string) ?? .null),
                ("private_byte", .string(SectionText.hex(command.privateBytes, prefix: false, uppercase: false))),
            ]
        case .unknown(_, let bytes): [("bytes", .string(SectionText.hex(bytes, prefix: false, uppercase: false)))]
        }
    }
}
