import Foundation
import HLSInterstitials
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import InterstitialServer

/// `/admin/v1/openapi.json` is true: its routes are the router's admin routes, its error codes are
/// ``APIError/Code``'s, every code the admin routes' code can throw is listed, and the errors the
/// routes answer to bad requests are the ones listed for them.
@Suite("The admin API's OpenAPI document")
struct OpenAPITests {
    /// The document, as the build's resources hold it.
    static let document: JSONValue? = OpenAPIDocument.bytes.flatMap {
        try? JSONDecoder().decode(JSONValue.self, from: Data($0))
    }

    /// `(method, path)` of every operation of the document (paths under the `/admin/v1` server).
    static var operations: Set<String> {
        guard case .object(let paths)? = document?["paths"] else { return [] }
        var result: Set<String> = []
        for (path, item) in paths {
            guard case .object(let methods) = item else { continue }
            for method in methods.keys { result.insert("\(method.uppercased()) \(path)") }
        }
        return result
    }

    /// The codes an operation lists under `status`.
    static func codes(_ method: String, _ path: String, status: Int) -> [String] {
        let schema = document?["paths"]?[path]?[method.lowercased()]?["responses"]?[String(status)]?["content"]?[
            "application/json"]?["schema"]
        guard case .array(let values)? = schema?["properties"]?["error"]?["properties"]?["code"]?["enum"] else {
            return []
        }
        return strings(values)
    }

    /// Every code listed by any operation.
    static var listedCodes: Set<String> {
        var result: Set<String> = []
        for operation in operations {
            let (method, path) = split(operation)
            for status in 400..<600 { result.formUnion(codes(method, path, status: status)) }
        }
        return result
    }

    /// The strings of a JSON array's elements.
    static func strings(_ values: [JSONValue]) -> [String] {
        values.compactMap { value -> String? in
            guard case .string(let text) = value else { return nil }
            return text
        }
    }

    /// A Swift case name as its code: `jsonSchema` is `json-schema`, `sessionJSON` is `session-json`.
    static func kebab(_ name: String) -> String {
        var result = ""
        var previous: Character?
        for character in name {
            if character.isUppercase, let previous, previous.isLowercase || previous.isNumber { result.append("-") }
            result.append(Character(character.lowercased()))
            previous = character
        }
        return result
    }

    static func split(_ operation: String) -> (String, String) {
        let parts = operation.split(separator: " ", maxSplits: 1).map(String.init)
        return (parts[0], parts[1])
    }

    @Test("The document is OpenAPI 3.1 with bearer authentication")
    func shape() {
        #expect(Self.document?["openapi"] == .string("3.1.0"))
        #expect(Self.document?["components"]?["securitySchemes"]?["bearer"]?["scheme"] == .string("bearer"))
        #expect(Self.document?["servers"]?[0]?["url"] == .string("/admin/v1"))
        #expect(Self.operations.count >= 20)
    }

    @Test("Every admin route the router has is in the document, and every route of the document is the router's")
    func routes() async throws {
        try await withDemoLibrary { library, _, _ in
            let routes = Routes(
                library: library, admin: AdminAPI(library: library),
                mailbox: HandoffMailbox(capacity: 1, expiry: .seconds(1), clock: SystemServerClock()))
            let router = routes.router()
            var registered: Set<String> = []
            for route in router.routes where route.method != .head {
                let path = route.path.description
                guard path.hasPrefix("/admin/v1/") else { continue }
                let components = path.dropFirst("/admin/v1".count).split(separator: "/").map { part in
                    part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
                }
                registered.insert("\(route.method.rawValue) /" + components.joined(separator: "/"))
            }
            #expect(registered.count >= 20)
            #expect(registered.subtracting(Self.operations).isEmpty, "not in openapi.json")
            #expect(Self.operations.subtracting(registered).isEmpty, "in openapi.json, not a route")
        }
    }

    @Test("Every code the document lists is an APIError.Code, and ErrorCode lists them all")
    func documentCodes() {
        let known = Set(APIError.Code.allCases.map(\.rawValue))
        #expect(!Self.listedCodes.isEmpty)
        #expect(Self.listedCodes.subtracting(known).isEmpty)
        guard case .array(let values)? = Self.document?["components"]?["schemas"]?["ErrorCode"]?["enum"] else {
            Issue.record("no ErrorCode schema")
            return
        }
        #expect(Set(Self.strings(values)) == Self.listedCodes)
    }

    /// The sources the admin routes run: the routes, the catalog, the models they decode, the
    /// request body, the token and the state's writes.
    static let adminSources = [
        "HTTP/AdminAPI.swift", "HTTP/AdminAPI+Operations.swift", "HTTP/HTTPHelpers.swift", "Catalog/Catalog.swift",
        "Model/Break.swift", "Model/BreakSchedule.swift", "Model/Ad.swift", "Model/AdServerSettings.swift",
        "Model/PreloadSettings.swift", "Model/PrefetchSettings.swift", "Model/JSONObjectReader.swift",
        "Model/APIError.swift", "Model/PlayerURI.swift", "State/ServerState.swift",
        "HTTP/AdminAPI+Notices.swift", "Catalog/NoticeBoard.swift", "Model/BreakNotice.swift",
    ]

