import Foundation
import HLSInterstitials
import Hummingbird
import NIOCore

/// The server's routes: the web page, content, ads, and the admin API.
struct Routes {
    let library: ContentLibrary
    let admin: AdminAPI

    var configuration: ServerConfiguration { library.configuration }

    func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let fileIO = FileIO()
        @Sendable func file(
            _ path: String, _ type: String, _ cache: String, _ context: BasicRequestContext
        )
            async throws -> Response
        {
            var headers = HTTPFields()
            headers[.contentType] = type
            headers[.cacheControl] = cache
            headers[.accessControlAllowOrigin] = "*"
            return Response(
                status: .ok, headers: headers, body: try await fileIO.loadFile(path: path, context: context))
        }
        let fallback = "http://\(configuration.host):\(configuration.port)"
        let localHLSJS = configuration.hlsjs.contains("://") ? nil : configuration.hlsjs
        let page = DemoPage.html(
            configuration: configuration, hlsjs: localHLSJS == nil ? configuration.hlsjs : "/assets/hls.mjs")
        router.get("/") { _, _ in
            Response.bytes(Array(page.utf8), contentType: "text/html; charset=utf-8", cacheControl: "no-cache")
        }
        router.get("/favicon.ico") { _, _ in Response(status: .noContent) }
        if let localHLSJS {
            router.get("/assets/hls.mjs") { _, context in
                try await file(localHLSJS, "text/javascript", "max-age=3600", context)
            }
        }
        let adDirectory = configuration.adDirectory
        router.get("/ads/**") { request, context in
            guard let adDirectory else { throw APIError.notFound(request.uri.path) }
            guard let path = SafePath(request.uri.path.dropFirst("/ads/".count)) else {
                throw APIError.badRequest(code: "bad-path", path: request.uri.path, "the path is not allowed")
            }
            let adFile = path.file(in: adDirectory)
            guard ContentLibrary.isFile(adFile) else { throw APIError.notFound(request.uri.path) }
            return try await file(adFile, ContentResponse.contentType(of: adFile), "max-age=3600", context)
        }
        admin.register(on: router.group("admin/v1"))
        router.get("/**") { request, context in
            guard let mounted = library.mounted(request.uri.path) else { throw APIError.notFound(request.uri.path) }
            let base = try request.baseURL(fallback: fallback)
            let response = try await library.get(mounted, query: request.queryDictionary, base: base)
            switch response.body {
            case .bytes(let bytes):
                return Response.bytes(bytes, contentType: response.contentType, cacheControl: response.cacheControl)
            case .file(let path):
                return try await file(path, response.contentType, response.cacheControl, context)
            }
        }
        return router
    }
}
