import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import InterstitialServer

/// The operations console's files (`/console`) and the admin routes it reads besides the catalog's
/// (`targets`, `served`).
@Suite("Operations console: its files and the admin routes it reads")
struct ConsoleRouteTests {
    @Test("/console and its files: public, revalidated, under a content policy of their own origin only")
    func files() async throws {
        try await Harness.withServer { client in
            let page = try await client.get("/console")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.cacheControl] == CachePolicy.revalidate)
            #expect(page.headers[HTTPField.Name("Content-Security-Policy")!] == Routes.consolePolicy)
            #expect(Routes.consolePolicy.hasPrefix("default-src 'self';"))
            #expect(page.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            // No inline script: every script is a file of the console's.
            #expect(page.text.contains("<script type=\"module\" src=\"/console/console.mjs\"></script>"))
            #expect(!page.text.contains("<script>") && !page.text.contains("style="))
            for (name, type) in [
                ("console.mjs", "text/javascript; charset=utf-8"), ("metrics.mjs", "text/javascript; charset=utf-8"),
                ("console.css", "text/css; charset=utf-8"),
            ] {
                let file = try await client.get("/console/" + name)
                #expect(file.status == .ok, "\(name)")
                #expect(file.headers[.contentType] == type)
                #expect(file.headers[HTTPField.Name("Content-Security-Policy")!] == Routes.consolePolicy)
                // Nothing from another origin: no URL with a scheme in the console's code.
                #expect(!file.text.contains("http://") && !file.text.contains("https://"), "\(name)")
            }
            for name in ["missing.mjs", ".hidden.mjs", "..%2Fpage%2Fpage.mjs", "index.txt"] {
                #expect(try await client.get("/console/" + name).status == .notFound, "\(name)")
            }
            let tagged = try #require(page.headers[.eTag])
            let again = try await client.get("/console", headers: [.ifNoneMatch: tagged])
            #expect(again.status == .notModified)
        }
    }

    @Test("GET /admin/v1/targets: every target with its schedule and what fills its breaks")
    func targets() async throws {
        let configuration = try Harness.demo()
        try await Harness.withServer(configuration) { client in
            let schedule =
                #"{"target":"live/demo","cadence":{"every":60,"duration":10},"#
                + #""adServer":{"vast":"http://127.0.0.1:9/vast"}}"#
            #expect(try await client.admin(.put, "schedules/live/demo", schedule).status == .ok)
            let response = try await client.admin(.get, "targets")
            #expect(response.status == .ok)
            guard case .object(let root)? = response.json, case .array(let targets)? = root["targets"] else {
                Issue.record("no targets: \(response.text)")
                return
            }
            let byTarget = Dictionary(
                uniqueKeysWithValues: targets.compactMap { item -> (String, [String: JSONValue])? in
                    guard case .object(let fields) = item, case .string(let target)? = fields["target"] else {
                        return nil
                    }
                    return (target, fields)
                })
            #expect(Set(byTarget.keys).isSuperset(of: ["vod/demo", "live/demo"]))
            #expect(targets.count == configuration.vod.count + configuration.live.count)
            let live = try #require(byTarget["live/demo"])
            #expect(live["kind"] == .string("live"))
            #expect(live["url"] == .string("/demo/live/master.m3u8"))
            #expect(live["adServerFrom"] == .string("schedule"))
            #expect(live["windowSegments"] != nil)
            #expect(live["epoch"] == .string(ServerConfiguration.defaultEpoch.iso8601))
            guard case .object(let server)? = live["adServer"] else {
                Issue.record("no ad server")
                return
            }
            #expect(server["vast"] == .string("http://127.0.0.1:9/vast"))
            #expect(byTarget["vod/demo"]?["adServer"] == nil, "the demo VOD fills from the inventory")
            #expect(try await client.admin(.get, "targets", token: nil).status == .unauthorized)
        }
    }

    @Test("GET /admin/v1/served: the date ranges as first served, with an early return's limit")
    func served() async throws {
        let clock = TestClock(ServerConfiguration.defaultEpoch + MediaTime(seconds: 86_400 + 3.3))
        try await Harness.withServer(clock: clock) { client in
            let none = try await client.admin(.get, "served?target=live/demo")
            #expect(none.status == .ok)
            #expect(none.json == .object(["served": .array([]), "total": .integer(0)]), "\(none.text)")
            let started = try await client.admin(.post, "channels/demo/breaks", #"{"duration":30,"id":"live-now"}"#)
            #expect(started.status == .created, "\(started.text)")
            _ = try await client.text("/demo/live/video/main.m3u8")
            clock.advance(7.25)
            #expect(try await client.admin(.post, "channels/demo/return").status == .ok)
            let response = try await client.admin(.get, "served?target=live/demo")
            guard case .object(let root)? = response.json, case .array(let served)? = root["served"] else {
                Issue.record("no served list: \(response.text)")
                return
            }
            let entry = served.first {
                if case .object(let fields) = $0 { return fields["id"] == .string("live-now") }
                return false
            }
            guard case .object(let fields)? = entry else {
                Issue.record("live-now is not listed: \(response.text)")
                return
            }
            #expect(fields["target"] == .string("live/demo"))
            #expect(fields["startDate"] == .string("2026-01-02T00:00:02.000Z"))
            #expect(fields["playoutLimit"]?.description == "8.55")
            #expect(fields["plannedDuration"]?.description == "30")
            #expect(fields["withdrawn"] == .bool(false))
            #expect(fields["stored"] == .bool(true))
            guard case .object(let attributes)? = fields["attributes"] else {
                Issue.record("no attributes")
                return
            }
            #expect(attributes["PLANNED-DURATION"] == .string("30"))
            let all = try await client.admin(.get, "served")
            #expect(all.text.contains("\"live-now\""))
            #expect(
                try await client.admin(.get, "served?target=vod/demo").json
                    == .object(["served": .array([]), "total": .integer(0)]))
            // The latest first, at most `limit` of them.
            let one = try await client.admin(.get, "served?target=live/demo&limit=1")
            guard case .object(let limited)? = one.json, case .array(let first)? = limited["served"],
                case .integer(let total)? = limited["total"]
            else {
                Issue.record("no served list: \(one.text)")
                return
            }
            #expect(first.count == 1 && total == Int64(served.count) && total >= 1, "\(one.text)")
            #expect(first.first == served.first)
            for bad in ["0", "1001", "x", "+5", "%2B5", "-0", "05000"] {
                let refused = try await client.admin(.get, "served?limit=" + bad)
                #expect(refused.status == .badRequest && refused.errorPath == "limit", "\(bad): \(refused.text)")
            }
        }
    }
}
