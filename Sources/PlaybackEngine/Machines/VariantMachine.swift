import HLSInterstitials
import HLSPlaylist
import PlaybackCoordination

extension PlaybackStateMachine {
    /// The primary's variants and renditions: the one playing, those that failed, the measured
    /// throughput, the policy that chooses, and the renditions selected (the tracks).
    ///
    /// It changes only through its mutating methods; ``policy`` is the driver's setting.
    package struct VariantMachine: Sendable {
        /// The primary's selected renditions.
        package private(set) var tracks = TrackSelection()
        /// The renditions the primary offers.
        package private(set) var renditions: [Rendition] = []
        /// The primary's variants (empty for a media playlist).
        package private(set) var variants: [PrimaryVariant] = []
        /// The variant playing.
        package private(set) var index: Int?
        /// Variants whose playlist failed to load: not chosen again.
        package private(set) var failed: Set<Int> = []
        /// The measured throughput.
        package private(set) var throughput = ThroughputEstimator()
        /// How the variant is chosen; the driver sets it (``adopt(_:)``; the next input applies it).
        package private(set) var policy = VariantPolicy()

        /// Nothing loaded.
        package init() {}

        /// The primary presentation loaded for the first time.
        package mutating func loaded(_ presentation: PrimaryPresentation) {
            tracks = presentation.tracks
            renditions = presentation.renditions
            variants = presentation.variants
            index = presentation.variantIndex
        }

        /// The driver chose `policy`: the variant wanted is chosen by it from now on; the one
        /// playing stays until then.
        package mutating func adopt(_ policy: VariantPolicy) { self.policy = policy }

        /// A load brought `bytes` in `duration`.
        package mutating func measured(bytes: Int, duration: Duration) {
            throughput.add(bytes: bytes, duration: duration)
        }

        /// Variant `index`'s playlist failed to load.
        package mutating func failed(_ index: Int) { failed.insert(index) }

        /// Variant `index` (its playlist: `presentation`) plays now; returns the one that played.
        package mutating func switched(to index: Int, _ presentation: PrimaryPresentation) -> Int? {
            let from = self.index
            self.index = index
            if !presentation.renditions.isEmpty {
                renditions = presentation.renditions
                tracks = presentation.tracks
            }
            return from
        }

        /// Selects the rendition of a TYPE that matches `option` (``TrackMatcher``); false when the
        /// primary offers none of that type.
        package mutating func select(_ option: MediaOption?, type: String) -> Bool {
            let candidates = renditions.filter { $0.type == type }
            guard !candidates.isEmpty else { return false }
            let chosen = TrackMatcher.select(candidates, matching: option, type: type).map(TrackMatcher.option)
            if type == "AUDIO" { tracks.audio = chosen } else { tracks.subtitles = chosen }
            return true
        }

        /// The variant the policy chooses now among those that did not fail (``VariantPolicy``).
        package var wanted: Int? {
            let candidates = variants.indices.filter { !failed.contains($0) }
            guard !candidates.isEmpty else { return nil }
            var policy = policy
            policy.pinnedVariant = policy.pinnedVariant.flatMap { candidates.firstIndex(of: $0) }
            let chosen = policy.choose(
                bandwidths: candidates.map { variants[$0].bandwidth }, throughput: throughput.bitsPerSecond,
                current: index.flatMap { candidates.firstIndex(of: $0) })
            return chosen.map { candidates[$0] }
        }
    }
}
