import HLSInterstitials
import HLSPlaylist
import PlaybackCoordination
import PlaybackEngine
import Testing

/// Seconds as a media time.
func s(_ seconds: Double) -> MediaTime { MediaTime(seconds: seconds) }

/// Seconds as a clock time.
func clock(_ seconds: Double) -> Duration { .nanoseconds(s(seconds).nanoseconds) }

/// A VOD playlist of `count` 10 s segments with `tags` after the header.
func vod(_ count: Int = 6, _ tags: String...) -> String {
    playlist(count, tags: tags, end: true)
}

/// A live playlist of `count` 10 s segments from media sequence `sequence`, dated from
/// 2025-01-01T00:00:00Z, with `tags` after the header.
func live(_ count: Int, from sequence: Int = 0, _ tags: String...) -> String {
    playlist(count, tags: tags, end: false, sequence: sequence, dated: true)
}

func playlist(_ count: Int, tags: [String], end: Bool, sequence: Int = 0, dated: Bool = false) -> String {
    var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:10", "#EXT-X-MEDIA-SEQUENCE:\(sequence)"]
    if dated {
        let seconds = sequence * 10
        lines.append(
            "#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:\(String(format2: seconds / 60)):\(String(format2: seconds % 60)).000Z"
        )
    }
    lines += tags
    for index in 0..<count { lines += ["#EXTINF:10.0,", "seg\(sequence + index).ts"] }
    if end { lines.append("#EXT-X-ENDLIST") }
    return lines.joined(separator: "\n") + "\n"
}

extension String {
    init(format2 value: Int) { self = value < 10 ? "0\(value)" : "\(value)" }
}

extension InterstitialItemTemplate {
    /// The template with one setting changed (what a driver hands the machine's `use(_:)`).
    func with<Value>(_ setting: WritableKeyPath<Self, Value>, _ value: Value) -> Self {
        var changed = self
        changed[keyPath: setting] = value
        return changed
    }
}

/// An interstitial date range at `start` seconds of a playlist dated from 2025-01-01T00:00:00Z.
func event(_ id: String, at start: Int, _ attributes: String) -> String {
    let date = "2025-01-01T00:\(String(format2: start / 60)):\(String(format2: start % 60)).000Z"
    return "#EXT-X-DATERANGE:ID=\"\(id)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(date)\",\(attributes)"
}

/// The engine driven on a manual clock: loads complete at once from in-memory content, time moves
/// from one deadline to the next, and every action is recorded.
struct Harness {
    typealias Machine = PlaybackStateMachine
    var machine: Machine
    /// The clock time of the last input.
    var now: Duration = .zero
    /// Playlists by URL (without query): the primary and the assets (for their durations).
    var playlists: [String: String]
    /// Asset lists by URL (without query), as JSON.
    var assetLists: [String: String] = [:]
    /// Date Range Schedule documents by URL (without query), as JSON (read with the pure decoder,
    /// as the player's loader reads them).
    var schedules: [String: String] = [:]
    /// URLs (without query) that fail to load.
    var failing: Set<String> = []
    /// The audio rendition selected with each asset (asset URL to audio playlist URL, without
    /// query), as the player's loader selects it from an asset's multivariant playlist.
    var assetAudio: [String: String] = [:]
    /// Every trace event.
    var trace: [PlaybackEvent] = []
    /// Every notification.
    var notifications: [InterstitialEventNotification] = []
    /// Every ad tracking beacon the machine asked to send.
    var beacons: [TrackingBeacon] = []
    /// Every load asked for.
    var requests: [Machine.LoadRequest] = []
    /// The outcomes of the commands sent.
    var outcomes: [Machine.Outcome] = []
    var pending: [Machine.LoadRequest] = []
    /// The simulated network: each segment load brings `segmentBytes` at this many bits per
    /// second, measured as a throughput sample (loads still complete at once); nil measures nothing.
    var network: Double?
    /// The size of each segment for the simulated network.
    var segmentBytes = 1_000_000

    static let base = "https://example.com/"

    /// A machine for `primary` (a playlist at `https://example.com/main.m3u8`).
    init(
        _ primary: String, assets: [String: Double] = [:], lists: [String: String] = [:],
        configure: (inout Machine.Configuration) -> Void = { _ in }
    ) {
        var configuration = Machine.Configuration(primaryID: "p", loadsSegments: false)
        configure(&configuration)
        machine = Machine(url: Self.base + "main.m3u8", configuration: configuration)
        playlists = [Self.base + "main.m3u8": primary]
        for (name, seconds) in assets {
            let count = Int(seconds / 5)
            var text = "#EXTM3U\n#EXT-X-TARGETDURATION:5\n"
            for index in 0..<count { text += "#EXTINF:5.0,\n\(name)-\(index).ts\n" }
            if seconds > Double(count * 5) { text += "#EXTINF:\(seconds - Double(count * 5)),\n\(name)-last.ts\n" }
            playlists[Self.base + name] = text + "#EXT-X-ENDLIST\n"
        }
        for (name, json) in lists { assetLists[Self.base + name] = json }
        record(machine.start().actions)
    }

    /// Records actions and queues their loads.
    mutating func record(_ actions: [Machine.Action]) {
        for action in actions {
            switch action {
            case .load(let request):
                requests.append(request)
                pending.append(request)
            case .emit(let event): trace.append(event)
            case .notify(let notification): notifications.append(notification)
            case .fire(let beacon): beacons.append(beacon)
            case .flush, .signal: break
            }
        }
    }

    static func strip(_ url: String) -> String { String(url.prefix { $0 != "?" }) }

