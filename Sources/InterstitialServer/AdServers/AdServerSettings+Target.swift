import HLSInterstitials

extension AdServerSettings {
    /// The settings that fill `target`'s breaks: its standing schedule's, else its configuration's.
    static func of(
        _ target: Target, configuration: ServerConfiguration, state: StoredState
    ) -> AdServerSettings? {
        if let settings = state.schedules[target]?.adServer { return settings }
        let contents = target.kind == .vod ? configuration.vod : configuration.live
        return contents.first { $0.id == target.id }?.adServer
    }
}
