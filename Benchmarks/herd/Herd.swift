import ArgumentParser

/// The live-break herd benchmark (issue 32): a rate-limited VAST ad server and thousands of
/// virtual viewers that poll a live playlist and load each break's asset list as players do.
@main
struct Herd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herd",
        abstract: "The live-break herd: a rate-limited VAST ad server and virtual viewers.",
        subcommands: [AdServerCommand.self, ViewersCommand.self]
    )
}
