/// A `segmentation_descriptor()` (tag 0x02): marks the start or end of a segment (a break, an ad, a program,
/// a chapter…) with its type, duration and UPID.
///
/// ANSI/SCTE 35 §10.3.3: "The segmentation_descriptor() is an implementation of a splice_descriptor(). It
/// provides an optional extension to the time_signal() and splice_insert() commands that allows for
/// segmentation messages to be sent in a time/video accurate method."
public struct SegmentationDescriptor: Hashable, Sendable {
    /// segmentation_event_id.
    public var segmentationEventID: UInt32
    /// segmentation_event_id_compliance_indicator (SCTE 35 2020 and later; reserved and 1 before).
    public var eventIDCompliance: Bool
    /// The 6 reserved bits after the flags as read; all ones by default.
    public var reservedBits: UInt8
    /// The segmentation; `nil` when the event is cancelled (segmentation_event_cancel_indicator 1).
    public var segmentation: Segmentation?
    /// Bytes after the last field the syntax defines, within descriptor_length (kept for later versions).
    public var trailingBytes: [UInt8]

    /// A segmentation descriptor; `segmentation: nil` cancels the event.
    public init(
        segmentationEventID: UInt32, eventIDCompliance: Bool = true, segmentation: Segmentation?,
        reservedBits: UInt8 = 0x3F, trailingBytes: [UInt8] = []
    ) {
        self.segmentationEventID = segmentationEventID
        self.eventIDCompliance = eventIDCompliance
        self.segmentation = segmentation
        self.reservedBits = reservedBits
        self.trailingBytes = trailingBytes
    }

    /// segmentation_event_cancel_indicator.
    public var segmentationEventCancelIndicator: Bool { segmentation == nil }

    /// What a descriptor that is not cancelled says.
    public struct Segmentation: Hashable, Sendable {
        /// The delivery restrictions; `nil` when delivery_not_restricted_flag is 1.
        public var deliveryRestrictions: DeliveryRestrictions?
        /// The 5 reserved bits in place of the restriction flags when delivery is not restricted; all ones
        /// by default.
        public var deliveryReservedBits: UInt8
        /// The components (program_segmentation_flag 0); `nil` for the whole program.
        public var components: [Component]?
        /// segmentation_duration in 90 kHz ticks (40 bits); `nil` when segmentation_duration_flag is 0.
        public var segmentationDuration: UInt64?
        /// The UPID.
        public var upid: SegmentationUPID
        /// segmentation_type_id.
        public var type: SegmentationType
        /// segment_num.
        public var segmentNum: UInt8
        /// segments_expected.
        public var segmentsExpected: UInt8
        /// sub_segment_num and sub_segments_expected, which only the types of
        /// ``SegmentationType/carriesSubSegments`` carry (and may leave out).
        public var subSegment: SubSegment?

        /// A segmentation.
        public init(
            type: SegmentationType, segmentationDuration: UInt64? = nil, upid: SegmentationUPID = .notUsed,
            segmentNum: UInt8 = 0, segmentsExpected: UInt8 = 0, subSegment: SubSegment? = nil,
            deliveryRestrictions: DeliveryRestrictions? = nil, components: [Component]? = nil,
            deliveryReservedBits: UInt8 = 0x1F
        ) {
            self.type = type
            self.segmentationDuration = segmentationDuration
            self.upid = upid
            self.segmentNum = segmentNum
            self.segmentsExpected = segmentsExpected
            self.subSegment = subSegment
            self.deliveryRestrictions = deliveryRestrictions
            self.components = components
            self.deliveryReservedBits = deliveryReservedBits
        }
    }

    /// The flags present when delivery_not_restricted_flag is 0.
    public struct DeliveryRestrictions: Hashable, Sendable {
        /// web_delivery_allowed_flag.
        public var webDeliveryAllowed: Bool
        /// no_regional_blackout_flag.
        public var noRegionalBlackout: Bool
        /// archive_allowed_flag.
        public var archiveAllowed: Bool
        /// device_restrictions (2 bits): 0 group 0, 1 group 1, 2 group 2, 3 none.
        public var deviceRestrictions: UInt8

        /// Delivery restrictions.
        public init(webDeliveryAllowed: Bool, noRegionalBlackout: Bool, archiveAllowed: Bool, deviceRestrictions: UInt8)
        {
            self.webDeliveryAllowed = webDeliveryAllowed
            self.noRegionalBlackout = noRegionalBlackout
            self.archiveAllowed = archiveAllowed
            self.deviceRestrictions = deviceRestrictions
        }
    }

    /// One component of a component segmentation.
    public struct Component: Hashable, Sendable {
        /// component_tag.
        public var componentTag: UInt8
        /// The 7 reserved bits as read; all ones by default.
        public var reservedBits: UInt8
        /// pts_offset (33 bits).
        public var ptsOffset: UInt64

