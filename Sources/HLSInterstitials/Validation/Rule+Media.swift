import HLSPlaylist

extension Rule {
    // MARK: Media segments (--media)

    /// `media-load`: a media segment or initialization segment cannot be loaded or read.
    public static let mediaLoad = Rule(
        id: "media-load", severity: .error,
        summary: "A media segment or its initialization segment (EXT-X-MAP) cannot be loaded or its timing read.",
        reference:
            "§3: \"Each Media Segment MUST be formatted\" as MPEG-2 TS, fMP4, packed audio or WebVTT; §4.4.4.5: EXT-X-MAP \"specifies how to obtain the Media Initialization Section\" the segment needs."
    )
    /// `media-extinf`: a segment's EXTINF differs from its measured duration.
    public static let mediaEXTINF = Rule(
        id: "media-extinf", severity: .warning,
        summary: "A segment's EXTINF differs from the duration measured in its media by more than the tolerance.",
        reference:
            "§4.4.4.1: EXTINF \"specifies the duration of the Media Segment in seconds\"; durations SHOULD be given \"with enough accuracy to avoid perceptible errors when segment durations are accumulated.\""
    )
    /// `media-target-duration`: a segment's measured duration, rounded, exceeds the target duration.
    public static let mediaTargetDuration = Rule(
        id: "media-target-duration", severity: .error,
        summary: "A segment's measured duration, rounded to the nearest integer, exceeds EXT-X-TARGETDURATION.",
        reference:
            "§4.4.3.1: \"The EXTINF duration of each Media Segment in a Playlist file, when rounded to the nearest integer, MUST be less than or equal to the Target Duration.\" An accurate EXTINF is the measured duration."
    )
    /// `media-bandwidth`: the measured peak segment bit rate exceeds BANDWIDTH.
    public static let mediaBandwidth = Rule(
        id: "media-bandwidth", severity: .error,
        summary: "The measured peak segment bit rate of a variant exceeds its BANDWIDTH by more than 10 %.",
        reference:
            "§4.4.6.2: \"the BANDWIDTH value MUST be the largest sum of peak segment bit rates that is produced by any playable combination of Renditions.\" The peak segment bit rate is the largest bit rate of any contiguous set of segments lasting 0.5 to 1.5 times the target duration."
    )
    /// `media-average-bandwidth`: the measured average segment bit rate exceeds AVERAGE-BANDWIDTH.
    public static let mediaAverageBandwidth = Rule(
        id: "media-average-bandwidth", severity: .warning,
        summary: "The measured average segment bit rate of a variant exceeds its AVERAGE-BANDWIDTH by more than 10 %.",
        reference:
            "§4.4.6.2: AVERAGE-BANDWIDTH \"MUST be the largest sum of average segment bit rates that is produced by any playable combination of Renditions.\" A warning: with --sample the average is an estimate."
    )
    /// `media-key-frame`: a segment does not start with a key frame although the playlist says it does.
    public static let mediaKeyFrame = Rule(
        id: "media-key-frame", severity: .error,
        summary:
            "Under EXT-X-INDEPENDENT-SEGMENTS or EXT-X-I-FRAMES-ONLY, a segment's video does not start with a key frame.",
        reference:
            "§4.4.2.1: EXT-X-INDEPENDENT-SEGMENTS \"indicates that all media samples in a Media Segment can be decoded without information from other segments.\" §4.4.3.6: each segment of an I-frame playlist \"describes a single I-frame\"."
    )
    /// `media-av-offset`: audio and video start at different times where a player starts its timeline.
    public static let mediaAVOffset = Rule(
        id: "media-av-offset", severity: .warning,
        summary:
            "At the start of a playlist or after a discontinuity, audio and video start further apart than the tolerance.",
        reference:
            "§4.4.4.3 and §6.3: not a MUST of its own. Where a player starts or restarts its timeline, a track that starts later than the other leaves a hole in the buffered ranges (the \"buffer hole\" of MSE players) or a stall; measured on edited presentation times (fMP4 edit lists applied)."
    )
    /// `media-continuity`: consecutive segments leave a gap or overlap in a track's media times.
    public static let mediaContinuity = Rule(
        id: "media-continuity", severity: .warning,
        summary:
            "A track's media times leave a gap or overlap between consecutive segments that no EXT-X-DISCONTINUITY announces.",
        reference:
            "§4.4.4.3: the EXT-X-DISCONTINUITY tag \"MUST be present if there is a change in\" the timestamp sequence; without it, each segment's timestamps continue the previous segment's."
    )
    /// `media-discontinuity-gap`: audio and video end apart where the timeline breaks.
    public static let mediaDiscontinuityGap = Rule(
        id: "media-discontinuity-gap", severity: .warning,
        summary:
            "Before an EXT-X-DISCONTINUITY, or at the end of an interstitial asset, audio and video end further apart than the tolerance.",
        reference:
            "§4.4.4.3 and App. D.1: not a MUST of its own. After a discontinuity (or back in the primary after an asset) both tracks continue from one new point; the track that ended first leaves a gap there (a \"buffer hole\" or a stall) and the one that ended last overlaps what follows."
    )
    /// `interstitial-media-offset`: an interstitial asset's audio and video start at different times.
    public static let interstitialMediaOffset = Rule(
        id: "interstitial-media-offset", severity: .warning,
        summary: "An interstitial asset's first segment starts its audio and video further apart than the tolerance.",
        reference:
            "App. D.1: not a MUST of its own. Playback of an interstitial starts at the asset's start; a track that starts later there leaves a hole (a stall or a \"buffer hole\") at every transition into the interstitial."
    )
    /// `interstitial-media-key-frame`: an interstitial asset does not start with a key frame.
    public static let interstitialMediaKeyFrame = Rule(
        id: "interstitial-media-key-frame", severity: .warning,
        summary: "An interstitial asset's first segment does not start with a video key frame.",
        reference:
            "App. D.1: not a MUST of its own. Playback of an interstitial starts at its first segment; video without a key frame there cannot be decoded until the next key frame."
    )
    /// `interstitial-media-codecs`: the media of an asset differ from the primary's.
    public static let interstitialMediaCodecs = Rule(
        id: "interstitial-media-codecs", severity: .warning,
        summary:
            "An interstitial asset's measured container, tracks, codecs or audio sample rates differ from the primary's.",
        reference:
            "App. D.1: interstitial assets may use different codecs from the primary, \"but this may cause transition delays\"; measured in the segments, not taken from the CODECS attributes."
    )

    /// The rules of `hlsi validate --media`, which reads the segments.
    public static let mediaRules: [Rule] = [
        .mediaLoad, .mediaEXTINF, .mediaTargetDuration, .mediaBandwidth, .mediaAverageBandwidth, .mediaKeyFrame,
        .mediaAVOffset, .mediaContinuity, .mediaDiscontinuityGap, .interstitialMediaOffset, .interstitialMediaKeyFrame,
        .interstitialMediaCodecs,
    ]
}
