import ArgumentParser
import HLSPlaylist

/// `hlsi generate`: synthetic playlists for load tests, benchmarks and QA.
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write a synthetic media playlist (VOD or LL-HLS live) with interstitials to standard output.",
        discussion: """
            vod: SEGMENTS segments of 6.006 s, a PROGRAM-DATE-TIME on each, an interstitial every \
            --interstitial-every segments. live: a Low-Latency HLS window of --hours hours.
            """
    )

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case vod, live
    }

    @Argument(help: "vod or live.")
    var kind: Kind

    @Option(name: .long, help: "Number of segments (vod).")
    var segments = 1000

    @Option(name: .long, help: "One interstitial DATERANGE per this many segments (vod, 0 for none).")
    var interstitialEvery = 100

    @Option(name: .long, help: "Window length in hours (live).")
    var hours = 3.0

    func validate() throws {
        // A million segments is a 60 MB playlist: the largest a load test needs, and a bounded cost.
        guard (0...1_000_000).contains(segments) else { throw ValidationError("--segments must be 0 to 1000000") }
        guard interstitialEvery >= 0 else { throw ValidationError("--interstitial-every must not be negative") }
        guard hours > 0, hours <= 24 * 30 else { throw ValidationError("--hours must be in (0, 720]") }
    }

    func run() throws {
        switch kind {
        case .vod:
            Output.document(SyntheticPlaylist.vod(segments: segments, interstitialEvery: interstitialEvery).utf8)
        case .live:
            Output.document(SyntheticPlaylist.lowLatencyLive(duration: MediaTime(seconds: hours * 3600)).utf8)
        }
    }
}
