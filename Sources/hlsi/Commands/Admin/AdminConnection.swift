import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The options every `hlsi admin` verb shares: the server and the admin token; and the one request
/// they all make.
struct AdminConnection: ParsableArguments {
    @Option(name: .long, help: "The server.")
    var server = "http://127.0.0.1:8080"

    @Option(name: .long, help: "The admin token (default: $HLSI_ADMIN_TOKEN).")
    var token: String?

    /// Sends `method` to `/admin/v1/PATH` with `body` (JSON), and prints the answer: exit 1 with the
    /// server's error when it refuses, 2 when the token is missing or the server cannot be reached.
    func send(_ method: HTTPMethod, _ path: String, body: String? = nil) async throws {
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
}
