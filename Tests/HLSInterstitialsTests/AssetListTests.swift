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
                [
                    "SKIP-CONTROL.OFFSET: expected a number, found a string",
                    "SKIP-CONTROL.LABEL-ID: expected a string, found a number",
                    "SKIP-CONTROL.SIZE: unknown key (OFFSET, DURATION, LABEL-ID)",
                ]
            ),
            ("[]", ["expected an object with ASSETS, found an array"]),
        ])
    func pathErrors(json: String, expected: [String]) {
        #expect(throws: AssetListError.self) { try AssetList.decode(Array(json.utf8)) }
        do {
            _ = try AssetList.decode(Array(json.utf8))
        } catch {
            #expect(error.code == "asset-list-schema")
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
                #expect(error.code == "asset-list-json")
                #expect(error.description.hasPrefix("not valid JSON"))
            }
        }
    }
}
