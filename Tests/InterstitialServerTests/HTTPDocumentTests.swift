import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import InterstitialServer

/// `docs/http.md` is true: every row of its responses table is requested and checked (status,
/// `Content-Type`, `Cache-Control`, CORS), and its list of error codes is ``APIError/Code``'s.
@Suite("docs/http.md: the responses and error codes it lists")
struct HTTPDocumentTests {
    /// A row of the responses table: the request of its example and what the answer carries.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var method: HTTPRequest.Method
        var path: String
        /// The request fields of the example (`Name: value`), `TOKEN` replaced by the admin token.
        var fields: HTTPFields
        /// What the example says after its request, such as "with a session".
        var remark: String
        var status: Int
        /// Nil: the answer has no `Content-Type`.
        var contentType: String?
        var cacheControl: String
        var cors: Bool

        var testDescription: String { name }
    }

    /// The statuses of the rows answered by the request guard, before any route: tested with the
    /// guard (``RequestGuardTests``, ``RequestHeadReaderTests``), not here.
    static let guardStatuses: Set<Int> = [400, 408, 414, 431]

    static let document: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("docs/http.md"), encoding: .utf8)) ?? ""
    }()

    /// The cells of the rows of the first table under `heading`, without its header and rule.
    static func table(under heading: String) -> [[String]] {
        guard let start = document.range(of: "\n" + heading + "\n") else { return [] }
        var rows: [[String]] = []
        for line in document[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { break }
            guard line.hasPrefix("|") else {
                if !rows.isEmpty { break }
                continue
            }
            rows.append(
                line.dropFirst().dropLast().split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        return Array(rows.dropFirst(2))
    }

    /// The text between backticks in `cell`, and what is left outside them.
    static func quoted(_ cell: String) -> (quotes: [String], rest: String) {
        let parts = cell.split(separator: "`", omittingEmptySubsequences: false).map(String.init)
        let quotes = parts.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        let rest = parts.enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined()
        return (quotes, rest.trimmingCharacters(in: .whitespaces))
    }

    static let allRows: [[String]] = table(under: "## Responses")

    /// The rows of the responses table this suite checks: all but the request guard's.
    static let rows: [Row] = allRows.compactMap { cells in
        guard cells.count == 6, let status = Int(cells[2]), !guardStatuses.contains(status) else { return nil }
        let example = quoted(cells[1])
        guard let request = example.quotes.first, let space = request.firstIndex(of: " ") else { return nil }
        var fields = HTTPFields()
        for field in example.quotes.dropFirst() {
            guard let colon = field.firstIndex(of: ":"), let name = HTTPField.Name(String(field[..<colon])) else {
                continue
            }
            fields[name] = field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                .replacingOccurrences(of: "TOKEN", with: Harness.token)
        }
        return Row(
            name: cells[0], method: HTTPRequest.Method(String(request[..<space]))!,
            path: String(request[request.index(after: space)...]), fields: fields, remark: example.rest,
            status: status, contentType: cells[3] == "—" ? nil : quoted(cells[3]).quotes.first,
            cacheControl: quoted(cells[4]).quotes.first ?? cells[4], cors: cells[5] == "yes")
    }

    @Test("The responses table is read: its rows, the request guard's apart")
    func tableIsRead() {
        #expect(Self.rows.count >= 30, "\(Self.rows.count) rows read from docs/http.md")
        let skipped = Self.allRows.filter { Int($0[2]).map(Self.guardStatuses.contains) ?? false }
        #expect(skipped.map { Int($0[2]) } == [400, 408, 414, 431])
        #expect(Self.rows.count + skipped.count == Self.allRows.count, "a row that cannot be read")
    }

    @Test("Each row of the responses table holds", arguments: rows)
    func response(_ row: Row) async throws {
        // A local hls.js, for its row; the configuration is otherwise the demo's.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-doc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let hlsjs = folder.appendingPathComponent("hls.mjs")
        try "export default class Hls {}\n".write(to: hlsjs, atomically: true, encoding: .utf8)
        var configuration = try Harness.demo()
        configuration.hlsjs = hlsjs.path
        if row.remark.contains("upstream origin") {
            try await UpstreamTests().withUpstream { [configuration] port in
                var configuration = configuration
                let origin = "http://127.0.0.1:\(port)"
                configuration.allowedOrigins = [origin]
                configuration.vod = [.init(id: "demo", path: "/demo/vod", origin: .upstream(origin + "/master.m3u8"))]
                try await Harness.withServer(configuration) { client in try await Self.check(row, client) }
            }
        } else if row.remark.contains("publishes a schedule") {
            configuration.vod[0].interstitials = .schedule
            try await Harness.withServer(configuration) { [row] client in
                var row = row
                // The schedule ID the VOD's media playlist names now.
                if row.path.hasSuffix("=ID") {
                    let playlist = try await client.text("/demo/vod/video/main.m3u8")
                    guard case .media(let media) = PlaylistParser.parse(playlist).playlist,
                        let schedule = DateRangeSchedule.schedules(of: media).first
                    else {
                        Issue.record("no schedule tag in the VOD's playlist")
                        return
                    }
                    row.path = schedule.uri
                }
                try await Self.check(row, client)
            }
        } else {
            try await Harness.withServer(configuration) { [row] client in try await Self.check(row, client) }
        }
    }

    /// Sends the row's request and checks the answer against the row.
    static func check(_ row: Row, _ client: some TestClientProtocol) async throws {
        var body: ByteBuffer?
        if row.remark.contains("with a session") {
            body = ByteBuffer(string: #"{"url":"http://x/main.m3u8","location":{"primary":12.5},"rate":1}"#)
        } else if let bytes = row.remark.split(separator: " ").compactMap({
            Int($0.replacingOccurrences(of: ",", with: ""))
        })
        .first {
            body = ByteBuffer(repeating: UInt8(ascii: "a"), count: bytes)
        }
        let response = try await client.execute(uri: row.path, method: row.method, headers: row.fields, body: body)
        let headers = response.headers
        #expect(Int(response.status.code) == row.status, "\(response.text.prefix(300))")
        #expect(headers[.contentType] == row.contentType)
        if row.cacheControl == "public, max-age=N" {
            let target = response.text.split(separator: "\n").first { $0.hasPrefix("#EXT-X-TARGETDURATION:") }
                .flatMap { UInt64($0.dropFirst("#EXT-X-TARGETDURATION:".count)) }
            #expect(target != nil)
            #expect(headers[.cacheControl] == CachePolicy.livePlaylist(targetDuration: target))
        } else {
            #expect(headers[.cacheControl] == row.cacheControl)
        }
        if row.cors {
            #expect(headers[.accessControlAllowOrigin] == "*")
            #expect(
                headers[.accessControlExposeHeaders] == HTTPSemanticsMiddleware<ServerRequestContext>.exposedHeaders)
        } else {
            #expect(headers[.accessControlAllowOrigin] == nil)
            #expect(headers[.accessControlExposeHeaders] == nil)
        }
        // Errors: the one JSON error body, with the answer's status and a listed code.
        if row.status >= 400, row.method != .head {
            guard case .object(let root)? = response.json, case .object(let error)? = root["error"] else {
                Issue.record("not a JSON error: \(response.text.prefix(300))")
                return
            }
            #expect(Set(error.keys).isSubset(of: ["status", "code", "path", "message"]))
            #expect(error["status"] == .integer(Int64(row.status)))
            #expect(response.errorCode.flatMap(APIError.Code.init(rawValue:)) != nil)
            if case .string(let message)? = error["message"] {
                #expect(!message.isEmpty)
            } else {
                Issue.record("no message")
            }
        }
        if row.status == 405 { #expect(headers[.allow] == "GET, HEAD, OPTIONS") }
        if row.status == 401 { #expect(headers[.wwwAuthenticate] == "Bearer realm=\"hlsi-admin\"") }
    }

    @Test("The error codes listed are APIError.Code's, each once")
    func errorCodes() {
        let listed = Self.table(under: "## Errors").compactMap { Self.quoted($0[0]).quotes.first }
        #expect(listed.count == Set(listed).count, "a code listed twice")
        #expect(Set(listed) == Set(APIError.Code.allCases.map(\.rawValue)))
        #expect(listed.count == APIError.Code.allCases.count)
    }

    @Test("An error without a code of its own is answered with the code of its status, and reveals nothing")
    func errorsWithoutCode() {
        struct Inside: Error {}
        let path = "/demo/x"
        #expect(APIError(answering: HTTPError(.notFound), path: path) == .notFound(path))
        #expect(APIError(answering: HTTPError(.contentTooLarge), path: path).code == .bodyTooLarge)
        #expect(APIError(answering: HTTPError(.methodNotAllowed), path: path).code == .methodNotAllowed)
        let teapot = APIError(answering: HTTPError(.init(code: 418), message: "short and stout"), path: path)
        #expect(teapot.statusCode == 418 && teapot.code == .badRequest && teapot.message == "short and stout")
        #expect(APIError(answering: HTTPError(.badGateway), path: path).code == .internalError)
        let inside = APIError(answering: Inside(), path: path)
        #expect(inside.statusCode == 500 && inside.code == .internalError)
        #expect(!inside.message.contains("Inside"))
        let refused = APIError.conflict(code: .exists, "x")
        #expect(APIError(answering: refused, path: path) == refused)
    }

    @Test("Every error code keeps its string: clients see the codes they saw before the enum")
    func codeStrings() {
        for code in APIError.Code.allCases {
            #expect(code.description == code.rawValue)
            #expect(
                APIError(status: 400, code: code, "m").jsonValue.description.contains("\"code\":\"\(code.rawValue)\""))
        }
        #expect(APIError.Code.jsonSchema.rawValue == "json-schema")
        #expect(APIError.Code.notFound.rawValue == "not-found")
        #expect(APIError.Code.servedBreak.rawValue == "served-break")
    }
}
