import HLSInterstitials
import HLSPlaylist

/// Chooses the ads that fill a break (pure and deterministic).
///
/// The inventory is walked in a rotation whose start depends on the viewer, the break and how many
/// times this viewer has asked for this break before, so a viewer who seeks back or rewatches gets
/// other ads (rebinding), while every replica answers the same request the same way. An ad is taken
/// when it fits in what is left of the break (half a second of slack); ads may repeat once the
/// rotation has been through the inventory.
public enum AdDecision {
    /// An ad may overrun the break by this much.
    public static let slack = MediaTime(nanoseconds: 500_000_000)

    /// The ads that fill `duration`, in play order.
    public static func fill(duration: MediaTime, ads: [Ad], viewer: String?, breakID: String, attempt: Int) -> [Ad] {
        let candidates = candidates(ads)
        let start = rotationStart(viewer: viewer, breakID: breakID, attempt: attempt, count: candidates.count)
        return fill(duration: duration, candidates: candidates, start: start)
    }

    /// The ads a rotation walks: those with a duration, by ID.
    static func candidates(_ ads: [Ad]) -> [Ad] {
        ads.filter { $0.duration > .zero }.sorted { $0.id < $1.id }
    }

    /// Where the rotation over `count` candidates starts for a viewer's `attempt` at a break: all
    /// that distinguishes one viewer's ads from another's.
    static func rotationStart(viewer: String?, breakID: String, attempt: Int, count: Int) -> Int {
        guard count > 0 else { return 0 }
        var seed = stableHash("\(viewer ?? "")|\(breakID)")
        seed = seed &+ UInt64(attempt)
        return Int(seed % UInt64(count))
    }

    /// The ads that fill `duration`, walking `candidates` (``candidates(_:)``) from `start`.
    static func fill(duration: MediaTime, candidates: [Ad], start: Int) -> [Ad] {
        guard !candidates.isEmpty, duration > .zero else { return [] }
        var position = start
        var remaining = duration
        var chosen: [Ad] = []
        var misses = 0
        while misses < candidates.count, chosen.count < 50 {
            let ad = candidates[position]
            position = (position + 1) % candidates.count
            if ad.duration <= remaining + slack {
                chosen.append(ad)
                remaining = remaining - ad.duration
                misses = 0
                if remaining <= .zero { break }
            } else {
                misses += 1
            }
        }
        return chosen
    }

    /// The asset list for a break of `duration` that a viewer joins `startOffset` into (R11).
    ///
    /// The ads fill what is left after the offset; when the offset is positive, a first entry of
    /// exactly `startOffset` seconds stands for the part already gone, which the player skips
    /// ("assets wholly before the offset are skipped"), so the viewer starts at the start of a whole ad.
    public static func assetList(
        duration: MediaTime, startOffset: MediaTime, ads: [Ad], viewer: String?, breakID: String, attempt: Int,
        skipControl: SkipControl?, url: (Ad) -> String
    ) -> AssetList {
        let candidates = candidates(ads)
        let start = rotationStart(viewer: viewer, breakID: breakID, attempt: attempt, count: candidates.count)
        return assetList(
            duration: duration, startOffset: startOffset, candidates: candidates, start: start,
            skipControl: skipControl, url: url)
    }

    /// The asset list for a break of `duration` joined `startOffset` into, walking `candidates`
    /// (``candidates(_:)``) from `start` (``rotationStart(viewer:breakID:attempt:count:)``).
    static func assetList(
        duration: MediaTime, startOffset: MediaTime, candidates: [Ad], start: Int, skipControl: SkipControl?,
        url: (Ad) -> String
    ) -> AssetList {
        let offset = min(max(startOffset, .zero), duration)
        let chosen = fill(duration: duration - offset, candidates: candidates, start: start)
        let assets = chosen.map { AssetList.Asset(uri: url($0), duration: $0.duration) }
        return AssetList(assets: joined(assets, at: offset), skipControl: skipControl)
    }

    /// The assets a viewer who joins `offset` into a break is given (R11): when the offset is
    /// positive, a first entry of exactly `offset` seconds stands for the part already gone, which the
    /// player skips ("assets wholly before the offset are skipped"), so the viewer starts at the start
    /// of a whole ad.
    static func joined(_ assets: [AssetList.Asset], at offset: MediaTime) -> [AssetList.Asset] {
        guard offset > .zero, let first = assets.first else { return assets }
        return [AssetList.Asset(uri: first.uri, duration: offset)] + assets
    }

    /// FNV-1a, 64 bits: the same on every machine and run (unlike `Hasher`).
    static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0100_0000_01b3
        }
        return hash
    }
}
