import Foundation
import HLSInterstitials

/// The web page at `/` and its scripts under `/page/`: plays the server's VOD assets and live
/// channels and draws the integrated timeline with its interstitials.
///
/// The page (`Resources/page`) carries its own interstitial controller, which plays on the
/// browser's native HLS support (Safari, Chromium) with a primary and an interstitial `<video>`,
/// as the engine does; with `--hlsjs URL|FILE` it plays with hls.js instead. It says which player
/// it uses and why. For tests it keeps a trace of the player's interstitial events in
/// `window.trace`.
enum DemoPage {
    /// The folder of the page's files: the build's resources, or `HLSI_PAGE_DIRECTORY` (for working
    /// on the page without rebuilding).
    static var directory: String? {
        if let folder = ProcessInfo.processInfo.environment["HLSI_PAGE_DIRECTORY"], !folder.isEmpty { return folder }
        return Bundle.module.resourceURL?.appendingPathComponent("page").path
    }

    /// The page for `configuration`, with `hlsjs` the URL the page imports hls.js from (nil: none).
    static func html(configuration: ServerConfiguration, hlsjs: String?) -> String {
        var sources: [(String, String)] = []
        for content in configuration.vod { sources.append(("VOD \(content.id)", "\(content.path)/\(content.entry)")) }
        for content in configuration.live { sources.append(("Live \(content.id)", "\(content.path)/\(content.entry)")) }
        let options = sources.map { label, url in
            "<option value=\"\(escape(url))\">\(escape(label)) — \(escape(url))</option>"
        }.joined(separator: "\n    ")
        let config = JSONValue.object([
            "hlsjs": hlsjs.map(JSONValue.string) ?? .null,
            "hlsjsSource": configuration.hlsjs.map(JSONValue.string) ?? .null,
        ])
        return
            template
            .replacingOccurrences(of: "{{OPTIONS}}", with: options)
            .replacingOccurrences(of: "{{CONFIG}}", with: scriptSafe(config.description))
    }

    /// The page's HTML template.
    static let template: String = {
        guard let directory, let text = try? String(contentsOfFile: directory + "/index.html", encoding: .utf8) else {
            return "<!doctype html><title>hlsi serve</title><p>The page is missing from the build's resources.</p>"
        }
        return text
    }()

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// JSON that can stand inside a `<script>` element: no `</` closes it early.
    static func scriptSafe(_ json: String) -> String {
        json.replacingOccurrences(of: "</", with: "<\\/")
    }
}
