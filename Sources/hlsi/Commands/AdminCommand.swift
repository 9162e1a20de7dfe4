import ArgumentParser
import AsyncHTTPClient
import Foundation
import HLSInterstitials
import NIOCore
import NIOHTTP1

/// `hlsi admin`: drives a running server's admin API.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Drive the admin API of a running `hlsi serve`.",
        discussion: """
            Verbs:
              list content|schedules|breaks|inventory [--target vod/ID|live/ID]
              get schedule TARGET | get break ID | get ad ID
              create schedule|break|ad (--json TEXT | --file FILE|-)
              update schedule TARGET | update break ID | update ad ID (--json TEXT | --file FILE|-)
              delete schedule TARGET | delete break ID | delete ad ID
              break-now CHANNEL [--duration S] [--id ID] [--ad AD]     start a live break at the live edge
              return-now CHANNEL [--break ID]                           end the current live break early
            Prints the server's JSON answer. Exit codes: 0 done, 1 refused by the server (its JSON error \
            goes to standard error), 2 usage or connection failure.
            """
    )

    @Argument(help: "The verb and its resource (see below).")
    var words: [String]

    @Option(name: .long, help: "The server.")
    var server = "http://127.0.0.1:8080"

    @Option(name: .long, help: "The admin token (default: $HLSI_ADMIN_TOKEN).")
    var token: String?

    @Option(name: .long, help: "The request body as JSON text.")
    var json: String?

    @Option(name: .long, help: "A file with the request body (- for standard input).")
    var file: String?

    @Option(name: .long, help: "list breaks: only this target.")
    var target: String?

    @Option(name: .long, help: "break-now: the break's duration in seconds.")
    var duration: Double?

    @Option(name: .long, help: "break-now: the break's ID.")
    var id: String?

    @Option(name: .long, help: "break-now: a fixed ad instead of the asset list.")
    var ad: String?

    @Option(name: .long, help: "return-now: the break to end (default: the latest started).")
    var `break`: String?

    func run() async throws {
        let (method, path, needsBody) = try route()
        var body: String?
        if needsBody {
            body = try readBody()
        } else if words.first == "break-now" {
            var fields: [String: JSONValue] = [:]
            if let duration { fields["duration"] = .number(duration) }
            if let id { fields["id"] = .string(id) }
            if let ad { fields["ad"] = .string(ad) }
            body = JSONValue.object(fields).description
        } else if words.first == "return-now" {
            body = JSONValue.object(self.break.map { ["break": .string($0)] } ?? [:]).description
        }
        guard let token = token ?? ProcessInfo.processInfo.environment["HLSI_ADMIN_TOKEN"] else {
            throw CommandFailure(message: "error: give --token or set HLSI_ADMIN_TOKEN", exitCode: 2)
        }
        var base = server
        while base.hasSuffix("/") { base.removeLast() }
        var request = HTTPClientRequest(url: base + "/admin/v1/" + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = .seconds(5)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let result: (UInt, String)
        do {
            let response = try await client.execute(request, timeout: .seconds(30))
            let bytes = try await response.body.collect(upTo: 16 * 1024 * 1024)
            result = (response.status.code, String(buffer: bytes))
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw CommandFailure(message: "error: \(base): \(error)", exitCode: 2)
        }
        if (200..<300).contains(result.0) {
            Output.standardOutput(result.1.isEmpty ? "" : result.1.hasSuffix("\n") ? result.1 : result.1 + "\n")
        } else {
            throw CommandFailure(
                message: "error: HTTP \(result.0): \(result.1.trimmingCharacters(in: .whitespacesAndNewlines))",
                exitCode: 1)
        }
    }

    /// The method, the path under /admin/v1/, and whether a body is needed.
    func route() throws -> (HTTPMethod, String, Bool) {
        func resource(_ name: String) throws -> String {
            switch name {
            case "schedule", "schedules": return "schedules"
            case "break", "breaks": return "breaks"
            case "ad", "ads", "inventory": return "inventory"
            case "content": return "content"
            default: throw ValidationError("unknown resource \"\(name)\": use schedule, break or ad")
            }
        }
        func key(_ index: Int) throws -> String {
            guard words.count > index else { throw ValidationError("\(words[0]) \(words[1]) needs an ID or target") }
            let text = words[index]
            guard !text.isEmpty, text.allSatisfy({ $0.isLetter || $0.isNumber || "-_./".contains($0) }),
                !text.contains("..")
            else { throw ValidationError("\"\(text)\" is not an ID or target") }
            return text
        }
        guard let verb = words.first else {
            throw ValidationError("give a verb: list, get, create, update, delete, break-now, return-now")
        }
        switch verb {
        case "list":
            guard words.count == 2 else { throw ValidationError("usage: list content|schedules|breaks|inventory") }
            var path = try resource(words[1])
            if let target {
                path +=
                    "?target="
                    + (target.addingPercentEncoding(
                        withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_./"))) ?? target)
            }
            return (.GET, path, false)
        case "get", "delete", "update":
            guard words.count == 3 else { throw ValidationError("usage: \(verb) schedule TARGET | break ID | ad ID") }
            let path = try resource(words[1]) + "/" + key(2)
            return (verb == "get" ? .GET : verb == "delete" ? .DELETE : .PUT, path, verb == "update")
        case "create":
            guard words.count == 2 else { throw ValidationError("usage: create schedule|break|ad --json TEXT") }
            return (.POST, try resource(words[1]), true)
        case "break-now", "return-now":
            guard words.count == 2 else { throw ValidationError("usage: \(verb) CHANNEL") }
            return (.POST, "channels/\(try key(1))/" + (verb == "break-now" ? "breaks" : "return"), false)
        default:
            throw ValidationError(
                "unknown verb \"\(verb)\": use list, get, create, update, delete, break-now, return-now")
        }
    }

    private func readBody() throws -> String {
        switch (json, file) {
        case (let text?, nil): return text
        case (nil, "-"?): return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        case (nil, let path?):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandFailure(message: "error: cannot read \(path)", exitCode: 2)
            }
            return String(decoding: data, as: UTF8.self)
        case (nil, nil): throw ValidationError("\(words.joined(separator: " ")) needs --json TEXT or --file FILE")
        case (.some, .some): throw ValidationError("give --json or --file, not both")
        }
    }
}
