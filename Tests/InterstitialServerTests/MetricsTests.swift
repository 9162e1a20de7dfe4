import Testing

@testable import InterstitialServer

/// A reader of the Prometheus text exposition format 0.0.4, strict enough to catch what a
/// scraper would refuse: every sample belongs to a family announced by `# TYPE`, names and label
/// names are valid, label values are quoted, and values are numbers.
struct ExpositionText {
    struct Failure: Error, CustomStringConvertible {
        var line: Int
        var message: String
        var description: String { "line \(line): \(message)" }
    }

    /// The `# TYPE` of each family.
    var types: [String: String] = [:]
    /// The `# HELP` of each family.
    var help: [String: String] = [:]
    /// Each sample's value, keyed by `name{label="value",…}` with the labels sorted by name.
    var samples: [String: Double] = [:]

    init(_ text: String) throws {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let parts = line.split(separator: " ", maxSplits: 3).map(String.init)
                guard parts.count >= 3, parts[0] == "#", Self.isMetricName(parts[2]) else {
                    throw Failure(line: number, message: "bad comment \"\(line)\"")
                }
                switch parts[1] {
                case "TYPE":
                    guard parts.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3])
                    else { throw Failure(line: number, message: "bad TYPE \"\(line)\"") }
                    guard types[parts[2]] == nil else { throw Failure(line: number, message: "TYPE repeated") }
                    types[parts[2]] = parts[3]
                case "HELP":
                    help[parts[2]] = parts.count == 4 ? parts[3] : ""
                default:
                    throw Failure(line: number, message: "unknown comment \"\(line)\"")
                }
                continue
            }
            let (name, labels, rest) = try Self.sample(Substring(line), line: number)
            guard let valueText = rest.split(separator: " ").first, let value = Double(valueText) else {
                throw Failure(line: number, message: "no value in \"\(line)\"")
            }
            guard family(of: name) != nil else {
                throw Failure(line: number, message: "\(name) has no # TYPE before it")
            }
            let key = Self.key(name, labels)
            guard samples[key] == nil else { throw Failure(line: number, message: "\(key) repeated") }
            samples[key] = value
        }
    }

    /// The family a sample name belongs to (a histogram's `_bucket`, `_sum` and `_count` included).
    func family(of name: String) -> String? {
        if types[name] != nil { return name }
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if types[base] == "histogram" { return base }
        }
        return nil
    }

    /// The value of `name` with exactly `labels`, if present.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples[Self.key(name, labels)]
    }

    /// The label values of `label` across the samples of `name`.
    func labelValues(_ name: String, _ label: String) -> Set<String> {
        var values: Set<String> = []
        for key in samples.keys where key.hasPrefix(name + "{") {
            let marker = "\(label)=\""
            guard let start = key.range(of: marker)?.upperBound,
                let end = key[start...].firstIndex(of: "\"")
            else { continue }
            values.insert(String(key[start..<end]))
        }
        return values
    }

    static func key(_ name: String, _ labels: [String: String]) -> String {
        if labels.isEmpty { return name }
        return name + "{" + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ",")
            + "}"
    }

    static func isMetricName(_ name: some StringProtocol) -> Bool {
        guard let first = name.first, first.isLetter || first == "_" || first == ":" else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") }
    }

    static func isLabelName(_ name: some StringProtocol) -> Bool {
        guard let first = name.first, first.isLetter || first == "_" else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }

    /// Reads `name{label="value",…} ` up to the value.
    private static func sample(_ line: Substring, line number: Int) throws -> (String, [String: String], Substring) {
        guard let end = line.firstIndex(where: { $0 == "{" || $0 == " " }) else {
            throw Failure(line: number, message: "no value in \"\(line)\"")
        }
        let name = String(line[..<end])
        guard isMetricName(name) else { throw Failure(line: number, message: "bad metric name \"\(name)\"") }
        var labels: [String: String] = [:]
        var index = end
        if line[index] == "{" {
            index = line.index(after: index)
            while line[index] != "}" {
                guard let equals = line[index...].firstIndex(of: "=") else {
                    throw Failure(line: number, message: "label without =")
                }
                let label = String(line[index..<equals])
                guard isLabelName(label), labels[label] == nil else {
                    throw Failure(line: number, message: "bad or repeated label name \"\(label)\"")
                }
                index = line.index(after: equals)
                guard index < line.endIndex, line[index] == "\"" else {
                    throw Failure(line: number, message: "label value not quoted")
                }
                index = line.index(after: index)
                var value = ""
                while index < line.endIndex, line[index] != "\"" {
                    if line[index] == "\\" {
                        index = line.index(after: index)
                        guard index < line.endIndex else { break }
                        value.append(line[index] == "n" ? "\n" : line[index])
                    } else {
                        value.append(line[index])
                    }
                    index = line.index(after: index)
                }
                guard index < line.endIndex else { throw Failure(line: number, message: "unterminated label value") }
                labels[label] = value
                index = line.index(after: index)
                guard index < line.endIndex else { throw Failure(line: number, message: "unterminated labels") }
                if line[index] == "," { index = line.index(after: index) }
            }
            index = line.index(after: index)
        }
        guard index < line.endIndex, line[index] == " " else {
            throw Failure(line: number, message: "no space before the value")
        }
        return (name, labels, line[line.index(after: index)...])
    }
}

