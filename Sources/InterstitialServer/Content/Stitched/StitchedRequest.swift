import Foundation
import HLSPlaylist

/// What a playlist request asks of the stitched form (issue 45; profile R28): whether it wants it
/// (`ads=stitched`, or a `User-Agent` the configuration lists), and the viewer's session the ads
/// are decided for (`session`, made by the server when absent and written into every URL it lists).
struct StitchedRequest: Sendable, Hashable {
    /// The query parameter that asks for a form, and its value for the stitched one.
    static let formParameter = "ads"
    /// The value of ``formParameter`` for the stitched form.
    static let stitchedValue = "stitched"
    /// The value of ``formParameter`` for the interstitial form (overrides the `User-Agent` setting).
    static let interstitialValue = "interstitials"
    /// The query parameter that carries the viewer's session.
    static let sessionParameter = "session"

    /// The viewer's session: the `_HLS_primary_id` of the asset-list requests made for it.
    var session: String
    /// Whether the server made the session (the request had none).
    var isNew: Bool

    /// Whether a request with `query` from `userAgent` gets the stitched form: `ads=stitched`, or no
    /// `ads` parameter and a user agent one of `patterns` is in (``StitchedUserAgents``).
    static func wanted(query: [String: String], userAgent: String?, patterns: StitchedUserAgents) -> Bool {
        switch query[formParameter] {
        case stitchedValue?: return true
        case nil: return patterns.matches(userAgent)
        default: return false
        }
    }

    /// The request's session, checked: at most `maximumBytes` bytes of letters, digits and `-._~`
    /// (it is written into URLs as it is); a new random one when the query has none.
    ///
    /// - Throws: 400 (`bad-session`) for a session that is too long or has other characters.
    static func read(query: [String: String], maximumBytes: Int) throws(APIError) -> StitchedRequest {
        guard let session = query[sessionParameter] else {
            return StitchedRequest(session: UUID().uuidString.lowercased(), isNew: true)
        }
        guard !session.isEmpty, session.utf8.count <= maximumBytes,
            session.utf8.allSatisfy({ byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            })
        else {
            throw APIError.badRequest(
                code: .badSession, path: sessionParameter,
                "a stitched session is 1 to \(maximumBytes) bytes of letters, digits and -._~")
        }
        return StitchedRequest(session: session, isNew: false)
    }

    /// The query the stitched form adds to every playlist URL it lists.
    var query: String { "\(Self.formParameter)=\(Self.stitchedValue)&\(Self.sessionParameter)=\(session)" }

    /// The request's query without the stitched form's parameters: what the interstitial form of the
    /// same playlist is asked with.
    static func primaryQuery(_ query: [String: String]) -> [String: String] {
        query.filter { $0.key != formParameter && $0.key != sessionParameter }
    }

    /// A multivariant playlist's text with ``query`` added to every variant and rendition URI, so
    /// each media playlist is asked in the stitched form for the same session; I-frame variants are
    /// left out (their segments are the primary's alone, which a stitched timeline does not match).
    func multivariant(_ text: String) -> String {
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let body = line.hasSuffix("\r") ? line.dropLast() : line
            if body.hasPrefix("#EXT-X-I-FRAME-STREAM-INF") { continue }
            if body.hasPrefix("#EXT-X-MEDIA:"), let range = body.range(of: "URI=\"") {
                guard let close = body[range.upperBound...].firstIndex(of: "\"") else {
                    lines.append(line)
                    continue
                }
                let uri = body[range.upperBound..<close]
                lines.append(
                    body[..<range.upperBound] + adding(to: uri) + body[close...] + (body.count < line.count ? "\r" : "")
                )
                continue
            }
            if !body.isEmpty, !body.hasPrefix("#"), !body.allSatisfy(\.isWhitespace) {
                lines.append(Substring(adding(to: body) + (body.count < line.count ? "\r" : "")))
                continue
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// `uri` with ``query`` added.
    private func adding(to uri: Substring) -> String {
        let separator = uri.contains("?") ? "&" : "?"
        return String(uri) + separator + query
    }
}
