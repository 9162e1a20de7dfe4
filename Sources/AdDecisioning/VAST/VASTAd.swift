/// One `<Ad>`: an InLine ad or a Wrapper, with what both may carry.
///
/// Elements of `<InLine>` that a Wrapper cannot have (AdTitle, Description, …) are nil for a
/// wrapper. ``wrapper`` tells which kind the ad is.
public struct VASTAd: Hashable, Sendable {
    /// The `id` attribute.
    public var id: String?
    /// The `sequence` attribute: the position in the pod; nil for a stand-alone ad.
    public var sequence: Int?
    /// The `conditionalAd` attribute (VAST 4.0; deprecated in 4.1).
    public var conditionalAd: Bool?
    /// The `adType` attribute (VAST 4.1: `video`, `audio` or `hybrid`).
    public var adType: String?
    /// Where `<Ad>` starts.
    public var location: XMLLocation
    /// The wrapper part; nil for an InLine ad.
    public var wrapper: VASTWrapper?
    /// `<AdSystem>` and its `version`.
    public var adSystem: VASTAdSystem?
    /// `<AdTitle>` (InLine).
    public var adTitle: String?
    /// `<AdServingId>` (InLine, VAST 4.1).
    public var adServingId: String?
    /// `<Description>` (InLine).
    public var description: String?
    /// `<Advertiser>` (InLine).
    public var advertiser: String?
    /// `<Category authority>` (InLine, VAST 4.0).
    public var categories: [VASTCategory]
    /// `<Pricing model currency>`.
    public var pricing: VASTPricing?
    /// `<Survey>` (InLine; deprecated in 4.1).
    public var survey: String?
    /// `<Expires>` in seconds (InLine, VAST 4.1).
    public var expires: Int?
    /// The `<Impression>` URLs, with their `id`.
    public var impressions: [VASTImpression]
    /// The `<Error>` URLs; they may contain `[ERRORCODE]`.
    public var errorURLs: [String]
    /// `<AdVerifications>`, kept as data (VAST 4.1 moved them under InLine and Wrapper).
    public var verifications: [VASTVerification]
    /// `<Extensions>`, each kept as its XML text.
    public var extensions: [VASTExtension]
    /// `<Creatives>` in document order.
    public var creatives: [VASTCreative]

    /// Creates an ad.
    public init(
        id: String? = nil, sequence: Int? = nil, location: XMLLocation = XMLLocation(line: 0, column: 0),
        wrapper: VASTWrapper? = nil
    ) {
        self.id = id
        self.sequence = sequence
        self.location = location
        self.wrapper = wrapper
        self.categories = []
        self.impressions = []
        self.errorURLs = []
        self.verifications = []
        self.extensions = []
        self.creatives = []
    }

    /// Whether this is an InLine ad.
    public var isInLine: Bool { wrapper == nil }

    /// The linear creatives, the only ones an interstitial plays.
    public var linearCreatives: [VASTCreative] { creatives.filter { $0.linear != nil } }
}

/// The attributes and tag URI of a `<Wrapper>` (VAST 4.3 §3.19).
public struct VASTWrapper: Hashable, Sendable {
    /// `<VASTAdTagURI>`: the next VAST response to request.
    public var adTagURI: String
    /// `followAdditionalWrappers` (default true): "If false, any Wrappers received (i.e. not an
    /// Inline VAST response) should be ignored."
    public var followAdditionalWrappers: Bool
    /// `allowMultipleAds` (default false): "If false, only the first stand-alone Ad (with no
    /// sequence values) in the requested VAST response is allowed."
    public var allowMultipleAds: Bool
    /// `fallbackOnNoAd`: "If true, the media player should select from any stand-alone ads
    /// available" when the requested response has no ads.
    public var fallbackOnNoAd: Bool

    /// Creates a wrapper part.
    public init(
        adTagURI: String, followAdditionalWrappers: Bool = true, allowMultipleAds: Bool = false,
        fallbackOnNoAd: Bool = false
    ) {
        self.adTagURI = adTagURI
        self.followAdditionalWrappers = followAdditionalWrappers
        self.allowMultipleAds = allowMultipleAds
        self.fallbackOnNoAd = fallbackOnNoAd
    }
}

/// `<AdSystem version>`.
public struct VASTAdSystem: Hashable, Sendable {
    /// The ad server's name.
    public var name: String
    /// The `version` attribute.
    public var version: String?

    /// Creates an ad system.
    public init(name: String, version: String? = nil) {
        self.name = name
        self.version = version
    }
}

/// `<Category authority>`.
public struct VASTCategory: Hashable, Sendable {
    /// The category code or label.
    public var value: String
    /// The `authority` attribute (a URL of the taxonomy).
    public var authority: String?

    /// Creates a category.
    public init(value: String, authority: String? = nil) {
        self.value = value
        self.authority = authority
    }
}

/// `<Pricing model currency>`.
public struct VASTPricing: Hashable, Sendable {
    /// The price as written.
    public var value: String
    /// The `model` attribute (`CPM`, `CPC`, `CPE`, `CPV`).
    public var model: String?
    /// The `currency` attribute (ISO 4217).
    public var currency: String?

    /// Creates a pricing.
    public init(value: String, model: String? = nil, currency: String? = nil) {
        self.value = value
        self.model = model
        self.currency = currency
    }
}

/// `<Impression id>`.
public struct VASTImpression: Hashable, Sendable {
    /// The URL to request when the ad's first frame shows.
    public var url: String
    /// The `id` attribute.
    public var id: String?

    /// Creates an impression.
    public init(url: String, id: String? = nil) {
        self.url = url
        self.id = id
    }
}

/// `<Extension type>` kept as XML text.
public struct VASTExtension: Hashable, Sendable {
    /// The `type` attribute.
    public var type: String?
    /// The whole `<Extension>` element written back as XML.
    public var xml: String

    /// Creates an extension.
    public init(type: String?, xml: String) {
        self.type = type
        self.xml = xml
    }
}

/// `<Verification vendor>` of `<AdVerifications>` (VAST 4.3 §3.17), kept as data.
public struct VASTVerification: Hashable, Sendable {
    /// The `vendor` attribute.
    public var vendor: String?
    /// The `<JavaScriptResource>` URLs with their `apiFramework` and `browserOptional`.
    public var javaScriptResources: [VASTResourceURL]
    /// The `<ExecutableResource>` URLs with their `apiFramework` and `language` (in `type`).
    public var executableResources: [VASTResourceURL]
    /// `<VerificationParameters>`, verbatim.
    public var parameters: String?
    /// The verification's `<TrackingEvents>` (such as `verificationNotExecuted`).
    public var tracking: [VASTTracking]

    /// Creates a verification.
    public init(vendor: String?) {
        self.vendor = vendor
        self.javaScriptResources = []
        self.executableResources = []
        self.tracking = []
    }
}

/// A URL with the attributes of a resource element.
public struct VASTResourceURL: Hashable, Sendable {
    /// The URL.
    public var url: String
    /// The `apiFramework` attribute.
    public var apiFramework: String?
    /// `browserOptional` for JavaScript resources; `language` for executable ones.
    public var type: String?

    /// Creates a resource URL.
    public init(url: String, apiFramework: String? = nil, type: String? = nil) {
        self.url = url
        self.apiFramework = apiFramework
        self.type = type
    }
}