        /// A component.
        public init(componentTag: UInt8, ptsOffset: UInt64, reservedBits: UInt8 = 0x7F) {
            self.componentTag = componentTag
            self.ptsOffset = ptsOffset
            self.reservedBits = reservedBits
        }
    }

    /// sub_segment_num and sub_segments_expected.
    public struct SubSegment: Hashable, Sendable {
        /// sub_segment_num.
        public var subSegmentNum: UInt8
        /// sub_segments_expected.
        public var subSegmentsExpected: UInt8

        /// A sub-segment count.
        public init(subSegmentNum: UInt8, subSegmentsExpected: UInt8) {
            self.subSegmentNum = subSegmentNum
            self.subSegmentsExpected = subSegmentsExpected
        }
    }

    /// Reads the fields after the identifier; the reader's window is the descriptor.
    init(reading reader: inout BitReader) throws(SCTE35Error) {
        segmentationEventID = try reader.uint32("segmentation_event_id")
        let cancelled = try reader.flag("segmentation_event_cancel_indicator")
        eventIDCompliance = try reader.flag("segmentation_event_id_compliance_indicator")
        reservedBits = UInt8(try reader.bits(6, "reserved"))
        if cancelled {
            segmentation = nil
        } else {
            let program = try reader.flag("program_segmentation_flag")
            let durationFlag = try reader.flag("segmentation_duration_flag")
            let notRestricted = try reader.flag("delivery_not_restricted_flag")
            var restrictions: DeliveryRestrictions?
            var deliveryReserved: UInt8 = 0x1F
            if notRestricted {
                deliveryReserved = UInt8(try reader.bits(5, "reserved"))
            } else {
                restrictions = DeliveryRestrictions(
                    webDeliveryAllowed: try reader.flag("web_delivery_allowed_flag"),
                    noRegionalBlackout: try reader.flag("no_regional_blackout_flag"),
                    archiveAllowed: try reader.flag("archive_allowed_flag"),
                    deviceRestrictions: UInt8(try reader.bits(2, "device_restrictions")))
            }
            var components: [Component]?
            if !program {
                let count = Int(try reader.uint8("component_count"))
                var list: [Component] = []
                for index in 0..<count {
                    let tag = try reader.uint8("components[\(index)].component_tag")
                    let reserved = UInt8(try reader.bits(7, "components[\(index)].reserved"))
                    let offset = try reader.bits(33, "components[\(index)].pts_offset")
                    list.append(Component(componentTag: tag, ptsOffset: offset, reservedBits: reserved))
                }
                components = list
            }
            let duration = durationFlag ? try reader.bits(40, "segmentation_duration") : nil
            let upidType = try reader.uint8("segmentation_upid_type")
            let lengthOffset = reader.offset
            let upidLength = Int(try reader.uint8("segmentation_upid_length"))
            _ = try reader.window(
                length: upidLength, field: "segmentation_upid_length", at: lengthOffset, of: "the descriptor")
            let upidStart = reader.offset
            let upid = SegmentationUPID(type: upidType, bytes: try reader.bytes(upidLength, "segmentation_upid"))
            if let problem = upid.structureProblem() {
                throw reader.error(
                    .upidMalformed, "segmentation_upid" + problem.path, problem.message, at: upidStart + problem.offset)
            }
            let type = SegmentationType(rawValue: try reader.uint8("segmentation_type_id"))
            let segmentNum = try reader.uint8("segment_num")
            let segmentsExpected = try reader.uint8("segments_expected")
            var subSegment: SubSegment?
            if type.carriesSubSegments, reader.remainingBytes >= 2 {
                subSegment = SubSegment(
                    subSegmentNum: try reader.uint8("sub_segment_num"),
                    subSegmentsExpected: try reader.uint8("sub_segments_expected"))
            }
            segmentation = Segmentation(
                type: type, segmentationDuration: duration, upid: upid, segmentNum: segmentNum,
                segmentsExpected: segmentsExpected, subSegment: subSegment, deliveryRestrictions: restrictions,
                components: components, deliveryReservedBits: deliveryReserved)
        }
        trailingBytes = try reader.rest("trailing_bytes")
    }

