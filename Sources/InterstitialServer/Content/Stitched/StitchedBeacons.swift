import Foundation
import HLSInterstitials
import HLSPlaylist

/// The beacons of the stitched form (issue 45): the player knows nothing of the ads, so the server
/// fires each ad's tracking as the viewer requests the ad's segments (``StitchBeaconPlan``): the
/// impression with the first, the quartiles by segment, once per viewer and ad.
///
/// A stitched playlist lists each ad segment through a URL of this server,
/// `/stitched/<entry>/<rendition>/<segment><extension>`, which answers with a redirect to the ad's
/// own segment. The entry is one viewer's ad in one break (made when a stitched playlist lists it,
/// shared by every variant and rendition and every reload); the rendition is the ad playlist the
/// segment comes from. So an event fires when its segment is requested, once, whichever rendition
/// the player was on. The pod's own events (`breakStart`, `breakEnd`) are in the entries of its
/// first and last ad. Entries are kept in a ``StitchedMemo`` (bounded, expiring).
final class StitchedBeacons: Sendable {
    /// The path the segment URLs start with.
    static let prefix = "/stitched/"

    /// One viewer's ad in one break.
    struct Entry: Sendable {
        /// The entry's random ID, in its URLs.
        var id: String
        /// The URLs of each event type (the ad's VAST tracking as its asset list gave it).
        var tracking: [String: [String]]
        /// The ad playlists listed, each with its segments' absolute URLs and the events due at
        /// each segment.
        var renditions: [(url: String, segments: [String], due: [[String]])] = []
        /// The event types fired.
        var fired: Set<String> = []

        /// Bytes this entry holds, roughly.
        var size: Int {
            256 + tracking.reduce(0) { $0 + $1.key.utf8.count + $1.value.reduce(0) { $0 + $1.utf8.count + 16 } }
                + renditions.reduce(0) { total, rendition in
                    total + rendition.url.utf8.count + rendition.segments.reduce(0) { $0 + $1.utf8.count + 48 }
                }
        }
    }

    /// The entries by key (target, viewer, break, ad position) and their IDs' keys.
    let entries: StitchedMemo<Entry>
    let keys: StitchedMemo<String>

    init(limits: StitchedMemo<Entry>.Limits, now: @escaping @Sendable () -> DateTime) {
        entries = StitchedMemo(limits: limits, now: now) { key, entry in key.utf8.count + entry.size }
        keys = StitchedMemo(
            limits: .init(count: limits.count, bytes: limits.bytes, idle: limits.idle), now: now
        ) { key, value in key.utf8.count + value.utf8.count + 64 }
    }

    /// `playlist` (an ad rendition loaded from `url`) with its segment URIs replaced by this
    /// server's URLs for the viewer's ad `key`, whose events are `tracking` (with the pod's
    /// `breakStart` for its first ad, `breakEnd` for its last): what the stitcher
    /// writes, so that each segment's request fires what is due at it. Byte ranges are given
    /// explicit offsets (the URIs they followed are replaced).
    func routed(
        _ playlist: MediaPlaylist, url: String, key: String, tracking: [String: [String]], publicBase: String
    ) -> MediaPlaylist {
        let absolute = playlist.segments.map { URIReference.resolve($0.uri, against: url) }
        let due = StitchBeaconPlan.events(
            durations: playlist.segments.map(\.duration), opensPod: tracking[StitchBeaconPlan.podStart] != nil,
            closesPod: tracking[StitchBeaconPlan.podEnd] != nil)
        let (id, rendition) = entries.update(key, make: { Entry(id: Self.newID(), tracking: tracking) }) { entry in
            if let index = entry.renditions.firstIndex(where: { $0.url == url }) { return (entry.id, index) }
            entry.renditions.append((url, absolute, due))
            return (entry.id, entry.renditions.count - 1)
        }
        keys.update(id, make: { key }) { $0 = key }
        var routed = playlist
        var next: [String: UInt64] = [:]
        var segments: [MediaSegment] = []
        for (index, segment) in playlist.segments.enumerated() {
            var copy = segment
            if let range = segment.byteRange {
                let offset = range.offset ?? next[segment.uri] ?? 0
                next[segment.uri] = offset &+ range.length
                copy.byteRange?.offset = offset
            }
            copy.uri = "\(publicBase)\(Self.prefix)\(id)/\(rendition)/\(index)\(Self.fileExtension(segment.uri))"
            segments.append(copy)
        }
        routed.segments.replaceSubrange(0..<routed.segments.count, with: segments)
        return routed
    }

    /// The URL that lists `url`, the first primary segment after a break whose pod was cut, through
    /// this server: it sends the viewer there and fires the pod's `breakEnd` (profile R28). It is a
    /// rendition of the entry `key` of the pod's last ad, which holds `breakEnd`, so the event fires
    /// once per viewer and break, at this segment or the last ad's last, whichever is asked first.
    /// Nil when that entry is not kept.
    func resumption(key: String, url: String, publicBase: String) -> String? {
        guard entries.value(key) != nil else { return nil }
        let (id, rendition) = entries.update(key, make: { Entry(id: Self.newID(), tracking: [:]) }) { entry in
            if let index = entry.renditions.firstIndex(where: { $0.url == url }) { return (entry.id, index) }
            entry.renditions.append((url, [url], [[StitchBeaconPlan.podEnd]]))
            return (entry.id, entry.renditions.count - 1)
        }
        keys.update(id, make: { key }) { $0 = key }
        return "\(publicBase)\(Self.prefix)\(id)/\(rendition)/0\(Self.fileExtension(url))"
    }

    /// What a request for a segment URL (the path after ``prefix``) gets: the ad segment to redirect
    /// to, and the tracking URLs of the events due at it not fired yet (now marked fired, with their
    /// types); nil for a URL that names no kept entry or segment.
    func request(_ path: Substring) -> (location: String, fire: [(type: String, urls: [String])])? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].utf8.count == 32, let rendition = Int(parts[1]),
            let segment = Int(parts[2].prefix { $0.isASCII && $0.isNumber }),
            let key = keys.value(String(parts[0])), entries.value(key) != nil
        else { return nil }
        return entries.update(key, make: { Entry(id: "", tracking: [:]) }) { entry in
            guard entry.id == parts[0], entry.renditions.indices.contains(rendition),
                entry.renditions[rendition].segments.indices.contains(segment)
            else { return nil }
            var fire: [(type: String, urls: [String])] = []
            for type in entry.renditions[rendition].due[segment] where !entry.fired.contains(type) {
                entry.fired.insert(type)
                fire.append((type, entry.tracking[type] ?? []))
            }
            return (entry.renditions[rendition].segments[segment], fire)
        }
    }

    /// A new entry ID: 32 random hex digits.
    static func newID() -> String {
        UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// The extension of a segment URI's path (`.m4s`, `.ts`), kept on the routed URL for players
    /// that look at it; empty when none or not a plain one.
    static func fileExtension(_ uri: String) -> String {
        var path = Substring(uri)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return "" }
        let ext = path[dot...]
        guard ext.count <= 6, ext.dropFirst().allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            return ""
        }
        return String(ext)
    }
}
