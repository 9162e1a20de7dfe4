/// The 32-bit sample flags of ISO/IEC 14496-12 §8.8.3.1, as `trex`, `tfhd` and `trun` carry them.
///
/// "is_leading (2 bits), sample_depends_on (2), sample_is_depended_on (2), sample_has_redundancy (2),
/// sample_padding_value (3), sample_is_non_sync_sample (1), sample_degradation_priority (16)."
public struct SampleFlags: Hashable, Sendable, Codable {
    /// The raw 32 bits.
    public var rawValue: UInt32

    /// Flags of these 32 bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `sample_depends_on`: 1 "depends on others (not an I picture)", 2 "does not depend on others (I picture)", 0 unknown.
    public var dependsOn: UInt8 { UInt8((rawValue >> 24) & 3) }

    /// `sample_is_non_sync_sample`.
    public var isNonSync: Bool { rawValue & 0x1_0000 != 0 }

    /// Whether the sample is a sync sample (a key frame): not flagged non-sync and not flagged as
    /// depending on other samples.
    public var isSync: Bool { !isNonSync && dependsOn != 1 }
}
