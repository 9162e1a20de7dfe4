import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `hlsi report`: the page's structure (not its pixels), parsed as XML, against a golden outline;
/// markup in the input stays text.
@Suite("hlsi report")
struct ReportCLITests {
    /// An element of the page, in document order.
    struct Element {
        var name: String
        var attributes: [String: String]
        var node: XMLElement

        var classes: Set<String> { Set((attributes["class"] ?? "").split(separator: " ").map(String.init)) }
        var text: String { node.stringValue ?? "" }
    }

    /// Every element of `html`, which must be well-formed XML (the page is XHTML-compatible).
    static func elements(_ html: String) throws -> [Element] {
        let document = try XMLDocument(data: Data(html.utf8), options: [])
        var result: [Element] = []
        func walk(_ node: XMLNode) {
            if let element = node as? XMLElement {
                var attributes: [String: String] = [:]
                for attribute in element.attributes ?? [] {
                    attributes[attribute.localName ?? attribute.name ?? ""] = attribute.stringValue ?? ""
                }
                result.append(
                    Element(name: element.localName ?? element.name ?? "", attributes: attributes, node: element))
            }
            for child in node.children ?? [] { walk(child) }
        }
        if let root = document.rootElement() { walk(root) }
        return result
    }

    static func descendants(of element: Element) -> [Element] {
        var result: [Element] = []
        func walk(_ node: XMLNode) {
            for child in node.children ?? [] {
                if let child = child as? XMLElement {
                    var attributes: [String: String] = [:]
                    for attribute in child.attributes ?? [] {
                        attributes[attribute.localName ?? attribute.name ?? ""] = attribute.stringValue ?? ""
                    }
                    result.append(
                        Element(name: child.localName ?? child.name ?? "", attributes: attributes, node: child))
                }
                walk(child)
            }
        }
        walk(element.node)
        return result
    }

