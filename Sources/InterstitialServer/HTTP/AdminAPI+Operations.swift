import HLSInterstitials
import HLSPlaylist
import Hummingbird

/// The admin routes the operations console reads besides the catalog's: the targets with what fills
/// their breaks, the date ranges served, and the API's own description (`openapi.json`).
extension AdminAPI {
    /// Adds `GET targets`, `GET served` and `GET openapi.json` to the admin group (behind its token).
    func registerOperations(on group: RouterGroup<ServerRequestContext>) {
        group.get("targets") { _, _ in Response.json(targets(state.snapshot)) }
        group.get("served") { request, _ in
            let filter = request.queryDictionary["target"]
            if let filter {
                guard let target = Target(filter) else {
                    throw APIError.badRequest(
                        code: .badPath, path: "target", "expected vod/ID or live/ID, found \"\(filter.prefix(80))\"")
                }
                try catalog.checkTarget(target, path: "target")
            }
            var limit = Self.servedLimit
            if let text = request.queryDictionary["limit"] {
                // Digits only: `Int` would also take a sign (`+5`, `-0`).
                guard text.utf8.count <= 4, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let count = Int(text),
                    (1...Self.longestServedList).contains(count)
                else {
                    throw APIError.badRequest(
                        code: .badRequest, path: "limit",
                        "expected 1 to \(Self.longestServedList) entries, found \"\(text.prefix(20))\"")
                }
                limit = count
            }
            return Response.json(served(state.snapshot, target: filter, limit: limit))
        }
        let document = OpenAPIDocument.bytes
        group.get("openapi.json") { _, _ in
            guard let document else {
                throw APIError(status: 500, code: .fileUnreadable, "openapi.json is missing from the build's resources")
            }
            return Response.bytes(document, contentType: ContentResponse.jsonType, cacheControl: CachePolicy.noStore)
        }
    }

    /// Every configured target: its URL, its standing schedule, and the ad server that fills its
    /// breaks (`adServerFrom`: `schedule` or `configuration`; none: the stored inventory); a live
    /// channel's window, lookahead and epoch (where its schedule's cadence counts from).
    func targets(_ snapshot: StoredState) -> JSONValue {
        func list(_ items: [ServerConfiguration.Content], _ kind: Target.Kind) -> [JSONValue] {
            items.map { content in
                let target = Target(kind, content.id)
                var fields: [String: JSONValue] = [
                    "target": .string(target.description), "kind": .string(kind.rawValue),
                    "url": .string("\(content.path)/\(content.entry)"),
                    "breaks": .integer(Int64(snapshot.breaks.values.count(where: { $0.target == target }))),
                ]
                if let schedule = snapshot.schedules[target] { fields["schedule"] = schedule.jsonValue }
                if let settings = snapshot.schedules[target]?.adServer {
                    fields["adServer"] = settings.jsonValue
                    fields["adServerFrom"] = .string("schedule")
                } else if let settings = content.adServer {
                    fields["adServer"] = settings.jsonValue
                    fields["adServerFrom"] = .string("configuration")
                }
                if kind == .live {
                    fields["windowSegments"] = .integer(Int64(content.windowSegments))
                    fields["lookahead"] = .seconds(content.lookahead)
                    // A cadence's breaks start at epoch + offset + k × every.
                    fields["epoch"] = .string(content.epoch.iso8601)
                    // Breaks signalled in the channel's own playlists are known only as they start.
                    if let signals = content.signals { fields["signals"] = .string(signals.rawValue) }
                }
                return .object(fields)
            }
        }
        return .object(["targets": .array(list(configuration.vod, .vod) + list(configuration.live, .live))])
    }

    /// The entries `GET served` answers without `limit`.
    static let servedLimit = 100
    /// The most entries `GET served` answers (`limit`).
    static let longestServedList = 1000

    /// The date ranges served (of `target`, or all), the `limit` latest first (by `START-DATE`, then
    /// target and ID): the attributes every viewer got as first served, an early return's limit, and
    /// whether it was withdrawn before it started; `total` counts them all.
    func served(_ snapshot: StoredState, target: String?, limit: Int = Self.servedLimit) -> JSONValue {
        func start(_ key: ServedKey) -> String { snapshot.served[key]?["START-DATE"]?.quotedString ?? "" }
        let matching = snapshot.served.keys.filter { target == nil || $0.target.description == target }
        let keys = matching.map { (start: start($0), key: $0) }
            .sorted {
                ($1.start, $0.key.target.description, $0.key.id) < ($0.start, $1.key.target.description, $1.key.id)
            }
            .prefix(limit).map(\.key)
        return .object([
            "total": .integer(Int64(matching.count)),
            "served": .array(
                keys.map { key in
                    let attributes = snapshot.served[key] ?? []
                    var fields: [String: JSONValue] = [
                        "target": .string(key.target.description), "id": .string(key.id),
                        "attributes": .object(
                            Dictionary(
                                attributes.map { ($0.name, JSONValue.string($0.value.rawValue)) },
                                uniquingKeysWith: { first, _ in first })),
                        "withdrawn": .bool(snapshot.withdrawn.contains(key)),
                        "stored": .bool(snapshot.breaks[key.id]?.target == key.target),
                    ]
                    if let start = attributes["START-DATE"]?.quotedString { fields["startDate"] = .string(start) }
                    if let duration = attributes["DURATION"]?.decimalFloatingPoint {
                        fields["duration"] = .seconds(duration)
                    }
                    if let planned = attributes["PLANNED-DURATION"]?.decimalFloatingPoint {
                        fields["plannedDuration"] = .seconds(planned)
                    }
                    if let limit = snapshot.earlyReturns[key] { fields["playoutLimit"] = .seconds(limit) }
                    return .object(fields)
                }),
        ])
    }
}
