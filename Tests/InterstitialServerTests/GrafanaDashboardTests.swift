import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import Testing

@testable import InterstitialServer

/// deploy/grafana/hlsi-dashboard.json against the metric families the server really exports: every
/// family has a panel, and every panel expression names only families the server exports.
///
/// Most families appear in `/metrics` only once something happened (a VAST error, a shed request):
/// the test scrapes a real server after real traffic, then a server whose metrics saw one of each
/// recording, through the same route; and it reads the families `ServerMetrics.Name` declares, so
/// that a family added there without a recording here still needs its panel.
@Suite("Grafana dashboard")
struct GrafanaDashboardTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The dashboard's panels (rows left out) with the expressions of their queries.
    static func panels() throws -> [(title: String, expressions: [String])] {
        let data = try Data(contentsOf: root.appendingPathComponent("deploy/grafana/hlsi-dashboard.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = try #require(object["panels"] as? [[String: Any]])
        return panels.filter { $0["type"] as? String != "row" }.map { panel in
            let targets = panel["targets"] as? [[String: Any]] ?? []
            return (panel["title"] as? String ?? "", targets.compactMap { $0["expr"] as? String })
        }
    }

    /// The `hlsi_…` names in a PromQL expression.
    static func names(in expression: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: "hlsi_[a-z0-9_]+")
        let range = NSRange(expression.startIndex..., in: expression)
        return Set(
            pattern.matches(in: expression, range: range).compactMap { match in
                Range(match.range, in: expression).map { String(expression[$0]) }
            })
    }

    /// The family a sample name belongs to: itself, or a histogram's for its `_bucket`, `_sum`, `_count`.
    static func family(of name: String, types: [String: String]) -> String? {
        if types[name] != nil { return name }
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if types[base] == "histogram" { return base }
        }
        return nil
    }

    /// The families `ServerMetrics.Name` declares, read from its source: `name("x", "unit", …)` is
    /// `hlsi_x_unit` (`hlsi_x` without a unit).
    static func declaredFamilies() throws -> Set<String> {
        let source = try String(
            contentsOf: root.appendingPathComponent("Sources/InterstitialServer/Metrics/ServerMetrics.swift"),
            encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"name\(\s*"([a-z0-9_]+)",\s*"([a-z0-9_]*)""#)
        var families: Set<String> = []
        for match in pattern.matches(in: source, range: NSRange(source.startIndex..., in: source)) {
            guard let metric = Range(match.range(at: 1), in: source), let unit = Range(match.range(at: 2), in: source)
            else { continue }
            families.insert("hlsi_" + source[metric] + (source[unit].isEmpty ? "" : "_" + source[unit]))
        }
        return families
    }

    /// One of each recording, so that every family is in the exposition.
    static func everyRecording() -> ServerMetrics {
        let metrics = ServerMetrics()
        metrics.fastAnswered()
        metrics.assetListAnswered(target: "vod/demo", source: "vast", ads: 2, filled: true)
        metrics.vastDecision(target: "vod/demo", seconds: 0.2, requests: 2, errorCodes: [303], timedOut: true)
        metrics.adDecision(target: "vod/demo", path: "live")
        metrics.recordHeap()
        metrics.viewerSessions(count: 1, bytes: 100, playing: 1)
        metrics.prefetchCache(entries: 1, bytes: 100)
        metrics.standing(target: "live/demo", decisions: 1, expectedBreak: MediaTime(seconds: 30))
        metrics.prefetch(result: "unused")
        metrics.adServerGate("http://127.0.0.1:9", inFlight: 1, breaker: 0, perSecond: 100)
        metrics.adServerShed("http://127.0.0.1:9", reason: "queue")
        metrics.trackingSent(kind: "impression", ok: true)
        metrics.trackingDropped(kind: "relayed")
        metrics.beaconDropped(reason: "budget")
        metrics.beaconSeen(type: "start")
        metrics.scheduleLoad(result: "loaded")
        metrics.signalRefused(reason: "scte35-section")
        metrics.notice(outcome: "matched")
        metrics.stitchFallback(reason: "media")
        return metrics
    }

    @Test("every family the server exports has a panel, and every panel names exported families")
    func dashboardMatchesExports() async throws {
        let headers: HTTPFields = [.authorization: "Bearer \(Harness.token)"]
        // A real server after real traffic: a playlist, an asset list.
        let live = NIOLockedValueBox<[String: String]>([:])
        try await Harness.withServer { client in
            _ = try await client.get("/demo/vod/master.m3u8")
            let list = try await client.get("/demo/vod/asset-list.json?_HLS_interstitial_id=midroll-2")
            #expect(list.status == .ok)
            let text = try ExpositionText(try await client.get("/metrics", headers: headers).text)
            #expect(text.types["hlsi_asset_list_requests_total"] != nil, "the asset list was not counted")
            live.withLockedValue { $0 = text.types }
        }
        // The same route over metrics that saw every kind of recording.
        let recorded = NIOLockedValueBox<[String: String]>([:])
        try await MetricsRouteTests.withRoutes(try Harness.demo(), metrics: Self.everyRecording()) { client in
            let types = try ExpositionText(try await client.get("/metrics", headers: headers).text).types
            recorded.withLockedValue { $0 = types }
        }
        let full = recorded.withLockedValue { $0 }
        let declared = try Self.declaredFamilies()
        #expect(declared.count >= 20, "ServerMetrics.Name could not be read: \(declared)")
        var exported = full.merging(live.withLockedValue { $0 }) { first, _ in first }
        #expect(Set(exported.keys).isSubset(of: declared), "exported but not found in ServerMetrics.Name")
        // A family declared but not recorded above is still a family: it needs its panel.
        for family in declared where exported[family] == nil { exported[family] = "untyped" }
        #if canImport(Glibc)
            #expect(Set(full.keys) == declared, "a family of ServerMetrics.Name has no recording in this test")
        #endif

        var covered: Set<String> = []
        for panel in try Self.panels() {
            #expect(!panel.expressions.isEmpty, "panel \"\(panel.title)\" has no query")
            for expression in panel.expressions {
                let names = Self.names(in: expression)
                #expect(!names.isEmpty, "panel \"\(panel.title)\": \(expression) names no hlsi_ metric")
                for name in names {
                    let family = Self.family(of: name, types: exported)
                    #expect(family != nil, "panel \"\(panel.title)\": \(name) is not a family the server exports")
                    if let family { covered.insert(family) }
                }
            }
        }
        let missing = Set(exported.keys).subtracting(covered).sorted()
        #expect(missing.isEmpty, "families without a panel: \(missing)")
    }

    @Test("the dashboard's data source is the templated ${DS_PROMETHEUS} in every panel and query")
    func dataSource() throws {
        let data = try Data(contentsOf: Self.root.appendingPathComponent("deploy/grafana/hlsi-dashboard.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let inputs = try #require(object["__inputs"] as? [[String: Any]])
        #expect(
            inputs.contains { $0["name"] as? String == "DS_PROMETHEUS" && $0["pluginId"] as? String == "prometheus" })
        let templating = try #require((object["templating"] as? [String: Any])?["list"] as? [[String: Any]])
        #expect(
            templating.contains { $0["name"] as? String == "DS_PROMETHEUS" && $0["type"] as? String == "datasource" })
        let panels = try #require(object["panels"] as? [[String: Any]])
        for panel in panels where panel["type"] as? String != "row" {
            let title = panel["title"] as? String ?? ""
            #expect((panel["datasource"] as? [String: Any])?["uid"] as? String == "${DS_PROMETHEUS}", "\(title)")
            for target in panel["targets"] as? [[String: Any]] ?? [] {
                #expect((target["datasource"] as? [String: Any])?["uid"] as? String == "${DS_PROMETHEUS}", "\(title)")
            }
        }
    }
}
