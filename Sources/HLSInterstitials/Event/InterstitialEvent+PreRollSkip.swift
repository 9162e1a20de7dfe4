import HLSPlaylist

extension InterstitialEvent {
    /// How much of the start of a VOD's primary content a pre-roll skips: a `CUE="PRE"` event
    /// without X-RESUME-OFFSET resumes primary at its effective duration (App. D.2, profile R3),
    /// so the viewer never sees the first seconds of the movie. The spec allows it, but few
    /// authors mean it; `X-RESUME-OFFSET=0` inserts the pre-roll instead.
    ///
    /// The one place this rule is decided: `hlsi validate` (`Rule/interstitialPreRollSkip`) and
    /// the admin API's warnings when a break is created call it. Nil when nothing is skipped: not a
    /// pre-roll, an X-RESUME-OFFSET given, no known positive duration, or a live presentation (where
    /// resuming at the duration keeps the viewer's distance from the live edge).
    ///
    /// - Parameter isVOD: whether the presentation is VOD (it has an end).
    public func preRollSkippedPrimary(isVOD: Bool) -> MediaTime? {
        guard isVOD, cue == .join, resumptionOffset == nil, let skipped = effectiveDuration(), skipped > .zero
        else { return nil }
        return skipped
    }

    /// The warning for a pre-roll that skips `skipped` of primary (``preRollSkippedPrimary(isVOD:)``),
    /// the same text for `hlsi validate` and the admin API.
    public static func preRollSkipMessage(id: String, skipped: MediaTime) -> String {
        "pre-roll \"\(id)\" has no X-RESUME-OFFSET, so primary playback resumes \(skipped) s into the content and its first \(skipped) s are never shown; add X-RESUME-OFFSET=0 (resumeOffset: 0) to insert the pre-roll before the content instead"
    }
}
