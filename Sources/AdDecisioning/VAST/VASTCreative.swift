import HLSPlaylist

/// One `<Creative>`: its identifiers and exactly one of Linear, NonLinearAds or CompanionAds.
public struct VASTCreative: Hashable, Sendable {
    /// The `id` attribute.
    public var id: String?
    /// The `adId` attribute (the ad server's creative ID).
    public var adId: String?
    /// The `sequence` attribute.
    public var sequence: Int?
    /// The `apiFramework` attribute.
    public var apiFramework: String?
    /// The `<UniversalAdId idRegistry>` values (VAST 4.0; several allowed since 4.2).
    public var universalAdIds: [VASTUniversalAdId]
    /// `<Linear>`, the creative an interstitial plays.
    public var linear: VASTLinear?
    /// `<NonLinearAds>`, kept as data and never played.
    public var nonLinearAds: VASTNonLinearAds?
    /// `<CompanionAds>`, kept as data and never played.
    public var companionAds: VASTCompanionAds?

    /// Creates a creative.
    public init(id: String? = nil, adId: String? = nil, sequence: Int? = nil) {
        self.id = id
        self.adId = adId
        self.sequence = sequence
        self.universalAdIds = []
    }
}

/// `<UniversalAdId idRegistry>`: "a unique creative identifier that is maintained across
/// systems" (VAST 4.3 §3.7.1).
public struct VASTUniversalAdId: Hashable, Sendable {
    /// The identifier.
    public var value: String
    /// The `idRegistry` attribute, such as `ad-id.org`; `unknown` when the registry is unknown.
    public var idRegistry: String

    /// Creates an identifier.
    public init(value: String, idRegistry: String) {
        self.value = value
        self.idRegistry = idRegistry
    }
}

/// `<Linear skipoffset>` (VAST 4.3 §3.8).
public struct VASTLinear: Hashable, Sendable {
    /// `<Duration>`, `HH:MM:SS` or `HH:MM:SS.mmm`; nil when absent or unreadable (a note says which).
    public var duration: MediaTime?
    /// The `skipoffset` attribute: a time or a percentage of the duration.
    public var skipOffset: VASTOffset?
    /// `<AdParameters>`, verbatim.
    public var adParameters: String?
    /// `<MediaFile>` elements in document order.
    public var mediaFiles: [VASTMediaFile]
    /// `<Mezzanine>` elements (VAST 4.0): high quality sources for ad stitching.
    public var mezzanines: [VASTMediaFile]
    /// `<InteractiveCreativeFile>` elements (VAST 4.0).
    public var interactiveCreativeFiles: [VASTMediaFile]
    /// `<ClosedCaptionFile>` elements (VAST 4.1).
    public var closedCaptionFiles: [VASTClosedCaptionFile]
    /// `<TrackingEvents>`.
    public var tracking: [VASTTracking]
    /// `<VideoClicks>`.
    public var videoClicks: VASTVideoClicks
    /// `<Icons>`, kept as data.
    public var icons: [VASTIcon]

    /// Creates a linear creative.
    public init(duration: MediaTime? = nil) {
        self.duration = duration
        self.mediaFiles = []
        self.mezzanines = []
        self.interactiveCreativeFiles = []
        self.closedCaptionFiles = []
        self.tracking = []
        self.videoClicks = VASTVideoClicks()
        self.icons = []
    }
}

/// A `<MediaFile>`, `<Mezzanine>` or `<InteractiveCreativeFile>` with its attributes.
public struct VASTMediaFile: Hashable, Sendable {
    /// The URL.
    public var url: String
    /// `id`.
    public var id: String?
    /// `delivery`: `progressive` or `streaming`.
    public var delivery: String?
    /// `type`: the MIME type, such as `video/mp4` or `application/x-mpegURL`.
    public var type: String?
    /// `width` in pixels.
    public var width: Int?
    /// `height` in pixels.
    public var height: Int?
    /// `codec` (RFC 6381 form, such as `avc1.4d401f`).
    public var codec: String?
    /// `bitrate` in kbit/s.
    public var bitrate: Int?
    /// `minBitrate` in kbit/s.
    public var minBitrate: Int?
    /// `maxBitrate` in kbit/s.
    public var maxBitrate: Int?
    /// `scalable`.
    public var scalable: Bool?
    /// `maintainAspectRatio`.
    public var maintainAspectRatio: Bool?
    /// `apiFramework` (VPAID, SIMID…).
    public var apiFramework: String?
    /// `fileSize` in bytes (VAST 4.1).
    public var fileSize: Int?
    /// `mediaType` (VAST 4.1: `2D`, `3D`, `360`).
    public var mediaType: String?
    /// `variableDuration` of an InteractiveCreativeFile.
    public var variableDuration: Bool?

    /// Creates a media file.
    public init(url: String, type: String? = nil, delivery: String? = nil) {
        self.url = url
        self.type = type
        self.delivery = delivery
    }
}

/// `<ClosedCaptionFile type language>` (VAST 4.1).
public struct VASTClosedCaptionFile: Hashable, Sendable {
    /// The URL.
    public var url: String
    /// `type`, such as `text/vtt`.
    public var type: String?
    /// `language`, such as `en`.
    public var language: String?

