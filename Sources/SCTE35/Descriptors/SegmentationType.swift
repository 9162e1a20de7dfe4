/// A segmentation_type_id: what a segmentation descriptor marks (a break start, a program end, …).
///
/// ANSI/SCTE 35 §10.3.3.1 Table 23 names each value; unnamed values are kept as numbers.
public struct SegmentationType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The segmentation_type_id.
    public var rawValue: UInt8

    /// The type with this segmentation_type_id.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x00 Not Indicated.
    public static let notIndicated = Self(rawValue: 0x00)
    /// 0x01 Content Identification.
    public static let contentIdentification = Self(rawValue: 0x01)
    /// 0x02 Private.
    public static let `private` = Self(rawValue: 0x02)
    /// 0x10 Program Start.
    public static let programStart = Self(rawValue: 0x10)
    /// 0x11 Program End.
    public static let programEnd = Self(rawValue: 0x11)
    /// 0x12 Program Early Termination.
    public static let programEarlyTermination = Self(rawValue: 0x12)
    /// 0x13 Program Breakaway.
    public static let programBreakaway = Self(rawValue: 0x13)
    /// 0x14 Program Resumption.
    public static let programResumption = Self(rawValue: 0x14)
    /// 0x15 Program Runover Planned.
    public static let programRunoverPlanned = Self(rawValue: 0x15)
    /// 0x16 Program Runover Unplanned.
    public static let programRunoverUnplanned = Self(rawValue: 0x16)
    /// 0x17 Program Overlap Start.
    public static let programOverlapStart = Self(rawValue: 0x17)
    /// 0x18 Program Blackout Override.
    public static let programBlackoutOverride = Self(rawValue: 0x18)
    /// 0x19 Program Join.
    public static let programJoin = Self(rawValue: 0x19)
    /// 0x20 Chapter Start.
    public static let chapterStart = Self(rawValue: 0x20)
    /// 0x21 Chapter End.
    public static let chapterEnd = Self(rawValue: 0x21)
    /// 0x22 Break Start.
    public static let breakStart = Self(rawValue: 0x22)
    /// 0x23 Break End.
    public static let breakEnd = Self(rawValue: 0x23)
    /// 0x24 Opening Credit Start.
    public static let openingCreditStart = Self(rawValue: 0x24)
    /// 0x25 Opening Credit End.
    public static let openingCreditEnd = Self(rawValue: 0x25)
    /// 0x26 Closing Credit Start.
    public static let closingCreditStart = Self(rawValue: 0x26)
    /// 0x27 Closing Credit End.
    public static let closingCreditEnd = Self(rawValue: 0x27)
    /// 0x30 Provider Advertisement Start.
    public static let providerAdvertisementStart = Self(rawValue: 0x30)
    /// 0x31 Provider Advertisement End.
    public static let providerAdvertisementEnd = Self(rawValue: 0x31)
    /// 0x32 Distributor Advertisement Start.
    public static let distributorAdvertisementStart = Self(rawValue: 0x32)
    /// 0x33 Distributor Advertisement End.
    public static let distributorAdvertisementEnd = Self(rawValue: 0x33)
    /// 0x34 Provider Placement Opportunity Start.
    public static let providerPlacementOpportunityStart = Self(rawValue: 0x34)
    /// 0x35 Provider Placement Opportunity End.
    public static let providerPlacementOpportunityEnd = Self(rawValue: 0x35)
    /// 0x36 Distributor Placement Opportunity Start.
    public static let distributorPlacementOpportunityStart = Self(rawValue: 0x36)
    /// 0x37 Distributor Placement Opportunity End.
    public static let distributorPlacementOpportunityEnd = Self(rawValue: 0x37)
    /// 0x38 Provider Overlay Placement Opportunity Start.
    public static let providerOverlayPlacementOpportunityStart = Self(rawValue: 0x38)
    /// 0x39 Provider Overlay Placement Opportunity End.
    public static let providerOverlayPlacementOpportunityEnd = Self(rawValue: 0x39)
    /// 0x3A Distributor Overlay Placement Opportunity Start.
    public static let distributorOverlayPlacementOpportunityStart = Self(rawValue: 0x3A)
    /// 0x3B Distributor Overlay Placement Opportunity End.
    public static let distributorOverlayPlacementOpportunityEnd = Self(rawValue: 0x3B)
    /// 0x3C Provider Promo Start.
    public static let providerPromoStart = Self(rawValue: 0x3C)
    /// 0x3D Provider Promo End.
    public static let providerPromoEnd = Self(rawValue: 0x3D)
    /// 0x3E Distributor Promo Start.
    public static let distributorPromoStart = Self(rawValue: 0x3E)
    /// 0x3F Distributor Promo End.
    public static let distributorPromoEnd = Self(rawValue: 0x3F)
    /// 0x40 Unscheduled Event Start.
    public static let unscheduledEventStart = Self(rawValue: 0x40)
    /// 0x41 Unscheduled Event End.
    public static let unscheduledEventEnd = Self(rawValue: 0x41)
    /// 0x42 Alternate Content Opportunity Start.
    public static let alternateContentOpportunityStart = Self(rawValue: 0x42)
    /// 0x43 Alternate Content Opportunity End.
    public static let alternateContentOpportunityEnd = Self(rawValue: 0x43)
    /// 0x44 Provider Ad Block Start.
    public static let providerAdBlockStart = Self(rawValue: 0x44)
    /// 0x45 Provider Ad Block End.
    public static let providerAdBlockEnd = Self(rawValue: 0x45)
    /// 0x46 Distributor Ad Block Start.
    public static let distributorAdBlockStart = Self(rawValue: 0x46)
    /// 0x47 Distributor Ad Block End.
    public static let distributorAdBlockEnd = Self(rawValue: 0x47)
    /// 0x50 Network Start.
    public static let networkStart = Self(rawValue: 0x50)
    /// 0x51 Network End.
    public static let networkEnd = Self(rawValue: 0x51)

    private static let names: [UInt8: String] = [
        0x00: "Not Indicated", 0x01: "Content Identification", 0x02: "Private", 0x10: "Program Start",
        0x11: "Program End", 0x12: "Program Early Termination", 0x13: "Program Breakaway",
        0x14: "Program Resumption", 0x15: "Program Runover Planned", 0x16: "Program Runover Unplanned",
        0x17: "Program Overlap Start", 0x18: "Program Blackout Override", 0x19: "Program Join",
        0x20: "Chapter Start", 0x21: "Chapter End", 0x22: "Break Start", 0x23: "Break End",
        0x24: "Opening Credit Start", 0x25: "Opening Credit End", 0x26: "Closing Credit Start",
        0x27: "Closing Credit End", 0x30: "Provider Advertisement Start", 0x31: "Provider Advertisement End",
        0x32: "Distributor Advertisement Start", 0x33: "Distributor Advertisement End",
        0x34: "Provider Placement Opportunity Start", 0x35: "Provider Placement Opportunity End",
        0x36: "Distributor Placement Opportunity Start", 0x37: "Distributor Placement Opportunity End",
        0x38: "Provider Overlay Placement Opportunity Start", 0x39: "Provider Overlay Placement Opportunity End",
        0x3A: "Distributor Overlay Placement Opportunity Start",
        0x3B: "Distributor Overlay Placement Opportunity End", 0x3C: "Provider Promo Start",
        0x3D: "Provider Promo End", 0x3E: "Distributor Promo Start", 0x3F: "Distributor Promo End",
        0x40: "Unscheduled Event Start", 0x41: "Unscheduled Event End",
        0x42: "Alternate Content Opportunity Start", 0x43: "Alternate Content Opportunity End",
        0x44: "Provider Ad Block Start", 0x45: "Provider Ad Block End", 0x46: "Distributor Ad Block Start",
        0x47: "Distributor Ad Block End", 0x50: "Network Start", 0x51: "Network End",
    ]

    /// The name in Table 23, or `nil` for a reserved value.
    public var name: String? { Self.names[rawValue] }

    /// Whether descriptors of this type may carry sub_segment_num and sub_segments_expected: §10.3.3 of
    /// SCTE 35 2022 lists advertisement, placement opportunity and ad block starts (0x30, 0x32, 0x34,
    /// 0x36, 0x38, 0x3A, 0x44, 0x46). They are optional: older encoders leave them out.
    public var carriesSubSegments: Bool { [0x30, 0x32, 0x34, 0x36, 0x38, 0x3A, 0x44, 0x46].contains(rawValue) }

    /// The name and the hex value, such as `Break Start (0x22)`.
    public var description: String {
        let hex = "0x" + (rawValue < 16 ? "0" : "") + String(rawValue, radix: 16, uppercase: true)
        return name.map { "\($0) (\(hex))" } ?? "reserved (\(hex))"
    }
}
