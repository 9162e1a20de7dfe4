import Foundation

/// URI references as playlists use them: telling absolute URIs from relative ones, and resolving a
/// relative reference against the location of the playlist it appears in (RFC 3986 §5 for URLs;
/// file paths for playlists read from disk).
public enum URIReference {
    /// Whether `text` starts with a URI scheme (`scheme ":"`, RFC 3986 §3.1): a letter, then letters,
    /// digits, `+`, `-` or `.`.
    public static func isAbsolute(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":") else { return false }
        let scheme = text[..<colon].unicodeScalars
        guard let first = scheme.first, isLetter(first) else { return false }
        return scheme.allSatisfy { isLetter($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) }
    }

    /// Whether a location names a local file: a path, or a `file:` URL.
    public static func isFile(_ location: String) -> Bool {
        !isAbsolute(location) || location.lowercased().hasPrefix("file:")
    }

    /// Resolves a URI reference against the playlist location it appears in: a URL (http, https or
    /// file) or a file path, for which the query and fragment are dropped.
    public static func resolve(_ reference: String, against base: String) -> String {
        if isAbsolute(reference) { return reference }
        if isAbsolute(base), let baseURL = URL(string: base) {
            return URL(string: reference, relativeTo: baseURL)?.absoluteString ?? reference
        }
        var path = String(reference.prefix { $0 != "?" && $0 != "#" })
        path = path.removingPercentEncoding ?? path
        if path.hasPrefix("/") { return path }
        let directory = (base as NSString).deletingLastPathComponent
        return directory.isEmpty ? path : (directory as NSString).appendingPathComponent(path)
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }
}
