/// A `splice_insert()` command (type 0x05): a splice out of or back into the network at a time.
///
/// ANSI/SCTE 35 §9.7.3: "The splice_insert() command shall be sent at least once for every splice
/// event." A cancelled event (splice_event_cancel_indicator 1) carries only its ID.
public struct SpliceInsert: Hashable, Sendable {
    /// splice_event_id.
    public var spliceEventID: UInt32
    /// The 7 reserved bits after splice_event_cancel_indicator as read; all ones by default.
    public var reservedBits: UInt8
    /// The splice; `nil` when the event is cancelled (splice_event_cancel_indicator 1).
    public var splice: Splice?

    /// An insert for `spliceEventID`; `splice: nil` cancels the event.
    public init(spliceEventID: UInt32, splice: Splice?, reservedBits: UInt8 = 0x7F) {
        self.spliceEventID = spliceEventID
        self.splice = splice
        self.reservedBits = reservedBits
    }

    /// splice_event_cancel_indicator.
    public var spliceEventCancelIndicator: Bool { splice == nil }

    /// What an event that is not cancelled says.
    public struct Splice: Hashable, Sendable {
        /// out_of_network_indicator: 1 leaves the network (a break starts), 0 returns to it.
        public var outOfNetwork: Bool
        /// splice_immediate_flag: splice at the next opportunity; no splice times are carried.
        public var spliceImmediate: Bool
        /// event_id_compliance_flag (SCTE 35 2020 and later; reserved and 1 before).
        public var eventIDCompliance: Bool
        /// The 3 reserved bits after the flags as read; all ones by default.
        public var reservedBits: UInt8
        /// The whole program (program_splice_flag 1) or components.
        public var mode: SpliceMode
        /// break_duration(), present when duration_flag is 1.
        public var breakDuration: BreakDuration?
        /// unique_program_id.
        public var uniqueProgramID: UInt16
        /// avail_num.
        public var availNum: UInt8
        /// avails_expected.
        public var availsExpected: UInt8

        /// A splice; with `spliceImmediate` the mode carries no times, otherwise every time is given.
        public init(
            outOfNetwork: Bool, spliceImmediate: Bool = false, eventIDCompliance: Bool = true,
            mode: SpliceMode, breakDuration: BreakDuration? = nil, uniqueProgramID: UInt16 = 0,
            availNum: UInt8 = 0, availsExpected: UInt8 = 0, reservedBits: UInt8 = 0x07
        ) {
            self.outOfNetwork = outOfNetwork
            self.spliceImmediate = spliceImmediate
            self.eventIDCompliance = eventIDCompliance
            self.mode = mode
            self.breakDuration = breakDuration
            self.uniqueProgramID = uniqueProgramID
            self.availNum = availNum
            self.availsExpected = availsExpected
            self.reservedBits = reservedBits
        }

        /// program_splice_flag.
        public var programSpliceFlag: Bool {
            if case .program = mode { return true }
            return false
        }

        /// duration_flag.
        public var durationFlag: Bool { breakDuration != nil }
    }

    /// Where a splice applies: the whole program at one time, or each component at its own time.
    public enum SpliceMode: Hashable, Sendable {
        /// program_splice_flag 1: the splice_time(), absent when splice_immediate_flag is 1.
        case program(SpliceTime?)
        /// program_splice_flag 0: each component_tag with its splice_time() (absent when immediate).
        case components([Component])
    }

    /// One component of a component splice.
    public struct Component: Hashable, Sendable {
        /// component_tag.
        public var componentTag: UInt8
        /// splice_time(), absent when splice_immediate_flag is 1.
        public var spliceTime: SpliceTime?

        /// A component splice.
        public init(componentTag: UInt8, spliceTime: SpliceTime?) {
            self.componentTag = componentTag
            self.spliceTime = spliceTime
        }
    }

