import HLSInterstitials
import HLSPlaylist
import Hummingbird

/// The admin API: schedules, breaks and the inventory, plus live controls (a break now, an early
/// return now). JSON in and out; every request needs `Authorization: Bearer <adminToken>`.
///
/// Routes only decode, call the ``Catalog`` (which holds the rules and checks them inside the store
/// transaction) and encode.
struct AdminAPI {
    let catalog: Catalog
    let state: ServerState
    let configuration: ServerConfiguration
    /// The wall clock.
    let now: @Sendable () -> DateTime
    /// What the server counts (the notices announced and withdrawn).
    let metrics: ServerMetrics
    /// Where the contents' playlists come from (the warnings read a VOD asset's length).
    let sources: ContentSources

    /// The admin API of `library`'s contents (its collaborators taken from the composition root).
    init(library: ContentLibrary) {
        catalog = Catalog(library: library)
        state = library.state
        configuration = library.configuration
        now = library.now
        metrics = library.metrics
        sources = library.sources
    }

    func register(on group: RouterGroup<ServerRequestContext>) {
        group.add(middleware: BearerTokenMiddleware(token: configuration.adminToken))
        let limit = configuration.limits.adminBodyBytes

        group.get("content") { _, _ in Response.json(contentList) }

        // Schedules
        group.get("schedules") { _, _ in
            Response.json(
                .object([
                    "schedules": .array(
                        state.snapshot.schedules.values.sorted { $0.target < $1.target }.map(\.jsonValue))
                ]))
        }
        group.post("schedules") { request, context in
            let schedule = try BreakSchedule.decode(try await request.jsonBody(context: context, limit: limit))
            try await catalog.createSchedule(schedule)
            return Response.json(schedule.jsonValue, status: .created)
        }
        group.get("schedules/:kind/:id") { _, context in
            let target = try target(context)
            guard let schedule = state.snapshot.schedules[target] else {
                throw APIError.notFound("the schedule of \(target)")
            }
            return Response.json(schedule.jsonValue)
        }
        group.put("schedules/:kind/:id") { request, context in
            let target = try target(context)
            let body = try await request.jsonBody(context: context, limit: limit)
            let schedule = try BreakSchedule.decode(try Self.filling(body, "target", with: target.description))
            try await catalog.replaceSchedule(schedule)
            return Response.json(schedule.jsonValue)
        }
        group.delete("schedules/:kind/:id") { _, context in
            try await catalog.deleteSchedule(try target(context))
            return Response(status: .noContent)
        }

        // Breaks
        group.get("breaks") { request, _ in
            let filter = request.queryDictionary["target"]
            let breaks = state.snapshot.breaks.values.filter { filter == nil || $0.target.description == filter }
            return Response.json(.object(["breaks": .array(breaks.sorted { $0.id < $1.id }.map(\.jsonValue))]))
        }
        group.post("breaks") { request, context in
            let item = try Break.decode(try await request.jsonBody(context: context, limit: limit))
            try await catalog.createBreak(item)
            return Response.json(Self.adding(await warnings(for: item), to: item.jsonValue), status: .created)
        }
        group.get("breaks/:id") { _, context in
            let id = try identifier(context)
            guard let item = state.snapshot.breaks[id] else { throw APIError.notFound("break \"\(id)\"") }
            return Response.json(item.jsonValue)
        }
        group.put("breaks/:id") { request, context in
            let id = try identifier(context)
            let body = try await request.jsonBody(context: context, limit: limit)
            let item = try Break.decode(try Self.filling(body, "id", with: id))
            try await catalog.replaceBreak(item)
            return Response.json(Self.adding(await warnings(for: item), to: item.jsonValue))
        }
        group.delete("breaks/:id") { _, context in
            try await catalog.deleteBreak(id: try identifier(context), now: now())
            return Response(status: .noContent)
        }

        // Inventory
        group.get("inventory") { _, _ in
            Response.json(
                .object(["inventory": .array(state.snapshot.ads.values.sorted { $0.id < $1.id }.map(\.jsonValue))]))
        }
        group.post("inventory") { request, context in
            let ad = try Ad.decode(try await request.jsonBody(context: context, limit: limit))
            try await catalog.createAd(ad)
            return Response.json(ad.jsonValue, status: .created)
        }
        group.get("inventory/:id") { _, context in
            let id = try identifier(context)
            guard let ad = state.snapshot.ads[id] else { throw APIError.notFound("ad \"\(id)\"") }
            return Response.json(ad.jsonValue)
        }
        group.put("inventory/:id") { request, context in
            let id = try identifier(context)
            let body = try await request.jsonBody(context: context, limit: limit)
            let ad = try Ad.decode(try Self.filling(body, "id", with: id))
            try await catalog.replaceAd(ad)
            return Response.json(ad.jsonValue)
        }
        group.delete("inventory/:id") { _, context in
            try await catalog.deleteAd(id: try identifier(context))
            return Response(status: .noContent)
        }

        // Live controls
        group.post("channels/:id/breaks") { request, context in
            let channel = try channel(context)
            let body = try await request.jsonBody(context: context, limit: limit)
            let item = try await catalog.breakNow(channel, try Self.breakNowRequest(body), now: now())
            return Response.json(item.jsonValue, status: .created)
        }
        group.post("channels/:id/return") { request, context in
            let channel = try channel(context)
            let body = try await request.jsonBody(context: context, limit: limit)
            var reader = try JSONObjectReader(body, path: "")
            let requested = try reader.string("break")
            try reader.finish()
            let done = try await catalog.earlyReturn(channel, breakID: requested, now: now())
            return Response.json(
                .object([
                    "id": .string(done.id), "playoutLimit": .seconds(done.playoutLimit),
                    "start": .string(done.start.iso8601),
                ]))
        }

        // Early notices of live breaks.
        registerNotices(on: group)

        // What the operations console reads: targets, served date ranges, this API's description.
        registerOperations(on: group)
    }

