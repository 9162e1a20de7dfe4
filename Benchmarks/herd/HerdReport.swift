import Foundation

/// The figures of one `herd viewers` run, as text or JSON.
struct HerdReport {
    let viewers: Int
    /// Seconds of warm-up (polls without a session) at the start.
    let warmup: Double
    let counts: HerdResults.Counts
    /// Distinct playlist bodies parsed.
    let parses: Int
    /// Wall-clock seconds the run took, and the CPU seconds the viewers' process used in it.
    let seconds: Double
    let cpuSeconds: Double
    /// The ad server's `/stats`, if asked for.
    let adServer: [String: Any]?

    /// Every outcome, all breaks together.
    private var totals: [Outcome: Int] {
        var totals: [Outcome: Int] = [:]
        for outcomes in counts.outcomes.values {
            for (outcome, count) in outcomes { totals[outcome, default: 0] += count }
        }
        return totals
    }

    private var total: Int { totals.values.reduce(0, +) }

    private func share(_ outcome: Outcome) -> Double {
        total == 0 ? 0 : Double(totals[outcome] ?? 0) / Double(total) * 100
    }

    private var p50: Double { HerdResults.quantile(counts.latencies, 0.5) }
    private var p99: Double { HerdResults.quantile(counts.latencies, 0.99) }

    /// The ad server's decisions per break.
    private var adServerBreaks: [String: Int] { adServer?["breaks"] as? [String: Int] ?? [:] }

    /// The report for people.
    var text: String {
        var lines: [String] = []
        lines.append(
            "herd: \(viewers) viewers, \(counts.outcomes.count) break(s) counted, \(format(seconds, 0)) s"
                + (warmup > 0 ? " (the first \(format(warmup, 0)) s without sessions)" : ""))
        for id in Set(counts.outcomes.keys).union(counts.late.keys).union(counts.unreached.keys).sorted() {
            let outcomes = counts.outcomes[id] ?? [:]
            let listed = Outcome.allCases.map { "\($0.rawValue) \(outcomes[$0] ?? 0)" }.joined(separator: ", ")
            var line = "  \(id): \(outcomes.values.reduce(0, +)) viewers (\(listed))"
            line += "; joined late \(counts.late[id] ?? 0), not reached \(counts.unreached[id] ?? 0)"
            if let decisions = adServerBreaks[id] { line += "; ad server decisions \(decisions)" }
            lines.append(line)
        }
        lines.append(
            "filled by the ad server: \(format(share(.adServer), 1)) % (\(totals[.adServer] ?? 0) of \(total))")
        for outcome in [Outcome.fallback, .empty, .failed] {
            lines.append("\(outcome.rawValue): \(format(share(outcome), 1)) % (\(totals[outcome] ?? 0))")
        }
        lines.append(
            "asset-list requests: \(counts.latencies.count), p50 \(format(p50, 0)) ms, p99 \(format(p99, 0)) ms"
                + " (preloads \(counts.preloads), used \(counts.preloadsUsed), discarded \(counts.preloadsDiscarded),"
                + " hints not matching \(counts.hintsMismatched))")
        if let adServer {
            let breaks = adServerBreaks.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            lines.append(
                "ad server: peak \(adServer["peakPerSecond"] ?? "-")/s, total \(adServer["decisions"] ?? "-") decisions"
                    + " (\(breaks.joined(separator: ", "))), requests \(adServer["requests"] ?? "-"),"
                    + " longest queue \(adServer["maxQueue"] ?? "-")")
            if let requests = adServer["requests"] as? Int {
                lines.append("ad-server requests per viewer: \(format(Double(requests) / Double(max(1, viewers)), 2))")
            }
            if let asked = adServer["viewersAsked"] as? Int, let most = adServer["mostPerViewer"] as? Int,
                let twice = adServer["viewersAskedTwice"] as? Int,
                let mostPerBreak = adServer["mostPerViewerAndBreak"] as? Int
            {
                lines.append(
                    "ad server asked for \(asked) distinct viewers (sid): at most \(most) request(s) for one"
                        + " (\(mostPerBreak) for one viewer and one break), \(twice) viewer(s) asked for more than once"
                )
            }
        }
        lines.append(
            "playlist polls: \(counts.polls) (failed \(counts.pollFailures)), distinct playlists parsed \(parses)")
        lines.append(
            "viewers' CPU: \(format(cpuSeconds, 1)) s in \(format(seconds, 0)) s"
                + " (\(format(cpuSeconds / max(seconds, 0.001) * 100, 0)) % of one core)")
        return lines.joined(separator: "\n")
    }

    /// The report as one JSON object.
    var json: String {
        var object: [String: Any] = [
            "viewers": viewers, "warmupSeconds": warmup, "breaks": counts.outcomes.count, "total": total,
            "filledByAdServer": share(.adServer), "fallback": share(.fallback), "empty": share(.empty),
            "failed": share(.failed), "assetListRequests": counts.latencies.count, "p50Milliseconds": p50,
            "p99Milliseconds": p99, "preloads": counts.preloads, "preloadsUsed": counts.preloadsUsed,
            "preloadsDiscarded": counts.preloadsDiscarded, "hintsNotMatching": counts.hintsMismatched,
            "polls": counts.polls, "pollFailures": counts.pollFailures, "playlistsParsed": parses,
            "seconds": seconds, "cpuSeconds": cpuSeconds,
            "perBreak": counts.outcomes.mapValues { outcomes in
                Dictionary(uniqueKeysWithValues: Outcome.allCases.map { ($0.rawValue, outcomes[$0] ?? 0) })
            },
            "late": counts.late, "notReached": counts.unreached,
        ]
        if let adServer { object["adServer"] = adServer }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    private func format(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
}
