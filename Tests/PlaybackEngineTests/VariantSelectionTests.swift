import HLSPlaylist
import PlaybackCoordination
import PlaybackEngine
import Testing

/// Variant selection: the throughput estimate, the policy, and the machine switching variants.
@Suite("Variant selection")
struct VariantSelectionTests {
    /// A multivariant primary: `hi` (6 Mbit/s, first), `mid` (3 Mbit/s) and `lo` (1 Mbit/s); `hi`
    /// uses audio group a1, the others a2, each with English (default) and French.
    static let multivariant = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a1",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="a1-en.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a1",NAME="French",LANGUAGE="fr",URI="a1-fr.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a2",NAME="Anglais",LANGUAGE="en",DEFAULT=YES,URI="a2-en.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a2",NAME="Français",LANGUAGE="fr",URI="a2-fr.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=6000000,AUDIO="a1"
        hi.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=3000000,AUDIO="a2"
        mid.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=1000000,AUDIO="a2"
        lo.m3u8

        """

    /// A VOD media playlist of six 10 s segments named `name-N.ts`.
    static func media(_ name: String) -> String {
        var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:10"]
        for index in 0..<6 { lines += ["#EXTINF:10.0,", "\(name)-\(index).ts"] }
        return (lines + ["#EXT-X-ENDLIST"]).joined(separator: "\n") + "\n"
    }

    /// A harness playing the multivariant primary with segments, on a simulated network.
    static func harness(network: Double?, policy: VariantPolicy = VariantPolicy()) -> Harness {
        var harness = Harness(Self.multivariant) { $0.loadsSegments = true }
        for name in ["hi", "mid", "lo"] { harness.playlists[Harness.base + name + ".m3u8"] = media(name) }
        harness.network = network
        harness.machine.use(policy)
        return harness
    }

    /// The names of the segments requested, in order (`hi-0`, `mid-1`, ...).
    static func segments(_ harness: Harness) -> [String] {
        harness.requests.compactMap { request -> String? in
            guard case .segment = request.key else { return nil }
            let path = Harness.strip(request.url)
            return String(path.dropFirst(Harness.base.count).dropLast(3))
        }
    }

    @Test("the estimate is the first sample in full, then an EWMA of bits per second; untimed loads are ignored")
    func estimator() {
        var estimator = ThroughputEstimator(retention: 0.7)
        #expect(estimator.bitsPerSecond == nil)
        estimator.add(bytes: 1_000_000, duration: .seconds(1))
        #expect(estimator.bitsPerSecond == 8_000_000)
        estimator.add(bytes: 500_000, duration: .zero)
        estimator.add(bytes: 0, duration: .seconds(1))
        #expect(estimator.samples == 1)
        estimator.add(bytes: 500_000, duration: .seconds(1))
        // (0.7·0.3·8 + 0.3·4) / (0.7·0.3 + 0.3) Mbit/s.
        let expected = (0.7 * 0.3 * 8_000_000 + 0.3 * 4_000_000) / (0.7 * 0.3 + 0.3)
        #expect(abs((estimator.bitsPerSecond ?? 0) - expected) < 1e-6)
        #expect(estimator.samples == 2)
    }

    struct Choice: Sendable, CustomTestStringConvertible {
        var policy: VariantPolicy
        var throughput: Double?
        var current: Int?
        var expected: Int?
        var testDescription: String {
            "pin \(policy.pinnedVariant.map(String.init) ?? "-") peak \(Int(policy.preferredPeakBitRate)) throughput \(throughput.map { String(Int($0)) } ?? "-") current \(current.map(String.init) ?? "-")"
        }
    }

    static let bandwidths: [Int?] = [6_000_000, 3_000_000, 1_000_000, 3_000_000]

    @Test(
        "the policy: a pin wins, the peak bit rate caps, the highest BANDWIDTH within 80 % of the throughput plays",
        arguments: [
            Choice(policy: VariantPolicy(), throughput: nil, current: nil, expected: 0),
            Choice(policy: VariantPolicy(), throughput: nil, current: 2, expected: 2),
            Choice(policy: VariantPolicy(), throughput: 10_000_000, current: 2, expected: 0),
            Choice(policy: VariantPolicy(), throughput: 4_000_000, current: 0, expected: 1),
            Choice(policy: VariantPolicy(), throughput: 4_000_000, current: 3, expected: 3),
            Choice(policy: VariantPolicy(), throughput: 500_000, current: 0, expected: 2),
            Choice(policy: VariantPolicy(preferredPeakBitRate: 2_000_000), throughput: nil, current: 0, expected: 2),
            Choice(
                policy: VariantPolicy(preferredPeakBitRate: 5_000_000), throughput: 50_000_000, current: 0,
                expected: 1),
            Choice(policy: VariantPolicy(preferredPeakBitRate: 10), throughput: 50_000_000, current: 0, expected: 2),
            Choice(policy: VariantPolicy(pinnedVariant: 2), throughput: 50_000_000, current: 0, expected: 2),
            Choice(policy: VariantPolicy(pinnedVariant: 9), throughput: 50_000_000, current: 0, expected: 0),
        ])
    func policy(_ choice: Choice) {
        #expect(
            choice.policy.choose(bandwidths: Self.bandwidths, throughput: choice.throughput, current: choice.current)
                == choice.expected)
    }

    @Test(
        "a measured 4 Mbit/s switches from the first variant (6 Mbit/s) to the 3 Mbit/s one where the buffer ends"
    )
    func switchesDown() throws {
        var harness = Self.harness(network: 4_000_000)
        harness.play(until: 25)
        #expect(harness.machine.variantIndex == 1)
        let switched = try #require(harness.events(.variantSwitched).first)
        #expect(switched["from"] == .integer(0) && switched["to"] == .integer(1))
        #expect(switched["bandwidth"] == .integer(3_000_000) && switched["throughput"] == .integer(4_000_000))
        let names = Self.segments(harness)
        #expect(names.first == "hi-0")
        #expect(names.dropFirst().allSatisfy { $0.hasPrefix("mid-") })
        // What was buffered from the first variant stays: the switch takes effect after it.
        #expect(!names.contains("mid-0"))
        #expect(names.contains("mid-1"))
        #expect(harness.machine.loadedPrimaryRanges.first?.lowerBound == s(0))
        #expect(harness.events(.variantSwitched).count == 1)
    }

    @Test("without measurements (a virtual clock) the first variant plays and nothing switches")
    func noMeasurement() {
        var harness = Self.harness(network: nil)
        harness.play(until: 25)
        #expect(harness.machine.variantIndex == 0)
        #expect(harness.events(.variantSwitched).isEmpty)
        #expect(Self.segments(harness).allSatisfy { $0.hasPrefix("hi-") })
    }

    @Test("a pinned variant loads before any segment, whatever the throughput")
    func pinned() {
        var harness = Self.harness(network: 100_000_000, policy: VariantPolicy(pinnedVariant: 2))
        harness.play(until: 25)
        #expect(harness.machine.variantIndex == 2)
        #expect(!Self.segments(harness).isEmpty)
        #expect(Self.segments(harness).allSatisfy { $0.hasPrefix("lo-") })
    }

    @Test("a preferred peak bit rate caps the choice, and lifting it lets throughput choose again")
    func peakBitRate() {
        var harness = Self.harness(network: 100_000_000, policy: VariantPolicy(preferredPeakBitRate: 3_500_000))
        harness.play(until: 15)
        #expect(harness.machine.variantIndex == 1)
        var lifted = harness.machine.variantPolicy
        lifted.preferredPeakBitRate = 0
        harness.machine.use(lifted)
        harness.run(until: 35)
        #expect(harness.machine.variantIndex == 0)
        #expect(harness.lines([.variantSwitched], fields: ["from", "to"]).count == 2)
    }

    @Test("a switch keeps the track matching rules: French stays selected in the new variant's audio group")
    func keepsTracks() throws {
        var harness = Self.harness(network: 4_000_000)
        harness.deliver()
        harness.send(.selectAudio(MediaOption(language: "fr")))
        harness.play(until: 25)
        #expect(harness.machine.variantIndex == 1)
        #expect(harness.machine.tracks.audio?.language == "fr")
        #expect(harness.machine.tracks.audio?.name == "Français")
        let switched = try #require(harness.events(.variantSwitched).first)
        #expect(switched["audio"] != nil)
    }

    @Test("a variant whose playlist fails is not chosen again; playback stays on the one that plays")
    func failedVariant() {
        var harness = Self.harness(network: 4_000_000)
        harness.failing.insert(Harness.base + "mid.m3u8")
        harness.play(until: 25)
        #expect(harness.machine.variantIndex == 2)
        #expect(harness.requests.filter { Harness.strip($0.url).hasSuffix("mid.m3u8") }.count == 1)
    }

    @Test("a live switch continues the timeline and reloads come from the new variant from then on")
    func liveSwitch() throws {
        var harness = Harness(Self.multivariant) {
            $0.loadsSegments = true
            $0.startTime = .zero
        }
        for name in ["hi", "mid", "lo"] { harness.playlists[Harness.base + name + ".m3u8"] = live(6) }
        harness.network = 4_000_000
        harness.play(until: 25)
        #expect(harness.machine.variantIndex == 1)
        #expect(harness.machine.position == s(25))
        let switched = try #require(harness.requests.firstIndex { $0.key == .variant(1) })
        let reloads = harness.requests[switched...].filter { $0.key == .primary }.map { Harness.strip($0.url) }
        #expect(!reloads.isEmpty)
        #expect(reloads.allSatisfy { $0 == Harness.base + "mid.m3u8" })
    }
}
