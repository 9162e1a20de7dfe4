import Foundation
import HLSInterstitials
import HLSPlaylist

extension ServerConfiguration {
    /// One target the server serves and the URL of its entry playlist.
    public struct TargetURL: Hashable, Sendable {
        /// `vod/ID` or `live/ID`.
        public var target: Target
        /// The absolute URL of its entry playlist, such as `http://127.0.0.1:8080/vod/movie/master.m3u8`.
        public var url: String
    }

    /// Every VOD asset's and live channel's entry playlist URL, VOD first, in the file's order: what
    /// `hlsi serve` prints when it starts and with `--dry-run`.
    ///
    /// - Parameter port: the port the server is bound to (or, before it is, the configured one);
    ///   used when there is no ``publicURL``.
    public func targetURLs(port: Int) -> [TargetURL] {
        let base = baseURL(port: port)
        return [(Target.Kind.vod, vod), (.live, live)].flatMap { kind, list in
            list.map { TargetURL(target: Target(kind, $0.id), url: "\(base)\($0.path)/\($0.entry)") }
        }
    }

    /// The `scheme://host[:port]` the server's URLs start with: ``publicURL``, or the loopback
    /// address it listens on with `port`, the port it is bound to.
    public func baseURL(port: Int) -> String { publicBase(boundPort: port) }

    /// Warnings about the seed's breaks, one line each (`seed.breaks[0].resumeOffset: warning:
    /// [interstitial-preroll-skip] …`): what `hlsi serve` prints with `--dry-run` and at start, as the
    /// admin API returns them with a 201.
    public var seedWarnings: [String] {
        seed.breaks.enumerated().compactMap { index, item in
            item.preRollSkipWarning.map {
                "seed.breaks[\(index)].resumeOffset: warning: [\(Rule.interstitialPreRollSkip.id.rawValue)] \($0)"
            }
        }
    }

    /// Notes about ad tracking, one line each (`vod[0].adServer.tracking: note: …`): a target whose ad
    /// server keeps the default `tracking: client` leaves every beacon to the player, through the asset
    /// list's `X-AD-CREATIVE-SIGNALING`. A player that does not read it (hls.js, a browser's own HLS)
    /// sends no impression at all, so `hlsi serve` says so, with `--dry-run` and at start.
    public var trackingNotes: [String] {
        func notes(_ contents: [Content], _ kind: String) -> [String] {
            contents.enumerated().compactMap { index, content in
                guard let settings = content.adServer, settings.tracking == .client else { return nil }
                return "\(kind)[\(index)].adServer.tracking: note: \"client\" (the default): the player fires the ads' "
                    + "impressions and quartiles from the asset list's X-AD-CREATIVE-SIGNALING; a player that does not "
                    + "read it (hls.js, a browser's own HLS) sends none. \"server\" fires each impression when the "
                    + "asset list is served; \"relay\" passes the player's beacons on (docs/ad-decisioning.md)."
            }
        }
        return notes(vod, "vod") + notes(live, "live")
    }

    /// Checks what the file names on disk: every directory of VOD assets and looped channels exists
    /// and holds its entry playlist, and the ads directory exists. Run when the server starts (and
    /// by `hlsi serve --dry-run`), so that a wrong path is an error then, not a 404 later.
    ///
    /// - Throws: ``APIError`` with code `config` and the JSON path of the first missing one.
    public func checkFiles() throws(APIError) {
        let files = FileManager.default
        for (kind, key, list) in [("vod", "directory", vod), ("live", "loop", live)] {
            for (index, content) in list.enumerated() {
                guard case .directory(let directory) = content.origin else { continue }
                let path = "\(kind)[\(index)].\(key)"
                var isDirectory: ObjCBool = false
                guard files.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                    throw .badRequest(code: .config, path: path, "the directory \(directory) does not exist")
                }
                let entry = URL(fileURLWithPath: directory).appendingPathComponent(content.entry).path
                guard files.fileExists(atPath: entry) else {
                    throw .badRequest(
                        code: .config, path: path,
                        "the directory \(directory) has no \(content.entry) (the entry playlist; set entry to another)")
                }
            }
        }
        if let adDirectory {
            var isDirectory: ObjCBool = false
            guard files.fileExists(atPath: adDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw .badRequest(code: .config, path: "ads", "the directory \(adDirectory) does not exist")
            }
        }
    }
}
