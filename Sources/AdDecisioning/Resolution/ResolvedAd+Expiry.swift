extension ResolvedAd {
    /// How long a decision of `ads` stays good, in seconds: the shortest VAST 4 `<Expires>` of their
    /// InLine ads ("the number of seconds in which the ad is valid for execution", VAST 4.1 §3.4.1),
    /// as the VAST parser read it (``VASTAd/expires``); nil when none gives one. A pod is as
    /// fresh as its stalest ad.
    public static func expiry(of ads: [ResolvedAd]) -> Int? {
        ads.compactMap(\.inline.expires).min()
    }
}
