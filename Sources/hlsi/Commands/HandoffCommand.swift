import ArgumentParser
import Foundation
import HLSInterstitials
import InterstitialPlayback
import PlaybackCoordination

/// `hlsi handoff`: sends a playback session to a receiver through the server.
struct HandoffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handoff",
        abstract: "Hand a playback session off to a receiver (hlsi play --receive) through hlsi serve.",
        discussion: """
            SESSION is a session document (JSON; - reads standard input), as hlsi play --session-out writes it: \\
            the item URL, its location (primary time, or an event and an offset into it), whether it plays and \\
            its rate, the events the application set (each an EXT-X-DATERANGE tag, with restrictions as \\
            overridden), the ONCE events already played and the selected audio and subtitles. The receiver \\
            plays from there and enforces the same restrictions.

            Exit status: 0 when the server took the session, 1 when it did not or could not be reached, \\
            2 for usage errors and invalid sessions.
            """
    )

    @Argument(help: "The session document (JSON), or - for standard input.")
    var session: String

    @Option(name: .long, help: "The hand-off endpoint: http://host:port/handoff/NAME.")
    var to: String

    func validate() throws {
        guard to.hasPrefix("http://") || to.hasPrefix("https://") else {
            throw ValidationError("--to takes an http(s) URL such as http://127.0.0.1:8080/handoff/tv")
        }
    }

    func run() async throws {
        let bytes: Data
        do {
            bytes =
                session == "-"
                ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: session))
        } catch {
            throw CommandFailure(message: "error: cannot read \(session): \(error.localizedDescription)", exitCode: 2)
        }
        let document: PlaybackSession
        do {
            document = try PlaybackSession(json: Array(bytes))
        } catch {
            throw CommandFailure(message: error.rendered(source: session), exitCode: 2)
        }
        do {
            try await Player.send(document, to: to)
        } catch {
            let message = (error as? any JSONPathError)?.rendered(source: to) ?? "error: \(error)"
            throw CommandFailure(message: message, exitCode: 1)
        }
        Output.standardOutput("handed off \(document.url) at \(document.location) to \(to)\n")
    }
}
