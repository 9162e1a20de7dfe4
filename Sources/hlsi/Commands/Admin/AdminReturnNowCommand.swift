import ArgumentParser
import HLSInterstitials

/// `hlsi admin return-now CHANNEL [--break ID]`.
struct AdminReturnNowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "return-now", abstract: "End the current live break early (X-PLAYOUT-LIMIT).")

    @Argument(help: "The live channel's ID.")
    var channel: String

    @Option(name: .long, help: "The break to end (default: the latest started).")
    var `break`: String?

    @OptionGroup var connection: AdminConnection

    func validate() throws { _ = try AdminResource.key(channel) }

    func run() async throws {
        let body = JSONValue.object(self.break.map { ["break": .string($0)] } ?? [:]).description
        try await connection.send(.POST, "channels/\(try AdminResource.key(channel))/return", body: body)
    }
}
