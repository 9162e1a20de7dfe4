import HLSPlaylist

extension Rule {
    // MARK: SCTE-35 signals (§4.4.5.1.1, ANSI/SCTE 35)

    /// `scte35-section`: a marker's splice_info_section does not decode.
    public static let scte35Section = Rule(
        id: "scte35-section", severity: .error,
        summary:
            "An SCTE35-OUT, SCTE35-IN or SCTE35-CMD value, an EXT-OATCLS-SCTE35 line or a SCTE35= value is not a splice_info_section.",
        reference:
            "§4.4.5.1: SCTE35-CMD, SCTE35-OUT and SCTE35-IN carry \"a big-endian binary representation of the splice_info_section()\" as a hexadecimal-sequence; ANSI/SCTE 35 §9.6 gives its syntax and CRC_32."
    )
    /// `scte35-marker`: an EXT-X-CUE-OUT or EXT-X-CUE-OUT-CONT value cannot be read.
    public static let scte35Marker = Rule(
        id: "scte35-marker", severity: .warning,
        summary: "An EXT-X-CUE-OUT or EXT-X-CUE-OUT-CONT value has no readable duration or elapsed time.",
        reference:
            "§4.4.5.1.1: SCTE-35 signals are mapped to EXT-X-DATERANGE; the older EXT-X-CUE-OUT[:DURATION], EXT-X-CUE-OUT-CONT:ElapsedTime=…,Duration=… and EXT-X-CUE-IN lines carry decimal seconds."
    )
    /// `scte35-in-without-out`: a return to the network matches no break.
    public static let scte35InWithoutOut = Rule(
        id: "scte35-in-without-out", severity: .warning,
        summary: "An SCTE-35 IN (SCTE35-IN, EXT-X-CUE-IN, a splice_insert or segmentation end) matches no OUT.",
        reference:
            "§4.4.5.1.1: \"An SCTE-35 splice out/in pair signaled by a pair of splice_insert() commands SHOULD be represented by one or more EXT-X-DATERANGE tags carrying the same ID attribute, which MUST be unique to that splice out/in pair.\""
    )
    /// `scte35-duration-mismatch`: the markers of one break give different durations.
    public static let scte35DurationMismatch = Rule(
        id: "scte35-duration-mismatch", severity: .warning,
        summary:
            "The markers of one break disagree on its duration (EXT-X-CUE-OUT, EXT-X-CUE-OUT-CONT Duration, PLANNED-DURATION, break_duration, segmentation_duration), or its IN comes after the planned end.",
        reference:
            "§4.4.5.1.1: the EXT-X-DATERANGE of an SCTE-35 OUT carries the break's planned duration; ANSI/SCTE 35 §9.7.3: break_duration \"shall be used by the splicing device to know when the return to the network feed … is to take place\"."
    )
    /// `scte35-elapsed-mismatch`: an EXT-X-CUE-OUT-CONT's ElapsedTime disagrees with its OUT.
    public static let scte35ElapsedMismatch = Rule(
        id: "scte35-elapsed-mismatch", severity: .warning,
        summary: "An EXT-X-CUE-OUT-CONT's ElapsedTime differs from the time since its break's OUT.",
        reference:
            "§4.4.5.1.1: signals keep their times; EXT-X-CUE-OUT-CONT's ElapsedTime is the time from the OUT to the segment it precedes."
    )
    /// `scte35-interstitial-mismatch`: an interstitial converted from a signal does not match it.
    public static let scte35InterstitialMismatch = Rule(
        id: "scte35-interstitial-mismatch", severity: .warning,
        summary:
            "An interstitial whose ID is a signalled break's has another START-DATE, or a DURATION or PLANNED-DURATION other than the signal's.",
        reference:
            "App. D.2: the interstitial's START-DATE is where primary playback pauses; for a break signalled by SCTE-35 that is the OUT's date (§4.4.5.1.1), and its duration is the signal's."
    )

    /// The rules of ``SignalRecognizer`` and of the interstitials converted from its breaks.
    public static let signalRules: [Rule] = [
        .scte35Section, .scte35Marker, .scte35InWithoutOut, .scte35DurationMismatch, .scte35ElapsedMismatch,
        .scte35InterstitialMismatch,
    ]
}
