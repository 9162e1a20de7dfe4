import HLSInterstitials
import HLSPlaylist
import Hummingbird

/// The admin API: schedules, breaks and the inventory, plus live controls (a break now, an early
/// return now). JSON in and out; every request needs `Authorization: Bearer <adminToken>`.
struct AdminAPI {
    let library: ContentLibrary

    var state: ServerState { library.state }
    var configuration: ServerConfiguration { library.configuration }

    func register(on group: RouterGroup<BasicRequestContext>) {
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
            try checkTarget(schedule.target, path: "target")
            try checkAd(schedule.ad, path: "ad")
            try await state.change { transaction in
                guard transaction.state.schedules[schedule.target] == nil else {
                    throw APIError.conflict(
                        code: "exists", "\(schedule.target) already has a schedule; PUT it to replace it")
                }
                transaction.apply(.saveSchedule(schedule))
            }
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
            try checkTarget(target, path: "target")
            try checkAd(schedule.ad, path: "ad")
            try await state.change { transaction in transaction.apply(.saveSchedule(schedule)) }
            return Response.json(schedule.jsonValue)
        }
        group.delete("schedules/:kind/:id") { _, context in
            let target = try target(context)
            try await state.change { transaction in
                guard transaction.state.schedules[target] != nil else {
                    throw APIError.notFound("the schedule of \(target)")
                }
                transaction.apply(.deleteSchedule(target))
            }
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
            try checkBreak(item)
            try await state.change { transaction in
                guard transaction.state.breaks[item.id] == nil else {
                    throw APIError.conflict(code: "exists", "break \"\(item.id)\" exists; PUT it to replace it")
                }
                try refuseServedID(item, transaction.state)
                transaction.apply(.saveBreak(item))
            }
            return Response.json(item.jsonValue, status: .created)
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
            try checkBreak(item)
            try await state.change { transaction in
                if let old = transaction.state.breaks[id], old.target != item.target {
                    throw APIError.badRequest(
                        code: "json-schema", path: "target", "a break cannot move to another target")
                }
                try refuseServedID(item, transaction.state)
                transaction.apply(.saveBreak(item))
            }
            return Response.json(item.jsonValue)
        }
        group.delete("breaks/:id") { _, context in
            let id = try identifier(context)
            let now = library.now()
            try await state.change { transaction in
                guard let item = transaction.state.breaks[id] else { throw APIError.notFound("break \"\(id)\"") }
                if item.target.kind == .live, let served = transaction.state.served[ServedKey(item.target, id)],
                    let event = InterstitialEvent(attributes: served), let start = event.date,
                    start + (BreakPlanner.fillDuration(of: event) ?? .zero) + MediaTime(seconds: 120) > now
                {
                    throw APIError.conflict(
                        code: "served-break",
                        "break \"\(id)\" has been served and may still be in the live window, where §6.2.1 forbids removing it; end it early with POST /admin/v1/channels/\(item.target.id)/return"
                    )
                }
                transaction.apply(.deleteBreak(id: id))
            }
            return Response(status: .noContent)
        }

        // Inventory
        group.get("inventory") { _, _ in
            Response.json(
                .object(["inventory": .array(state.snapshot.ads.values.sorted { $0.id < $1.id }.map(\.jsonValue))]))
        }
        group.post("inventory") { request, context in
            let ad = try Ad.decode(try await request.jsonBody(context: context, limit: limit))
            try await state.change { transaction in
                guard transaction.state.ads[ad.id] == nil else {
                    throw APIError.conflict(code: "exists", "ad \"\(ad.id)\" exists; PUT it to replace it")
                }
                transaction.apply(.saveAd(ad))
            }
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
            try await state.change { transaction in transaction.apply(.saveAd(ad)) }
            return Response.json(ad.jsonValue)
        }
        group.delete("inventory/:id") { _, context in
            let id = try identifier(context)
            try await state.change { transaction in
                guard transaction.state.ads[id] != nil else { throw APIError.notFound("ad \"\(id)\"") }
                if let user = transaction.state.breaks.values.first(where: { $0.ad == id })?.id
                    ?? transaction.state.schedules.values.first(where: { $0.ad == id })?.target.description
                {
                    throw APIError.conflict(code: "ad-in-use", "ad \"\(id)\" fills \(user); change that first")
                }
                transaction.apply(.deleteAd(id: id))
            }
            return Response(status: .noContent)
        }

