import HLSPlaylist

/// Checks an interstitial's asset list and asset playlists (App. D.1, D.2): the JSON schema,
/// absolute asset URIs, VOD assets, no nested interstitials, the date range's duration, and how
/// well the assets match the primary's media and languages.
///
/// Pure: the caller loads the resources and passes them in.
public enum AssetValidator {
    /// Reads and checks an X-ASSET-LIST response; diagnostics point at `location` (the date range)
    /// and name the asset list's `url` and each problem's JSON path.
    public static func validateAssetList(
        _ bytes: [UInt8], url: String, eventID: String, at location: SourceLocation
    ) -> (assetList: AssetList?, diagnostics: [Diagnostic]) {
        do {
            let list = try AssetList.decode(bytes)
            var diagnostics: [Diagnostic] = []
            if let value = try? JSONValue.parse(bytes, code: .assetListJSON) {
                for problem in AssetList.ignoredSkipControlFields(value) {
                    diagnostics.append(
                        Rule.interstitialAttributeType.diagnostic(
                            at: location, "asset list \(url) of interstitial \"\(eventID)\": \(problem)"))
                }
            }
            for (index, asset) in list.assets.enumerated() where !URIReference.isAbsolute(asset.uri) {
                diagnostics.append(
                    Rule.assetListURI.diagnostic(
                        at: location,
                        "asset list \(url) of interstitial \"\(eventID)\": ASSETS[\(index)].URI \"\(asset.uri)\" is not absolute; \(Rule.assetListURI.quote)"
                    ))
            }
            return (list, diagnostics)
        } catch {
            let diagnostics = error.problems.map { problem in
                Rule.assetListSchema.diagnostic(
                    at: location, "asset list \(url) of interstitial \"\(eventID)\": \(problem)")
            }
            return (nil, diagnostics)
        }
    }

    /// Checks one media playlist of an interstitial asset: it is VOD and schedules no interstitials.
    public static func validateAssetPlaylist(
        _ playlist: MediaPlaylist, url: String, eventID: String, at location: SourceLocation
    ) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        if playlist.isLive {
            diagnostics.append(
                Rule.interstitialVOD.diagnostic(
                    at: location,
                    "asset \(url) of interstitial \"\(eventID)\" has no EXT-X-ENDLIST; \(Rule.interstitialVOD.quote)"))
        }
        if let nested = playlist.dateRanges.first(where: { $0.className == InterstitialEvent.className }) {
            diagnostics.append(
                Rule.interstitialNested.diagnostic(
                    at: location,
                    "asset \(url) of interstitial \"\(eventID)\" schedules interstitial \"\(nested.id)\"; \(Rule.interstitialNested.quote)"
                ))
        }
        return diagnostics
    }

    /// Compares the date range's DURATION (or PLANNED-DURATION) with the assets' total duration;
    /// differences of 100 ms or more are reported.
    public static func validateDuration(
        _ event: InterstitialEvent, assetsDuration: MediaTime, at location: SourceLocation
    ) -> Diagnostic? {
        let (name, declared): (String, MediaTime?) =
            event.duration != nil ? ("DURATION", event.duration) : ("PLANNED-DURATION", event.plannedDuration)
        guard let declared, abs((declared - assetsDuration).nanoseconds) >= 100_000_000 else { return nil }
        return Rule.interstitialDuration.diagnostic(
            at: location,
            "interstitial \"\(event.identifier)\" has \(name)=\(declared) but its assets last \(assetsDuration) s; \(Rule.interstitialDuration.quote)"
        )
    }

    /// Compares an asset's multivariant playlist (nil for a single media playlist) with the primary's:
    /// codecs, frame rates, aspect ratios, audio sample rates and channels, and languages (a single
    /// media playlist is only faulted when the primary offers several languages).
    public static func validateCompatibility(
        primary: MultivariantPlaylist, asset: MultivariantPlaylist?, url: String, eventID: String,
        at location: SourceLocation
    ) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        func warn(_ rule: Rule, _ message: String) {
            diagnostics.append(
                rule.diagnostic(at: location, "asset \(url) of interstitial \"\(eventID)\" \(message); \(rule.quote)"))
        }
        func list(_ values: some Collection<String>) -> String { values.sorted().joined(separator: ", ") }
        if let asset {
            // A rate counts as the primary's first rate it matches: one rule for "the same frame
            // rate" (`StitchVariantChooser.frameRatesMatch`, within 0.01), here and in stitching.
            let primaryRates = primary.variants.compactMap(\.frameRate)
            let frameRate = { (rate: Double) in
                String(format3: primaryRates.first { StitchVariantChooser.frameRatesMatch($0, rate) } ?? rate)
            }
            let properties: [(String, (MultivariantPlaylist) -> Set<String>)] = [
                ("codecs", { $0.variants.reduce(into: Set<String>()) { $0.formUnion($1.codecFamilies) } }),
                ("frame rates", { Set($0.variants.compactMap { $0.frameRate.map(frameRate) }) }),
                (
                    "aspect ratios",
                    {
                        Set(
                            $0.variants.compactMap { variant in
                                variant.resolution.flatMap { resolution in
                                    resolution.height == 0
                                        ? nil : String(format3: Double(resolution.width) / Double(resolution.height))
                                }
                            })
                    }
                ),
                (
                    "audio sample rates",
                    { Set($0.renditions.filter { $0.type == "AUDIO" }.compactMap { $0.sampleRate.map(String.init) }) }
                ),
                (
                    "audio channels",
                    { Set($0.renditions.filter { $0.type == "AUDIO" }.compactMap { $0.channels.first }) }
                ),
            ]
            for (name, values) in properties {
                let theirs = values(asset)
                let ours = values(primary)
                guard !theirs.isEmpty, !ours.isEmpty, theirs != ours else { continue }
                warn(.interstitialCompatibility, "has \(name) \(list(theirs)) where the primary has \(list(ours))")
            }
        }
        for type in ["AUDIO", "SUBTITLES"] {
            let ours = Set(primary.renditions.filter { $0.type == type }.compactMap(\.language))
            let theirs = Set(asset?.renditions.filter { $0.type == type }.compactMap(\.language) ?? [])
            let missing = ours.subtracting(theirs)
            // A single media playlist has one (muxed) track: it can match one language, not several.
            if !missing.isEmpty, asset != nil || ours.count > 1 {
                warn(
                    .interstitialLanguage,
                    "has no \(type.lowercased()) rendition in \(list(missing)), which the primary offers")
            }
        }
        return diagnostics
    }
}

extension String {
    /// A number with at most three decimals, for comparing rates and ratios.
    fileprivate init(format3 value: Double) {
        let scaled = (value * 1000).rounded() / 1000
        self = scaled == scaled.rounded() ? String(Int(scaled)) : String(scaled)
    }
}
