/// A `splice_schedule()` command (type 0x04): splice events announced ahead in UTC time.
///
/// ANSI/SCTE 35 §9.7.2: "The splice_schedule() command is provided to allow a schedule of splice events
/// to be conveyed in advance." Times are utc_splice_time, seconds since 1980-01-06 00:00 UTC (GPS epoch).
public struct SpliceSchedule: Hashable, Sendable {
    /// The events (splice_count of them, at most 255).
    public var events: [Event]

    /// A schedule of `events`.
    public init(events: [Event]) { self.events = events }

    /// One scheduled event.
    public struct Event: Hashable, Sendable {
        /// splice_event_id.
        public var spliceEventID: UInt32
        /// event_id_compliance_flag (SCTE 35 2020 and later; reserved and 1 before).
        public var eventIDCompliance: Bool
        /// The 6 reserved bits after the flags as read; all ones by default.
        public var reservedBits: UInt8
        /// The splice; `nil` when cancelled (splice_event_cancel_indicator 1).
        public var splice: Splice?

        /// An event; `splice: nil` cancels it.
        public init(spliceEventID: UInt32, eventIDCompliance: Bool = true, splice: Splice?, reservedBits: UInt8 = 0x3F)
        {
            self.spliceEventID = spliceEventID
            self.eventIDCompliance = eventIDCompliance
            self.splice = splice
            self.reservedBits = reservedBits
        }
    }

    /// What an event that is not cancelled says.
    public struct Splice: Hashable, Sendable {
        /// out_of_network_indicator.
        public var outOfNetwork: Bool
        /// The 5 reserved bits after the flags as read; all ones by default.
        public var reservedBits: UInt8
        /// The whole program at utc_splice_time (program_splice_flag 1), or each component_tag at its own.
        public var mode: Mode
        /// break_duration(), present when duration_flag is 1.
        public var breakDuration: BreakDuration?
        /// unique_program_id.
        public var uniqueProgramID: UInt16
        /// avail_num.
        public var availNum: UInt8
        /// avails_expected.
        public var availsExpected: UInt8

        /// A scheduled splice.
        public init(
            outOfNetwork: Bool, mode: Mode, breakDuration: BreakDuration? = nil, uniqueProgramID: UInt16 = 0,
            availNum: UInt8 = 0, availsExpected: UInt8 = 0, reservedBits: UInt8 = 0x1F
        ) {
            self.outOfNetwork = outOfNetwork
            self.mode = mode
            self.breakDuration = breakDuration
            self.uniqueProgramID = uniqueProgramID
            self.availNum = availNum
            self.availsExpected = availsExpected
            self.reservedBits = reservedBits
        }
    }

    /// The time of a scheduled splice.
    public enum Mode: Hashable, Sendable {
        /// program_splice_flag 1: utc_splice_time.
        case program(utcSpliceTime: UInt32)
        /// program_splice_flag 0: component_tag and utc_splice_time pairs.
        case components([Component])
    }

    /// One component of a scheduled component splice.
    public struct Component: Hashable, Sendable {
        /// component_tag.
        public var componentTag: UInt8
        /// utc_splice_time.
        public var utcSpliceTime: UInt32

        /// A component time.
        public init(componentTag: UInt8, utcSpliceTime: UInt32) {
            self.componentTag = componentTag
            self.utcSpliceTime = utcSpliceTime
        }
    }

    init(reading reader: inout BitReader) throws(SCTE35Error) {
        let count = Int(try reader.uint8("splice_count"))
        let path = reader.path
        events = []
        for index in 0..<count {
            reader.path = (path.isEmpty ? "" : path + ".") + "events[\(index)]"
            let id = try reader.uint32("splice_event_id")
            let cancelled = try reader.flag("splice_event_cancel_indicator")
            let compliance = try reader.flag("event_id_compliance_flag")
            let reserved = UInt8(try reader.bits(6, "reserved"))
            var splice: Splice?
            if !cancelled {
                let out = try reader.flag("out_of_network_indicator")
                let program = try reader.flag("program_splice_flag")
                let durationFlag = try reader.flag("duration_flag")
                let spliceReserved = UInt8(try reader.bits(5, "reserved"))
                let mode: Mode
                if program {
                    mode = .program(utcSpliceTime: try reader.uint32("utc_splice_time"))
                } else {
                    let components = Int(try reader.uint8("component_count"))
                    var list: [Component] = []
                    for _ in 0..<components {
                        list.append(
                            Component(
                                componentTag: try reader.uint8("component_tag"),
                                utcSpliceTime: try reader.uint32("utc_splice_time")))
                    }
                    mode = .components(list)
                }
                let duration = durationFlag ? try BreakDuration(reading: &reader) : nil
                splice = Splice(
                    outOfNetwork: out, mode: mode, breakDuration: duration,
                    uniqueProgramID: try reader.uint16("unique_program_id"), availNum: try reader.uint8("avail_num"),
                    availsExpected: try reader.uint8("avails_expected"), reservedBits: spliceReserved)
            }
            events.append(
                Event(spliceEventID: id, eventIDCompliance: compliance, splice: splice, reservedBits: reserved))
        }
        reader.path = path
    }

