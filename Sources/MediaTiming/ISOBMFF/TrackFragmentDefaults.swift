/// The defaults a `trex` box (ISO/IEC 14496-12 §8.8.3) gives the samples of a track's fragments.
public struct TrackFragmentDefaults: Hashable, Sendable, Codable {
    /// `default_sample_description_index`.
    public var sampleDescriptionIndex: UInt32
    /// `default_sample_duration`, in the track's timescale.
    public var sampleDuration: UInt32
    /// `default_sample_size`, in bytes.
    public var sampleSize: UInt32
    /// `default_sample_flags` (see ``SampleFlags``).
    public var sampleFlags: UInt32

    /// Creates defaults.
    public init(
        sampleDescriptionIndex: UInt32 = 1, sampleDuration: UInt32 = 0, sampleSize: UInt32 = 0, sampleFlags: UInt32 = 0
    ) {
        self.sampleDescriptionIndex = sampleDescriptionIndex
        self.sampleDuration = sampleDuration
        self.sampleSize = sampleSize
        self.sampleFlags = sampleFlags
    }
}
