/// What a section says about an ad break: one starts, one ends, or one is cancelled.
///
/// ANSI/SCTE 35 §9.7.3: a splice_insert with out_of_network_indicator 1 leaves the network (a break
/// starts), with 0 returns to it; splice_event_cancel_indicator 1 "indicates that a previously sent
/// splice event, identified by splice_event_id, has been cancelled". §10.3.3: a segmentation_descriptor
/// marks segment starts and ends by segmentation_type_id (Table 23) and is cancelled by
/// segmentation_event_cancel_indicator. Read by ``SpliceInfoSection/breakSignals``.
public struct BreakSignal: Hashable, Sendable {
    /// Whether the break starts, ends or is cancelled.
    public enum Kind: String, Hashable, Sendable {
        /// A break starts (out of the network).
        case start
        /// A break ends (back into the network).
        case end
        /// A break announced earlier is cancelled.
        case cancel
    }

    /// The event a signal belongs to: its starts, ends and cancels share it.
    public enum EventID: Hashable, Sendable, CustomStringConvertible {
        /// splice_insert's splice_event_id.
        case splice(UInt32)
        /// segmentation_descriptor's segmentation_event_id.
        case segmentation(UInt32)

        /// `splice_event_id 12` or `segmentation_event_id 12`.
        public var description: String {
            switch self {
            case .splice(let id): "splice_event_id \(id)"
            case .segmentation(let id): "segmentation_event_id \(id)"
            }
        }

        /// The number.
        public var value: UInt32 {
            switch self {
            case .splice(let id), .segmentation(let id): id
            }
        }
    }

    /// Start, end or cancel.
    public var kind: Kind
    /// The event.
    public var eventID: EventID
    /// The break's duration in 90 kHz ticks (break_duration or segmentation_duration), when given.
    public var duration: UInt64?
    /// The segmentation_type_id, for segmentation signals (`nil` for a cancel, which carries none).
    public var segmentationType: SegmentationType?

    /// A signal.
    public init(kind: Kind, eventID: EventID, duration: UInt64? = nil, segmentationType: SegmentationType? = nil) {
        self.kind = kind
        self.eventID = eventID
        self.duration = duration
        self.segmentationType = segmentationType
    }

    /// Whether the signal marks a whole break (a break, a placement opportunity or an ad block) rather
    /// than one advertisement inside one: ad starts (0x30, 0x32) nest inside these.
    public var isBreakLevel: Bool {
        guard let type = segmentationType else { return true }
        return !Self.advertisementTypes.contains(type.rawValue)
    }

    /// Provider and distributor advertisement starts and ends (0x30–0x33).
    static let advertisementTypes: Set<UInt8> = [0x30, 0x31, 0x32, 0x33]

    /// segmentation_type_ids that start a break: break start (0x22), provider and distributor
    /// advertisement starts (0x30, 0x32), placement opportunity starts (0x34, 0x36) and ad block
    /// starts (0x44, 0x46).
    public static let startTypes: Set<SegmentationType> = [
        .breakStart, .providerAdvertisementStart, .distributorAdvertisementStart, .providerPlacementOpportunityStart,
        .distributorPlacementOpportunityStart, .providerAdBlockStart, .distributorAdBlockStart,
    ]

    /// segmentation_type_ids that end a break: the ends of ``startTypes`` (each is its start + 1).
    public static let endTypes: Set<SegmentationType> = [
        .breakEnd, .providerAdvertisementEnd, .distributorAdvertisementEnd, .providerPlacementOpportunityEnd,
        .distributorPlacementOpportunityEnd, .providerAdBlockEnd, .distributorAdBlockEnd,
    ]
}

extension SpliceInfoSection {
    /// The break signals of the section, in order: its splice_insert's, then one per segmentation
    /// descriptor whose type starts or ends a break (``BreakSignal/startTypes``,
    /// ``BreakSignal/endTypes``) or that is cancelled. Empty for encrypted sections and for commands
    /// that signal no break (splice_null, a time_signal without such descriptors).
    public var breakSignals: [BreakSignal] {
        var signals: [BreakSignal] = []
        if case .spliceInsert(let insert) = command {
            let id = BreakSignal.EventID.splice(insert.spliceEventID)
            if let splice = insert.splice {
                signals.append(
                    splice.outOfNetwork
                        ? BreakSignal(kind: .start, eventID: id, duration: splice.breakDuration?.duration)
                        : BreakSignal(kind: .end, eventID: id))
            } else {
                signals.append(BreakSignal(kind: .cancel, eventID: id))
            }
        }
        for descriptor in segmentationDescriptors {
            let id = BreakSignal.EventID.segmentation(descriptor.segmentationEventID)
            guard let segmentation = descriptor.segmentation else {
                signals.append(BreakSignal(kind: .cancel, eventID: id))
                continue
            }
            if BreakSignal.startTypes.contains(segmentation.type) {
                signals.append(
                    BreakSignal(
                        kind: .start, eventID: id, duration: segmentation.segmentationDuration,
                        segmentationType: segmentation.type))
            } else if BreakSignal.endTypes.contains(segmentation.type) {
                signals.append(BreakSignal(kind: .end, eventID: id, segmentationType: segmentation.type))
            }
        }
        return signals
    }

    /// The section's CRC_32 as eight lowercase hex digits: a short, stable name for this exact
    /// section (two sections with the same event ID but other times or durations differ in it).
    public var crcText: String? {
        guard let bytes = try? encode(), bytes.count >= 4 else { return nil }
        return bytes.suffix(4).map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }
}