@Suite("Server metrics")
struct MetricsTests {
    @Test("a new registry renders only the fast answers' count, at 0")
    func empty() throws {
        let text = try ExpositionText(ServerMetrics().renderText())
        #expect(text.samples == ["hlsi_fast_answers_total": 0])
        #expect(text.types == ["hlsi_fast_answers_total": "counter"])
    }

    @Test("every family has HELP and TYPE, and every name is prefixed hlsi_")
    func format() throws {
        let metrics = ServerMetrics()
        metrics.assetListAnswered(target: "vod/demo", source: "vast", ads: 3, filled: true)
        metrics.vastDecision(target: "vod/demo", seconds: 0.2, requests: 2, errorCodes: [303], timedOut: true)
        metrics.trackingSent(kind: "impression", ok: true)
        metrics.beaconSeen(type: "start")
        let text = try ExpositionText(metrics.renderText())
        let expected: [String: String] = [
            "hlsi_asset_list_requests_total": "counter", "hlsi_asset_list_filled_total": "counter",
            "hlsi_asset_list_ads_total": "counter", "hlsi_vast_request_duration_seconds": "histogram",
            "hlsi_vast_requests_total": "counter", "hlsi_vast_errors_total": "counter",
            "hlsi_vast_timeouts_total": "counter", "hlsi_tracking_requests_total": "counter",
            "hlsi_beacons_seen_total": "counter", "hlsi_fast_answers_total": "counter",
        ]
        #expect(text.types == expected)
        #expect(Set(text.help.keys) == Set(expected.keys))
        #expect(text.help.values.allSatisfy { !$0.isEmpty })
    }

    @Test("asset-list counts add up: requests, fills (a fill rate) and ads per target and source")
    func assetLists() throws {
        let metrics = ServerMetrics()
        let answers: [(String, String, Int, Bool)] = [
            ("vod/demo", "vast", 3, true), ("vod/demo", "vast", 0, false), ("vod/demo", "vast", 2, true),
            ("vod/demo", "inventory", 1, true), ("live/news", "vast", 0, false),
        ]
        for (target, source, ads, filled) in answers {
            metrics.assetListAnswered(target: target, source: source, ads: ads, filled: filled)
        }
        let text = try ExpositionText(metrics.renderText())
        for target in ["vod/demo", "live/news"] {
            for source in ["vast", "inventory"] {
                let mine = answers.filter { $0.0 == target && $0.1 == source }
                let labels = ["target": target, "source": source]
                if mine.isEmpty {
                    #expect(text.value("hlsi_asset_list_requests_total", labels) == nil)
                    continue
                }
                #expect(text.value("hlsi_asset_list_requests_total", labels) == Double(mine.count))
                #expect(text.value("hlsi_asset_list_filled_total", labels) == Double(mine.filter(\.3).count))
                #expect(text.value("hlsi_asset_list_ads_total", labels) == Double(mine.map(\.2).reduce(0, +)))
            }
        }
        // An unfilled target still has a filled series, at 0, so the fill rate is defined.
        #expect(text.value("hlsi_asset_list_filled_total", ["target": "live/news", "source": "vast"]) == 0)
    }

