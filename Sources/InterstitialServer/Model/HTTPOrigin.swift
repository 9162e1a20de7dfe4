import Foundation

/// The origin of an http(s) URL, the one test of "is this an http(s) URL" for configuration and the admin API.
enum HTTPOrigin {
    /// `scheme://host[:port]` of an http(s) URL with a host, lowercased; nil for anything else.
    static func of(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        return components.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}
