import Foundation
import HLSLoading

/// The default ``BeaconSender``: an HTTP GET through the player's ``PlaylistLoader`` (its redirects,
/// headers and size limit), the body read and dropped.
///
/// Only `http` and `https` URLs are requested: a beacon never reads a local file.
struct HTTPBeaconSender: BeaconSender {
    let loader: PlaylistLoader

    func sendBeacon(to url: String) async throws -> Int? {
        guard let scheme = URL(string: url)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw LoadError(.invalidLocation, location: url, "a tracking beacon must be an http(s) URL")
        }
        _ = try await loader.loadResource(url)
        // PlaylistLoader answers 2xx responses with their bytes, not their status.
        return nil
    }
}