    @Test("VAST decisions: histogram buckets, documents fetched, errors by code, timeouts")
    func vastDecisions() throws {
        let metrics = ServerMetrics()
        let decisions: [(Double, Int, [Int], Bool)] = [
            (0.04, 1, [], false), (0.3, 2, [303], false), (1.0, 3, [301, 303], true), (2.0, 1, [], true),
        ]
        for (seconds, requests, codes, timedOut) in decisions {
            metrics.vastDecision(
                target: "live/news", seconds: seconds, requests: requests, errorCodes: codes, timedOut: timedOut)
        }
        let text = try ExpositionText(metrics.renderText())
        let target = ["target": "live/news"]
        let name = "hlsi_vast_request_duration_seconds"
        #expect(text.value(name + "_count", target) == Double(decisions.count))
        let sum = try #require(text.value(name + "_sum", target))
        #expect(abs(sum - decisions.map(\.0).reduce(0, +)) < 1e-9)
        for bound in ServerMetrics.vastBuckets {
            let expected = decisions.filter { $0.0 <= bound }.count
            let label = text.samples.keys.first {
                $0.hasPrefix(name + "_bucket{") && $0.contains("target=\"live/news\"")
                    && (Double($0.split(separator: "le=\"").last?.split(separator: "\"").first ?? "") == bound)
            }
            let key = try #require(label, "no bucket le=\(bound)")
            #expect(text.samples[key] == Double(expected), "le=\(bound)")
        }
        #expect(text.value(name + "_bucket", ["target": "live/news", "le": "+Inf"]) == Double(decisions.count))
        #expect(text.value("hlsi_vast_requests_total", target) == 7)
        #expect(text.value("hlsi_vast_errors_total", ["target": "live/news", "code": "303"]) == 2)
        #expect(text.value("hlsi_vast_errors_total", ["target": "live/news", "code": "301"]) == 1)
        #expect(text.value("hlsi_vast_timeouts_total", target) == 2)
    }

    @Test("a target with decisions but no timeout shows 0 timeouts")
    func zeroTimeouts() throws {
        let metrics = ServerMetrics()
        metrics.vastDecision(target: "vod/demo", seconds: 0.1, requests: 1, errorCodes: [], timedOut: false)
        let text = try ExpositionText(metrics.renderText())
        #expect(text.value("hlsi_vast_timeouts_total", ["target": "vod/demo"]) == 0)
        #expect(text.labelValues("hlsi_vast_errors_total", "code").isEmpty)
    }

    @Test(
        "VAST error codes outside 100...999 count as other",
        arguments: [
            (100, "100"), (999, "999"), (303, "303"), (99, "other"), (1000, "other"), (-1, "other"),
            (Int.max, "other"),
        ]
    )
    func codes(code: Int, label: String) throws {
        let metrics = ServerMetrics()
        metrics.vastDecision(target: "vod/demo", seconds: 0.1, requests: 1, errorCodes: [code], timedOut: false)
        let text = try ExpositionText(metrics.renderText())
        #expect(text.value("hlsi_vast_errors_total", ["target": "vod/demo", "code": label]) == 1)
        #expect(text.labelValues("hlsi_vast_errors_total", "code") == [label])
    }

