/// An InLine ad reached through zero or more wrappers, with the wrappers' tracking merged in.
///
/// VAST 4.3 §2.3.5: a Wrapper "may contain tracking elements that provide tracking for the InLine
/// ad that is served following one or more wrappers". ``ad`` is the InLine ad with the wrappers'
/// impressions, error URLs, verifications, and linear tracking and click tracking appended (the
/// InLine's own first, then the wrappers' from the innermost out).
public struct ResolvedAd: Hashable, Sendable {
    /// The InLine ad with the wrappers' tracking merged in.
    public var ad: VASTAd
    /// The InLine ad as its response gave it.
    public var inline: VASTAd
    /// The URLs requested to reach it, the first request first.
    public var requestURLs: [String]
    /// How many wrappers were followed.
    public var depth: Int

    /// Creates a resolved ad by merging `wrappers` (outermost first) into `inline`.
    public init(inline: VASTAd, wrappers: [VASTAd], requestURLs: [String]) {
        self.inline = inline
        self.requestURLs = requestURLs
        self.depth = wrappers.count
        var merged = inline
        for wrapper in wrappers.reversed() {
            merged.impressions += wrapper.impressions
            merged.errorURLs += wrapper.errorURLs
            merged.verifications += wrapper.verifications
            let wrapperLinears = wrapper.creatives.compactMap(\.linear)
            for index in merged.creatives.indices where merged.creatives[index].linear != nil {
                for linear in wrapperLinears {
                    merged.creatives[index].linear!.tracking += linear.tracking
                    merged.creatives[index].linear!.videoClicks.clickTracking += linear.videoClicks.clickTracking
                    merged.creatives[index].linear!.videoClicks.customClicks += linear.videoClicks.customClicks
                    if merged.creatives[index].linear!.videoClicks.clickThrough == nil {
                        // VAST 4.2 allows ClickThrough in a wrapper; the InLine's wins when both have one.
                        merged.creatives[index].linear!.videoClicks.clickThrough = linear.videoClicks.clickThrough
                    }
                }
            }
        }
        self.ad = merged
    }
}

/// A failure to report to an ad server: the VAST error code and the `<Error>` URLs to request with
/// it in `[ERRORCODE]` (VAST 4.3 §2.3.6), and where it happened.
public struct VASTErrorReport: Hashable, Sendable, CustomStringConvertible {
    /// Why a resolution failed, as `hlsi vast` and the server's logs print it (the raw value).
    public enum Reason: String, Hashable, Sendable, CaseIterable {
        /// The deadline passed before a wrapper's document arrived (VAST 301).
        case wrapperTimeout = "wrapper-timeout"
        /// A request failed: no connection, an HTTP error, a body that is not VAST.
        case fetchFailed = "fetch-failed"
        /// More wrappers in a chain than the resolver follows (VAST 302).
        case wrapperLimit = "wrapper-limit"
        /// A wrapper leads back to a document of its own chain.
        case wrapperLoop = "wrapper-loop"
        /// The decision's budget of requests is spent.
        case requestBudget = "request-budget"
        /// The decision's budget of bytes is spent.
        case byteBudget = "byte-budget"
        /// The chain ends in no ad (VAST 303).
        case noAds = "no-ads"
        /// An ad with no HLS media file the server can schedule (VAST 403).
        case noHLSMediaFile = "no-hls-media-file"
    }

    /// The VAST error code.
    public var code: VASTErrorCode
    /// The `<Error>` URLs to call, macros not yet filled.
    public var urls: [String]
    /// The number of wrappers followed when it happened.
    public var depth: Int
    /// The URL whose request or response failed, if any.
    public var url: String?
    /// Why it failed: a stable code.
    public var reason: Reason
    /// What happened.
    public var message: String

    /// Creates a report.
    public init(
        code: VASTErrorCode, urls: [String], depth: Int, url: String?, reason: Reason, message: String
    ) {
        self.code = code
        self.urls = urls
        self.depth = depth
        self.url = url
        self.reason = reason
        self.message = message
    }

    /// `VAST error N [reason] at depth d (url): message`.
    public var description: String {
        "VAST error \(code) [\(reason.rawValue)] at depth \(depth)" + (url.map { " (\($0))" } ?? "") + ": \(message)"
    }
}