    func write(to writer: inout BitWriter) throws(SCTE35Error) {
        try writer.bits(UInt64(segmentationEventID), 32, "segmentation_event_id")
        try writer.flag(segmentation == nil, "segmentation_event_cancel_indicator")
        try writer.flag(eventIDCompliance, "segmentation_event_id_compliance_indicator")
        try writer.bits(UInt64(reservedBits), 6, "reserved")
        if let segmentation {
            try writer.flag(segmentation.components == nil, "program_segmentation_flag")
            try writer.flag(segmentation.segmentationDuration != nil, "segmentation_duration_flag")
            try writer.flag(segmentation.deliveryRestrictions == nil, "delivery_not_restricted_flag")
            if let restrictions = segmentation.deliveryRestrictions {
                try writer.flag(restrictions.webDeliveryAllowed, "web_delivery_allowed_flag")
                try writer.flag(restrictions.noRegionalBlackout, "no_regional_blackout_flag")
                try writer.flag(restrictions.archiveAllowed, "archive_allowed_flag")
                try writer.bits(UInt64(restrictions.deviceRestrictions), 2, "device_restrictions")
            } else {
                try writer.bits(UInt64(segmentation.deliveryReservedBits), 5, "reserved")
            }
            if let components = segmentation.components {
                guard components.count <= 255 else {
                    throw writer.error(
                        .valueRange, "component_count", "\(components.count) components; at most 255 fit")
                }
                try writer.bits(UInt64(components.count), 8, "component_count")
                for (index, component) in components.enumerated() {
                    try writer.bits(UInt64(component.componentTag), 8, "components[\(index)].component_tag")
                    try writer.bits(UInt64(component.reservedBits), 7, "components[\(index)].reserved")
                    try writer.bits(component.ptsOffset, 33, "components[\(index)].pts_offset")
                }
            }
            if let duration = segmentation.segmentationDuration {
                try writer.bits(duration, 40, "segmentation_duration")
            }
            if let problem = segmentation.upid.structureProblem() {
                throw writer.error(.upidMalformed, "segmentation_upid" + problem.path, problem.message)
            }
            try writer.bits(UInt64(segmentation.upid.type), 8, "segmentation_upid_type")
            try writer.lengthPrefixed(segmentation.upid.bytes, lengthBits: 8, "segmentation_upid_length")
            try writer.bits(UInt64(segmentation.type.rawValue), 8, "segmentation_type_id")
            try writer.bits(UInt64(segmentation.segmentNum), 8, "segment_num")
            try writer.bits(UInt64(segmentation.segmentsExpected), 8, "segments_expected")
            if let sub = segmentation.subSegment {
                guard segmentation.type.carriesSubSegments else {
                    throw writer.error(
                        .valueRange, "sub_segment_num",
                        "only advertisement, placement opportunity and ad block starts carry sub-segments, not \(segmentation.type)"
                    )
                }
                try writer.bits(UInt64(sub.subSegmentNum), 8, "sub_segment_num")
                try writer.bits(UInt64(sub.subSegmentsExpected), 8, "sub_segments_expected")
            } else if segmentation.type.carriesSubSegments, trailingBytes.count >= 2 {
                throw writer.error(
                    .valueRange, "trailing_bytes",
                    "two or more trailing bytes after a \(segmentation.type) would read as sub-segments")
            }
        }
        writer.append(trailingBytes)
    }

    var jsonFields: [(String, JSONNode)] {
        var fields: [(String, JSONNode)] = [
            ("segmentation_event_id", .uint(segmentationEventID)),
            ("segmentation_event_cancel_indicator", .bool(segmentation == nil)),
            ("segmentation_event_id_compliance_indicator", .bool(eventIDCompliance)),
        ]
        if let segmentation {
            fields += [
                ("program_segmentation_flag", .bool(segmentation.components == nil)),
                ("segmentation_duration_flag", .bool(segmentation.segmentationDuration != nil)),
                ("delivery_not_restricted_flag", .bool(segmentation.deliveryRestrictions == nil)),
            ]
            if let restrictions = segmentation.deliveryRestrictions {
                fields += [
                    ("web_delivery_allowed_flag", .bool(restrictions.webDeliveryAllowed)),
                    ("no_regional_blackout_flag", .bool(restrictions.noRegionalBlackout)),
                    ("archive_allowed_flag", .bool(restrictions.archiveAllowed)),
                    ("device_restrictions", .uint(restrictions.deviceRestrictions)),
                ]
            }
            if let components = segmentation.components {
                fields.append(("component_count", .uint(components.count)))
                fields.append(
                    (
                        "components",
                        .array(
                            components.map {
                                .object([
                                    ("component_tag", .uint($0.componentTag)), ("pts_offset", .ticks($0.ptsOffset)),
                                ])
                            })
                    ))
            }
            if let duration = segmentation.segmentationDuration {
                fields.append(("segmentation_duration", .ticks(duration)))
            }
            fields += segmentation.upid.jsonFields
            fields += [
                ("segmentation_type_id", .uint(segmentation.type.rawValue)),
                ("segmentation_type_name", segmentation.type.name.map(JSONNode.string) ?? .null),
                ("segment_num", .uint(segmentation.segmentNum)),
                ("segments_expected", .uint(segmentation.segmentsExpected)),
            ]
            if let sub = segmentation.subSegment {
                fields += [
                    ("sub_segment_num", .uint(sub.subSegmentNum)),
                    ("sub_segments_expected", .uint(sub.subSegmentsExpected)),
                ]
            }
        }
        return fields
    }
}