    @Test("values outside each closed set count as other, however many different ones arrive")
    func closedSets() throws {
        let metrics = ServerMetrics()
        for index in 0..<50 {
            metrics.assetListAnswered(target: "vod/demo", source: "src\(index)", ads: 1, filled: true)
            metrics.trackingSent(kind: "kind\(index)", ok: index.isMultiple(of: 2))
            metrics.beaconSeen(type: "type\(index)\"}\n")
        }
        metrics.assetListAnswered(target: "vod/demo\"} 1\nevil", source: "vast", ads: 1, filled: true)
        metrics.assetListAnswered(target: "../etc", source: "inventory", ads: 1, filled: false)
        metrics.trackingSent(kind: "error", ok: false)
        metrics.beaconSeen(type: "firstQuartile")
        let text = try ExpositionText(metrics.renderText())
        #expect(text.labelValues("hlsi_asset_list_requests_total", "source") == ["other", "vast", "inventory"])
        #expect(text.labelValues("hlsi_asset_list_requests_total", "target") == ["vod/demo", "other"])
        #expect(text.value("hlsi_asset_list_requests_total", ["target": "vod/demo", "source": "other"]) == 50)
        #expect(text.labelValues("hlsi_tracking_requests_total", "kind") == ["other", "error"])
        #expect(text.value("hlsi_tracking_requests_total", ["kind": "other", "result": "ok"]) == 25)
        #expect(text.value("hlsi_tracking_requests_total", ["kind": "other", "result": "failed"]) == 25)
        #expect(text.value("hlsi_tracking_requests_total", ["kind": "error", "result": "failed"]) == 1)
        #expect(text.labelValues("hlsi_beacons_seen_total", "type") == ["other", "firstQuartile"])
        #expect(text.value("hlsi_beacons_seen_total", ["type": "other"]) == 50)
    }

    @Test("at most targetLimit distinct targets get their own series; the rest count as other")
    func targetLimit() throws {
        let metrics = ServerMetrics()
        let count = MetricLabels.targetLimit + 5
        for index in 0..<count {
            metrics.assetListAnswered(target: "live/channel\(index)", source: "vast", ads: 0, filled: false)
        }
        metrics.assetListAnswered(target: "live/channel0", source: "vast", ads: 0, filled: false)
        let text = try ExpositionText(metrics.renderText())
        let targets = text.labelValues("hlsi_asset_list_requests_total", "target")
        #expect(targets.count == MetricLabels.targetLimit + 1)
        #expect(text.value("hlsi_asset_list_requests_total", ["target": "other", "source": "vast"]) == 5)
        #expect(text.value("hlsi_asset_list_requests_total", ["target": "live/channel0", "source": "vast"]) == 2)
    }

    @Test("negative counts and durations are not subtracted; odd durations stay finite")
    func bounds() throws {
        let metrics = ServerMetrics()
        metrics.assetListAnswered(target: "vod/demo", source: "vast", ads: -4, filled: false)
        for seconds in [-1, Double.nan, Double.infinity] {
            metrics.vastDecision(target: "vod/demo", seconds: seconds, requests: -2, errorCodes: [], timedOut: false)
        }
        let text = try ExpositionText(metrics.renderText())
        #expect(text.value("hlsi_asset_list_ads_total", ["target": "vod/demo", "source": "vast"]) == 0)
        #expect(text.value("hlsi_vast_requests_total", ["target": "vod/demo"]) == 0)
        #expect(text.value("hlsi_vast_request_duration_seconds_sum", ["target": "vod/demo"]) == 3600)
        #expect(text.value("hlsi_vast_request_duration_seconds_count", ["target": "vod/demo"]) == 3)
    }

    @Test("the reader refuses what a scraper would refuse")
    func readerFails() {
        for bad in [
            "hlsi_x_total 1", "# TYPE hlsi_x_total counter\nhlsi_x_total{a=b} 1",
            "# TYPE hlsi_x_total counter\nhlsi_x_total{a=\"b\"}", "# TYPE hlsi_x_total nonsense",
            "# TYPE hlsi_x_total counter\nhlsi_x_total 1\nhlsi_x_total 2",
        ] {
            #expect(throws: ExpositionText.Failure.self, "\(bad)") { try ExpositionText(bad) }
        }
    }
}
