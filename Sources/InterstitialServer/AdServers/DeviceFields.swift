import AdDecisioning

/// What a VAST ad server hears of the viewer it is asked for: the one place that decides which of
/// the viewer's device fields go out, and how much of them.
///
/// VAST 4.1 asks a server requesting on a client's behalf to send the client's user agent and
/// address (`X-Device-User-Agent`, `X-Device-IP`, and the `[DEVICEUA]` and `[DEVICEIP]` macros).
/// Two rules keep one viewer from deciding for the others:
///
/// - Each field is cut to ``maximumBytes`` (at a character boundary): a viewer's 9 KB user agent
///   must not make the ad server refuse the request (nginx answers 400 to large headers), nor
///   every request of the break.
/// - A decision shared by every viewer (an ad tag with no per-viewer macro: ``AdTagTemplate/isShared``)
///   carries no viewer's device: no `X-Device-*` field is sent for it, so the first viewer to ask
///   (a bot, a scanner) cannot choose the ads of the whole break, and no viewer's address or user
///   agent reaches the tracking URLs the others are given.
struct DeviceFields: Hashable, Sendable {
    /// The most bytes of one forwarded field.
    static let maximumBytes = 512

    /// The viewer's user agent, cut to ``maximumBytes``.
    var userAgent: String?
    /// The viewer's address, cut to ``maximumBytes``.
    var ip: String?

    /// The fields of a viewer with this user agent and address, cut to ``maximumBytes``.
    init(userAgent: String?, ip: String?) {
        self.userAgent = userAgent.map(Self.capped)
        self.ip = ip.map(Self.capped)
    }

    /// `value`, cut to at most ``maximumBytes`` bytes of UTF-8 at a character boundary.
    static func capped(_ value: String) -> String {
        guard value.utf8.count > maximumBytes else { return value }
        var kept = String.UnicodeScalarView()
        var bytes = 0
        for scalar in value.unicodeScalars {
            let width = UTF8.width(scalar)
            guard bytes + width <= maximumBytes else { break }
            bytes += width
            kept.append(scalar)
        }
        return String(kept)
    }

    /// The header fields of a request: none for a `shared` decision.
    func headers(shared: Bool) -> [(String, String)] {
        guard !shared else { return [] }
        return (userAgent.map { [("X-Device-User-Agent", $0)] } ?? []) + (ip.map { [("X-Device-IP", $0)] } ?? [])
    }

    /// Fills `request`'s `[DEVICEUA]` and `[DEVICEIP]` (a shared template names neither).
    func fill(_ request: inout AdTagTemplate.Request) {
        request.viewerUserAgent = userAgent
        request.viewerIP = ip
    }
}