        // Live controls
        group.post("channels/:id/breaks") { request, context in
            let channel = try channel(context)
            let body = try await request.jsonBody(context: context, limit: limit)
            return Response.json(try await breakNow(channel, body: body).jsonValue, status: .created)
        }
        group.post("channels/:id/return") { request, context in
            let channel = try channel(context)
            let body = try await request.jsonBody(context: context, limit: limit)
            return Response.json(try await earlyReturn(channel, body: body))
        }
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
            throw APIError.badRequest(code: "json-schema", path: key, "must be \"\(value)\", as in the URL")
        }
        return .object(fields)
    }

    private func identifier(_ context: BasicRequestContext) throws(APIError) -> String {
        guard let id = context.parameters.get("id"), JSONObjectReader.isIdentifier(id) else {
            throw APIError.badRequest(code: "bad-path", "the ID in the URL is not an identifier")
        }
        return id
    }

    private func target(_ context: BasicRequestContext) throws(APIError) -> Target {
        guard let kind = context.parameters.get("kind"), let id = context.parameters.get("id"),
            let target = Target("\(kind)/\(id)")
        else { throw APIError.badRequest(code: "bad-path", "expected /schedules/vod/ID or /schedules/live/ID") }
        try checkTarget(target, path: "")
        return target
    }

    private func channel(_ context: BasicRequestContext) throws(APIError) -> ServerConfiguration.Content {
        let id = try identifier(context)
        guard let channel = configuration.live.first(where: { $0.id == id }) else {
            throw APIError.notFound("live channel \"\(id)\"")
        }
        return channel
    }

    private func checkTarget(_ target: Target, path: String) throws(APIError) {
        let list = target.kind == .vod ? configuration.vod : configuration.live
        guard list.contains(where: { $0.id == target.id }) else {
            throw APIError(status: 404, code: "not-found", path: path, "\(target) is not configured on this server")
        }
    }

    private func checkAd(_ ad: String?, path: String) throws(APIError) {
        if let ad, state.snapshot.ads[ad] == nil {
            throw APIError.badRequest(code: "unknown-ad", path: path, "ad \"\(ad)\" is not in the inventory")
        }
    }

    private func checkBreak(_ item: Break) throws(APIError) {
        try checkTarget(item.target, path: "target")
        try checkAd(item.ad, path: "ad")
    }

    /// Values once served never change, and an ID once served is never reused for new values.
    private func refuseServedID(_ item: Break, _ state: StoredState) throws(APIError) {
        guard state.served[ServedKey(item.target, item.id)] != nil else { return }
        if state.breaks[item.id] == item { return }
        throw APIError.conflict(
            code: "served-break",
            "break \"\(item.id)\" has been served; §6.2.1: the server MUST NOT change its attribute values or reuse its ID. Create a new break (early returns: POST /admin/v1/channels/ID/return)"
        )
    }

    /// Schedules a break on a live channel starting at its live edge.
    private func breakNow(_ channel: ServerConfiguration.Content, body: JSONValue) async throws(APIError) -> Break {
        var reader = try JSONObjectReader(body, path: "")
        let now = library.now()
        let target = Target(.live, channel.id)
        let schedule = state.snapshot.schedules[target]
        let duration = try reader.seconds("duration") ?? schedule?.cadence?.duration ?? MediaTime(seconds: 30)
        guard duration > .zero, duration <= MediaTime(seconds: 3600) else {
            throw reader.error("duration", "must be more than 0 and at most 3600 seconds")
        }
        let ad = try reader.string("ad")
        let id = try reader.string("id") ?? "now-\(now.nanosecondsSinceEpoch / 1_000_000)"
        try reader.finish()
        var start = library.liveEdge(of: channel, at: now)
        start.utcOffsetSeconds = 0
        var request = schedule?.interstitial ?? InsertionRequest(id: id)
        request.id = id
        request.date = start
        request.at = nil
        request.plannedDuration = duration
        request.duration = nil
        let item = Break(target: target, interstitial: request, ad: ad)
        try item.check(path: "")
        try checkBreak(item)
        try await state.change { transaction in
            guard transaction.state.breaks[id] == nil, transaction.state.served[ServedKey(target, id)] == nil else {
                throw APIError.conflict(code: "exists", "break \"\(id)\" exists")
            }
            transaction.apply(.saveBreak(item))
        }
        return item
    }

    /// Ends the current break of a live channel now: adds X-PLAYOUT-LIMIT (and DURATION, END-DATE).
    private func earlyReturn(
        _ channel: ServerConfiguration.Content, body: JSONValue
    ) async throws(APIError) -> JSONValue {
        var reader = try JSONObjectReader(body, path: "")
        let requested = try reader.string("break")
        try reader.finish()
        let now = library.now()
        let target = Target(.live, channel.id)
        let planner = library.planner(for: ContentLibrary.Mounted(content: channel, target: target, rest: ""))
        let timeline = BreakPlanner.Timeline.live(
            epoch: channel.epoch, window: (now - MediaTime(seconds: 3600))..<now, lookahead: .zero)
        let planned: BreakPlanner.Planned
        if let requested {
            guard let found = planner.lookup(id: requested, timeline) else {
                throw APIError.notFound("break \"\(requested)\" of \(target)")
            }
            planned = found
        } else {
            guard let latest = planner.plan(timeline).last(where: { ($0.event.date ?? now) <= now }) else {
                throw APIError.conflict(code: "no-break", "no break of \(target) has started")
            }
            planned = latest
        }
        let event = planned.event
        guard let start = event.date, start <= now else {
            throw APIError.conflict(code: "no-break", "break \"\(event.identifier)\" has not started")
        }
        let limit = MediaTime(nanoseconds: (now - start).nanoseconds / 1_000_000 * 1_000_000)
        let key = ServedKey(target, event.identifier)
        if state.snapshot.earlyReturns[key] != nil {
            throw APIError.conflict(
                code: "already-returned", "break \"\(event.identifier)\" has already returned early")
        }
        if let planned = BreakPlanner.fillDuration(of: event), limit >= planned {
            throw APIError.conflict(code: "break-over", "break \"\(event.identifier)\" has already ended")
        }
        try await state.change { transaction in
            guard transaction.state.earlyReturns[key] == nil else {
                throw APIError.conflict(
                    code: "already-returned", "break \"\(event.identifier)\" has already returned early")
            }
            transaction.apply(.earlyReturn(key, playoutLimit: limit))
        }
        return .object([
            "id": .string(event.identifier), "playoutLimit": .seconds(limit), "start": .string(start.iso8601),
        ])
    }
}

/// Refuses requests without `Authorization: Bearer <token>` (all of them when no token is configured).
struct BearerTokenMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let token: String?

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        guard let token, !token.isEmpty else {
            throw APIError(status: 401, code: "unauthorized", "the admin API is off: the server has no admin token")
        }
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
            Self.constantTimeEquals(Array(header.utf8.dropFirst(7)), Array(token.utf8))
        else {
            throw APIError(status: 401, code: "unauthorized", "send Authorization: Bearer <admin token>")
        }
        return try await next(request, context)
    }

    static func constantTimeEquals(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
