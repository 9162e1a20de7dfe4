extension InterstitialEvent {
    /// Navigation restrictions, enforced "at the player UI level" (App. D.2 X-RESTRICT;
    /// `AVPlayerInterstitialEvent.Restrictions`).
    public struct Restrictions: OptionSet, Hashable, Sendable, CustomStringConvertible {
        /// The raw bits, with AVFoundation's values.
        public var rawValue: UInt

        /// Creates restrictions from raw bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// JUMP: no seek from before the event's start to after it without first playing the event,
        /// "even if the interstitial at START-DATE was played through earlier" (AVFoundation 1 << 0).
        public static let constrainsSeekingForwardInPrimaryContent = Restrictions(rawValue: 1 << 0)
        /// SKIP: while the interstitial plays, no forward seek and no rate above the regular rate
        /// (AVFoundation 1 << 2).
        public static let requiresPlaybackAtPreferredRateForAdvancement = Restrictions(rawValue: 1 << 2)
        /// The X-RESTRICT identifier SKIP.
        public static let skip = requiresPlaybackAtPreferredRateForAdvancement
        /// The X-RESTRICT identifier JUMP.
        public static let jump = constrainsSeekingForwardInPrimaryContent

        /// The X-RESTRICT identifiers, SKIP before JUMP.
        public var tokens: [String] {
            var tokens: [String] = []
            if contains(.skip) { tokens.append("SKIP") }
            if contains(.jump) { tokens.append("JUMP") }
            return tokens
        }

        /// The restriction an X-RESTRICT identifier names, or nil for an unknown one.
        public init?(token: String) {
            switch token {
            case "SKIP": self = .skip
            case "JUMP": self = .jump
            default: return nil
            }
        }

        /// `SKIP,JUMP`, or `none`.
        public var description: String { isEmpty ? "none" : tokens.joined(separator: ",") }
    }

    /// X-RESTRICT as restrictions; unknown identifiers are ignored (§4.2: clients "MUST ignore any
    /// unrecognized enumerated-strings in an enumerated-string-list") but kept when set.
    public var restrictions: Restrictions {
        get { Restrictions(restrictTokens?.compactMap(Restrictions.init(token:)) ?? []) }
        set {
            let unknown = restrictTokens?.filter { Restrictions(token: $0) == nil } ?? []
            let tokens = newValue.tokens + unknown
            restrictTokens = tokens.isEmpty && restrictTokens == nil ? nil : tokens
        }
    }
}
