import HLSPlaylist

/// Reads VAST 2.0, 3.0 and 4.0–4.3 documents with a real XML parser (Foundation's `XMLParser`).
///
/// What cannot be read at all throws a ``VASTError`` with its line and column: XML that is not
/// well-formed (VAST error 100), a root other than `<VAST>` or no `version` (101), a major version
/// other than 2, 3 or 4 (102), a document over a limit (100). Everything else is read leniently,
/// as players do: unknown elements, bad attribute values, an ad with neither `<InLine>` nor
/// `<Wrapper>` are skipped with a ``VASTNote``.
///
/// Reading is synchronous and bounded: a linear pre-scan enforces ``XMLLimits`` before the parser
/// runs, so one read costs at most ``XMLLimits/workBound`` steps of ``Limits/xml``. The reader is a
/// value with no shared state; a caller with a deadline may run it on any thread.
public struct VASTReader: Sendable {
    /// Bounds on what one document may hold.
    public struct Limits: Hashable, Sendable {
        /// Bounds on the XML itself.
        public var xml: XMLLimits
        /// The most ads read from one document (others are skipped with a note).
        public var maximumAds: Int
        /// The most creatives read per ad.
        public var maximumCreatives: Int
        /// The most media files (of each kind) read per linear creative.
        public var maximumMediaFiles: Int
        /// The most URLs read per list (impressions, errors, tracking events, clicks…).
        public var maximumURLs: Int

        /// Creates limits.
        public init(
            xml: XMLLimits = .standard, maximumAds: Int = 64, maximumCreatives: Int = 32,
            maximumMediaFiles: Int = 64, maximumURLs: Int = 256
        ) {
            self.xml = xml
            self.maximumAds = maximumAds
            self.maximumCreatives = maximumCreatives
            self.maximumMediaFiles = maximumMediaFiles
            self.maximumURLs = maximumURLs
        }

        /// The defaults.
        public static let standard = Limits()
    }

    /// The limits this reader applies.
    public var limits: Limits

    /// Creates a reader.
    public init(limits: Limits = .standard) {
        self.limits = limits
    }

    /// Reads a VAST document.
    public func read(_ bytes: some Collection<UInt8>) throws(VASTError) -> VASTDocument {
        let root = try XMLTreeBuilder.parse(bytes, limits: limits.xml)
        return try read(root: root)
    }

    /// Reads a VAST document from its text.
    public func read(_ text: String) throws(VASTError) -> VASTDocument {
        try read(Array(text.utf8))
    }

    /// Reads the `<VAST>` element of a parsed tree (also used for VAST inside VMAP `<VASTAdData>`).
    public func read(root: XMLNode) throws(VASTError) -> VASTDocument {
        guard root.localName == "VAST" else {
            throw VASTError(.schema, at: root.location, "the root element is <\(root.name)>, not <VAST>")
        }
        guard let version = root.attribute("version") else {
            throw VASTError(.schema, at: root.location, "<VAST> has no version attribute")
        }
        let major = version.split(separator: ".").first.flatMap { Int($0) }
        guard let major, (2...4).contains(major) else {
            throw VASTError(
                .version, at: root.location, "VAST version '\(version)' is not supported (2.0 to 4.3 are)")
        }
        var context = Context(limits: limits)
        var document = VASTDocument(version: version)
        for child in root.children {
            switch child.localName {
            case "Ad":
                if document.ads.count >= limits.maximumAds {
                    context.note(.limit, child, "more than \(limits.maximumAds) ads; this one is skipped")
                } else if let ad = context.ad(child) {
                    document.ads.append(ad)
                }
            case "Error":
                context.appendURL(child, to: &document.errorURLs)
            default:
                context.unknown(child, in: root)
            }
        }
        document.notes = context.notes
        return document
    }
}

/// The walk over one document: collects notes and applies the limits.
private struct Context {
    let limits: VASTReader.Limits
    var notes: [VASTNote] = []

    init(limits: VASTReader.Limits) {
        self.limits = limits
    }