    private var contentList: JSONValue {
        func list(_ items: [ServerConfiguration.Content], _ kind: Target.Kind) -> JSONValue {
            .array(
                items.map {
                    .object([
                        "target": .string(Target(kind, $0.id).description), "url": .string("\($0.path)/\($0.entry)"),
                    ])
                })
        }
        return .object(["vod": list(configuration.vod, .vod), "live": list(configuration.live, .live)])
    }

    /// A PUT body with `key` set to the value in the URL when it is absent; another value is refused.
    private static func filling(_ body: JSONValue, _ key: String, with value: String) throws(APIError) -> JSONValue {
        guard case .object(var fields) = body else { return body }
        switch fields[key] {
        case nil: fields[key] = .string(value)
        case .string(value)?: break
        default:
            throw APIError.badRequest(code: .jsonSchema, path: key, "must be \"\(value)\", as in the URL")
        }
        return .object(fields)
    }

    private func identifier(_ context: ServerRequestContext) throws(APIError) -> String {
        guard let id = context.parameters.get("id"), JSONObjectReader.isIdentifier(id) else {
            throw APIError.badRequest(code: .badPath, "the ID in the URL is not an identifier")
        }
        return id
    }

    private func target(_ context: ServerRequestContext) throws(APIError) -> Target {
        guard let kind = context.parameters.get("kind"), let id = context.parameters.get("id"),
            let target = Target("\(kind)/\(id)")
        else { throw APIError.badRequest(code: .badPath, "expected /schedules/vod/ID or /schedules/live/ID") }
        try catalog.checkTarget(target, path: "")
        return target
    }

    func channel(_ context: ServerRequestContext) throws(APIError) -> ServerConfiguration.Content {
        let id = try identifier(context)
        guard let channel = configuration.live.first(where: { $0.id == id }) else {
            throw APIError.notFound("live channel \"\(id)\"")
        }
        return channel
    }

    /// The request of a break now: `duration` (seconds), `ad`, `id`; the catalog checks them.
    private static func breakNowRequest(_ body: JSONValue) throws(APIError) -> Catalog.BreakNowRequest {
        var reader = try JSONObjectReader(body, path: "")
        let request = Catalog.BreakNowRequest(
            duration: try reader.seconds("duration"), ad: try reader.string("ad"), id: try reader.string("id"))
        try reader.finish()
        return request
    }
}

/// Refuses requests without `Authorization: Bearer <token>` (all of them when no token is configured).
struct BearerTokenMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let token: String?

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        guard let token, !token.isEmpty else {
            throw APIError(status: 401, code: .unauthorized, "the admin API is off: the server has no admin token")
        }
        guard let header = request.headers[.authorization], let credentials = Self.bearerCredentials(header),
            Self.constantTimeEquals(credentials, Array(token.utf8))
        else {
            throw APIError(status: 401, code: .unauthorized, "send Authorization: Bearer <admin token>")
        }
        return try await next(request, context)
    }

    /// The credentials of an `Authorization` value with the `Bearer` scheme, nil for another scheme.
    /// The scheme is case-insensitive and may be followed by several spaces (RFC 9110 §11.4, RFC 6750 §2.1).
    static func bearerCredentials(_ header: String) -> [UInt8]? {
        let bytes = Array(header.utf8)
        guard bytes.count > 7, bytes[6] == 0x20,
            String(decoding: bytes[0..<6], as: UTF8.self).lowercased() == "bearer"
        else { return nil }
        let credentials = bytes[7...].drop { $0 == 0x20 }
        return credentials.isEmpty ? nil : Array(credentials)
    }

    static func constantTimeEquals(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
