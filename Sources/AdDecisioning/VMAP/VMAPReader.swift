import HLSPlaylist

/// Reads IAB VMAP 1.0 documents (`<vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap">`).
///
/// Elements are matched by local name, whatever the prefix. Inline `<vmap:VASTAdData>` is read
/// with ``VASTReader``; if it cannot be read the break keeps no source and a note says why.
public struct VMAPReader: Sendable {
    /// The VAST reader for inline VAST, with its limits (also used for the XML).
    public var vastReader: VASTReader
    /// The most `<vmap:AdBreak>` elements read (100 by default); the others are skipped with one
    /// `vast-limit` note that says how many.
    public var maximumBreaks: Int

    /// The most notes kept for one document.
    static let maximumNotes = 1000

    /// Creates a reader.
    public init(vastReader: VASTReader = VASTReader(), maximumBreaks: Int = VMAPPlacement.defaultMaximumBreaks) {
        self.vastReader = vastReader
        self.maximumBreaks = maximumBreaks
    }

    /// Reads a VMAP document.
    ///
    /// - Throws: ``VASTError``: `vast-xml`/`vast-limit` for bad XML, `vast-schema` when the root is
    ///   not `VMAP`, `vast-version` for a major version other than 1.
    public func read(_ bytes: some Collection<UInt8>) throws(VASTError) -> VMAPDocument {
        try read(root: try XMLTreeBuilder.parse(bytes, limits: vastReader.limits.xml))
    }

    /// Reads the `<vmap:VMAP>` element of a parsed tree.
    public func read(root: XMLNode) throws(VASTError) -> VMAPDocument {
        guard root.localName == "VMAP" else {
            throw VASTError(.schema, at: root.location, "the root element is <\(root.name)>, not <vmap:VMAP>")
        }
        let version = root.attribute("version") ?? ""
        guard version.split(separator: ".").first == "1" else {
            throw VASTError(.version, at: root.location, "VMAP version '\(version)' is not supported (1.0 is)")
        }
        var document = VMAPDocument(version: version)
        var skipped: (first: XMLNode, count: Int)?
        for child in root.children {
            guard child.localName == "AdBreak" else {
                if child.localName != "Extensions" {
                    document.notes.append(
                        VASTNote(
                            .unknownElement, at: child.location,
                            "unknown element <\(child.name)> in <\(root.name)> ignored"))
                }
                continue
            }
            guard document.breaks.count < maximumBreaks else {
                skipped = (skipped?.first ?? child, (skipped?.count ?? 0) + 1)
                continue
            }
            if let adBreak = adBreak(child, notes: &document.notes) { document.breaks.append(adBreak) }
        }
        if document.notes.count > Self.maximumNotes {
            document.notes.removeLast(document.notes.count - Self.maximumNotes)
        }
        if let skipped {
            document.notes.append(
                VASTNote(
                    .limit, at: skipped.first.location,
                    "more than \(maximumBreaks) breaks (maximumBreaks); this one and the \(skipped.count - 1) after it "
                        + "are skipped"))
        }
        return document
    }

    /// Reads a VMAP document from its text.
    public func read(_ text: String) throws(VASTError) -> VMAPDocument {
        try read(Array(text.utf8))
    }

    private func adBreak(_ node: XMLNode, notes: inout [VASTNote]) -> VMAPAdBreak? {
        guard let text = node.attribute("timeOffset"), let offset = VMAPTimeOffset(text) else {
            notes.append(
                VASTNote(.badValue, at: node.location, "<\(node.name)> has no readable timeOffset; skipped"))
            return nil
        }
        var adBreak = VMAPAdBreak(
            timeOffset: offset, breakType: node.attribute("breakType") ?? "linear", location: node.location)
        adBreak.breakId = node.attribute("breakId")
        if let repeatText = node.attribute("repeatAfter") {
            adBreak.repeatAfter = VASTClock.parse(repeatText)
            if adBreak.repeatAfter == nil || adBreak.repeatAfter! <= .zero {
                adBreak.repeatAfter = nil
                notes.append(VASTNote(.badValue, at: node.location, "repeatAfter=\"\(repeatText)\" ignored"))
            }
        }
        for child in node.children {
            switch child.localName {
            case "AdSource": adBreak.adSource = adSource(child, notes: &notes)
            case "TrackingEvents":
                for tracking in child.children where tracking.localName == "Tracking" {
                    if let event = tracking.attribute("event"), let url = tracking.value, adBreak.tracking.count < 256 {
                        adBreak.tracking.append(VASTTracking(event: event, url: url))
                    }
                }
            case "Extensions":
                adBreak.extensions = child.children.prefix(64).map(\.xmlText)
            default:
                notes.append(
                    VASTNote(
                        .unknownElement, at: child.location,
                        "unknown element <\(child.name)> in <\(node.name)> ignored"))
            }
        }
        return adBreak
    }

    private func adSource(_ node: XMLNode, notes: inout [VASTNote]) -> VMAPAdSource? {
        func flag(_ name: String) -> Bool? {
            node.attribute(name).map { $0.lowercased() == "true" || $0 == "1" }
        }
        let allowMultiple = flag("allowMultipleAds") ?? true
        let follow = flag("followRedirects") ?? true
        for child in node.children {
            switch child.localName {
            case "VASTAdData", "VASTData":
                guard let vast = child.child(named: "VAST") else {
                    notes.append(VASTNote(.schema, at: child.location, "<\(child.name)> holds no <VAST>"))
                    return nil
                }
                do {
                    let document = try vastReader.read(root: vast)
                    notes += document.notes
                    return VMAPAdSource(
                        id: node.attribute("id"), allowMultipleAds: allowMultiple, followRedirects: follow,
                        content: .vast(document))
                } catch {
                    notes.append(
                        VASTNote(.init(error.code), at: error.location, "inline VAST skipped: \(error.message)"))
                    return nil
                }
            case "AdTagURI":
                guard let url = child.value else { continue }
                return VMAPAdSource(
                    id: node.attribute("id"), allowMultipleAds: allowMultiple, followRedirects: follow,
                    content: .adTagURI(url, templateType: child.attribute("templateType")))
            case "CustomAdData":
                return VMAPAdSource(
                    id: node.attribute("id"), allowMultipleAds: allowMultiple, followRedirects: follow,
                    content: .custom(child.trimmedText, templateType: child.attribute("templateType")))
            default:
                notes.append(
                    VASTNote(
                        .unknownElement, at: child.location,
                        "unknown element <\(child.name)> in <\(node.name)> ignored"))
            }
        }
        notes.append(VASTNote(.schema, at: node.location, "<\(node.name)> has no ad data"))
        return nil
    }
}