    mutating func note(_ code: VASTNote.Code, _ node: XMLNode, _ message: String) {
        if notes.count < 1000 { notes.append(VASTNote(code, at: node.location, message)) }
    }

    mutating func unknown(_ node: XMLNode, in parent: XMLNode) {
        note(.unknownElement, node, "unknown element <\(node.name)> in <\(parent.name)> ignored")
    }

    mutating func appendURL(_ node: XMLNode, to list: inout [String]) {
        if let url = acceptedURL(node, count: list.count) { list.append(url) }
    }

    /// The URL of `node` when it has one and a list of `count` URLs has room for it; else a note.
    mutating func acceptedURL(_ node: XMLNode, count: Int) -> String? {
        guard let url = node.value else {
            note(.emptyURL, node, "<\(node.name)> has no URL; ignored")
            return nil
        }
        guard count < limits.maximumURLs else {
            note(.limit, node, "more than \(limits.maximumURLs) URLs in one list; <\(node.name)> ignored")
            return nil
        }
        return url
    }

    mutating func integer(_ node: XMLNode, _ name: String) -> Int? {
        guard let text = node.attribute(name) else { return nil }
        if let value = Int(text) { return value }
        if let value = Double(text), value.isFinite, abs(value) < 1e15 { return Int(value.rounded()) }
        note(.badValue, node, "\(name)=\"\(text)\" of <\(node.name)> is not a number; ignored")
        return nil
    }

