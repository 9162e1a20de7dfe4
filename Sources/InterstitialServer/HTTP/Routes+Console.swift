import Foundation
import HTTPTypes
import Hummingbird

extension Routes {
    /// The folder of the operations console's files: the build's resources, or
    /// `HLSI_CONSOLE_DIRECTORY` (for working on the console without rebuilding).
    static var consoleDirectory: String? {
        if let folder = ProcessInfo.processInfo.environment["HLSI_CONSOLE_DIRECTORY"], !folder.isEmpty {
            return folder
        }
        return Bundle.module.resourceURL?.appendingPathComponent("console").path
    }

    /// The console's `Content-Security-Policy`: its own files only (no inline script or style, no
    /// other origin to fetch from, post to or be framed by).
    static let consolePolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// `GET /console` and its files under `/console/`: the operations console (static files, public;
    /// everything it shows comes from the admin API with the token the operator types in). Each
    /// answer carries ``consolePolicy`` and is revalidated before reuse.
    func registerConsole(on router: Router<ServerRequestContext>) {
        let files = files
        let directory = Self.consoleDirectory
        @Sendable func answer(
            _ name: String, _ request: Request, _ context: ServerRequestContext
        ) async throws
            -> Response
        {
            guard let directory, let path = SafePath(name), !name.hasPrefix(".") else {
                throw APIError.notFound(request.uri.path)
            }
            let type: String
            if name.hasSuffix(".html") {
                type = "text/html; charset=utf-8"
            } else if name.hasSuffix(".css") {
                type = "text/css; charset=utf-8"
            } else if name.hasSuffix(".mjs") {
                type = "text/javascript; charset=utf-8"
            } else {
                throw APIError.notFound(request.uri.path)
            }
            var response = try await files.respond(
                path: path.file(in: directory), name: request.uri.path, contentType: type,
                cacheControl: CachePolicy.revalidate, request: request, context: context)
            Self.addConsoleFields(to: &response.headers)
            return response
        }
        router.get("/console") { request, context in try await answer("index.html", request, context) }
        router.get("/console/:file") { request, context in
            try await answer(context.parameters.get("file") ?? "", request, context)
        }
    }

    /// The fields of every console answer: its content policy, no sniffing, no referrer.
    static func addConsoleFields(to fields: inout HTTPFields) {
        fields[HTTPField.Name("Content-Security-Policy")!] = consolePolicy
        fields[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        fields[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
    }
}
