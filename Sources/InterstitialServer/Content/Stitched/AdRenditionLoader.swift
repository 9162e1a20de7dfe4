import AsyncHTTPClient
import Foundation
import HLSPlaylist
import NIOConcurrencyHelpers
import NIOCore

/// Loads the ads' HLS playlists for the stitched form, bounded in size, time and count: the demo's
/// and conditioned creatives' from this server's own directories (their URLs start with the
/// public base), any other through the ``AdServerFetcher`` (its address policy, redirects and
/// deadline), at most ``ServerLimits/upstreamPlaylistBytes`` each.
///
/// An ad's playlists do not change while it is served: each is kept ``lifetime`` once loaded, at
/// most ``maximumKept`` of them, so a break's ads are loaded once for every viewer and variant.
struct AdRenditionLoader: Sendable {
    /// Why an ad's playlist cannot be used.
    struct Failure: Error, Sendable {
        /// The metric reason: `fetch` (not loaded), `playlist` (not a playlist of the kind needed).
        var reason: String
        /// Where and why.
        var message: String
    }

    /// How long a loaded playlist is kept.
    static let lifetime = MediaTime(seconds: 60)
    /// The most playlists kept.
    static let maximumKept = 512

    let fetcher: AdServerFetcher
    /// This server's directory of ads (served under `/ads/`).
    let adDirectory: String?
    /// This server's directory of conditioned creatives (served under `/creatives/`).
    let creativeDirectory: String?
    /// The most bytes of one playlist.
    let maximumBytes: Int
    private let kept = NIOLockedValueBox<[String: (at: MediaTime, result: ParseResult)]>([:])
    /// The server's clock, for ``lifetime``.
    private let clock: any ServerClock

    init(
        fetcher: AdServerFetcher, adDirectory: String?, creativeDirectory: String?, maximumBytes: Int,
        clock: any ServerClock
    ) {
        self.fetcher = fetcher
        self.clock = clock
        self.adDirectory = adDirectory
        self.creativeDirectory = creativeDirectory
        self.maximumBytes = maximumBytes
    }

    /// The playlist at the absolute `url`, parsed, by `deadline`.
    func playlist(_ url: String, publicBase: String, deadline: NIODeadline) async throws(Failure) -> ParseResult {
        let at = clock.now
        if let entry = kept.withLockedValue({ $0[url] }), at - entry.at < Self.lifetime { return entry.result }
        let bytes = try await load(url, publicBase: publicBase, deadline: deadline, maximumBytes: maximumBytes)
        let result = PlaylistParser.parse(bytes, options: ParseOptions(file: url))
        kept.withLockedValue { kept in
            if kept.count >= Self.maximumKept {
                kept = kept.filter { at - $0.value.at < Self.lifetime }
                if kept.count >= Self.maximumKept { kept.removeAll(keepingCapacity: true) }
            }
            kept[url] = (at, result)
        }
        return result
    }

    /// The bytes at the absolute `url` (an ad's initialization or media segment), at most
    /// `maximumBytes`, by `deadline`, found as ``playlist(_:publicBase:deadline:)`` finds a
    /// playlist; not kept.
    func bytes(
        _ url: String, publicBase: String, deadline: NIODeadline, maximumBytes: Int
    ) async throws(Failure) -> [UInt8] {
        try await load(url, publicBase: publicBase, deadline: deadline, maximumBytes: maximumBytes)
    }

    private func load(
        _ url: String, publicBase: String, deadline: NIODeadline, maximumBytes: Int
    ) async throws(Failure) -> [UInt8] {
        for (prefix, directory) in [("/ads/", adDirectory), ("/creatives/", creativeDirectory)] {
            guard let directory, url.hasPrefix(publicBase + prefix) else { continue }
            var rest = url.dropFirst(publicBase.count + prefix.count)
            if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<query] }
            guard let decoded = String(rest).removingPercentEncoding, let path = SafePath(decoded) else {
                throw Failure(reason: "fetch", message: "\(url) is not a path under \(prefix)")
            }
            do {
                return try PlaylistFileCache.read(path.file(in: directory), name: url, limit: maximumBytes)
            } catch {
                throw Failure(reason: "fetch", message: "\(url) cannot be read: \(error.message)")
            }
        }
        do {
            let response = try await fetcher.get(url, deadline: deadline)
            guard response.status == .ok else {
                _ = try? await response.body.collect(upTo: 64 * 1024)
                throw Failure(reason: "fetch", message: "\(url) answered \(response.status.code)")
            }
            let body = try await response.body.collect(upTo: maximumBytes)
            return Array(body.readableBytesView)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(
                reason: "fetch",
                message: "\(url) cannot be loaded (at most \(maximumBytes) bytes, by the deadline): \(error)")
        }
    }
}
