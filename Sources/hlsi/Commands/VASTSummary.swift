import AdDecisioning
import HLSPlaylist

/// What `hlsi vast` prints: a VAST or VMAP document as the server reads it, and with `--follow`
/// the ads its wrappers resolve to. One model, printed as text or as JSON.
struct VASTSummary: Encodable {
    /// A location in the document.
    struct Position: Encodable {
        var line: Int
        var column: Int

        init(_ location: XMLLocation) {
            line = location.line
            column = location.column
        }
    }

    /// A note the reader made about something it skipped.
    struct Note: Encodable {
        var code: String
        var line: Int
        var column: Int
        var message: String
    }

    /// A media file and whether an interstitial can use it.
    struct MediaFile: Encodable {
        var url: String
        var type: String?
        var delivery: String?
        var width: Int?
        var height: Int?
        var bitrate: Int?
        var codec: String?
        /// `hls`, `needs-conditioning` or `unusable` (``CreativeSelection/usability(of:)``).
        var usability: String
    }

    /// A tracking event.
    struct Tracking: Encodable {
        var event: String
        var url: String
        var offset: String?
    }

    /// A creative.
    struct Creative: Encodable {
        var id: String?
        var adId: String?
        var sequence: Int?
        var universalAdIds: [String]
        /// `linear`, `nonlinear`, `companion` or `empty`.
        var kind: String
        var duration: Double?
        var skipOffset: String?
        var mediaFiles: [MediaFile]
        var tracking: [Tracking]
        var clickThrough: String?
        var clickTracking: [String]
        var nonLinears: Int
        var companions: Int
    }

    /// An ad.
    struct Ad: Encodable {
        var id: String?
        var sequence: Int?
        /// `inline` or `wrapper`.
        var kind: String
        var line: Int
        var column: Int
        var adSystem: String?
        var title: String?
        var adTagURI: String?
        var followAdditionalWrappers: Bool?
        var allowMultipleAds: Bool?
        var fallbackOnNoAd: Bool?
        var impressions: [String]
        var errorURLs: [String]
        var verifications: [String]
        var creatives: [Creative]
        /// With `--follow`: the URLs requested to reach it, and how many wrappers that was.
        var requestURLs: [String]?
        var depth: Int?
    }

    /// A VMAP break.
    struct Break: Encodable {
        var breakId: String?
        var timeOffset: String
        var breakType: String
        var line: Int
        var column: Int
        var adTagURI: String?
        var ads: [Ad]?
        var tracking: [Tracking]
    }

    /// A failure the resolution reports to the ad server's `<Error>` URLs.
    struct ErrorReport: Encodable {
        var code: Int
        var reason: String
        var depth: Int
        var url: String?
        var message: String
        var errorURLs: [String]

        init(_ report: VASTErrorReport) {
            code = report.code.rawValue
            reason = report.reason.rawValue
            depth = report.depth
            url = report.url
            message = report.message
            errorURLs = report.urls
        }
    }

    /// A request made while following wrappers.
    struct Request: Encodable {
        var url: String
        var depth: Int
        /// `vast` (a readable response) or the failure.
        var outcome: String
    }

    /// What following the wrappers gave.
    struct Resolution: Encodable {
        var ads: [Ad]
        var requests: [Request]
        var errors: [ErrorReport]
        var failure: ErrorReport?
    }

    var location: String
    /// `vast` or `vmap`.
    var kind: String
    var version: String
    var errorURLs: [String]
    var ads: [Ad]
    var breaks: [Break]?
    var notes: [Note]
    var resolution: Resolution?

