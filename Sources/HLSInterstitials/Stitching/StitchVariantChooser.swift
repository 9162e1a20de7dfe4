import HLSPlaylist

/// Which variant of an ad is stitched into a variant of the primary (profile R28): one with the same
/// codec families (`VariantStream/codecFamilies`), the same RESOLUTION and the same FRAME-RATE
/// (``frameRatesMatch(_:_:)``), so a player that does not expect a change of media meets none at
/// the discontinuity; among those, the highest BANDWIDTH that does not exceed the primary variant's,
/// else the lowest.
public enum StitchVariantChooser {
    /// The most ad variants a refusal's message describes (the rest are counted).
    static let describedVariants = 8

    /// The ad variant for `primary` among `ad`'s variants.
    ///
    /// - Parameters:
    ///   - primary: the primary's variant being stitched.
    ///   - ad: the ad's multivariant playlist.
    ///   - location: where to say the problem is (the event and the ad's URL).
    /// - Throws: ``StitchingError`` `stitch-media` when the primary variant declares no CODECS, or no
    ///   ad variant has its codec families, resolution and frame rate; the message says what the
    ///   primary variant has and how each ad variant differs.
    public static func choose(
        for primary: VariantStream, in ad: MultivariantPlaylist, at location: String
    ) throws(StitchingError) -> VariantStream {
        guard !primary.codecFamilies.isEmpty else {
            throw StitchingError(
                .media, at: location,
                "the primary variant \(primary.uri) declares no CODECS, so no ad variant can be shown to match it")
        }
        var fitting: [VariantStream] = []
        var refused: [String] = []
        for variant in ad.variants {
            let differences = differences(of: variant, from: primary)
            if differences.isEmpty {
                fitting.append(variant)
            } else {
                refused.append("\(variant.uri) has \(differences.joined(separator: ", "))")
            }
        }
        guard !fitting.isEmpty else {
            var offered = refused.prefix(describedVariants).joined(separator: "; ")
            if refused.isEmpty { offered = "it has no variants" }
            if refused.count > describedVariants { offered += "; and \(refused.count - describedVariants) more" }
            throw StitchingError(
                .media, at: location,
                "no ad variant fits the primary variant \(primary.uri) (\(describe(primary))): \(offered); an ad rendition must match the variant it is stitched into"
            )
        }
        let limit = primary.bandwidth ?? .max
        let bandwidth = { (variant: VariantStream) in variant.bandwidth ?? 0 }
        if let best = fitting.filter({ bandwidth($0) <= limit }).max(by: { bandwidth($0) < bandwidth($1) }) {
            return best
        }
        return fitting.min { bandwidth($0) < bandwidth($1) } ?? fitting[0]
    }

    /// Whether an ad variant's FRAME-RATE fits a primary variant's.
    ///
    /// RFC 8216bis §4.4.6.2 defines FRAME-RATE as "the maximum frame rate for all the video in the
    /// Variant Stream, rounded to three decimal places". Two rates fit when they differ by at most
    /// 0.01 (so 29.97 and 29.970, or 23.976 and 23.98, fit; 29.97 and 30, or 59.94 and 60, do not).
    /// FRAME-RATE is OPTIONAL (a SHOULD only above 30 frames per second), so rates are compared only
    /// when both variants declare one: when either does not, they fit.
    public static func frameRatesMatch(_ primary: Double?, _ ad: Double?) -> Bool {
        guard let primary, let ad else { return true }
        // In thousandths, the precision the RFC gives, so that 0.01 is exact.
        return abs((primary * 1000).rounded() - (ad * 1000).rounded()) <= 10
    }

    /// How `variant` differs from `primary`, one entry per attribute (`CODECS hvc1+mp4a`,
    /// `RESOLUTION 640x360`, `FRAME-RATE 29.97`); empty when it fits.
    static func differences(of variant: VariantStream, from primary: VariantStream) -> [String] {
        var differences: [String] = []
        if variant.codecFamilies != primary.codecFamilies {
            differences.append("CODECS \(families(variant))")
        }
        if variant.resolution != primary.resolution {
            differences.append(variant.resolution.map { "RESOLUTION \($0)" } ?? "no RESOLUTION")
        }
        if !frameRatesMatch(primary.frameRate, variant.frameRate), let rate = variant.frameRate {
            differences.append("FRAME-RATE \(number(rate))")
        }
        return differences
    }

    /// The attributes a variant is matched on, as a message says them.
    static func describe(_ variant: VariantStream) -> String {
        var parts = ["CODECS \(families(variant))", variant.resolution.map { "RESOLUTION \($0)" } ?? "no RESOLUTION"]
        if let rate = variant.frameRate { parts.append("FRAME-RATE \(number(rate))") }
        return parts.joined(separator: ", ")
    }

    private static func families(_ variant: VariantStream) -> String {
        let families = variant.codecFamilies
        return families.isEmpty ? "none" : families.sorted().joined(separator: "+")
    }

    /// A rate as written: `30`, `29.97`.
    private static func number(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int(rounded)) : String(rounded)
    }
}
