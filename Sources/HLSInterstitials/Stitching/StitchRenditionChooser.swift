import HLSPlaylist

/// Which audio rendition of an ad is stitched into an audio rendition of the primary (profile R28):
/// in the audio group of the ad variant chosen for the primary's variant
/// (``StitchVariantChooser``), among the renditions with the primary rendition's channel count and
/// sample rate (``channelCountsMatch(_:_:measured:)``, ``sampleRatesMatch(_:_:measured:)``), the one with its
/// LANGUAGE, else the DEFAULT=YES one, else the first.
///
/// What a rendition's media says (``StitchMeasuredAudio``, read from its initialization segment)
/// counts too: a figure its playlist does not declare is taken from its media, and a rendition
/// whose media contradicts what it declares does not fit.
public enum StitchRenditionChooser {
    /// The ad's audio rendition for `primary` when `adVariant` is the ad variant stitched into the
    /// primary variant that plays it.
    ///
    /// - Parameters:
    ///   - primary: the primary's audio rendition the ad is stitched into.
    ///   - adVariant: the ad variant stitched into the primary variant that plays `primary`.
    ///   - ad: the ad's multivariant playlist.
    ///   - location: where the ad is, for the error's message.
    ///   - measured: what the media of each ad rendition says, by its URI as the ad's multivariant
    ///     playlist writes it (renditions without an entry are judged by their attributes alone).
    ///
    /// - Throws: ``StitchingError`` `stitch-media` when `adVariant` names no audio group with a
    ///   rendition that has a URI (its audio is muxed into the video, which a demuxed primary's
    ///   audio playlist cannot take), or when none of the group's renditions has the primary
    ///   rendition's channel count and sample rate (the message says what each has).
    public static func choose(
        for primary: Rendition, adVariant: VariantStream, in ad: MultivariantPlaylist, at location: String,
        measured: [String: StitchMeasuredAudio] = [:]
    ) throws(StitchingError) -> Rendition {
        let group = ad.renditions.filter { rendition in
            rendition.type == "AUDIO" && rendition.groupID == adVariant.audio && rendition.uri != nil
        }
        guard !group.isEmpty else {
            throw StitchingError(
                .media, at: location,
                "the ad variant \(adVariant.uri) has no audio rendition playlists (AUDIO group \(adVariant.audio ?? "none")), so nothing can be stitched into the primary's audio rendition \(primary.name)"
            )
        }
        let fitting = group.filter { rendition in
            let media = rendition.uri.flatMap { measured[$0] }
            return channelCountsMatch(primary, rendition, measured: media)
                && sampleRatesMatch(primary, rendition, measured: media)
        }
        guard !fitting.isEmpty else {
            let offered = group.prefix(StitchVariantChooser.describedVariants).map { rendition in
                "\"\(rendition.name)\" has \(describe(rendition, measured: rendition.uri.flatMap { measured[$0] }))"
            }
            let more =
                group.count > StitchVariantChooser.describedVariants
                ? "; and \(group.count - StitchVariantChooser.describedVariants) more" : ""
            throw StitchingError(
                .media, at: location,
                "no audio rendition of the ad variant \(adVariant.uri) (AUDIO group \(adVariant.audio ?? "none")) fits the primary's audio rendition \"\(primary.name)\" (\(describe(primary))): \(offered.joined(separator: "; "))\(more); an ad rendition must have the channel count and sample rate of the rendition it is stitched into, in its playlist and in its media"
            )
        }
        if let language = primary.language?.lowercased(),
            let same = fitting.first(where: { $0.language?.lowercased() == language })
        {
            return same
        }
        return fitting.first(where: \.isDefault) ?? fitting[0]
    }

    /// Whether what `ad`'s media says can change whether it fits `primary`: when either declares a
    /// channel count or a sample rate (a figure the ad does not declare is compared with the
    /// primary's; one it declares is checked against its media). When neither declares any, every
    /// figure fits, so its media need not be read.
    public static func needsMeasurement(of ad: Rendition, for primary: Rendition) -> Bool {
        channelCount(of: primary) != nil || primary.sampleRate != nil || channelCount(of: ad) != nil
            || ad.sampleRate != nil
    }

    /// The channel count of an audio rendition: the first parameter of CHANNELS, which RFC 8216bis
    /// §4.4.6.1 defines as "a count of audio channels expressed as a decimal-integer"; nil when
    /// CHANNELS is absent or its first parameter is not a decimal-integer.
    public static func channelCount(of rendition: Rendition) -> UInt64? {
        guard let first = rendition.channels.first, !first.isEmpty, first.utf8.allSatisfy({ (48...57).contains($0) })
        else {
            return nil
        }
        return UInt64(first)
    }

    /// Whether an ad rendition's channel count (``channelCount(of:)``) fits the primary
    /// rendition's: equal, compared only when both have one (CHANNELS is OPTIONAL): when either
    /// does not, they fit. The ad's is its CHANNELS, else the count `measured` in its media; when
    /// it declares one and its media has another, it does not fit (the playlist is wrong).
    public static func channelCountsMatch(
        _ primary: Rendition, _ ad: Rendition, measured: StitchMeasuredAudio? = nil
    ) -> Bool {
        let declared = channelCount(of: ad)
        if let declared, let media = measured?.channelCount, declared != media { return false }
        guard let ours = channelCount(of: primary), let theirs = declared ?? measured?.channelCount else {
            return true
        }
        return ours == theirs
    }

    /// Whether an ad rendition's sample rate fits the primary rendition's SAMPLE-RATE (RFC 8216bis
    /// §4.4.6.1, a decimal-integer in Hz): equal, compared only when both have one (SAMPLE-RATE is
    /// OPTIONAL): when either does not, they fit. The ad's is its SAMPLE-RATE, else the rate
    /// `measured` in its media; when it declares one and its media has another, it does not fit
    /// (the playlist is wrong).
    public static func sampleRatesMatch(
        _ primary: Rendition, _ ad: Rendition, measured: StitchMeasuredAudio? = nil
    ) -> Bool {
        if let declared = ad.sampleRate, let media = measured?.sampleRate, declared != media { return false }
        guard let ours = primary.sampleRate, let theirs = ad.sampleRate ?? measured?.sampleRate else { return true }
        return ours == theirs
    }

    /// `CHANNELS 6, SAMPLE-RATE 48000`, or `no CHANNELS or SAMPLE-RATE`, then what its media says
    /// when measured (`; its media: 44100 Hz, 2 channels`).
    static func describe(_ rendition: Rendition, measured: StitchMeasuredAudio? = nil) -> String {
        var parts: [String] = []
        if let count = channelCount(of: rendition) { parts.append("CHANNELS \(count)") }
        if let rate = rendition.sampleRate { parts.append("SAMPLE-RATE \(rate)") }
        let declared = parts.isEmpty ? "no CHANNELS or SAMPLE-RATE" : parts.joined(separator: ", ")
        return measured?.summary.map { declared + " (" + $0 + ")" } ?? declared
    }
}
