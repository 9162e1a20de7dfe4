import AdDecisioning
import HLSInterstitials
import HLSPlaylist

/// What the stitched form needs of a VAST ad beyond its HLS asset, carried from the decision
/// (``PreparedDecision/Entry``) to ``StitchedService`` in the stitched form's own asset list (an
/// asset key of this server's, ``key``; the interstitial form's lists never carry it): the source
/// the conditioner can make renditions from when the ad's HLS does not fit the primary, and the
/// ad's VAST `<Error>` URLs, called when the ad is left out.
struct StitchedAdInfo: Hashable, Sendable {
    /// The asset key of the stitched form's asset lists that holds it.
    static let key = "X-COM-HLSI-STITCHING"
    /// The most `<Error>` URLs kept of one ad.
    static let maximumErrorURLs = 16

    /// The absolute URL of the creative's conditioning source
    /// (``CreativeSelection/conditioningSource``: a `<Mezzanine>`, else a progressive MP4); nil
    /// when it has none.
    var source: String?
    /// The creative's key for the conditioning cache (``CreativeSelection/creativeKey``, else the
    /// source's URL).
    var creativeKey: String?
    /// The ad's `<Error>` URLs (its wrappers' included), macros not yet filled.
    var errorURLs: [String] = []

    /// What is kept of `selection`'s ad, its relative URLs resolved against `base` (the URL of the
    /// document that gave it).
    init(_ selection: CreativeSelection, base: String) {
        if let file = selection.conditioningSource {
            let url = URIReference.resolve(file.url, against: base)
            if ServerConfiguration.origin(of: url) != nil {
                source = url
                creativeKey = selection.creativeKey ?? url
            }
        }
        errorURLs = Array(selection.ad.ad.errorURLs.prefix(Self.maximumErrorURLs))
    }

    /// An info with these fields.
    init(source: String?, creativeKey: String?, errorURLs: [String]) {
        self.source = source
        self.creativeKey = creativeKey
        self.errorURLs = errorURLs
    }

    /// Whether it holds nothing.
    var isEmpty: Bool { source == nil && errorURLs.isEmpty }

    /// As an asset key's value.
    var json: JSONValue {
        var object: [String: JSONValue] = ["ERRORS": .array(errorURLs.map(JSONValue.string))]
        if let source { object["SOURCE"] = .string(source) }
        if let creativeKey { object["CREATIVE"] = .string(creativeKey) }
        return .object(object)
    }

    /// The info an asset of the stitched form's asset list carries; nil when it has none.
    static func of(_ asset: AssetList.Asset) -> StitchedAdInfo? {
        guard case .object(let object)? = asset.otherKeys[key] else { return nil }
        let string = { (name: String) -> String? in
            if case .string(let text)? = object[name] { return text }
            return nil
        }
        var errors: [String] = []
        if case .array(let items)? = object["ERRORS"] {
            for case .string(let url) in items.prefix(maximumErrorURLs) { errors.append(url) }
        }
        return StitchedAdInfo(source: string("SOURCE"), creativeKey: string("CREATIVE"), errorURLs: errors)
    }
}
