import HLSInterstitials
import HLSPlaylist

/// An ad of the inventory: an HLS VOD presentation and its duration.
public struct Ad: Hashable, Sendable {
    /// A unique identifier.
    public var id: String
    /// The presentation's URI: absolute, or a path on this server such as `/ads/ad1/master.m3u8`.
    public var uri: String
    /// Its duration, which fills that much of a break.
    public var duration: MediaTime

    /// Creates an ad.
    public init(id: String, uri: String, duration: MediaTime) {
        self.id = id
        self.uri = uri
        self.duration = duration
    }

    /// The URI players are given: ``uri`` itself when absolute, else under `publicBase` (the
    /// server's public `scheme://host[:port]`).
    public func absoluteURI(publicBase: String) -> String {
        uri.contains("://") ? uri : publicBase + uri
    }
}

extension Ad {
    /// `{"id": …, "uri": …, "duration": seconds}`.
    public var jsonValue: JSONValue {
        .object(["id": .string(id), "uri": .string(uri), "duration": .seconds(duration)])
    }

    /// Reads an ad; errors name the JSON path.
    public static func decode(_ value: JSONValue, path: String = "") throws(APIError) -> Ad {
        var reader = try JSONObjectReader(value, path: path)
        let id = try reader.identifier("id")
        let uri = try reader.requiredString("uri")
        if uri.isEmpty || uri.contains(" ") {
            throw reader.error("uri", "must be a non-empty URI without quotes, spaces or line breaks")
        }
        if let problem = PlayerURI.problem(uri) { throw reader.error("uri", problem) }
        do {
            _ = try AttributeValue.quoted(uri)  // it is written as X-ASSET-URI
        } catch {
            throw reader.error("uri", error.description)
        }
        guard let duration = try reader.seconds("duration"), duration > .zero else {
            throw reader.error("duration", "an ad needs a positive duration in seconds")
        }
        try reader.finish()
        return Ad(id: id, uri: uri, duration: duration)
    }
}