    func write(to writer: inout BitWriter) throws(SCTE35Error) {
        guard events.count <= 255 else {
            throw writer.error(.valueRange, "splice_count", "\(events.count) events; at most 255 fit")
        }
        try writer.bits(UInt64(events.count), 8, "splice_count")
        let path = writer.path
        for (index, event) in events.enumerated() {
            writer.path = (path.isEmpty ? "" : path + ".") + "events[\(index)]"
            try writer.bits(UInt64(event.spliceEventID), 32, "splice_event_id")
            try writer.flag(event.splice == nil, "splice_event_cancel_indicator")
            try writer.flag(event.eventIDCompliance, "event_id_compliance_flag")
            try writer.bits(UInt64(event.reservedBits), 6, "reserved")
            guard let splice = event.splice else { continue }
            try writer.flag(splice.outOfNetwork, "out_of_network_indicator")
            if case .program = splice.mode {
                try writer.flag(true, "program_splice_flag")
            } else {
                try writer.flag(false, "program_splice_flag")
            }
            try writer.flag(splice.breakDuration != nil, "duration_flag")
            try writer.bits(UInt64(splice.reservedBits), 5, "reserved")
            switch splice.mode {
            case .program(let time): try writer.bits(UInt64(time), 32, "utc_splice_time")
            case .components(let components):
                guard components.count <= 255 else {
                    throw writer.error(
                        .valueRange, "component_count", "\(components.count) components; at most 255 fit")
                }
                try writer.bits(UInt64(components.count), 8, "component_count")
                for component in components {
                    try writer.bits(UInt64(component.componentTag), 8, "component_tag")
                    try writer.bits(UInt64(component.utcSpliceTime), 32, "utc_splice_time")
                }
            }
            try splice.breakDuration?.write(to: &writer)
            try writer.bits(UInt64(splice.uniqueProgramID), 16, "unique_program_id")
            try writer.bits(UInt64(splice.availNum), 8, "avail_num")
            try writer.bits(UInt64(splice.availsExpected), 8, "avails_expected")
        }
        writer.path = path
    }

    var jsonFields: [(String, JSONNode)] {
        let items: [JSONNode] = events.map { event in
            var fields: [(String, JSONNode)] = [
                ("splice_event_id", .uint(event.spliceEventID)),
                ("splice_event_cancel_indicator", .bool(event.splice == nil)),
                ("event_id_compliance_flag", .bool(event.eventIDCompliance)),
            ]
            guard let splice = event.splice else { return .object(fields) }
            fields.append(("out_of_network_indicator", .bool(splice.outOfNetwork)))
            switch splice.mode {
            case .program(let time):
                fields += [("program_splice_flag", .bool(true)), ("duration_flag", .bool(splice.breakDuration != nil))]
                fields.append(("utc_splice_time", .uint(time)))
            case .components(let components):
                fields += [
                    ("program_splice_flag", .bool(false)), ("duration_flag", .bool(splice.breakDuration != nil)),
                ]
                fields.append(("component_count", .uint(components.count)))
                fields.append(
                    (
                        "components",
                        .array(
                            components.map {
                                .object([
                                    ("component_tag", .uint($0.componentTag)),
                                    ("utc_splice_time", .uint($0.utcSpliceTime)),
                                ])
                            })
                    ))
            }
            if let duration = splice.breakDuration { fields.append(("break_duration", duration.json)) }
            fields += [
                ("unique_program_id", .uint(splice.uniqueProgramID)), ("avail_num", .uint(splice.availNum)),
                ("avails_expected", .uint(splice.availsExpected)),
            ]
            return .object(fields)
        }
        return [("splice_count", .uint(events.count)), ("events", .array(items))]
    }
}
