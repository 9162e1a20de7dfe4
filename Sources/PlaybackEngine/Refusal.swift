import HLSPlaylist

extension PlaybackStateMachine {
    /// A command the machine refused, and why (R13, R14, R16, rates, seeks it cannot place).
    package enum Refusal: Sendable, Hashable {
        /// A seek, to a primary time or an offset in the current interstitial when it names one.
        case seek(SeekTarget?, Reason)
        /// A rate change to the given rate.
        case rate(Double, Reason)
        /// A skip of the current event.
        case skip(Reason)

        /// What a refused seek aimed at.
        package enum SeekTarget: Sendable, Hashable {
            /// A primary time.
            case primary(MediaTime)
            /// An offset in the current interstitial.
            case interstitial(MediaTime)
        }

        /// Why a command was refused.
        package enum Reason: Sendable, Hashable {
            /// The primary is not loaded yet.
            case primaryNotLoaded
            /// The primary has no EXT-X-PROGRAM-DATE-TIME to place a date.
            case noProgramDateTime
            /// The integrated time is outside the timeline.
            case outsideIntegratedTimeline(MediaTime)
            /// No interstitial is playing.
            case noInterstitial
            /// The current interstitial's assets are not loaded yet.
            case assetsNotLoaded
            /// The current interstitial has no playable asset.
            case noPlayableAsset
            /// Reverse rates and rates above ``PlaybackStateMachine/maximumRate``.
            case unsupportedRate
            /// The event has X-RESTRICT=SKIP: no seeking forward and no rate above 1 (R13).
            case skipRestricted(event: String)
            /// X-RESTRICT=SKIP and the skip control window has not opened (R16).
            case skipWindowNotOpen(event: String, opensAt: MediaTime?, now: MediaTime)
            /// X-RESTRICT=SKIP and the skip control window has closed (R16).
            case skipWindowClosed(event: String)
            /// X-RESTRICT=SKIP and no skip control (R16).
            case noSkipControl(event: String)
        }

        /// The trace event that records it.
        var kind: PlaybackEvent.Kind {
            switch self {
            case .seek: .seekRefused
            case .rate: .rateRefused
            case .skip: .skipRefused
            }
        }

        /// The reason, as the trace words it.
        var message: String {
            switch self {
            case .seek(_, let reason): reason.message(refusing: "seeking forward")
            case .rate(let rate, .unsupportedRate):
                rate > PlaybackStateMachine.maximumRate
                    ? "rates above \(Int(PlaybackStateMachine.maximumRate)) are not supported"
                    : "reverse playback is not supported"
            case .rate(_, let reason): reason.message(refusing: "rate above 1")
            case .skip(let reason): reason.message(refusing: "skipping")
            }
        }

        /// The trace fields: what was asked for, then the reason.
        var fields: [(name: String, value: PlaybackEvent.Value)] {
            var fields: [(name: String, value: PlaybackEvent.Value)] = []
            switch self {
            case .seek(.primary(let time)?, _): fields.append(("to", .time(time)))
            case .seek(.interstitial(let time)?, _): fields.append(("interstitialTime", .time(time)))
            case .seek(nil, _): break
            case .rate(let rate, _): fields.append(("rate", .number(rate)))
            case .skip(let reason): if let id = reason.event { fields.append(("id", .string(id))) }
            }
            fields.append(("reason", .string(message)))
            return fields
        }
    }
}

extension PlaybackStateMachine.Refusal.Reason {
    /// The event the reason is about, if any.
    var event: String? {
        switch self {
        case .skipRestricted(let id), .skipWindowNotOpen(let id, _, _), .skipWindowClosed(let id),
            .noSkipControl(let id):
            id
        default: nil
        }
    }

    /// The reason in words; `refusing` names what X-RESTRICT=SKIP forbids.
    func message(refusing action: String) -> String {
        switch self {
        case .primaryNotLoaded: "the primary is not loaded yet"
        case .noProgramDateTime: "the primary has no EXT-X-PROGRAM-DATE-TIME to place a date"
        case .outsideIntegratedTimeline(let time): "integrated time \(time) is outside the timeline"
        case .noInterstitial: "no interstitial is playing"
        case .assetsNotLoaded: "the interstitial's assets are not loaded yet"
        case .noPlayableAsset: "the interstitial has no playable asset"
        case .unsupportedRate: "the rate is not supported"
        case .skipRestricted(let id):
            "interstitial \"\(id)\" has X-RESTRICT=SKIP: no \(action) until it ends (App. D.2)"
        case .skipWindowNotOpen(let id, let opens, let now):
            "interstitial \"\(id)\" has X-RESTRICT=SKIP and its skip control opens at \(opens?.formatted(fractionDigits: 3) ?? "?") s (now \(now.formatted(fractionDigits: 3)) s)"
        case .skipWindowClosed(let id):
            "interstitial \"\(id)\" has X-RESTRICT=SKIP and its skip control window has closed"
        case .noSkipControl(let id): "interstitial \"\(id)\" has X-RESTRICT=SKIP and no skip control"
        }
    }
}
