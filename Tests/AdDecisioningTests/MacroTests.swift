import AdDecisioning
import HLSPlaylist
import Testing

struct MacroTests {
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
    }

    @Test func fillsKnownMacrosEncodedAndLeavesUnknownOnes() throws {
        var values = VASTMacroValues(
            cacheBusting: "12345678", timestamp: DateTime(iso8601: "2016-01-17T08:15:07.127Z"),
            errorCode: .noSupportedMediaFile)
        values.mediaPlayhead = MediaTime(decimal: "321.123")
        values.deviceUA = "Mozilla/5.0 (X11; Linux)"
        values.deviceIP = "2001:db8::1"
        values.custom["CONTENTID"] = ["abc/def", "y=z"]
        let url =
            "https://t.example.com/e?c=[ERRORCODE]&cb=[CACHEBUSTING]&ts=[TIMESTAMP]&ph=[CONTENTPLAYHEAD]&mph=[MEDIAPLAYHEAD]"
            + "&ua=[DEVICEUA]&ip=[IPADDRESS]&id=[CONTENTID]&x=[SOMETHINGELSE]&ap=[ADPLAYHEAD]&[notamacro]&["
        #expect(
            VASTMacros.fill(url, with: values)
                == "https://t.example.com/e?c=403&cb=12345678&ts=2016-01-17T08%3A15%3A07.127Z&ph=00%3A05%3A21.123"
                + "&mph=00%3A05%3A21.123&ua=Mozilla%2F5.0%20(X11%3B%20Linux)&ip=2001%3Adb8%3A%3A1&id=abc%2Fdef,y%3Dz"
                + "&x=[SOMETHINGELSE]&ap=-1&[notamacro]&[")
    }

    @Test func withheldMacrosAreMinusTwo() {
        var values = VASTMacroValues()
        values.withheld = ["DEVICEIP"]
        #expect(VASTMacros.fill("ip=[DEVICEIP]&ua=[DEVICEUA]", with: values) == "ip=-2&ua=-1")
    }

    @Test func cacheBusterHasEightDigits() {
        var generator = SeededGenerator(state: 42)
        for _ in 0..<100 {
            let value = VASTMacroValues.cacheBuster(&generator)
            #expect(value.count == 8 && value.allSatisfy(\.isNumber) && value.first != "0")
        }
    }

    @Test func encodeURIComponentMatchesJavaScript() {
        #expect(
            VASTMacros.encodeURIComponent("a b&c/d?e=f~g*h'i(j)k!l.m-n_o") == "a%20b%26c%2Fd%3Fe%3Df~g*h'i(j)k!l.m-n_o")
        #expect(VASTMacros.encodeURIComponent("é") == "%C3%A9")
    }

    @Test func adTagTemplateFillsTheServerMacros() throws {
        let template = AdTagTemplate(
            "https://ads.example.com/vast?break=[BREAKID]&dur=[BREAKDURATION]&max=[BREAKMAXDURATION]&sid=[SESSIONID]"
                + "&ip=[DEVICEIP]&ua=[DEVICEUA]&cb=[CACHEBUSTING]&cid=[CONTENTID]&ss=[SERVERSIDE]&pos=[BREAKPOSITION]&k=[KEYWORDS]",
            serverUA: "hlsi/1.0")
        #expect(template.unknownMacros == ["KEYWORDS"])
        var request = AdTagTemplate.Request(
            breakID: "ad 1", cacheBuster: "87654321", timestamp: DateTime(nanosecondsSinceEpoch: 0))
        request.breakDuration = MediaTime(decimal: "30.5")
        request.sessionID = "3F2504E0-4F89"
        request.viewerIP = "203.0.113.7"
        request.viewerUserAgent = "AppleCoreMedia/1.0"
        request.contentID = "movie/42"
        request.breakPosition = 2
        #expect(
            template.url(for: request)
                == "https://ads.example.com/vast?break=ad%201&dur=30.5&max=31&sid=3F2504E0-4F89&ip=203.0.113.7"
                + "&ua=AppleCoreMedia%2F1.0&cb=87654321&cid=movie%2F42&ss=1&pos=2&k=[KEYWORDS]")
        let bare = AdTagTemplate.Request(
            breakID: "b", cacheBuster: "11111111", timestamp: DateTime(nanosecondsSinceEpoch: 0))
        #expect(AdTagTemplate("x?s=[SESSIONID]&d=[BREAKDURATION]&ip=[DEVICEIP]").url(for: bare) == "x?s=-1&d=-1&ip=-1")
    }
}
