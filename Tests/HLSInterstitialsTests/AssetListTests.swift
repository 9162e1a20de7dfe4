import HLSInterstitials
import HLSPlaylist
import Testing

@Suite("Asset lists")
struct AssetListTests {
    @Test("decodes the App. D.7 example, with SKIP-CONTROL and unknown keys")
    func decodesExample() throws {
        let json = """
            {"ASSETS":[{"URI":"https://ads.example.com/a.m3u8","DURATION":15},{"URI":"https://ads.example.com/b.m3u8","DURATION":15.015,"X-TRACKING":{"id":7}}],
             "SKIP-CONTROL":{"OFFSET":5,"DURATION":20,"LABEL-ID":"skip"},"X-VENDOR":[1,true,null,"s"]}
            """
        let list = try AssetList.decode(Array(json.utf8))
        #expect(list.assets.count == 2)
        #expect(list.assets[1].duration == MediaTime(decimal: "15.015"))
        #expect(list.totalDuration == MediaTime(decimal: "30.015"))
        #expect(list.assets[1].otherKeys["X-TRACKING"] == .object(["id": .integer(7)]))
        #expect(
            list.skipControl
                == SkipControl(offset: MediaTime(seconds: 5), duration: MediaTime(seconds: 20), labelID: "skip"))
        #expect(list.otherKeys["X-VENDOR"] == .array([.integer(1), .bool(true), .null, .string("s")]))
        let again = try AssetList.decode(Array(list.encoded().utf8))
        #expect(again == list)
        #expect(list.encoded().hasPrefix("{\"ASSETS\":[{\"DURATION\":15,\"URI\":\"https://ads.example.com/a.m3u8\"}"))
    }

    @Test("encoded() writes what the JSON tree writes, for assets with and without other keys", arguments: 0..<40)
    func encodedMatchesTree(seed: Int) throws {
        var random = SeededGenerator(seed: UInt64(seed))
        let uris = ["https://ads.example.com/a.m3u8?x=1&_HLS_interstitial_id=b", "/ads/é \"q\"\\.m3u8", "a\tb\u{1}"]
        var assets: [AssetList.Asset] = []
        for _ in 0..<Int.random(in: 0...6, using: &random) {
            var asset = AssetList.Asset(
                uri: uris.randomElement(using: &random)!,
                duration: MediaTime(
                    nanoseconds: Int64.random(in: 0...90_000_000_000, using: &random) / 1_000_000 * 1_000_000))
            if Bool.random(using: &random) { asset.otherKeys["X-AD-CREATIVE-SIGNALING"] = .object(["v": .integer(2)]) }
            if Bool.random(using: &random) { asset.otherKeys["A-FIRST"] = .string("sorted before DURATION") }
            assets.append(asset)
        }
        var list = AssetList(assets: assets)
        if Bool.random(using: &random) { list.skipControl = SkipControl(offset: MediaTime(seconds: 5)) }
        if Bool.random(using: &random) { list.otherKeys["X-VENDOR"] = .array([.integer(1), .null]) }
        // SKIP-CONTROL and X- keys sort after ASSETS, so the tree's sorted order is the writing order.
        #expect(list.encoded() == list.jsonValue.description)
        #expect(try AssetList.decode(Array(list.encoded().utf8)) == list)
    }

    /// A small deterministic generator (SplitMix64).
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test("an empty ASSETS array is valid (App. D.5)")
    func emptyAssets() throws {
        #expect(try AssetList.decode(Array("{\"ASSETS\":[]}".utf8)).assets.isEmpty)
    }

    @Test(
        "names the JSON path of every problem",
        arguments: [
            (
                "{\"ASSETS\":[{\"URI\":\"u\",\"DURATION\":1},{\"URI\":\"u\",\"DURATION\":2},{\"URI\":\"u\",\"DURATION\":\"3\"}]}",
                ["ASSETS[2].DURATION: expected a number, found a string"]
            ),
            ("{}", ["ASSETS: missing; the asset list \"MUST contain\" an ASSETS array (App. D.2)"]),
            ("{\"ASSETS\":{}}", ["ASSETS: expected an array, found an object"]),
            (
                "{\"ASSETS\":[7,{\"DURATION\":-1}]}",
                [
                    "ASSETS[0]: expected an object, found a number",
                    "ASSETS[1].URI: missing; each asset MUST have a URI",
                    "ASSETS[1].DURATION: expected a non-negative number of seconds, found -1",
                ]
            ),
            (
                "{\"ASSETS\":[],\"SKIP-CONTROL\":{\"OFFSET\":\"5\",\"LABEL-ID\":3,\"SIZE\":1}}",
                // Mistyped OFFSET and LABEL-ID are ignored, as the tag's X-SKIP-CONTROL-* are (issue 33):
                // AssetList.ignoredSkipControlFields names them for the validator.
                ["SKIP-CONTROL.SIZE: unknown key (OFFSET, DURATION, LABEL-ID)"]
            ),
            ("[]", ["expected an object with ASSETS, found an array"]),
        ])
    func pathErrors(json: String, expected: [String]) {
        #expect(throws: AssetListError.self) { try AssetList.decode(Array(json.utf8)) }
        do {
            _ = try AssetList.decode(Array(json.utf8))
        } catch {
            #expect(error.code == .schema)
            #expect(error.problems.map(\.description) == expected)
        }
    }

    @Test("text that is not JSON is an asset-list-json error, not a crash")
    func notJSON() {
        for text in ["", "{", "<html>", "{\"ASSETS\":[}"] {
            do {
                _ = try AssetList.decode(Array(text.utf8))
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.code == .json)
                #expect(error.description.hasPrefix("not valid JSON"))
            }
        }
    }
}
