import AsyncHTTPClient
import Foundation
import HLSPlaylist
import NIOCore
import NIOHTTP1

/// Words a failure below HTTP (name resolution, connecting, TLS, a dropped connection, a timeout)
/// for people: what failed and where (`host:port`), never a library's type names or nested
/// descriptions.
///
/// The HTTP client reports such failures as errors of several libraries, often wrapped (a refused
/// connection arrives as a connection error holding one `IOError` per address tried). This type
/// unwraps them and picks the ``LoadError/Code``: ``LoadError/Code/timeout`` for timeouts,
/// ``LoadError/Code/network`` for the rest.
struct NetworkFailure {
    /// The URL that was requested.
    var location: String
    /// The time the whole response had.
    var timeout: Duration
    /// The most redirects followed.
    var maximumRedirects: Int

    /// `host:port` of the location (the default port of the scheme when none is given).
    var endpoint: String {
        guard let url = URL(string: location), let host = url.host else { return location }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The host name of the location.
    var host: String { URL(string: location)?.host ?? location }

    /// The load error for `error`.
    func loadError(for error: any Error) -> LoadError {
        let (code, message) = describe(error, depth: 0)
        return LoadError(code, location: location, message)
    }

    private var timedOut: (LoadError.Code, String) {
        (.timeout, "no complete response from \(endpoint) within \(Self.seconds(timeout))")
    }

    private func describe(_ error: any Error, depth: Int) -> (LoadError.Code, String) {
        if error is TimeLimitExceeded { return timedOut }
        if let error = error as? HTTPClientError { return describe(error) }
        if let error = error as? IOError { return describe(errno: error.errnoCode) }
        if let error = error as? SocketAddressError.UnknownHost {
            return (.network, "cannot resolve the host name \"\(error.host)\": \(error.errorDescription)")
        }
        if let error = error as? HTTPParserError {
            if error == .invalidEOFState || error == .closedConnection {
                return (.network, "\(endpoint) closed the connection before the response was complete")
            }
            return (.network, "\(endpoint) sent a response that is not valid HTTP (\(error))")
        }
        if let error = error as? ChannelError {
            switch error {
            case .connectTimeout: return (.timeout, "cannot connect to \(endpoint) within \(Self.seconds(timeout))")
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed:
                return (.network, "\(endpoint) closed the connection before the response was complete")
            default: break
            }
        }
        let typeName = String(reflecting: type(of: error))
        // NIOPosix's NIOConnectionError (one failure per address tried, or the DNS errors), read
        // through its public properties without depending on NIOPosix.
        if typeName.hasSuffix("NIOConnectionError"), depth < 3 {
            let children = Dictionary(
                Mirror(reflecting: error).children.compactMap { child in child.label.map { ($0, child.value) } },
                uniquingKeysWith: { first, _ in first })
            for key in ["dnsAError", "dnsAAAAError"] {
                if let dnsError = Self.unwrapped(children[key]) {
                    if dnsError is SocketAddressError.UnknownHost { return describe(dnsError, depth: depth + 1) }
                    return (.network, "cannot resolve the host name \"\(host)\"")
                }
            }
            if let failures = children["connectionErrors"] as? [Any], let first = failures.first,
                let inner = Mirror(reflecting: first).children.first(where: { $0.label == "error" })?.value
                    as? any Error
            {
                return describe(inner, depth: depth + 1)
            }
            return (.network, "cannot connect to \(endpoint)")
        }
        if typeName.contains("SSL") || typeName.contains("TLS") {
            return (.network, "TLS with \(endpoint) failed\(Self.tlsReason(String(describing: error)))")
        }
        return (.network, "the request to \(endpoint) failed: \(error)")
    }

    private func describe(_ error: HTTPClientError) -> (LoadError.Code, String) {
        switch error {
        case .redirectLimitReached, .redirectCycleDetected:
            return (.tooManyRedirects, "more than \(maximumRedirects) redirects, or a redirect cycle")
        case .deadlineExceeded, .readTimeout, .writeTimeout, .getConnectionFromPoolTimeout:
            return timedOut
        case .connectTimeout:
            return (.timeout, "cannot connect to \(endpoint) within \(Self.seconds(timeout))")
        case .tlsHandshakeTimeout:
            return (.timeout, "the TLS handshake with \(endpoint) did not finish in time")
        case .invalidURL, .emptyHost, .emptyScheme:
            return (.invalidLocation, "not a valid http(s) URL")
        case .alreadyShutdown:
            return (.network, "the loader was shut down before this request to \(endpoint)")
        case .remoteConnectionClosed:
            return (.network, "\(endpoint) closed the connection before the response was complete")
        default:
            return (.network, "the HTTP exchange with \(endpoint) failed: \(error.shortDescription.lowercased())")
        }
    }

    private func describe(errno code: CInt) -> (LoadError.Code, String) {
        switch code {
        case ECONNREFUSED: return (.network, "connection refused by \(endpoint): nothing listens there")
        case ECONNRESET: return (.network, "connection reset by \(endpoint)")
        case ETIMEDOUT: return (.timeout, "connecting to \(endpoint) timed out")
        case ENETUNREACH: return (.network, "the network of \(endpoint) is unreachable")
        case EHOSTUNREACH: return (.network, "the host \(endpoint) is unreachable")
        case EPIPE: return (.network, "\(endpoint) closed the connection while the request was sent")
        default: return (.network, "cannot connect to \(endpoint): \(String(cString: strerror(code)))")
        }
    }

    /// The value inside an `Optional` held as `Any`, as an error.
    private static func unwrapped(_ value: Any?) -> (any Error)? {
        guard let value else { return nil }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional { return mirror.children.first?.value as? any Error }
        return value as? any Error
    }

    /// `: REASON` from a TLS library's error text (its last upper-case reason code, in words), or nothing.
    static func tlsReason(_ text: String) -> String {
        var reason: Substring?
        var index = text.startIndex
        while index < text.endIndex {
            guard text[index].isUppercase else {
                index = text.index(after: index)
                continue
            }
            let end = text[index...].firstIndex { !($0.isUppercase || $0 == "_" || $0.isNumber) } ?? text.endIndex
            let word = text[index..<end]
            if word.count >= 6, word.contains("_") { reason = word }
            index = end
        }
        guard let reason else { return "" }
        switch reason {
        case "WRONG_VERSION_NUMBER": return ": the server does not speak TLS there (plain http?)"
        case "CERTIFICATE_VERIFY_FAILED": return ": its certificate is not trusted"
        default: return ": " + reason.lowercased().replacingOccurrences(of: "_", with: " ")
        }
    }

    /// `60 s`, `1.5 s`.
    static func seconds(_ duration: Duration) -> String {
        let value = duration.secondsValue
        return value == value.rounded() ? "\(Int64(value)) s" : "\(value) s"
    }
}