    init(location: String, document: AdDocument) {
        self.location = location
        switch document {
        case .vast(let vast):
            kind = "vast"
            version = vast.version
            errorURLs = vast.errorURLs
            ads = vast.ads.map(Self.ad)
            notes = vast.notes.map(Self.note)
        case .vmap(let vmap):
            kind = "vmap"
            version = vmap.version
            errorURLs = []
            ads = []
            notes = vmap.notes.map(Self.note)
            breaks = vmap.breaks.map { item in
                var summary = Break(
                    breakId: item.breakId, timeOffset: item.timeOffset.description, breakType: item.breakType,
                    line: item.location.line, column: item.location.column,
                    tracking: item.tracking.map(Self.tracking))
                switch item.adSource?.content {
                case .adTagURI(let url, _): summary.adTagURI = url
                case .vast(let inline):
                    summary.ads = inline.ads.map(Self.ad)
                    notes += inline.notes.map(Self.note)
                case .custom, nil: break
                }
                return summary
            }
        }
    }

    static func note(_ note: VASTNote) -> Note {
        Note(code: note.code.rawValue, line: note.location.line, column: note.location.column, message: note.message)
    }

    static func tracking(_ item: VASTTracking) -> Tracking {
        Tracking(event: item.event, url: item.url, offset: item.offset?.description)
    }

    static func ad(_ ad: VASTAd) -> Ad {
        Ad(
            id: ad.id, sequence: ad.sequence, kind: ad.isInLine ? "inline" : "wrapper", line: ad.location.line,
            column: ad.location.column,
            adSystem: ad.adSystem.map { $0.name + ($0.version.map { " " + $0 } ?? "") }, title: ad.adTitle,
            adTagURI: ad.wrapper?.adTagURI, followAdditionalWrappers: ad.wrapper?.followAdditionalWrappers,
            allowMultipleAds: ad.wrapper?.allowMultipleAds, fallbackOnNoAd: ad.wrapper?.fallbackOnNoAd,
            impressions: ad.impressions.map(\.url), errorURLs: ad.errorURLs,
            verifications: ad.verifications.map { $0.vendor ?? "(no vendor)" }, creatives: ad.creatives.map(creative))
    }

    static func creative(_ creative: VASTCreative) -> Creative {
        let linear = creative.linear
        let kind =
            linear != nil
            ? "linear"
            : creative.nonLinearAds != nil ? "nonlinear" : creative.companionAds != nil ? "companion" : "empty"
        return Creative(
            id: creative.id, adId: creative.adId, sequence: creative.sequence,
            universalAdIds: creative.universalAdIds.map { "\($0.idRegistry):\($0.value)" }, kind: kind,
            duration: linear?.duration?.seconds, skipOffset: linear?.skipOffset?.description,
            mediaFiles: (linear?.mediaFiles ?? []).map { file in
                MediaFile(
                    url: file.url, type: file.type, delivery: file.delivery, width: file.width, height: file.height,
                    bitrate: file.bitrate, codec: file.codec,
                    usability: CreativeSelection.usability(of: file).rawValue)
            },
            tracking: (linear?.tracking ?? creative.nonLinearAds?.tracking ?? []).map(tracking),
            clickThrough: linear?.videoClicks.clickThrough, clickTracking: linear?.videoClicks.clickTracking ?? [],
            nonLinears: creative.nonLinearAds?.nonLinears.count ?? 0,
            companions: creative.companionAds?.companions.count ?? 0)
    }

    // MARK: Text

