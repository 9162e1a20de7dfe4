import HLSPlaylist

/// Which variant of an ad is stitched into a variant of the primary (profile R28): one with the same
/// codec families (`VariantStream/codecFamilies`) and the same RESOLUTION, so a player that does
/// not expect a change of media meets none at the discontinuity; among those, the highest BANDWIDTH
/// that does not exceed the primary variant's, else the lowest.
public enum StitchVariantChooser {
    /// The ad variant for `primary` among `ad`'s variants.
    ///
    /// - Parameters:
    ///   - primary: the primary's variant being stitched.
    ///   - ad: the ad's multivariant playlist.
    ///   - location: where to say the problem is (the event and the ad's URL).
    /// - Throws: ``StitchingError`` `stitch-media` when the primary variant declares no CODECS, or no
    ///   ad variant has its codec families and resolution.
    public static func choose(
        for primary: VariantStream, in ad: MultivariantPlaylist, at location: String
    ) throws(StitchingError) -> VariantStream {
        let families = primary.codecFamilies
        guard !families.isEmpty else {
            throw StitchingError(
                .media, at: location,
                "the primary variant \(primary.uri) declares no CODECS, so no ad variant can be shown to match it")
        }
        let fitting = ad.variants.filter { $0.codecFamilies == families && $0.resolution == primary.resolution }
        guard !fitting.isEmpty else {
            let offered = ad.variants.map { variant in
                "\(variant.codecFamilies.sorted().joined(separator: "+"))@\(variant.resolution?.description ?? "none")"
            }
            throw StitchingError(
                .media, at: location,
                "no ad variant has the codecs \(families.sorted().joined(separator: "+")) and resolution \(primary.resolution?.description ?? "none") of \(primary.uri) (the ad offers \(offered.joined(separator: ", "))); an ad rendition must match the variant it is stitched into"
            )
        }
        let limit = primary.bandwidth ?? .max
        let bandwidth = { (variant: VariantStream) in variant.bandwidth ?? 0 }
        if let best = fitting.filter({ bandwidth($0) <= limit }).max(by: { bandwidth($0) < bandwidth($1) }) {
            return best
        }
        return fitting.min { bandwidth($0) < bandwidth($1) } ?? fitting[0]
    }
}
