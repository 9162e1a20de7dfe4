import HLSPlaylist

/// The rule for URIs the admin API writes into what players load (an ad's `uri`, a break's
/// `assetUri` and `assetList`): an `http` or `https` URL, or a reference relative to the playlist
/// or this server (`/ads/…`). Other schemes (`javascript:`, `data:`, `file:`) and scheme-relative
/// references (`//host/…`, which name another host) are refused, since a player would load them.
enum PlayerURI {
    /// Why `uri` may not be written for players, or nil when it may.
    static func problem(_ uri: String) -> String? {
        if URIReference.isAbsolute(uri) {
            let scheme = uri.prefix { $0 != ":" }.lowercased()
            guard scheme == "http" || scheme == "https" else {
                return "\"\(Diagnostic.clipped(uri))\" has the scheme \"\(scheme)\": use an http(s) URL or a path"
            }
            return nil
        }
        if uri.hasPrefix("//") || uri.hasPrefix("\\") {
            return "\"\(Diagnostic.clipped(uri))\" names another host without a scheme: use an http(s) URL or a path"
        }
        return nil
    }
}
