import HLSInterstitials
import HLSPlaylist
import PlaybackCoordination

/// Something an application (or a script) asks the player to do.
public enum PlaybackCommand: Sendable, Hashable, CustomStringConvertible {
    /// Play at rate 1 (or the last non-zero rate).
    case play
    /// Pause.
    case pause
    /// Set the rate; 0 pauses.
    case setRate(Double)
    /// Seek primary to a time.
    case seek(MediaTime)
    /// Seek primary to a date.
    case seekToDate(DateTime)
    /// Seek to a time of the integrated timeline.
    case seekIntegrated(MediaTime)
    /// Seek inside the current interstitial event, to an offset from its start.
    case seekInInterstitial(MediaTime)
    /// Skip the current event (`skipCurrentEvent()`).
    case skipCurrentEvent
    /// Cancel the current interstitial (`cancelCurrentEvent(withResumptionOffset:)`); nil is
    /// `kCMTimeInvalid`: resume where primary would have resumed.
    case cancelCurrentEvent(resumptionOffset: ResumptionOffset?)
    /// Set the controller's events; nil restores the server schedule.
    case setEvents([InterstitialEvent]?)
    /// Copy the event with this ID, change its restrictions, and set the copy on the controller
    /// (the application overriding restrictions, profile R17).
    case setRestrictions(eventID: String, InterstitialEvent.Restrictions)
    /// Set the item's `automaticallyHandlesInterstitialEvents`.
    case setAutomaticallyHandlesInterstitialEvents(Bool)
    /// Select the primary's audio rendition that matches the option (language, then
    /// characteristics); nil: the default one. Interstitial assets loaded later match it.
    case selectAudio(MediaOption?)
    /// Select the primary's subtitle rendition that matches the option; nil turns subtitles off.
    case selectSubtitles(MediaOption?)

    /// The command as a script would write it.
    public var description: String {
        switch self {
        case .play: "play"
        case .pause: "pause"
        case .setRate(let rate): "rate \(rate)"
        case .seek(let time): "seek \(time)"
        case .seekToDate(let date): "seek-date \(date.iso8601)"
        case .seekIntegrated(let time): "seek-integrated \(time)"
        case .seekInInterstitial(let time): "seek-interstitial \(time)"
        case .skipCurrentEvent: "skip"
        case .cancelCurrentEvent(let offset): "cancel \(offset.map(\.description) ?? "invalid")"
        case .setEvents(let events):
            events.map { $0.isEmpty ? "events none" : "events \($0.map(\.identifier).joined(separator: ","))" }
                ?? "events server"
        case .setRestrictions(let id, let restrictions):
            "restrict \(id) \(restrictions.isEmpty ? "none" : restrictions.tokens.joined(separator: ","))"
        case .setAutomaticallyHandlesInterstitialEvents(let on): "auto \(on ? "on" : "off")"
        case .selectAudio(let option): "select audio \(option.map(Self.describe) ?? "default")"
        case .selectSubtitles(let option): "select subtitles \(option.map(Self.describe) ?? "off")"
        }
    }

    /// `en` or `en,public.accessibility.describes-video` (the language, then characteristics).
    static func describe(_ option: MediaOption) -> String {
        ([option.language ?? "und"] + option.characteristics).joined(separator: ",")
    }

    /// Whether the command moves or times playback, so that a coordinated group applies it to all.
    var isTiming: Bool {
        switch self {
        case .play, .pause, .setRate, .seek, .seekToDate, .seekIntegrated, .seekInInterstitial, .skipCurrentEvent,
            .cancelCurrentEvent:
            true
        case .setEvents, .setRestrictions, .setAutomaticallyHandlesInterstitialEvents, .selectAudio,
            .selectSubtitles:
            false
        }
    }
}
