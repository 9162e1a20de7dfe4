import HLSPlaylist
import PlaybackCoordination
import Testing

@testable import PlaybackEngine

/// The variants and renditions on their own: the choice, failures, switches, track selection.
@Suite("Variant machine")
struct VariantMachineTests {
    static let multivariant = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="en.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="Deutsch",LANGUAGE="de",URI="de.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=1000000,AUDIO="a"
        low.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=4000000,AUDIO="a"
        high.m3u8

        """

    static func presentation(index: Int = 0) -> PrimaryPresentation {
        guard case .multivariant(let multivariant) = PlaylistParser.parse(multivariant).playlist,
            case .media(let media) = PlaylistParser.parse(vod(2)).playlist
        else { fatalError("the test playlists parse") }
        let variants = PrimaryVariant.variants(of: multivariant, base: "https://x/main.m3u8")
        let (_, tracks) = variants[index].matching(TrackSelection())
        return PrimaryPresentation(
            media: media, mediaURL: variants[index].url, renditions: variants[index].renditions, tracks: tracks,
            variants: variants, variantIndex: index)
    }

    @Test("the policy chooses among the variants that did not fail, from the measured throughput")
    func choice() {
        var machine = PlaybackStateMachine.VariantMachine()
        #expect(machine.wanted == nil, "no variants before the primary loads")
        machine.loaded(Self.presentation())
        #expect(machine.variants.count == 2 && machine.index == 0)
        machine.measured(bytes: 10_000_000, duration: .seconds(1))
        #expect((machine.throughput.bitsPerSecond ?? 0) > 70_000_000)
        #expect(machine.wanted == 1)
        machine.failed(1)
        #expect(machine.wanted == 0)
        machine.adopt(VariantPolicy(pinnedVariant: 1))
        #expect(machine.wanted == 0, "a pinned variant that failed is not chosen")
    }

    @Test("a switch reports the variant that played and takes the new renditions")
    func switching() {
        var machine = PlaybackStateMachine.VariantMachine()
        machine.loaded(Self.presentation())
        #expect(machine.switched(to: 1, Self.presentation(index: 1)) == 0)
        #expect(machine.index == 1)
        #expect(!machine.renditions.isEmpty)
    }

    @Test("selecting audio picks the matching rendition; a type the primary lacks selects nothing")
    func select() {
        var machine = PlaybackStateMachine.VariantMachine()
        machine.loaded(Self.presentation())
        let german = machine.select(MediaOption(language: "de"), type: "AUDIO")
        #expect(german)
        #expect(machine.tracks.audio?.language == "de")
        let subtitles = machine.select(nil, type: "SUBTITLES")
        #expect(!subtitles)
    }
}