    /// The outline the golden file holds: sections, headings, findings (severity, rule, location,
    /// whether the spec text and the line are there), resources checked, and per break the rows of
    /// its schedule and the SVG elements drawn.
    static func outline(_ elements: [Element], directory: String) -> String {
        var lines: [String] = []
        func clean(_ text: String) -> String {
            text.replacingOccurrences(of: directory, with: "DIR").split(whereSeparator: \.isWhitespace).joined(
                separator: " ")
        }
        for element in elements {
            switch element.name {
            case "section": lines.append("section #\(element.attributes["id"] ?? "")")
            case "h1", "h2", "h3", "h4": lines.append("  \(element.name): \(clean(element.text))")
            case "li" where element.classes.contains("finding"):
                let inner = descendants(of: element)
                let rule = element.attributes["data-rule"] ?? ""
                let severity = inner.first { $0.classes.contains("severity") }?.text ?? ""
                let location = inner.first { $0.classes.contains("where") }?.text ?? ""
                let spec = inner.contains { $0.classes.contains("spec") && !$0.text.isEmpty }
                let quoted = inner.contains { $0.classes.contains("line") }
                lines.append(
                    "  finding \(severity) [\(rule)] \(clean(location)) spec:\(spec ? "yes" : "no") line:\(quoted ? "yes" : "no")"
                )
            case "tr" where element.classes.isDisjoint(with: ["ok", "errors", "warnings", "failed"]) == false:
                let cells = descendants(of: element).filter { $0.name == "td" }.map { clean($0.text) }
                lines.append(
                    "  checked " + cells.prefix(3).joined(separator: " | ") + " | \(element.attributes["class"] ?? "")")
            case "div" where element.classes.contains("break"):
                let inner = descendants(of: element)
                let table = inner.first { $0.name == "table" && $0.classes.contains("schedule") }
                let rows = table.map { descendants(of: $0).filter { $0.name == "th" }.map(\.text) } ?? []
                let drawn = Dictionary(
                    grouping: inner.filter { ["rect", "line"].contains($0.name) && $0.attributes["class"] != nil }
                ) {
                    $0.attributes["class"] ?? ""
                }.map { "\($0.key)=\($0.value.count)" }.sorted()
                let assets = inner.filter { $0.name == "tr" && $0.classes.contains("asset") }.count
                lines.append("  break \(element.attributes["data-id"] ?? ""): rows \(rows.joined(separator: ", "))")
                lines.append("    svg \(drawn.joined(separator: " ")); asset rows \(assets)")
            case "svg":
                lines.append("  svg \(clean(element.attributes["aria-label"] ?? "timeline"))")
            default: break
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test("a presentation with errors: every finding with rule, spec text and line; each break drawn; exit 1")
    func presentation() async throws {
        let directory = try CLIPolishTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try CLIPolishTests.writePresentation(in: directory)
        let output = directory.appendingPathComponent("report.html")
        let run = try await CLITests.run([
            "report", directory.appendingPathComponent("master.m3u8").path, "-o", output.path,
        ])
        #expect(run.status == 1, "\(run.standardError)")
        #expect(run.standardError.contains("wrote the report"))
        let html = try String(contentsOf: output, encoding: .utf8)
        let elements = try Self.elements(html)
        let sections = elements.filter { $0.name == "section" }.compactMap { $0.attributes["id"] }
        #expect(sections == ["summary", "findings", "checked", "timeline"])

        // The same diagnostics as validate --recursive --format json.
        let validate = try await CLITests.run([
            "validate", "--recursive", "--format", "json", directory.appendingPathComponent("master.m3u8").path,
        ])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(validate.standardOutput.utf8)) as? [String: Any])
        let diagnostics = try #require(object["diagnostics"] as? [[String: Any]])
        let findings = elements.filter { $0.name == "li" && $0.classes.contains("finding") }
        #expect(findings.count == diagnostics.count)
        #expect(findings.map { $0.attributes["data-rule"] ?? "" } == diagnostics.map { $0["rule"] as? String ?? "" })
        for finding in findings {
            let inner = Self.descendants(of: finding)
            #expect(inner.contains { $0.classes.contains("spec") && !$0.text.isEmpty })
        }
        // At least one finding quotes its line with a caret.
        #expect(elements.contains { $0.classes.contains("line") && $0.text.contains("^") })

        let breaks = elements.filter { $0.name == "div" && $0.classes.contains("break") }
        #expect(breaks.map { $0.attributes["data-id"] ?? "" } == ["mid", "one"])
        for item in breaks {
            let inner = Self.descendants(of: item)
            #expect(inner.contains { $0.name == "svg" })
            #expect(inner.contains { $0.name == "line" && $0.attributes["class"] == "start" })
            let assetRects = inner.filter { $0.name == "rect" && $0.attributes["class"] == "asset" }.count
            let assetRows = inner.filter { $0.name == "tr" && $0.classes.contains("asset") }.count
            #expect(assetRects == assetRows && assetRects > 0, "\(item.attributes["data-id"] ?? "")")
        }
        // No script, no external resource.
        #expect(!elements.contains { ["script", "link", "img", "iframe", "object", "embed"].contains($0.name) })
        #expect(!elements.contains { $0.attributes.keys.contains { $0.hasPrefix("on") } })
        #expect(!elements.contains { ($0.attributes["href"] ?? $0.attributes["src"]) != nil })
        try CLITests.golden("report-structure.txt", Self.outline(elements, directory: directory.path))
    }

    @Test("markup in the playlist stays text: no element, attribute or entity gets through")
    func injection() async throws {
        let directory = try CLIPolishTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let playlist =
            "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-PLAYLIST-TYPE:VOD\n"
            + "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
            + "#EXT-X-DATERANGE:ID=\"<script>alert(1)</script>\",CLASS=\"com.apple.hls.interstitial\","
            + "START-DATE=\"2026-01-01T00:00:06.000Z\",DURATION=5,"
            + "X-ASSET-URI=\"https://ads.example.com/'><img src=x onerror=alert(2)>&amp;.m3u8\"\n"
            + "#EXT-X-DATERANGE:ID=\"x\u{1B}]0;t\u{07}\",START-DATE=\"2026-01-01T00:00:01.000Z\",X-A=\"</pre><svg onload=alert(3)>\"\n"
            + "#EXTINF:6.000,\n<b>s0</b>.ts\n#EXTINF:9.000,\ns1.ts\n#EXT-X-ENDLIST\n"
        let file = directory.appendingPathComponent("<evil>.m3u8")
        try Data(playlist.utf8).write(to: file)
        let output = directory.appendingPathComponent("report.html")
        let run = try await CLITests.run(["report", file.path, "-o", output.path])
        #expect(run.status == 1, "\(run.standardError)")
        let html = try String(contentsOf: output, encoding: .utf8)
        let elements = try Self.elements(html)
        #expect(!elements.contains { ["script", "img", "b"].contains($0.name) })
        #expect(!elements.contains { $0.attributes.keys.contains { $0.hasPrefix("on") } })
        #expect(elements.filter { $0.name == "svg" }.allSatisfy { $0.attributes["onload"] == nil })
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&#39;&gt;&lt;img src=x onerror=alert(2)&gt;&amp;amp;.m3u8"))
        #expect(!html.contains("\u{1B}") && !html.contains("\u{07}"))
        let breaks = elements.filter { $0.classes.contains("break") }
        #expect(breaks.map { $0.attributes["data-id"] } == ["<script>alert(1)</script>"])
    }

    @Test("a playlist that cannot be loaded: the report still says why; exit 2; an unwritable output: exit 2")
    func failures() async throws {
        let directory = try CLIPolishTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("report.html")
        let missing = try await CLITests.run([
            "report", directory.appendingPathComponent("none.m3u8").path, "-o", output.path,
        ])
        #expect(missing.status == 2)
        let elements = try Self.elements(try String(contentsOf: output, encoding: .utf8))
        #expect(elements.contains { $0.attributes["data-rule"] == "load-file-unreadable" })
        #expect(elements.contains { $0.name == "tr" && $0.classes.contains("failed") })

        let unwritable = try await CLITests.run([
            "report", "Tests/Fixtures/playlists/interstitials-vod.m3u8", "-o", directory.path + "/no/such/dir/r.html",
        ])
        #expect(unwritable.status == 2)
        #expect(unwritable.standardError.contains("cannot write"))
        let usage = try await CLITests.run(["report", "Tests/Fixtures/playlists/vod-basic.m3u8"])
        #expect(usage.status == 2)
        let sample = try await CLITests.run(["report", "x.m3u8", "-o", output.path, "--sample", "2"])
        #expect(sample.status == 2)
        #expect(sample.standardError.contains("--sample applies only with --media"))
    }

    @Test("--media: each measured playlist drawn with its gaps and overlaps; --play: the trace as a timeline")
    func mediaAndPlay() async throws {
        let directory = try CLIPolishTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("report.html")
        let run = try await CLITests.run([
            "report", "Tests/Fixtures/media-validation/fmp4.m3u8", "-o", output.path, "--media",
        ])
        #expect(run.status <= 1, "\(run.standardError)")
        let elements = try Self.elements(try String(contentsOf: output, encoding: .utf8))
        #expect(elements.filter { $0.name == "section" }.compactMap { $0.attributes["id"] }.contains("media"))
        let measured = elements.filter { $0.classes.contains("measured") }
        #expect(!measured.isEmpty)
        for playlist in measured {
            #expect(
                Self.descendants(of: playlist).contains { $0.name == "rect" && $0.attributes["class"] == "segment" })
        }

        let (server, base, log) = try await ServeCLITests.startServer()
        defer {
            if server.isRunning { server.terminate() }
            try? FileManager.default.removeItem(at: log)
        }
        let played = try await CLITests.run([
            "report", base + "/demo/vod/master.m3u8", "-o", output.path, "--play", "--media", "--sample", "1",
            "--no-beacons",
        ])
        #expect(played.status <= 1, "\(played.standardError)")
        let page = try Self.elements(try String(contentsOf: output, encoding: .utf8))
        let playback = try #require(page.first { $0.attributes["id"] == "playback" })
        let inner = Self.descendants(of: playback)
        #expect(inner.contains { $0.name == "rect" && $0.attributes["class"] == "interstitial" })
        #expect(inner.contains { $0.name == "rect" && $0.attributes["class"] == "transition" })
        #expect(inner.contains { $0.name == "tr" && $0.classes.contains("interstitialStarted") })
    }
}
