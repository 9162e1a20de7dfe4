/// What an ad audio rendition's media says of its audio, read by the server from its
/// initialization segment (the `mp4a` sample entry and its `esds` AudioSpecificConfig) or, for
/// MPEG-TS and packed audio, its first audio frame header: what ``StitchRenditionChooser`` compares
/// when the playlist declares no SAMPLE-RATE or CHANNELS, and checks against what it declares.
public struct StitchMeasuredAudio: Hashable, Sendable {
    /// The sample rate in Hz; nil when not measured.
    public var sampleRate: UInt64?
    /// The channel count; nil when not measured.
    public var channelCount: UInt64?

    /// The figures measured in media whose codec is `codec` (as CODECS writes it).
    ///
    /// HE-AAC (`mp4a.40.5`) and HE-AACv2 (`mp4a.40.29`) give no figure: with implicit signalling
    /// their AudioSpecificConfig states the core's sample rate (half the output's, ISO/IEC 14496-3
    /// SBR), and HE-AACv2's states one channel for a stereo output (parametric stereo), so what is
    /// read is not what plays.
    public init(sampleRate: Int?, channelCount: Int?, codec: String?) {
        if codec == "mp4a.40.5" || codec == "mp4a.40.29" {
            self.sampleRate = nil
            self.channelCount = nil
            return
        }
        self.sampleRate = sampleRate.flatMap { $0 > 0 ? UInt64($0) : nil }
        self.channelCount = channelCount.flatMap { $0 > 0 ? UInt64($0) : nil }
    }

    /// `its media: 44100 Hz, 2 channels`, or nil when nothing was measured.
    var summary: String? {
        var parts: [String] = []
        if let sampleRate { parts.append("\(sampleRate) Hz") }
        if let channelCount { parts.append("\(channelCount) channel\(channelCount == 1 ? "" : "s")") }
        return parts.isEmpty ? nil : "its media: " + parts.joined(separator: ", ")
    }
}
