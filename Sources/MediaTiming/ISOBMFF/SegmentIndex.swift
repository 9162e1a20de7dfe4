/// A `sidx` box (ISO/IEC 14496-12 §8.16.3): the subsegments of a media segment and their durations.
public struct SegmentIndex: Hashable, Sendable, Codable {
    /// One `sidx` reference.
    public struct Reference: Hashable, Sendable, Codable {
        /// `reference_type`: true when the reference points at another `sidx`.
        public var referencesIndex: Bool
        /// `referenced_size` in bytes.
        public var size: UInt32
        /// `subsegment_duration` in the index's timescale.
        public var duration: UInt32
        /// `starts_with_SAP`.
        public var startsWithSAP: Bool
        /// `SAP_type` (1 and 2 are key frames a decoder can start at).
        public var sapType: UInt8
    }

    /// `reference_ID`: the track the index describes.
    public var referenceID: UInt32
    /// `earliest_presentation_time`, in the index's `timescale`.
    public var earliestPresentationTime: TimescaledTime
    /// `first_offset`: bytes from the end of the box to the first referenced byte.
    public var firstOffset: UInt64
    /// The references.
    public var references: [Reference]

    /// The sum of the references' durations.
    public var duration: TimescaledTime {
        TimescaledTime(
            value: references.reduce(Int64(0)) { $0 &+ Int64($1.duration) },
            timescale: earliestPresentationTime.timescale)
    }

    /// Reads a `sidx` box.
    static func parse(_ box: Box, _ bytes: [UInt8]) throws(MediaTimingError) -> SegmentIndex {
        var reader = box.reader(bytes)
        let version = try reader.u8()
        try reader.skip(3)
        let referenceID = try reader.u32()
        let timescale = try reader.u32()
        guard timescale > 0 else { throw reader.error(.invalidBox, "sidx timescale is 0", at: reader.position - 4) }
        let earliest = version == 0 ? UInt64(try reader.u32()) : try reader.u64()
        let firstOffset = version == 0 ? UInt64(try reader.u32()) : try reader.u64()
        try reader.skip(2)
        let count = Int(try reader.u16())
        guard count * 12 <= reader.remaining else {
            throw reader.error(.truncated, "sidx declares \(count) references but holds \(reader.remaining / 12)")
        }
        var references: [Reference] = []
        references.reserveCapacity(count)
        for _ in 0..<count {
            let typeAndSize = try reader.u32()
            let duration = try reader.u32()
            let sap = try reader.u32()
            references.append(
                Reference(
                    referencesIndex: typeAndSize & 0x8000_0000 != 0, size: typeAndSize & 0x7FFF_FFFF,
                    duration: duration, startsWithSAP: sap & 0x8000_0000 != 0, sapType: UInt8((sap >> 28) & 7)))
        }
        return SegmentIndex(
            referenceID: referenceID,
            earliestPresentationTime: TimescaledTime(value: Int64(clamping: earliest), timescale: timescale),
            firstOffset: firstOffset, references: references)
    }
}
