import HLSPlaylist
import PlaybackCoordination

/// Chooses renditions: the primary's from the application's preference, an interstitial asset's to
/// match the primary's current selection (reference §1: languages of interstitial assets are
/// RECOMMENDED to match the primary; Apple's interstitial player follows the primary's selection).
///
/// Matching goes by language first, then characteristics:
/// 1. Renditions whose LANGUAGE equals the wanted one (case-insensitively); failing that, those
///    whose primary language subtag does (`en` for `en-GB`).
/// 2. Among them, the one whose CHARACTERISTICS equal the wanted ones; failing that, the one that
///    shares most of them, and among equals the one that has fewest others; then DEFAULT=YES; then
///    the first.
/// 3. With no rendition in the language: audio takes the one with the wanted characteristics, then
///    DEFAULT=YES, then the first (there must be sound); subtitles stay off (text in a language
///    nobody chose helps nobody).
/// Without a wanted option, audio takes DEFAULT=YES, then the first, and subtitles stay off.
package enum TrackMatcher {
    /// The rendition of `candidates` (one group, one TYPE) that matches `wanted`, or nil for none.
    package static func select(_ candidates: [Rendition], matching wanted: MediaOption?, type: String) -> Rendition? {
        let fallback = candidates.first(where: \.isDefault) ?? candidates.first
        let isAudio = type == "AUDIO"
        guard let wanted else { return isAudio ? fallback : nil }
        var pool = candidates.filter { sameLanguage($0.language, wanted.language, exact: true) }
        if pool.isEmpty { pool = candidates.filter { sameLanguage($0.language, wanted.language, exact: false) } }
        if pool.isEmpty {
            guard isAudio else { return nil }
            pool = candidates
        }
        let want = Set(wanted.characteristics)
        return pool.enumerated().min { a, b in
            rank(a.element, want, a.offset).lexicographicallyPrecedes(rank(b.element, want, b.offset))
        }?.element
    }

    /// Lower is better: exact characteristics, most shared, fewest extra, DEFAULT=YES, order.
    private static func rank(_ rendition: Rendition, _ want: Set<String>, _ order: Int) -> [Int] {
        let have = Set(rendition.characteristics)
        return [
            have == want ? 0 : 1, -have.intersection(want).count, have.subtracting(want).count,
            rendition.isDefault ? 0 : 1, order,
        ]
    }

    static func sameLanguage(_ a: String?, _ b: String?, exact: Bool) -> Bool {
        guard let a, let b else { return a == nil && b == nil && exact }
        if exact { return a.lowercased() == b.lowercased() }
        func primary(_ tag: String) -> Substring { tag.lowercased().split(separator: "-").first ?? "" }
        return primary(a) == primary(b)
    }

    /// The option a rendition stands for.
    package static func option(_ rendition: Rendition) -> MediaOption {
        MediaOption(language: rendition.language, characteristics: rendition.characteristics, name: rendition.name)
    }
}
