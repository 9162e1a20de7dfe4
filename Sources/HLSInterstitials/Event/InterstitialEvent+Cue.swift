extension InterstitialEvent {
    /// When an event plays relative to primary playback (`AVPlayerInterstitialEvent.Cue`).
    public enum Cue: String, Hashable, Sendable, Codable, CaseIterable {
        /// At its time or date (no CUE trigger).
        case none
        /// CUE=PRE: "before playback of the primary asset begins, regardless of where playback begins"
        /// (`joinCue`).
        case join
        /// CUE=POST: "after the primary asset has been played to its end without error" (`leaveCue`).
        case leave
    }

    /// CUE as a cue: PRE is ``Cue/join``, POST ``Cue/leave``. Setting it keeps ONCE and unknown identifiers.
    public var cue: Cue {
        get {
            guard let cueTokens else { return .none }
            if cueTokens.contains("PRE") { return .join }
            if cueTokens.contains("POST") { return .leave }
            return .none
        }
        set {
            var tokens = (cueTokens ?? []).filter { $0 != "PRE" && $0 != "POST" }
            switch newValue {
            case .join: tokens.insert("PRE", at: 0)
            case .leave: tokens.insert("POST", at: 0)
            case .none: break
            }
            cueTokens = tokens.isEmpty && cueTokens == nil ? nil : tokens
        }
    }

    /// CUE=ONCE: the event "SHOULD NOT be triggered again, even if the user replays the portion of
    /// the primary asset that includes the trigger point" (`willPlayOnce`; profile R9).
    public var willPlayOnce: Bool {
        get { cueTokens?.contains("ONCE") ?? false }
        set {
            var tokens = (cueTokens ?? []).filter { $0 != "ONCE" }
            if newValue { tokens.append("ONCE") }
            cueTokens = tokens.isEmpty && cueTokens == nil ? nil : tokens
        }
    }

    /// X-SNAP=OUT: the start moves to the nearest primary segment boundary
    /// (`alignsStartWithPrimarySegmentBoundary`).
    public var alignsStartWithPrimarySegmentBoundary: Bool {
        get { snapTokens?.contains("OUT") ?? false }
        set { setSnap("OUT", newValue) }
    }

    /// X-SNAP=IN: the resumption point moves to the nearest primary segment boundary
    /// (`alignsResumptionWithPrimarySegmentBoundary`).
    public var alignsResumptionWithPrimarySegmentBoundary: Bool {
        get { snapTokens?.contains("IN") ?? false }
        set { setSnap("IN", newValue) }
    }

    private mutating func setSnap(_ token: String, _ on: Bool) {
        var tokens = (snapTokens ?? []).filter { $0 != token }
        if on { tokens.append(token) }
        snapTokens = tokens.isEmpty && snapTokens == nil ? nil : tokens
    }
}
