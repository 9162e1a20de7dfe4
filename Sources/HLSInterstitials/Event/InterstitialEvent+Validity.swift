extension InterstitialEvent {
    /// Why the interstitial schema forbids an event: such an event is never scheduled nor played
    /// (the validator reports it, the schedule lists it unscheduled with the reason, the player and
    /// the server skip it), as Media3 and Shaka ignore it.
    public enum SchemaViolation: String, Sendable, Hashable, CaseIterable {
        /// Neither X-ASSET-URI nor X-ASSET-LIST (App. D.2: it "MUST have either").
        case noAsset = "no-asset"
        /// Both X-ASSET-URI and X-ASSET-LIST (App. D.2: "It MUST NOT have both").
        case bothAssets = "both-assets"
        /// CUE with both PRE and POST (§4.4.5.1: "A CUE attribute MUST NOT include both PRE and POST").
        case cuePreAndPost = "cue-pre-and-post"

        /// Why, in words: what the event has and the requirement it breaks.
        public var message: String {
            switch self {
            case .noAsset:
                "it has neither X-ASSET-URI nor X-ASSET-LIST; App. D.2: it \"MUST have either the X-ASSET-URI attribute or the X-ASSET-LIST attribute\""
            case .bothAssets:
                "it has both X-ASSET-URI and X-ASSET-LIST; App. D.2: it \"MUST NOT have both\""
            case .cuePreAndPost:
                "its CUE includes both PRE and POST; §4.4.5.1: \"A CUE attribute MUST NOT include both\""
            }
        }
    }

    /// The schema violations that keep this event from being scheduled, in a fixed order; empty
    /// when it may play. The one rule the validator, the schedule and the player share.
    ///
    /// An attribute counts as present whatever its value (a mistyped one is reported by the
    /// validator on its own). An event made in code (not read from a tag) may carry its assets
    /// directly (``assetList``) or none (it plays nothing, as Apple's event without items does).
    public var schemaViolations: [SchemaViolation] {
        var violations: [SchemaViolation] = []
        func present(_ name: String, _ typed: String?) -> Bool {
            typed != nil || otherAttributes.contains(name)
        }
        let uri = present(AttributeName.assetURI, assetURI)
        let list = present(AttributeName.assetList, assetListURI)
        if uri && list {
            violations.append(.bothAssets)
        } else if !uri && !list && sourceAttributes != nil {
            violations.append(.noAsset)
        }
        if let cueTokens, cueTokens.contains("PRE"), cueTokens.contains("POST") { violations.append(.cuePreAndPost) }
        return violations
    }
}