    /// The summary for people.
    var text: String {
        var lines = ["file: \(location)", "kind: \(kind.uppercased()) \(version)"]
        for url in errorURLs { lines.append("error URL: \(url)") }
        if let breaks {
            lines.append("breaks: \(breaks.count)")
            for item in breaks {
                var line = "  break \(item.breakId.map { "\"\($0)\"" } ?? "(no id)") at \(item.timeOffset)"
                line += " (\(item.breakType), line \(item.line))"
                lines.append(line)
                if let url = item.adTagURI { lines.append("    ad tag: \(url) (requested when the break comes)") }
                for ad in item.ads ?? [] { lines += Self.text(ad, indent: "    ") }
                for event in item.tracking { lines.append("    tracking \(event.event): \(event.url)") }
            }
        } else {
            lines.append("ads: \(ads.count)\(ads.isEmpty ? " (a no-ad response)" : "")")
            for ad in ads { lines += Self.text(ad, indent: "  ") }
        }
        if let resolution {
            lines.append("followed: \(resolution.requests.count) request\(resolution.requests.count == 1 ? "" : "s")")
            for request in resolution.requests {
                lines.append("  depth \(request.depth): \(request.url): \(request.outcome)")
            }
            lines.append("resolved ads: \(resolution.ads.count)")
            for ad in resolution.ads { lines += Self.text(ad, indent: "  ") }
            for report in resolution.errors { lines += Self.text(report, indent: "  ", what: "error") }
            if let failure = resolution.failure { lines += Self.text(failure, indent: "  ", what: "failed") }
        }
        for note in notes {
            lines.append("\(location):\(note.line):\(note.column): note: [\(note.code)] \(note.message)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func text(_ ad: Ad, indent: String) -> [String] {
        var head = "\(indent)ad \(ad.id.map { "\"\($0)\"" } ?? "(no id)")"
        head += ad.sequence.map { " sequence \($0)" } ?? " stand-alone"
        head += ", \(ad.kind)"
        if let system = ad.adSystem { head += ", \(system)" }
        if let title = ad.title { head += ": \(title)" }
        head += " (line \(ad.line))"
        if let depth = ad.depth, depth > 0 { head += ", through \(depth) wrapper\(depth == 1 ? "" : "s")" }
        var lines = [head]
        let inner = indent + "  "
        if let uri = ad.adTagURI {
            var flags: [String] = []
            if ad.followAdditionalWrappers == false { flags.append("followAdditionalWrappers=false") }
            if ad.allowMultipleAds == true { flags.append("allowMultipleAds") }
            if ad.fallbackOnNoAd == true { flags.append("fallbackOnNoAd") }
            lines.append("\(inner)next: \(uri)\(flags.isEmpty ? "" : " (" + flags.joined(separator: ", ") + ")")")
        }
        for url in ad.impressions { lines.append("\(inner)impression: \(url)") }
        for url in ad.errorURLs { lines.append("\(inner)error URL: \(url)") }
        for vendor in ad.verifications { lines.append("\(inner)verification: \(vendor) (kept as data)") }
        for creative in ad.creatives {
            var line = "\(inner)creative \(creative.id.map { "\"\($0)\"" } ?? "(no id)") \(creative.kind)"
            if let duration = creative.duration { line += ", \(MediaTime(seconds: duration)) s" }
            if let skip = creative.skipOffset { line += ", skippable after \(skip)" }
            if !creative.universalAdIds.isEmpty {
                line += ", universal ad ID \(creative.universalAdIds.joined(separator: " "))"
            }
            if creative.kind == "nonlinear" { line += ", \(creative.nonLinears) non-linear (kept as data, not played)" }
            if creative.kind == "companion" { line += ", \(creative.companions) companions (kept as data, not played)" }
            lines.append(line)
            for file in creative.mediaFiles {
                var entry = "\(inner)  media \(file.type ?? "(no type)")"
                if let width = file.width, let height = file.height { entry += " \(width)x\(height)" }
                if let bitrate = file.bitrate { entry += " \(bitrate) kbit/s" }
                entry += " [\(file.usability)]: \(file.url)"
                lines.append(entry)
            }
            for event in creative.tracking {
                lines.append("\(inner)  tracking \(event.event)\(event.offset.map { " at \($0)" } ?? ""): \(event.url)")
            }
        }
        return lines
    }

    private static func text(_ report: ErrorReport, indent: String, what: String) -> [String] {
        var lines = [
            "\(indent)\(what): VAST error \(report.code) [\(report.reason)] at depth \(report.depth)"
                + (report.url.map { " (\($0))" } ?? "") + ": \(report.message)"
        ]
        for url in report.errorURLs { lines.append("\(indent)  would request: \(url)") }
        return lines
    }
}
