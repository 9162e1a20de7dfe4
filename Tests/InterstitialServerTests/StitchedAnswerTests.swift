import Testing

@testable import InterstitialServer

/// How a request settles on the answer kept for a viewer's break (``StitchedAnswer/settle(_:)``): the
/// first answer kept stands for every playlist of the break, including one that raced it (asked
/// while the ad's audio was measured, the other after).
@Suite struct StitchedAnswerTests {
    static let measuring = AdRenditionLoader.Failure(reason: "measuring", message: "the ad's audio is being measured")
    static let media = AdRenditionLoader.Failure(reason: "stitch-media", message: "44100 Hz, the primary 48000 Hz")

    /// What a settled request answers, as text: `ad`, a failure's reason, or `again`.
    static func text(_ settled: StitchedAnswer.Settled<String>) -> String {
        switch settled {
        case .answer(.success(let ad)): ad
        case .answer(.failure(let failure)): failure.reason
        case .again: "again"
        }
    }

    @Test(
        "The kept answer decides: the same answer stands; left out wins over stitched; stitched tries again",
        arguments: [
            (StitchedAnswer.stitched, Result<String, AdRenditionLoader.Failure>.success("ad"), "ad"),
            (.leftOut(measuring), .failure(measuring), "measuring"),
            (.leftOut(media), .failure(measuring), "measuring"),
            (.leftOut(measuring), .success("ad"), "measuring"),
            (.leftOut(media), .success("ad"), "stitch-media"),
            (.stitched, .failure(measuring), "again"),
        ])
    func settles(kept: StitchedAnswer, made: Result<String, AdRenditionLoader.Failure>, answer: String) {
        #expect(Self.text(kept.settle(made)) == answer)
    }

    @Test("A request's own answer, kept first, is what it made")
    func ownAnswer() {
        for made in [Result<String, AdRenditionLoader.Failure>.success("ad"), .failure(Self.media)] {
            #expect(Self.text(StitchedAnswer(made).settle(made)) == Self.text(.answer(made)))
        }
    }
}
