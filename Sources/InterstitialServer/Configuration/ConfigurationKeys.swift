import HLSInterstitials

/// Every key a configuration file may have, object by object: the lists
/// ``ServerConfiguration/decode(_:base:)`` checks a file against before it reads any value, so a
/// misspelt key (`"upstrem"`) is refused as unknown, with the keys its object takes, before any
/// other error.
///
/// The decoders of the objects read exactly these keys (a key they read that is not listed is
/// refused here; a listed key they do not read is refused by their own ``JSONReader/finish(known:allowing:)``).
/// docs/configuration.md and docs/configuration.schema.json document them; a test holds the three
/// in step.
package enum ConfigurationKeys {
    /// An object of the file: its name (as docs/configuration.md and the schema's `$defs` call it)
    /// and its keys.
    package struct Object: Sendable {
        /// The name, such as `vod` or `adServer.breaker`; `configuration` for the file itself.
        package var name: String
        /// The keys it takes, in the order they are documented.
        package var keys: [String]
        /// The keys whose values are objects (or arrays of objects) described here too: key → object name.
        package var children: [String: String] = [:]
    }

    /// The name of the file's top-level object.
    package static let root = "configuration"

    /// Every object of a configuration file with its keys. The `seed` lists hold admin API bodies
    /// (ads, schedules, breaks), whose keys the admin API's decoders check.
    package static let objects: [Object] = [
        Object(
            name: root,
            keys: [
                "host", "port", "publicURL", "database", "adminToken", "hlsjs", "allowedOrigins", "trustedProxies",
                "vod", "live", "ads", "creativeCache", "creativeCacheMegabytes", "assetListDeadline",
                "stitchedUserAgents",
                "limits", "adServerFetch", "seed",
            ],
            children: [
                "vod": "vod", "live": "live", "limits": "limits", "adServerFetch": "adServerFetch", "seed": "seed",
            ]),
        Object(
            name: "vod",
            keys: ["id", "path", "directory", "upstream", "entry", "interstitials", "flattenSchedules", "adServer"],
            children: ["adServer": "adServer"]),
        Object(
            name: "live",
            keys: [
                "id", "path", "loop", "upstream", "entry", "epoch", "windowSegments", "lookahead", "signals",
                "keepSignals", "snapSignals", "signalInserter", "interstitials", "flattenSchedules", "adServer",
            ],
            children: ["adServer": "adServer", "signalInserter": "signalInserter"]),
        Object(
            name: "adServer",
            keys: [
                "vast", "vmap", "vmapBreakDuration", "tracking", "maxWrapperDepth", "maxConcurrent", "maxPerSecond",
                "breaker", "slate", "maxFillSegments", "preload", "prefetch", "rateLearning",
            ],
            children: [
                "breaker": "adServer.breaker", "preload": "adServer.preload", "prefetch": "adServer.prefetch",
                "rateLearning": "adServer.rateLearning",
            ]),
        Object(name: "adServer.breaker", keys: ["failures", "window", "coolDown"]),
        Object(name: "adServer.preload", keys: ["endsBefore", "minimum", "maximum"]),
        Object(name: "adServer.prefetch", keys: ["window", "expectedBreak", "refresh", "learnFrom"]),
        Object(name: "adServer.rateLearning", keys: ["initial", "minimum", "maximum"]),
        Object(name: "signalInserter", keys: ["every", "duration", "offset", "form", "lead"]),
        Object(
            name: "limits",
            keys: [
                "adminBodyBytes", "handoffBodyBytes", "requestLineBytes", "headerBytes", "headerCount",
                "headerTimeout", "idleTimeout", "bodyTimeout", "maxConnections", "maxConnectionsPerPeer",
                "upstreamTimeout", "upstreamTransferTimeout", "upstreamPlaylistReuse", "servedRecordTimeout",
                "upstreamConcurrency", "upstreamPlaylistBytes", "upstreamFileBytes", "handoffSessions",
                "handoffExpiry", "viewerIDBytes", "ledgerEntries", "ledgerBytes", "viewerExpiry",
                "viewerStoreTimeout", "breaksPerTarget", "inventoryAds", "noticesPerChannel", "noticeTolerance",
                "beaconLifetime", "beaconsPerAddress",
                "beaconsPerViewer", "conditioningTimeout", "conditioningCPUSeconds", "adDecisionRequests",
                "adDecisionBytes", "prefetchSessionIdle", "prefetchPlayingSpan", "prefetchSessions",
                "prefetchSessionBytes",
                "prefetchDecisions", "prefetchBytes", "standingDecisions", "stitchedViewers", "stitchedViewerBytes",
                "stitchedViewerIdle",
            ]),
        Object(name: "adServerFetch", keys: ["allowPrivate", "allow", "deny"]),
        Object(name: "seed", keys: ["inventory", "schedules", "breaks"]),
    ]

    /// ``objects`` by name.
    package static let byName: [String: Object] = Dictionary(uniqueKeysWithValues: objects.map { ($0.name, $0) })

    /// Every `object.key` of the file, such as `vod.directory` (`configuration.host` for the top level).
    package static var qualifiedKeys: Set<String> {
        Set(objects.flatMap { object in object.keys.map { "\(object.name).\($0)" } })
    }

    /// Refuses the first key of `value` (depth first, keys in sorted order) that its object does not
    /// take, naming its JSON path, the keys the object takes and the nearest one.
    package static func check(_ value: JSONValue) throws(APIError) {
        try check(value, object: root, path: "")
    }

    private static func check(_ value: JSONValue, object name: String, path: String) throws(APIError) {
        guard case .object(let fields) = value, let object = byName[name] else { return }
        let known = Set(object.keys)
        for key in fields.keys.sorted() {
            let at = path.isEmpty ? key : "\(path).\(key)"
            guard known.contains(key) else {
                let nearest = nearestKey(to: key, in: object.keys).map { "did you mean \"\($0)\"? " } ?? ""
                throw .badRequest(
                    code: .config, path: at,
                    "unknown key: \(nearest)\(name == root ? "the file" : "this object (\(name))") takes \(object.keys.joined(separator: ", ")) (docs/configuration.md)"
                )
            }
        }
        for key in fields.keys.sorted() {
            guard let child = object.children[key], let member = fields[key] else { continue }
            let at = path.isEmpty ? key : "\(path).\(key)"
            if case .array(let items) = member {
                for (index, item) in items.enumerated() { try check(item, object: child, path: "\(at)[\(index)]") }
            } else {
                try check(member, object: child, path: at)
            }
        }
    }

    /// The known key closest to `key` when it is a likely misspelling: the same letters in another
    /// case, or at most 2 edits away (keys over 64 bytes are not compared).
    package static func nearestKey(to key: String, in keys: [String]) -> String? {
        let typed = Array(key.lowercased().utf8)
        guard typed.count <= 64 else { return nil }
        var best: (key: String, distance: Int)?
        for candidate in keys {
            let distance = editDistance(typed, Array(candidate.lowercased().utf8))
            if distance <= 2, distance < best?.distance ?? .max { best = (candidate, distance) }
        }
        return best?.key
    }

    /// The Levenshtein distance of two short byte strings.
    private static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