    mutating func boolean(_ node: XMLNode, _ name: String) -> Bool? {
        guard let text = node.attribute(name) else { return nil }
        switch text.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default:
            note(.badValue, node, "\(name)=\"\(text)\" of <\(node.name)> is not a boolean; ignored")
            return nil
        }
    }

    mutating func ad(_ node: XMLNode) -> VASTAd? {
        var ad = VASTAd(id: node.attribute("id"), location: node.location)
        if let text = node.attribute("sequence") {
            if let sequence = Int(text) {
                ad.sequence = sequence
            } else {
                note(.badValue, node, "sequence=\"\(text)\" is not an integer; the ad is read as stand-alone")
            }
        }
        ad.conditionalAd = boolean(node, "conditionalAd")
        ad.adType = node.attribute("adType")
        let inline = node.child(named: "InLine")
        let wrapper = node.child(named: "Wrapper")
        for child in node.children where child.localName != "InLine" && child.localName != "Wrapper" {
            unknown(child, in: node)
        }
        if let inline {
            if wrapper != nil { note(.schema, node, "<Ad> has both <InLine> and <Wrapper>; <InLine> is read") }
            body(inline, into: &ad, isWrapper: false)
            return ad
        }
        guard let wrapper else {
            note(.schema, node, "<Ad> has neither <InLine> nor <Wrapper>; skipped")
            return nil
        }
        guard let uri = wrapper.child(named: "VASTAdTagURI")?.value else {
            note(.schema, wrapper, "<Wrapper> has no <VASTAdTagURI>; the ad is skipped")
            return nil
        }
        ad.wrapper = VASTWrapper(
            adTagURI: uri,
            followAdditionalWrappers: boolean(wrapper, "followAdditionalWrappers") ?? true,
            allowMultipleAds: boolean(wrapper, "allowMultipleAds") ?? false,
            fallbackOnNoAd: boolean(wrapper, "fallbackOnNoAd") ?? false)
        body(wrapper, into: &ad, isWrapper: true)
        return ad
    }

    mutating func body(_ node: XMLNode, into ad: inout VASTAd, isWrapper: Bool) {
        for child in node.children {
            switch child.localName {
            case "AdSystem":
                ad.adSystem = VASTAdSystem(name: child.trimmedText, version: child.attribute("version"))
            case "AdTitle" where !isWrapper: ad.adTitle = child.value
            case "AdServingId" where !isWrapper: ad.adServingId = child.value
            case "Description" where !isWrapper: ad.description = child.value
            case "Advertiser" where !isWrapper: ad.advertiser = child.value
            case "Survey" where !isWrapper: ad.survey = child.value
            case "Category" where !isWrapper:
                if let value = child.value {
                    ad.categories.append(VASTCategory(value: value, authority: child.attribute("authority")))
                }
            case "Expires" where !isWrapper:
                if let value = child.value.flatMap({ Int($0) }), value >= 0 {
                    ad.expires = value
                } else {
                    note(.badValue, child, "<Expires> is not a number of seconds; ignored")
                }
            case "Pricing":
                if let value = child.value {
                    ad.pricing = VASTPricing(
                        value: value, model: child.attribute("model"), currency: child.attribute("currency"))
                }
            case "Impression":
                if let url = acceptedURL(child, count: ad.impressions.count) {
                    ad.impressions.append(VASTImpression(url: url, id: child.attribute("id")))
                }
            case "Error":
                appendURL(child, to: &ad.errorURLs)
            case "Extensions":
                for extensionNode in child.children {
                    if extensionNode.localName == "Extension" {
                        ad.extensions.append(
                            VASTExtension(type: extensionNode.attribute("type"), xml: extensionNode.xmlText))
                    } else {
                        unknown(extensionNode, in: child)
                    }
                }
            case "AdVerifications":
                ad.verifications += verifications(child)
            case "Creatives":
                for creativeNode in child.children {
                    guard creativeNode.localName == "Creative" else {
                        unknown(creativeNode, in: child)
                        continue
                    }
                    guard ad.creatives.count < limits.maximumCreatives else {
                        note(.limit, creativeNode, "more than \(limits.maximumCreatives) creatives; skipped")
                        continue
                    }
                    ad.creatives.append(creative(creativeNode, isWrapper: isWrapper))
                }
            case "VASTAdTagURI" where isWrapper: break
            case "ViewableImpression", "BlockedAdCategories":
                note(.notRead, child, "<\(child.name)> is not used by this reader; ignored")
            default:
                unknown(child, in: node)
            }
        }
    }

    mutating func verifications(_ node: XMLNode) -> [VASTVerification] {
        var result: [VASTVerification] = []
        for child in node.children {
            guard child.localName == "Verification" else {
                unknown(child, in: node)
                continue
            }
            var verification = VASTVerification(vendor: child.attribute("vendor"))
            for part in child.children {
                switch part.localName {
                case "JavaScriptResource":
                    if let url = part.value {
                        verification.javaScriptResources.append(
                            VASTResourceURL(
                                url: url, apiFramework: part.attribute("apiFramework"),
                                type: part.attribute("browserOptional")))
                    }
                case "ExecutableResource":
                    if let url = part.value {
                        verification.executableResources.append(
                            VASTResourceURL(
                                url: url, apiFramework: part.attribute("apiFramework"), type: part.attribute("language")
                            ))
                    }
                case "VerificationParameters": verification.parameters = part.trimmedText
                case "TrackingEvents": verification.tracking = tracking(part)
                default: unknown(part, in: child)
                }
            }
            result.append(verification)
        }
        return result
    }

    mutating func creative(_ node: XMLNode, isWrapper: Bool) -> VASTCreative {
        var creative = VASTCreative(id: node.attribute("id"), adId: node.attribute("adId") ?? node.attribute("AdID"))
        creative.sequence = integer(node, "sequence")
        creative.apiFramework = node.attribute("apiFramework")
        for child in node.children {
            switch child.localName {
            case "UniversalAdId":
                if let value = child.value {
                    creative.universalAdIds.append(
                        VASTUniversalAdId(value: value, idRegistry: child.attribute("idRegistry") ?? "unknown"))
                }
            case "Linear": creative.linear = linear(child, isWrapper: isWrapper)
            case "NonLinearAds": creative.nonLinearAds = nonLinearAds(child)
            case "CompanionAds": creative.companionAds = companionAds(child)
            case "CreativeExtensions":
                note(.notRead, child, "<CreativeExtensions> is not used by this reader; ignored")
            default: unknown(child, in: node)
            }
        }
        return creative
    }

    mutating func linear(_ node: XMLNode, isWrapper: Bool) -> VASTLinear {
        var linear = VASTLinear()
        if let text = node.attribute("skipoffset") {
            linear.skipOffset = VASTOffset(text)
            if linear.skipOffset == nil {
                note(.badValue, node, "skipoffset=\"\(text)\" is not a time or n%; ignored")
            }
        }
        for child in node.children {
            switch child.localName {
            case "Duration":
                linear.duration = VASTClock.parse(child.trimmedText)
                if linear.duration == nil {
                    note(.badValue, child, "<Duration> '\(child.trimmedText)' is not HH:MM:SS or HH:MM:SS.mmm")
                }
            case "AdParameters": linear.adParameters = child.trimmedText
            case "MediaFiles": mediaFiles(child, into: &linear)
            case "TrackingEvents": linear.tracking = tracking(child)
            case "VideoClicks": linear.videoClicks = videoClicks(child)
            case "Icons":
                for icon in child.children {
                    if icon.localName == "Icon" {
                        linear.icons.append(self.icon(icon))
                    } else {
                        unknown(icon, in: child)
                    }
                }
            default: unknown(child, in: node)
            }
        }
        if !isWrapper && linear.duration == nil {
            note(.schema, node, "<Linear> of an InLine ad has no readable <Duration>")
        }
        return linear
    }

    mutating func mediaFiles(_ node: XMLNode, into linear: inout VASTLinear) {
        for child in node.children {
            switch child.localName {
            case "MediaFile":
                if let file = mediaFile(child, count: linear.mediaFiles.count) { linear.mediaFiles.append(file) }
            case "Mezzanine":
                if let file = mediaFile(child, count: linear.mezzanines.count) { linear.mezzanines.append(file) }
            case "InteractiveCreativeFile":
                if var file = mediaFile(child, count: linear.interactiveCreativeFiles.count) {
                    file.variableDuration = boolean(child, "variableDuration")
                    linear.interactiveCreativeFiles.append(file)
                }
            case "ClosedCaptionFiles":
                for caption in child.children {
                    guard caption.localName == "ClosedCaptionFile" else {
                        unknown(caption, in: child)
                        continue
                    }
                    if let url = caption.value, linear.closedCaptionFiles.count < limits.maximumMediaFiles {
                        linear.closedCaptionFiles.append(
                            VASTClosedCaptionFile(
                                url: url, type: caption.attribute("type"), language: caption.attribute("language")))
                    }
                }
            default: unknown(child, in: node)
            }
        }
    }

    mutating func mediaFile(_ node: XMLNode, count: Int) -> VASTMediaFile? {
        guard let url = node.value else {
            note(.emptyURL, node, "<\(node.name)> has no URL; ignored")
            return nil
        }
        guard count < limits.maximumMediaFiles else {
            note(.limit, node, "more than \(limits.maximumMediaFiles) <\(node.name)> elements; ignored")
            return nil
        }
        var file = VASTMediaFile(url: url, type: node.attribute("type"), delivery: node.attribute("delivery"))
        file.id = node.attribute("id")
        file.width = integer(node, "width")
        file.height = integer(node, "height")
        file.codec = node.attribute("codec")
        file.bitrate = integer(node, "bitrate")
        file.minBitrate = integer(node, "minBitrate")
        file.maxBitrate = integer(node, "maxBitrate")
        file.scalable = boolean(node, "scalable")
        file.maintainAspectRatio = boolean(node, "maintainAspectRatio")
        file.apiFramework = node.attribute("apiFramework")
        file.fileSize = integer(node, "fileSize")
        file.mediaType = node.attribute("mediaType")
        return file
    }

    mutating func tracking(_ node: XMLNode) -> [VASTTracking] {
        var result: [VASTTracking] = []
        for child in node.children {
            guard child.localName == "Tracking" else {
                unknown(child, in: node)
                continue
            }
            guard let event = child.attribute("event") else {
                note(.schema, child, "<Tracking> has no event attribute; ignored")
                continue
            }
            guard let url = child.value else {
                note(.emptyURL, child, "<Tracking event=\"\(event)\"> has no URL; ignored")
                continue
            }
            guard result.count < limits.maximumURLs else {
                note(.limit, child, "more than \(limits.maximumURLs) tracking events; ignored")
                continue
            }
            var offset: VASTOffset?
            if let text = child.attribute("offset") {
                offset = VASTOffset(text)
                if offset == nil { note(.badValue, child, "offset=\"\(text)\" is not a time or n%; ignored") }
            }
            if event == "progress" && offset == nil {
                note(.schema, child, "a progress event needs an offset; ignored")
                continue
            }
            result.append(VASTTracking(event: event, url: url, offset: offset))
        }
        return result
    }

    mutating func videoClicks(_ node: XMLNode) -> VASTVideoClicks {
        var clicks = VASTVideoClicks()
        for child in node.children {
            switch child.localName {
            case "ClickThrough": clicks.clickThrough = child.value
            case "ClickTracking": appendURL(child, to: &clicks.clickTracking)
            case "CustomClick": appendURL(child, to: &clicks.customClicks)
            default: unknown(child, in: node)
            }
        }
        return clicks
    }

    mutating func resource(_ node: XMLNode) -> VASTResource? {
        guard let kind = VASTResource.Kind(rawValue: String(node.localName)), let value = node.value else { return nil }
        return VASTResource(kind: kind, value: value, creativeType: node.attribute("creativeType"))
    }

    mutating func icon(_ node: XMLNode) -> VASTIcon {
        var icon = VASTIcon(program: node.attribute("program"))
        icon.width = integer(node, "width")
        icon.height = integer(node, "height")
        icon.xPosition = node.attribute("xPosition")
        icon.yPosition = node.attribute("yPosition")
        icon.offset = node.attribute("offset").flatMap { VASTClock.parse($0) }
        icon.duration = node.attribute("duration").flatMap { VASTClock.parse($0) }
        icon.apiFramework = node.attribute("apiFramework")
        for child in node.children {
            switch child.localName {
            case "StaticResource", "IFrameResource", "HTMLResource":
                if let resource = resource(child) { icon.resources.append(resource) }
            case "IconClicks":
                for click in child.children {
                    switch click.localName {
                    case "IconClickThrough": icon.clickThrough = click.value
                    case "IconClickTracking": appendURL(click, to: &icon.clickTracking)
                    case "IconClickFallbackImages": break
                    default: unknown(click, in: child)
                    }
                }
            case "IconViewTracking": appendURL(child, to: &icon.viewTracking)
            default: unknown(child, in: node)
            }
        }
        return icon
    }

    mutating func visualAd(_ node: XMLNode, prefix: String) -> VASTVisualAd {
        var ad = VASTVisualAd(id: node.attribute("id"), width: integer(node, "width"), height: integer(node, "height"))
        for child in node.children {
            switch child.localName {
            case "StaticResource", "IFrameResource", "HTMLResource":
                if let resource = resource(child) { ad.resources.append(resource) }
            case prefix + "ClickThrough": ad.clickThrough = child.value
            case prefix + "ClickTracking": appendURL(child, to: &ad.clickTracking)
            case "TrackingEvents": ad.tracking = tracking(child)
            case "AdParameters", "AltText", "CreativeExtensions", "AdSlotID": break
            default: unknown(child, in: node)
            }
        }
        return ad
    }

    mutating func nonLinearAds(_ node: XMLNode) -> VASTNonLinearAds {
        var ads = VASTNonLinearAds()
        for child in node.children {
            switch child.localName {
            case "NonLinear": ads.nonLinears.append(visualAd(child, prefix: "NonLinear"))
            case "TrackingEvents": ads.tracking = tracking(child)
            default: unknown(child, in: node)
            }
        }
        return ads
    }

    mutating func companionAds(_ node: XMLNode) -> VASTCompanionAds {
        var ads = VASTCompanionAds(required: node.attribute("required"))
        for child in node.children {
            if child.localName == "Companion" {
                ads.companions.append(visualAd(child, prefix: "Companion"))
            } else {
                unknown(child, in: node)
            }
        }
        return ads
    }
}
