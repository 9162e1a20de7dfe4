import Foundation

/// The admin API's OpenAPI 3.1 description (`Resources/openapi.json`), served at
/// `/admin/v1/openapi.json`; a test keeps its routes and error codes the router's.
enum OpenAPIDocument {
    /// The document's bytes, nil when the build has no such resource.
    static let bytes: [UInt8]? = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"),
            let data = try? Data(contentsOf: url)
        else { return nil }
        return Array(data)
    }()
}
