/// How the player chooses among the variants of a multivariant primary: by measured throughput,
/// capped by a peak bit rate, or pinned to one variant.
///
/// The spec leaves the choice to the client: "the client SHOULD [...] switch to a different
/// Variant Stream" as "network bandwidth [...] changes" (RFC 8216bis §6.3.2 and §4.4.6.2: BANDWIDTH
/// "represents the peak segment bit rate of the Variant Stream"). The policy is pure: it maps the
/// variants' BANDWIDTH values and a throughput estimate to the index of the variant to play.
public struct VariantPolicy: Sendable, Hashable {
    /// The index (in the multivariant playlist's order) of the variant to play regardless of
    /// throughput; nil chooses by throughput.
    public var pinnedVariant: Int?
    /// The highest BANDWIDTH to play, in bits per second (AVFoundation's `preferredPeakBitRate`);
    /// 0 sets no limit. When no variant fits, the one with the lowest BANDWIDTH plays.
    public var preferredPeakBitRate: Double
    /// The share of the estimated throughput a variant's BANDWIDTH may use (0.8 by default: a
    /// margin for the estimate's error).
    public var safetyFactor: Double

    /// Creates a policy.
    public init(pinnedVariant: Int? = nil, preferredPeakBitRate: Double = 0, safetyFactor: Double = 0.8) {
        self.pinnedVariant = pinnedVariant
        self.preferredPeakBitRate = preferredPeakBitRate
        self.safetyFactor = safetyFactor
    }

    /// The variant to play among variants with these BANDWIDTH values (nil: not given), with
    /// `throughput` bits per second measured (nil: nothing measured yet) while `current` plays.
    ///
    /// A pinned variant (when it exists) plays. Otherwise, among the variants whose BANDWIDTH fits
    /// under the peak bit rate (all of them without one; the lowest when none fits): before any
    /// measurement, `current` if it fits, else the first listed that fits (the spec: "the first
    /// entry [...] is the default"); with a measurement, the highest BANDWIDTH that fits within
    /// `safetyFactor` of it, else the lowest.
    public func choose(bandwidths: [Int?], throughput: Double?, current: Int?) -> Int? {
        guard !bandwidths.isEmpty else { return nil }
        if let pinned = pinnedVariant, bandwidths.indices.contains(pinned) { return pinned }
        let rates = bandwidths.map { Double($0 ?? 0) }
        let lowest = rates.indices.min { rates[$0] < rates[$1] } ?? 0
        var allowed = rates.indices.filter { preferredPeakBitRate <= 0 || rates[$0] <= preferredPeakBitRate }
        if allowed.isEmpty { allowed = [lowest] }
        guard let throughput else {
            if let current, allowed.contains(current) { return current }
            return allowed.first
        }
        let budget = throughput * safetyFactor
        let fitting = allowed.filter { rates[$0] <= budget }
        guard !fitting.isEmpty else { return allowed.min { rates[$0] < rates[$1] } }
        // The highest that fits; among equal BANDWIDTH values, the current one, then the first listed.
        return fitting.max { a, b in
            rates[a] != rates[b] ? rates[a] < rates[b] : (b == current || (a != current && a > b))
        }
    }
}
