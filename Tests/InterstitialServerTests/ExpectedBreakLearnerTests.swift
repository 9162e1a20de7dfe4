import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialServer

/// A learned `expectedBreak` (issue 43, item 1): the median of the channel's last N signalled
/// breaks' durations, bounded to 5–600 s, the configured value until N were seen.
@Suite("Learned expected break")
struct ExpectedBreakLearnerTests {
    static let configured = MediaTime(seconds: 30)

    static func learner(_ durations: [Double]) -> ExpectedBreakLearner {
        var learner = ExpectedBreakLearner()
        for (index, seconds) in durations.enumerated() {
            learner.observe(id: "b\(index)", duration: MediaTime(seconds: seconds))
        }
        return learner
    }

    @Test(
        "the median of the last N, bounded; the configured value until N are seen",
        arguments: [
            ([Double](), 5, 30.0),
            ([60, 60, 60, 60], 5, 30),  // four of five: still the configured value
            ([60, 90, 10, 120, 60], 5, 60),  // the median, not the mean (68)
            ([10, 20, 30, 40], 4, 25),  // an even count: the mean of the two middle ones
            ([600, 600, 10, 10, 20, 20, 20], 5, 20),  // the last five only
            ([1, 2, 3], 3, 5),  // bounded below
            ([900, 1200, 700], 3, 600),  // and above
            ([45], 1, 45),
        ])
    func median(durations: [Double], count: Int, expected: Double) {
        #expect(
            Self.learner(durations).expected(configured: Self.configured, count: count)
                == MediaTime(seconds: expected))
    }

    @Test("a break counts once by its ID, with its newest duration; one that left the last ones is not counted again")
    func onceByID() {
        var learner = ExpectedBreakLearner()
        for _ in 0..<3 { learner.observe(id: "a", duration: MediaTime(seconds: 60)) }
        #expect(learner.recent.count == 1)
        // An IN ended it early: its actual duration.
        learner.observe(id: "a", duration: MediaTime(seconds: 40))
        #expect(learner.recent.map(\.duration) == [MediaTime(seconds: 40)])
        for index in 0..<ExpectedBreakLearner.maximumCount { learner.observe(id: "x\(index)", duration: .zero) }
        #expect(!learner.recent.contains { $0.id == "a" })
        learner.observe(id: "a", duration: MediaTime(seconds: 40))
        #expect(!learner.recent.contains { $0.id == "a" }, "still in a playlist: not counted twice")
        #expect(learner.recent.count == ExpectedBreakLearner.maximumCount)
    }

    @Test("the log learns from the signalled breaks, not cancelled ones nor those without a duration, per channel")
    func log() {
        let log = BreakLengthLog()
        let news = Target(.live, "news")
        func item(_ id: String, _ seconds: Int?, cancelled: Bool = false) -> SignalledBreak {
            SignalledBreak(
                id: id, startDate: nil, plannedDuration: seconds.map { MediaTime(seconds: $0) }, form: .cueOut,
                isCancelled: cancelled, line: 1)
        }
        log.observe(news, [item("a", 60), item("b", 90), item("c", 600, cancelled: true), item("d", nil)])
        #expect(log.expected(news, configured: Self.configured, count: 3) == Self.configured)
        log.observe(news, [item("b", 90), item("e", 120)])
        #expect(log.expected(news, configured: Self.configured, count: 3) == MediaTime(seconds: 90))
        #expect(log.expected(Target(.live, "other"), configured: Self.configured, count: 1) == Self.configured)
    }

    @Test("the settings: \"learned\", a number with learnFrom, and the errors, located")
    func settings() throws {
        let learned = try PrefetchSettings.decode(.object(["expectedBreak": .string("learned")]), path: "prefetch")
        #expect(learned.expectedBreak == MediaTime(seconds: 30) && learned.learnFrom == 5)
        let given = try PrefetchSettings.decode(
            .object(["expectedBreak": .number(20), "learnFrom": .integer(3)]), path: "prefetch")
        #expect(given.expectedBreak == MediaTime(seconds: 20) && given.learnFrom == 3)
        #expect(try PrefetchSettings.decode(try #require(given.jsonValue), path: "prefetch") == given)
        let cases: [(JSONValue, String)] = [
            (.object(["expectedBreak": .string("median")]), "prefetch.expectedBreak"),
            (.object(["learnFrom": .integer(3)]), "prefetch.learnFrom"),
            (.object(["expectedBreak": .number(30), "learnFrom": .integer(51)]), "prefetch.learnFrom"),
            (.object(["expectedBreak": .number(3)]), "prefetch.expectedBreak"),
        ]
        for (value, path) in cases {
            do {
                _ = try PrefetchSettings.decode(value, path: "prefetch")
                Issue.record("accepted \(value)")
            } catch {
                #expect(error.path == path, "\(value): \(error)")
            }
        }
    }
}
