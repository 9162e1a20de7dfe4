import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import Testing

@Suite("Playback scripts")
struct PlaybackScriptTests {
    @Test("statements are read in time order, with every command")
    func parse() throws {
        let script = try PlaybackScript(
            parsing:
                "at 30 skip; at 5 seek 40\nat 20 rate 2; at 21 cancel indefinite; at 22 cancel -3; at 23 restrict ad2 none; at 24 events none; at 25 auto off; at 26 seek-date 2026-01-01T00:00:10Z"
        )
        #expect(
            script.entries.map(\.command.description) == [
                "seek 40", "rate 2.0", "cancel indefinite", "cancel -3", "restrict ad2 none", "events none", "auto off",
                "seek-date 2026-01-01T00:00:10.000Z", "skip",
            ])
        #expect(script.entries.first?.time == s(5))
    }

    @Test(
        "errors name the column and the problem",
        arguments: [
            ("at 5 seek", 10, "expected a number of seconds"),
            ("at 5 jump 3", 6, "unknown command 'jump'"),
            ("seek 5", 1, "a statement starts with 'at SECONDS'"),
            ("at 5 rate fast", 11, "'rate' takes a number"),
            ("at 1 play now", 11, "unexpected 'now' after 'play'"),
            ("at 1 restrict ad SKIP,NOPE", 18, "unknown restriction 'NOPE'"),
        ])
    func errors(_ source: String, _ column: Int, _ message: String) {
        #expect(throws: PlaybackScript.ParseError.self) { try PlaybackScript(parsing: source) }
        do {
            _ = try PlaybackScript(parsing: source)
        } catch {
            #expect(error.column == column)
            #expect(error.message.contains(message))
        }
    }
}