    /// Completes every queued load (and those they lead to) at the current time.
    mutating func deliver() {
        while !pending.isEmpty {
            let request = pending.removeFirst()
            let url = Self.strip(request.url)
            let input: Machine.Input
            if failing.contains(url) {
                input = .loadFailed(request.key, "failed to load \(url)")
            } else {
                switch request.key {
                case .primary:
                    input = primaryInput(url, key: request.key)
                case .variant(let index):
                    guard let text = playlists[url], case .media(let media) = PlaylistParser.parse(text).playlist
                    else {
                        input = .loadFailed(request.key, "no variant playlist at \(url)")
                        break
                    }
                    let variant = machine.variants[index]
                    let tracks = variant.matching(machine.tracks).tracks
                    input = .variantLoaded(
                        index,
                        PrimaryPresentation(media: media, mediaURL: url, renditions: variant.renditions, tracks: tracks)
                    )
                case .assetList(let id):
                    guard let json = assetLists[url], let list = try? AssetList.decode(Array(json.utf8)) else {
                        input = .loadFailed(request.key, "no asset list at \(url)")
                        break
                    }
                    input = .assetListLoaded(id, list)
                case .asset(let id, let index):
                    guard let text = playlists[url], case .media(let media) = PlaylistParser.parse(text).playlist
                    else {
                        input = .loadFailed(request.key, "no asset at \(url)")
                        break
                    }
                    var asset = AssetMedia(playlist: media, url: url)
                    if let audioURL = assetAudio[url], let audio = mediaPlaylist(at: audioURL) {
                        asset.otherRenditions = [AssetMedia(playlist: audio, url: audioURL)]
                    }
                    input = .assetLoaded(id, index, asset)
                case .schedule(let identity):
                    guard let json = schedules[url] else {
                        input = .loadFailed(request.key, "no schedule at \(url)")
                        break
                    }
                    input = .scheduleLoaded(
                        identity,
                        Result { () throws(DateRangeScheduleError) in
                            try DateRangeScheduleDocument.decode(Array(json.utf8))
                        })
                case .segment(let url):
                    if let network {
                        let seconds = Double(segmentBytes) * 8 / network
                        record(
                            machine.handle(
                                .throughputMeasured(
                                    bytes: segmentBytes, duration: .nanoseconds(Int64(seconds * 1e9))),
                                at: now
                            ).actions)
                    }
                    input = .segmentLoaded(url)
                }
            }
            record(machine.handle(input, at: now).actions)
        }
    }

    /// The primary's load result: a media playlist, or a multivariant playlist's first variant
    /// with every variant listed (its media playlist must be among `playlists`).
    func primaryInput(_ url: String, key: Machine.LoadKey) -> Machine.Input {
        guard let text = playlists[url] else { return .loadFailed(key, "no playlist at \(url)") }
        switch PlaylistParser.parse(text).playlist {
        case .media(let media):
            // A reload brings the selected audio rendition along, as the player's does.
            let audioURL = machine.audioRenditionURL
            let audio = audioURL.flatMap { mediaPlaylist(at: $0) }
            return .primaryLoaded(
                PrimaryPresentation(
                    media: media, mediaURL: url, others: audio.map { [$0] } ?? [],
                    otherURLs: audio == nil ? [] : audioURL.map { [$0] } ?? []))
        case .multivariant(let multivariant):
            let variants = PrimaryVariant.variants(of: multivariant, base: url)
            guard let first = variants.first, let playlist = mediaPlaylist(at: first.url) else {
                return .loadFailed(key, "no first variant at \(url)")
            }
            let (audio, tracks) = first.matching(TrackSelection())
            let audioURL = audio?.uri.map { URIReference.resolve($0, against: url) }
            let others = audioURL.flatMap { mediaPlaylist(at: $0) }
            return .primaryLoaded(
                PrimaryPresentation(
                    media: playlist, mediaURL: first.url, others: others.map { [$0] } ?? [],
                    otherURLs: others == nil ? [] : audioURL.map { [$0] } ?? [],
                    renditions: first.renditions, tracks: tracks, variants: variants))
        }
    }

    /// The media playlist at `url` (query ignored), if there is one.
    func mediaPlaylist(at url: String) -> MediaPlaylist? {
        guard let text = playlists[Self.strip(url)], case .media(let media) = PlaylistParser.parse(text).playlist
        else { return nil }
        return media
    }

    /// Sends a command now and returns its outcome.
    @discardableResult
    mutating func send(_ command: PlaybackCommand) -> Machine.Outcome {
        deliver()
        let outcome = machine.handle(.command(command), at: now)
        outcomes.append(outcome)
        record(outcome.actions)
        deliver()
        return outcome
    }

    /// Plays on until clock time `seconds`, stopping at each deadline.
    mutating func run(until seconds: Double) {
        let end = clock(seconds)
        deliver()
        while now < end {
            let next = min(machine.nextDeadline ?? end, end)
            now = max(next, now)
            record(machine.advance(to: now).actions)
            deliver()
        }
    }

    /// Plays from now on until clock time `seconds`.
    mutating func play(until seconds: Double) {
        send(.play)
        run(until: seconds)
    }

    /// The trace as compact lines: `t kind @primary key=value`, for the kinds given.
    func lines(_ kinds: Set<PlaybackEvent.Kind>, fields names: [String] = ["id"]) -> [String] {
        trace.filter { kinds.contains($0.kind) }.map { event in
            var line = "\(event.seconds.formatted(fractionDigits: 1)) \(event.kind.rawValue)"
            if let primary = event.primaryTime { line += " @\(primary.formatted(fractionDigits: 1))" }
            for name in names { if let value = event[name] { line += " \(name)=\(value)" } }
            return line
        }
    }

    /// The trace events of a kind.
    func events(_ kind: PlaybackEvent.Kind) -> [PlaybackEvent] { trace.filter { $0.kind == kind } }
}
