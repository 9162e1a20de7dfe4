import Foundation
import HLSInterstitials
import HLSPlaylist
import Testing

/// The time rules with one home each: an event's effective end, an early return's playout limit,
/// and the bound on user-given times with its one message.
@Suite("Time rules: effective end, early-return playout limit, the bound on user-given times")
struct TimeRuleTests {
    static let start = DateTime(nanosecondsSinceEpoch: 1_700_000_000 * 1_000_000_000)

    @Test("the effective end is START-DATE plus the effective duration; none counts as zero")
    func effectiveEnd() {
        var event = InterstitialEvent(identifier: "a", date: Self.start)
        #expect(event.effectiveEnd() == Self.start)
        event.plannedDuration = MediaTime(seconds: 30)
        #expect(event.effectiveEnd() == Self.start + MediaTime(seconds: 30))
        event.duration = MediaTime(seconds: 20)
        event.playoutLimit = MediaTime(seconds: 12)
        #expect(event.effectiveEnd() == Self.start + MediaTime(seconds: 12))
        #expect(event.effectiveEnd(played: MediaTime(seconds: 5)) == Self.start + MediaTime(seconds: 5))
        event.endDate = Self.start - MediaTime(seconds: 9)
        event.duration = nil
        event.playoutLimit = nil
        #expect(event.effectiveEnd() == Self.start, "a negative duration counts as zero")
        #expect(InterstitialEvent(identifier: "b").effectiveEnd() == nil)
    }

    @Test("an early return's playout limit is the time elapsed in whole milliseconds, rounded down")
    func earlyReturn() {
        let limit = { (nanoseconds: Int64) in
            InterstitialEvent.earlyReturnPlayoutLimit(elapsed: MediaTime(nanoseconds: nanoseconds)).nanoseconds
        }
        #expect(limit(12_345_999_999) == 12_345_000_000)
        #expect(limit(12_345_000_000) == 12_345_000_000)
        #expect(limit(999_999) == 0)
    }

    @Test("the bound on user-given times: the same check and message on every input path")
    func userInputBound() throws {
        let message = "315360001 s is out of range (at most 315360000 s either way)"
        #expect(throws: UserInputTimeError(text: "315360001")) {
            try MediaTime(seconds: 315_360_001).checkedUserInput()
        }
        #expect(try MediaTime(seconds: -315_360_000).checkedUserInput() == MediaTime(seconds: -315_360_000))
        #expect(throws: UserInputTimeError(text: "1e300")) { try MediaTime.userInput(seconds: 1e300, text: "1e300") }
        #expect(throws: UserInputTimeError(text: "inf")) { try MediaTime.userInput(seconds: .infinity, text: "inf") }

        // A JSON body (JSONReader), a request made in code (InsertionRequest) and a query (AssetListQuery).
        let json = try JSONDecoder().decode(
            JSONValue.self, from: Data(#"{"id":"a","at":10,"duration":315360001}"#.utf8))
        #expect(throws: InsertionError.self) { try InsertionRequest.decode(json) }
        do {
            _ = try InsertionRequest.decode(json)
        } catch {
            #expect(error.message == message)
        }
        var request = InsertionRequest(id: "a")
        request.at = MediaTime(seconds: 10)
        request.assetURI = "https://a.example/ad.m3u8"
        request.playoutLimit = MediaTime(seconds: 315_360_001)
        do {
            _ = try request.event(mapping: { Self.start + $0 })
            Issue.record("accepted a playout limit beyond the bound")
        } catch {
            #expect(error.message == message)
        }
        do {
            _ = try AssetListQuery(parameters: ["_HLS_interstitial_id": "a", "_HLS_start_offset": "315360001"])
            Issue.record("accepted a start offset beyond the bound")
        } catch {
            #expect(error.message == message)
        }
    }
}
