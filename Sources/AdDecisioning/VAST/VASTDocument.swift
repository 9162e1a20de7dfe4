/// A VAST response as read: its version, its ads in document order, its own `<Error>` URLs and
/// notes about what was skipped.
///
/// VAST 4.3 §3.2: "The VAST element is the root of the VAST document"; a response without ads is a
/// "no ad" response whose `<Error>` URLs the player calls.
public struct VASTDocument: Hashable, Sendable {
    /// The `version` attribute, such as `4.2`.
    public var version: String
    /// The ads in document order.
    public var ads: [VASTAd]
    /// The `<Error>` URLs directly under `<VAST>` (called for a no-ad response).
    public var errorURLs: [String]
    /// What the reader skipped.
    public var notes: [VASTNote]

    /// Creates a document.
    public init(version: String, ads: [VASTAd] = [], errorURLs: [String] = [], notes: [VASTNote] = []) {
        self.version = version
        self.ads = ads
        self.errorURLs = errorURLs
        self.notes = notes
    }

    /// The ads of the pod: those with a `sequence`, ordered by it (VAST 4.3 §3.3.1: "the sequence
    /// attribute … identifies the sequence of multiple Ads that are part of an Ad Pod").
    public var podAds: [VASTAd] {
        ads.enumerated().filter { $0.element.sequence != nil }
            .sorted { ($0.element.sequence!, $0.offset) < ($1.element.sequence!, $1.offset) }
            .map(\.element)
    }

    /// The stand-alone ads, those without a `sequence`, in document order (VAST 4.3 §3.3.1: they
    /// "may be used … as a fallback" when a pod ad cannot be played).
    public var standaloneAds: [VASTAd] { ads.filter { $0.sequence == nil } }
}
