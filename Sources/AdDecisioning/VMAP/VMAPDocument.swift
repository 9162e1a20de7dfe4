import Foundation
import HLSPlaylist

/// An IAB VMAP 1.0 playlist: where a content's ad breaks go and where their ads come from.
public struct VMAPDocument: Hashable, Sendable {
    /// The `version` attribute (`1.0`).
    public var version: String
    /// The `<vmap:AdBreak>` elements in document order.
    public var breaks: [VMAPAdBreak]
    /// What the reader skipped.
    public var notes: [VASTNote]

    /// Creates a document.
    public init(version: String, breaks: [VMAPAdBreak] = [], notes: [VASTNote] = []) {
        self.version = version
        self.breaks = breaks
        self.notes = notes
    }
}

/// `<vmap:AdBreak timeOffset breakType breakId repeatAfter>`.
public struct VMAPAdBreak: Hashable, Sendable {
    /// `timeOffset`: where the break goes.
    public var timeOffset: VMAPTimeOffset
    /// `breakType`: `linear`, `nonlinear`, `display` or a comma-separated list.
    public var breakType: String
    /// `breakId`.
    public var breakId: String?
    /// `repeatAfter`: repeat the break this long after each occurrence.
    public var repeatAfter: MediaTime?
    /// `<vmap:AdSource>`.
    public var adSource: VMAPAdSource?
    /// `<vmap:TrackingEvents>`: `breakStart`, `breakEnd`, `error`.
    public var tracking: [VASTTracking]
    /// `<vmap:Extensions>` children, each kept as XML text.
    public var extensions: [String]
    /// Where it starts.
    public var location: XMLLocation

    /// Creates a break.
    public init(
        timeOffset: VMAPTimeOffset, breakType: String = "linear",
        location: XMLLocation = XMLLocation(line: 0, column: 0)
    ) {
        self.timeOffset = timeOffset
        self.breakType = breakType
        self.tracking = []
        self.extensions = []
        self.location = location
    }

    /// Whether the break holds linear ads, the only ones an interstitial plays.
    public var isLinear: Bool {
        breakType.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "linear" }
    }
}

/// Where a VMAP break goes (VMAP 1.0 §2.4: `timeOffset` "start", "end", "hh:mm:ss.mmm", "n%" or
/// "#m", the m-th break opportunity of the content).
public enum VMAPTimeOffset: Hashable, Sendable, CustomStringConvertible {
    /// `start`: a pre-roll.
    case start
    /// `end`: a post-roll.
    case end
    /// A time in the content.
    case time(MediaTime)
    /// A percentage of the content's duration.
    case percent(Double)
    /// `#m`: the m-th (from 1) break opportunity (cue point) of the content.
    case position(Int)

    /// Parses a `timeOffset`.
    public init?(_ text: String) {
        let trimmed = text.trimmingXMLWhitespace()
        switch trimmed.lowercased() {
        case "start": self = .start
        case "end": self = .end
        default:
            if trimmed.hasPrefix("#") {
                guard let position = Int(trimmed.dropFirst()), position >= 1 else { return nil }
                self = .position(position)
            } else if let offset = VASTOffset(trimmed) {
                switch offset {
                case .time(let time): self = .time(time)
                case .percent(let percent): self = .percent(percent)
                }
            } else {
                return nil
            }
        }
    }

    /// The text form.
    public var description: String {
        switch self {
        case .start: "start"
        case .end: "end"
        case .time(let time): VASTClock.format(time)
        case .percent(let percent): VASTOffset.percent(percent).description
        case .position(let position): "#\(position)"
        }
    }
}

/// `<vmap:AdSource id allowMultipleAds followRedirects>` with inline VAST or an ad tag.
public struct VMAPAdSource: Hashable, Sendable {
    /// The ads of the source.
    public enum Content: Hashable, Sendable {
        /// `<vmap:VASTAdData>`: a VAST document inline.
        case vast(VASTDocument)
        /// `<vmap:AdTagURI templateType>`: a URL to request late, when the break comes.
        case adTagURI(String, templateType: String?)
        /// `<vmap:CustomAdData templateType>` kept as text.
        case custom(String, templateType: String?)
    }

    /// `id`.
    public var id: String?
    /// `allowMultipleAds` (default true here: a pod may fill the break).
    public var allowMultipleAds: Bool
    /// `followRedirects` (default true): whether VAST wrappers may be followed.
    public var followRedirects: Bool
    /// The content.
    public var content: Content

    /// Creates a source.
    public init(id: String? = nil, allowMultipleAds: Bool = true, followRedirects: Bool = true, content: Content) {
        self.id = id
        self.allowMultipleAds = allowMultipleAds
        self.followRedirects = followRedirects
        self.content = content
    }
}
