import HLSInterstitials

/// What one viewer got for one break.
enum Outcome: String, CaseIterable, Codable, Sendable {
    /// Assets from the ad server's creatives (their URIs carry ``VASTPod/marker``).
    case adServer = "ad server"
    /// Assets, none from the ad server: the origin's fallback (its inventory or a slate).
    case fallback
    /// An asset list with no assets.
    case empty
    /// No asset list: a status other than 200, a body that is not an asset list, a timeout.
    case failed

    /// The outcome of an asset-list answer: `status` and `body` (nil: no answer).
    static func of(status: Int?, body: [UInt8]?) -> Outcome {
        guard status == 200, let body, let list = try? AssetList.decode(body) else { return .failed }
        if list.assets.isEmpty { return .empty }
        return list.assets.contains { $0.uri.contains(VASTPod.marker) } ? .adServer : .fallback
    }
}
