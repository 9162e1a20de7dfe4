import HLSInterstitials
import HLSPlaylist

extension AdminAPI {
    /// What a break the admin API stores will do that its author likely does not mean, returned in
    /// the `warnings` member of the 201 (and of a replacement's 200):
    /// `[{"rule": …, "path": …, "message": …}]`, empty when there is nothing to say.
    ///
    /// - `interstitial-preroll-skip`: a VOD pre-roll without `resumeOffset` skips the start of the
    ///   asset (``InterstitialEvent/preRollSkippedPrimary(isVOD:)``, the rule `hlsi validate` applies).
    /// - `break-past-end`: a VOD break placed (`at`) after the end of the asset's primary, which no
    ///   viewer reaches (checked for assets served from a directory, whose length is read from disk).
    func warnings(for item: Break) async -> [JSONValue] {
        guard item.target.kind == .vod else { return [] }
        var warnings: [JSONValue] = []
        func warn(_ rule: String, _ path: String, _ message: String) {
            warnings.append(.object(["rule": .string(rule), "path": .string(path), "message": .string(message)]))
        }
        if let message = item.preRollSkipWarning {
            warn(Rule.interstitialPreRollSkip.id.rawValue, "resumeOffset", message)
        }
        let cue = item.interstitial.cue ?? []
        if let at = item.interstitial.at, !cue.contains("PRE"), !cue.contains("POST"),
            let content = configuration.vod.first(where: { $0.id == item.target.id }),
            case .directory = content.origin,
            let primary = try? await sources.source(content).primary(),
            case .vod(let duration, _) = PlaylistRenderer.vodTimeline(primary.playlist).0,
            at > duration
        {
            warn(
                "break-past-end", "at",
                "break \"\(item.id)\" is at \(at) s, past the end of \(item.target) (\(duration) s): no viewer reaches it, so it never plays; place it within the asset, or use cue POST for a post-roll"
            )
        }
        return warnings
    }

    /// `value` (an object) with `warnings` added when there are any.
    static func adding(_ warnings: [JSONValue], to value: JSONValue) -> JSONValue {
        guard !warnings.isEmpty, case .object(var fields) = value else { return value }
        fields["warnings"] = .array(warnings)
        return .object(fields)
    }
}
