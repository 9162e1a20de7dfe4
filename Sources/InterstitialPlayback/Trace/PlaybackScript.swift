import HLSInterstitials
import HLSPlaylist
import PlaybackCoordination
import PlaybackEngine

/// A timed list of commands: `at 5 seek 40; at 20 rate 2; at 30 skip`.
///
/// Statements are separated by `;` or new lines; each is `at SECONDS COMMAND [ARGUMENT…]`, SECONDS
/// being clock time since playback started. Commands: `play`, `pause`, `rate R`, `seek T` (primary
/// time), `seek-date ISO-8601`, `seek-integrated T`, `seek-interstitial T` (offset into the current
/// event), `skip`, `cancel [T|indefinite|invalid]`, `events server|none`, `restrict ID SKIP,JUMP|none`
/// `auto on|off` (`automaticallyHandlesInterstitialEvents`), `select audio LANG[,CHARACTERISTIC…]|default`,
/// `select subtitles LANG[,CHARACTERISTIC…]|off`, and `handoff URL` (hand the session off there and
/// stop; in ``handOffs``).
public struct PlaybackScript: Sendable, Hashable {
    /// One timed command.
    public struct Entry: Sendable, Hashable {
        /// When, in clock time since playback started.
        public var time: MediaTime
        /// What.
        public var command: PlaybackCommand
    }

    /// A script error, located by column like a compiler diagnostic.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// Stable code: `script-syntax`.
        public let code = "script-syntax"
        /// The script.
        public var source: String
        /// The 1-based column of the problem.
        public var column: Int
        /// What is wrong.
        public var message: String