    /// Creates a closed caption file.
    public init(url: String, type: String? = nil, language: String? = nil) {
        self.url = url
        self.type = type
        self.language = language
    }
}

/// `<Tracking event offset>`: a URL to request when an event happens.
public struct VASTTracking: Hashable, Sendable {
    /// The `event` attribute as written, such as `start`, `firstQuartile` or `progress`.
    public var event: String
    /// The URL.
    public var url: String
    /// The `offset` attribute (for `progress`): a time or a percentage.
    public var offset: VASTOffset?

    /// Creates a tracking event.
    public init(event: String, url: String, offset: VASTOffset? = nil) {
        self.event = event
        self.url = url
        self.offset = offset
    }
}

/// `<VideoClicks>` (VAST 4.3 §3.10).
public struct VASTVideoClicks: Hashable, Sendable {
    /// `<ClickThrough>`: the page to open.
    public var clickThrough: String?
    /// `<ClickTracking>` URLs.
    public var clickTracking: [String]
    /// `<CustomClick>` URLs.
    public var customClicks: [String]

    /// Creates video clicks.
    public init(clickThrough: String? = nil, clickTracking: [String] = [], customClicks: [String] = []) {
        self.clickThrough = clickThrough
        self.clickTracking = clickTracking
        self.customClicks = customClicks
    }
}

/// A static, iframe or HTML resource of a companion, non-linear ad or icon.
public struct VASTResource: Hashable, Sendable {
    /// Which resource element.
    public enum Kind: String, Hashable, Sendable {
        /// `<StaticResource>`.
        case staticResource = "StaticResource"
        /// `<IFrameResource>`.
        case iframeResource = "IFrameResource"
        /// `<HTMLResource>`.
        case htmlResource = "HTMLResource"
    }

    /// The element.
    public var kind: Kind
    /// `creativeType` of a static resource.
    public var creativeType: String?
    /// The URL or HTML.
    public var value: String

    /// Creates a resource.
    public init(kind: Kind, value: String, creativeType: String? = nil) {
        self.kind = kind
        self.value = value
        self.creativeType = creativeType
    }
}

/// `<Icon>` of a linear creative (VAST 4.3 §3.11), kept as data.
public struct VASTIcon: Hashable, Sendable {
    /// `program`, such as `AdChoices`.
    public var program: String?
    /// `width`.
    public var width: Int?
    /// `height`.
    public var height: Int?
    /// `xPosition`.
    public var xPosition: String?
    /// `yPosition`.
    public var yPosition: String?
    /// `offset`.
    public var offset: MediaTime?
    /// `duration`.
    public var duration: MediaTime?
    /// `apiFramework`.
    public var apiFramework: String?
    /// The resources.
    public var resources: [VASTResource]
    /// `<IconClickThrough>`.
    public var clickThrough: String?
    /// `<IconClickTracking>` URLs.
    public var clickTracking: [String]
    /// `<IconViewTracking>` URLs.
    public var viewTracking: [String]

    /// Creates an icon.
    public init(program: String? = nil) {
        self.program = program
        self.resources = []
        self.clickTracking = []
        self.viewTracking = []
    }
}

/// `<NonLinearAds>`: overlays, kept as data and never played by interstitials.
public struct VASTNonLinearAds: Hashable, Sendable {
    /// The `<NonLinear>` elements.
    public var nonLinears: [VASTVisualAd]
    /// The `<TrackingEvents>` of the non-linear ads.
    public var tracking: [VASTTracking]

    /// Creates non-linear ads.
    public init(nonLinears: [VASTVisualAd] = [], tracking: [VASTTracking] = []) {
        self.nonLinears = nonLinears
        self.tracking = tracking
    }
}

/// `<CompanionAds required>`: display ads beside the player, kept as data and never played.
public struct VASTCompanionAds: Hashable, Sendable {
    /// `required`: `all`, `any` or `none`.
    public var required: String?
    /// The `<Companion>` elements.
    public var companions: [VASTVisualAd]

    /// Creates companion ads.
    public init(required: String? = nil, companions: [VASTVisualAd] = []) {
        self.required = required
        self.companions = companions
    }
}

/// A `<NonLinear>` or `<Companion>`: its size, resources, clicks and tracking.
public struct VASTVisualAd: Hashable, Sendable {
    /// `id`.
    public var id: String?
    /// `width`.
    public var width: Int?
    /// `height`.
    public var height: Int?
    /// The resources.
    public var resources: [VASTResource]
    /// `<NonLinearClickThrough>` or `<CompanionClickThrough>`.
    public var clickThrough: String?
    /// `<NonLinearClickTracking>` or `<CompanionClickTracking>` URLs.
    public var clickTracking: [String]
    /// The companion's `<TrackingEvents>` (`creativeView`).
    public var tracking: [VASTTracking]

    /// Creates a visual ad.
    public init(id: String? = nil, width: Int? = nil, height: Int? = nil) {
        self.id = id
        self.width = width
        self.height = height
        self.resources = []
        self.clickTracking = []
        self.tracking = []
    }
}