    init(reading reader: inout BitReader) throws(SCTE35Error) {
        spliceEventID = try reader.uint32("splice_event_id")
        let cancelled = try reader.flag("splice_event_cancel_indicator")
        reservedBits = UInt8(try reader.bits(7, "reserved"))
        guard !cancelled else {
            splice = nil
            return
        }
        let outOfNetwork = try reader.flag("out_of_network_indicator")
        let programSplice = try reader.flag("program_splice_flag")
        let durationFlag = try reader.flag("duration_flag")
        let immediate = try reader.flag("splice_immediate_flag")
        let compliance = try reader.flag("event_id_compliance_flag")
        let reserved = UInt8(try reader.bits(3, "reserved"))
        let mode: SpliceMode
        if programSplice {
            mode = .program(immediate ? nil : try SpliceTime(reading: &reader))
        } else {
            let count = Int(try reader.uint8("component_count"))
            var components: [Component] = []
            for index in 0..<count {
                let path = reader.path
                reader.path = reader.fieldPath("components[\(index)]")
                let tag = try reader.uint8("component_tag")
                let time = immediate ? nil : try SpliceTime(reading: &reader)
                reader.path = path
                components.append(Component(componentTag: tag, spliceTime: time))
            }
            mode = .components(components)
        }
        let duration = durationFlag ? try BreakDuration(reading: &reader) : nil
        splice = Splice(
            outOfNetwork: outOfNetwork, spliceImmediate: immediate, eventIDCompliance: compliance, mode: mode,
            breakDuration: duration, uniqueProgramID: try reader.uint16("unique_program_id"),
            availNum: try reader.uint8("avail_num"), availsExpected: try reader.uint8("avails_expected"),
            reservedBits: reserved)
    }

    func write(to writer: inout BitWriter) throws(SCTE35Error) {
        try writer.bits(UInt64(spliceEventID), 32, "splice_event_id")
        try writer.flag(splice == nil, "splice_event_cancel_indicator")
        try writer.bits(UInt64(reservedBits), 7, "reserved")
        guard let splice else { return }
        try writer.flag(splice.outOfNetwork, "out_of_network_indicator")
        try writer.flag(splice.programSpliceFlag, "program_splice_flag")
        try writer.flag(splice.durationFlag, "duration_flag")
        try writer.flag(splice.spliceImmediate, "splice_immediate_flag")
        try writer.flag(splice.eventIDCompliance, "event_id_compliance_flag")
        try writer.bits(UInt64(splice.reservedBits), 3, "reserved")
        func time(_ time: SpliceTime?, _ field: String) throws(SCTE35Error) {
            switch (time, splice.spliceImmediate) {
            case (nil, true): return
            case (let time?, false): try time.write(to: &writer)
            case (nil, false):
                throw writer.error(.valueRange, field, "a splice that is not immediate needs a splice_time()")
            case (_?, true):
                throw writer.error(
                    .valueRange, field, "an immediate splice (splice_immediate_flag 1) carries no splice_time()")
            }
        }
        switch splice.mode {
        case .program(let spliceTime): try time(spliceTime, "splice_time")
        case .components(let components):
            guard components.count <= 255 else {
                throw writer.error(.valueRange, "component_count", "\(components.count) components; at most 255 fit")
            }
            try writer.bits(UInt64(components.count), 8, "component_count")
            for (index, component) in components.enumerated() {
                let path = writer.path
                writer.path = writer.fieldPath("components[\(index)]")
                try writer.bits(UInt64(component.componentTag), 8, "component_tag")
                try time(component.spliceTime, "splice_time")
                writer.path = path
            }
        }
        try splice.breakDuration?.write(to: &writer)
        try writer.bits(UInt64(splice.uniqueProgramID), 16, "unique_program_id")
        try writer.bits(UInt64(splice.availNum), 8, "avail_num")
        try writer.bits(UInt64(splice.availsExpected), 8, "avails_expected")
    }

    var jsonFields: [(String, JSONNode)] {
        var fields: [(String, JSONNode)] = [
            ("splice_event_id", .uint(spliceEventID)), ("splice_event_cancel_indicator", .bool(splice == nil)),
        ]
        guard let splice else { return fields }
        fields += [
            ("out_of_network_indicator", .bool(splice.outOfNetwork)),
            ("program_splice_flag", .bool(splice.programSpliceFlag)), ("duration_flag", .bool(splice.durationFlag)),
            ("splice_immediate_flag", .bool(splice.spliceImmediate)),
            ("event_id_compliance_flag", .bool(splice.eventIDCompliance)),
        ]
        switch splice.mode {
        case .program(let time): if let time { fields.append(("splice_time", time.json)) }
        case .components(let components):
            fields.append(("component_count", .uint(components.count)))
            fields.append(
                (
                    "components",
                    .array(
                        components.map { component in
                            var item: [(String, JSONNode)] = [("component_tag", .uint(component.componentTag))]
                            if let time = component.spliceTime { item.append(("splice_time", time.json)) }
                            return .object(item)
                        })
                ))
        }
        if let duration = splice.breakDuration { fields.append(("break_duration", duration.json)) }
        fields += [
            ("unique_program_id", .uint(splice.uniqueProgramID)), ("avail_num", .uint(splice.availNum)),
            ("avails_expected", .uint(splice.availsExpected)),
        ]
        return fields
    }
}
