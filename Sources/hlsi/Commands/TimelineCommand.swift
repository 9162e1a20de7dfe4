import ArgumentParser
import Foundation
import HLSInterstitials
import HLSLoading

/// `hlsi timeline`: draw the integrated timeline as SVG or in the terminal.
struct TimelineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Draw the integrated timeline of a playlist's interstitials (SVG or terminal).",
        discussion: """
            Draws what a transport bar shows: primary ranges, POINT events as markers, RANGE events \
            as highlighted ranges (those with X-TIMELINE-STYLE=PRIMARY like primary), and below it the \
            primary timeline with the parts that resumption offsets skip shown as gaps.

            Exit codes: 0 success, 1 the playlist has errors, 2 usage or I/O failure.
            """
    )

    @Argument(help: "A playlist file path or http(s) URL.")
    var location: String

    @Option(name: .long, help: "Write an SVG picture to this file.")
    var svg: String?

    @Flag(name: .long, help: "Draw in the terminal (colors when it is a terminal and NO_COLOR is unset).")
    var ansi = false

    @Option(name: .long, help: "Columns for --ansi.")
    var width = 72

    @Flag(name: .long, help: "Load the asset lists first, so that their durations count.")
    var resolve = false

    func validate() throws {
        if svg == nil, !ansi { throw ValidationError("give --svg FILE or --ansi") }
        if width < 20 || width > 400 { throw ValidationError("--width must be between 20 and 400") }
    }

    func run() async throws {
        let computed = try await ScheduleCommand.load(location, resolve: resolve)
        if let svg {
            let title = (location as NSString).lastPathComponent
            do {
                try Data(TimelinePicture.svg(computed.schedule, title: title).utf8).write(to: URL(fileURLWithPath: svg))
            } catch {
                throw CommandFailure(message: "\(svg): error: cannot write: \(error.localizedDescription)", exitCode: 2)
            }
            Output.standardError("\(svg): wrote the integrated timeline")
        }
        if ansi {
            let terminal = isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            // The picture names the events: with an ID that has control characters it is drawn without
            // colors and written escaped, like all text from the input.
            let plainIDs = !computed.schedule.events.contains { Output.hasControls($0.id) }
            if terminal && plainIDs {
                Output.document(TimelinePicture.ansi(computed.schedule, width: width, colors: true).utf8)
            } else {
                Output.standardOutput(TimelinePicture.ansi(computed.schedule, width: width, colors: false))
            }
        }
        if computed.hasErrors { throw ExitCode(1) }
    }
}