    @Test("Every code the admin routes' sources throw is listed in the document")
    func sourceCodes() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/InterstitialServer")
        let known = Set(APIError.Code.allCases.map(\.rawValue))
        var used: Set<String> = []
        for file in Self.adminSources {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            // `code: .name`, and the helpers that name their code.
            let pattern = try NSRegularExpression(pattern: #"code: \.([A-Za-z]+)"#)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                let code = Self.kebab(String(text[range]))
                #expect(known.contains(code), "\(file): code: .\(text[range]) is not read as an APIError.Code")
                used.insert(code)
            }
            if text.contains("APIError.notFound(") || text.contains(".notFound(") { used.insert("not-found") }
            if text.contains("APIError(error") { used.insert("invalid-interstitial") }
        }
        #expect(used.count >= 15, "\(used.sorted())")
        #expect(used.subtracting(Self.listedCodes).isEmpty, "thrown by admin code, not in openapi.json")
    }

    /// Bad requests of each kind, and the operation whose listed codes must hold the answer's.
    static let badRequests: [(method: HTTPRequest.Method, path: String, body: String?, operation: String)] = [
        (.get, "schedules/vod/nothing", nil, "GET /schedules/{kind}/{id}"),
        (.get, "schedules/tv/demo", nil, "GET /schedules/{kind}/{id}"),
        (.post, "schedules", "{", "POST /schedules"),
        (.post, "schedules", #"{"target":"vod/nothing"}"#, "POST /schedules"),
        (.post, "schedules", #"{"target":"vod/demo","ad":"nothing"}"#, "POST /schedules"),
        (.put, "schedules/vod/demo", #"{"cadence":{"every":0}}"#, "PUT /schedules/{kind}/{id}"),
        (.delete, "schedules/live/nothing", nil, "DELETE /schedules/{kind}/{id}"),
        (.post, "breaks", #"{"id":"b","target":"vod/demo","at":-1}"#, "POST /breaks"),
        (.post, "breaks", #"{"id":"b","target":"vod/demo","at":5,"ad":"nothing"}"#, "POST /breaks"),
        (.post, "breaks", #"{"id":"b","target":"vod/nothing","at":5}"#, "POST /breaks"),
        (.post, "breaks", #"{"id":"b","target":"live/demo","at":5,"duration":5}"#, "POST /breaks"),
        (.get, "breaks/nothing", nil, "GET /breaks/{id}"),
        (.put, "breaks/x", #"{"id":"y","target":"vod/demo","at":5}"#, "PUT /breaks/{id}"),
        (.delete, "breaks/nothing", nil, "DELETE /breaks/{id}"),
        (.post, "inventory", #"{"id":"a","uri":"javascript:x","duration":5}"#, "POST /inventory"),
        (.get, "inventory/nothing", nil, "GET /inventory/{id}"),
        (.delete, "inventory/nothing", nil, "DELETE /inventory/{id}"),
        (.post, "channels/nothing/breaks", "{}", "POST /channels/{id}/breaks"),
        (.post, "channels/demo/breaks", #"{"duration":0}"#, "POST /channels/{id}/breaks"),
        (.post, "channels/demo/return", #"{"break":"nothing"}"#, "POST /channels/{id}/return"),
        (.post, "channels/demo/return", #"{"other":1}"#, "POST /channels/{id}/return"),
        (.post, "channels/demo/upcoming", #"{"in":90,"duration":60}"#, "POST /channels/{id}/upcoming"),
        (.post, "channels/demo-scte35/upcoming", #"{"in":0,"duration":60}"#, "POST /channels/{id}/upcoming"),
        (.post, "channels/demo-scte35/upcoming", #"{"in":9,"duration":60,"id":"x"}"#, "POST /channels/{id}/upcoming"),
        (.post, "channels/nothing/upcoming", #"{"in":9,"duration":60}"#, "POST /channels/{id}/upcoming"),
        (.get, "channels/nothing/upcoming", nil, "GET /channels/{id}/upcoming"),
        (.delete, "channels/demo-scte35/upcoming/notice-none", nil, "DELETE /channels/{id}/upcoming/{notice}"),
        (.get, "served?target=vod/nothing", nil, "GET /served"),
        (.get, "served?target=tv", nil, "GET /served"),
        (.get, "served?limit=0", nil, "GET /served"),
    ]

    @Test("Each admin route answers bad requests with a code its operation lists")
    func answeredCodes() async throws {
        try await Harness.withServer { client in
            for request in Self.badRequests {
                let response = try await client.admin(request.method, request.path, request.body)
                let status = Int(response.status.code)
                let (method, path) = Self.split(request.operation)
                #expect(status >= 400, "\(request.path): \(response.text)")
                let code = response.errorCode ?? "none"
                #expect(
                    Self.codes(method, path, status: status).contains(code),
                    "\(request.method) \(request.path) answered \(status) \(code), not listed for \(request.operation)")
            }
            // Without the token: every operation lists 401 unauthorized, the document's own included.
            for operation in Self.operations {
                let (method, path) = Self.split(operation)
                #expect(Self.codes(method, path, status: 401) == ["unauthorized"], "\(operation)")
            }
            let open = try await client.admin(.get, "openapi.json", token: nil)
            #expect(open.status == .unauthorized)
        }
    }

    @Test("GET /admin/v1/openapi.json answers the document, never stored")
    func served() async throws {
        try await Harness.withServer { client in
            let response = try await client.admin(.get, "openapi.json")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == ContentResponse.jsonType)
            #expect(response.headers[.cacheControl] == CachePolicy.noStore)
            #expect(response.json == Self.document)
        }
    }
}

extension JSONValue {
    /// The member `key` of an object, nil otherwise.
    fileprivate subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }

    /// The element `index` of an array, nil otherwise.
    fileprivate subscript(index: Int) -> JSONValue? {
        if case .array(let items) = self, items.indices.contains(index) { return items[index] }
        return nil
    }
}