        /// `script:1:COLUMN: error: [script-syntax] MESSAGE`, the line and a caret.
        public var description: String {
            let line = source.replacingOccurrences(of: "\n", with: " ")
            return "script:1:\(column): error: [\(code)] \(message)\n  \(line)\n  "
                + String(repeating: " ", count: max(0, column - 1)) + "^"
        }
    }

    /// The commands, sorted by time (stable).
    public var entries: [Entry]
    /// The `handoff URL` statements, sorted by time.
    public var handOffs: [HandOff]

    /// A hand-off at a time.
    public struct HandOff: Sendable, Hashable {
        /// When, in clock time since playback started.
        public var time: MediaTime
        /// The hand-off endpoint (`http://host/handoff/NAME`).
        public var url: String
    }

    /// Reads a script.
    public init(parsing source: String) throws(ParseError) {
        var entries: [Entry] = []
        var handOffs: [HandOff] = []
        var offset = 0
        for statement in source.split(omittingEmptySubsequences: false, whereSeparator: { $0 == ";" || $0 == "\n" }) {
            defer { offset += statement.count + 1 }
            var words: [(text: String, column: Int)] = []
            var column = offset + 1
            var current = ""
            var start = column
            for character in statement {
                if character == " " || character == "\t" {
                    if !current.isEmpty { words.append((current, start)) }
                    current = ""
                    start = column + 1
                } else {
                    if current.isEmpty { start = column }
                    current.append(character)
                }
                column += 1
            }
            if !current.isEmpty { words.append((current, start)) }
            guard !words.isEmpty else { continue }
            func fail(_ index: Int, _ message: String) -> ParseError {
                ParseError(source: source, column: index < words.count ? words[index].column : column, message: message)
            }
            func seconds(_ index: Int, signed: Bool = false) throws(ParseError) -> MediaTime {
                guard index < words.count else { throw fail(index, "expected a number of seconds") }
                guard let value = Double(words[index].text), value.isFinite, signed || value >= 0, abs(value) < 1e9
                else {
                    throw fail(index, "expected \(signed ? "" : "non-negative ")seconds, found '\(words[index].text)'")
                }
                return MediaTime(seconds: value)
            }
            guard words[0].text == "at" else {
                throw fail(0, "a statement starts with 'at SECONDS', found '\(words[0].text)'")
            }
            let time = try seconds(1)
            guard words.count > 2 else { throw fail(2, "expected a command after 'at \(words[1].text)'") }
            let verb = words[2].text
            var expected = 3
            let command: PlaybackCommand
            switch verb {
            case "play": command = .play
            case "pause": command = .pause
            case "rate":
                guard words.count > 3, let rate = Double(words[3].text), rate.isFinite else {
                    throw fail(3, "'rate' takes a number")
                }
                command = .setRate(rate)
                expected = 4
            case "seek": command = .seek(try seconds(3)); expected = 4
            case "seek-integrated": command = .seekIntegrated(try seconds(3)); expected = 4
            case "seek-interstitial": command = .seekInInterstitial(try seconds(3)); expected = 4
            case "seek-date":
                guard words.count > 3, let date = DateTime(iso8601: words[3].text) else {
                    throw fail(3, "'seek-date' takes an ISO-8601 date, e.g. 2026-01-01T00:00:10Z")
                }
                command = .seekToDate(date)
                expected = 4
            case "skip": command = .skipCurrentEvent
            case "cancel":
                if words.count > 3 {
                    expected = 4
                    switch words[3].text {
                    case "indefinite": command = .cancelCurrentEvent(resumptionOffset: .indefinite)
                    case "invalid": command = .cancelCurrentEvent(resumptionOffset: nil)
                    default: command = .cancelCurrentEvent(resumptionOffset: .time(try seconds(3, signed: true)))
                    }
                } else {
                    command = .cancelCurrentEvent(resumptionOffset: nil)
                }
            case "events":
                guard words.count > 3, ["server", "none"].contains(words[3].text) else {
                    throw fail(3, "'events' takes 'server' (the server's schedule) or 'none' (no events)")
                }
                command = .setEvents(words[3].text == "none" ? [] : nil)
                expected = 4
            case "restrict":
                guard words.count > 4 else {
                    throw fail(words.count, "'restrict' takes an event ID and SKIP,JUMP or none")
                }
                var restrictions = InterstitialEvent.Restrictions()
                if words[4].text != "none" {
                    for token in words[4].text.split(separator: ",") {
                        guard let restriction = InterstitialEvent.Restrictions(token: String(token)) else {
                            throw fail(4, "unknown restriction '\(token)'; use SKIP, JUMP or none")
                        }
                        restrictions.insert(restriction)
                    }
                }
                command = .setRestrictions(eventID: words[3].text, restrictions)
                expected = 5
            case "auto":
                guard words.count > 3, ["on", "off"].contains(words[3].text) else {
                    throw fail(3, "'auto' takes on or off")
                }
                command = .setAutomaticallyHandlesInterstitialEvents(words[3].text == "on")
                expected = 4
            case "select":
                guard words.count > 4, ["audio", "subtitles"].contains(words[3].text) else {
                    throw fail(
                        3,
                        "'select' takes audio or subtitles and a language with characteristics (en,public.easy-to-read)"
                    )
                }
                let audio = words[3].text == "audio"
                let option = Self.option(words[4].text, off: audio ? "default" : "off")
                command = audio ? .selectAudio(option) : .selectSubtitles(option)
                expected = 5
            case "handoff":
                guard words.count > 3, words[3].text.contains("://") else {
                    throw fail(3, "'handoff' takes the URL of a hand-off endpoint, e.g. http://host:8080/handoff/tv")
                }
                if words.count > 4 { throw fail(4, "unexpected '\(words[4].text)' after 'handoff'") }
                handOffs.append(HandOff(time: time, url: words[3].text))
                continue
            default:
                throw fail(
                    2,
                    "unknown command '\(verb)'; use play, pause, rate, seek, seek-date, seek-integrated, seek-interstitial, skip, cancel, events, restrict, auto, select or handoff"
                )
            }
            if words.count > expected { throw fail(expected, "unexpected '\(words[expected].text)' after '\(verb)'") }
            entries.append(Entry(time: time, command: command))
        }
        self.entries = entries.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map(\.element)
        self.handOffs = handOffs.sorted { $0.time < $1.time }
    }

    /// A rendition preference written `LANG[,CHARACTERISTIC…]`; nil for `off`.
    public static func option(_ text: String, off: String = "off") -> MediaOption? {
        guard text != off else { return nil }
        let parts = text.split(separator: ",").map(String.init)
        return MediaOption(language: parts.first, characteristics: Array(parts.dropFirst()))
    }
}
