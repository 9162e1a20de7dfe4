import ArgumentParser
import HLSInterstitials

/// `hlsi admin break-now CHANNEL [--duration S] [--id ID] [--ad AD]`.
struct AdminBreakNowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "break-now", abstract: "Start a live break at the live edge.")

    @Argument(help: "The live channel's ID.")
    var channel: String

    @Option(name: .long, help: "The break's duration in seconds.")
    var duration: Double?

    @Option(name: .long, help: "The break's ID.")
    var id: String?

    @Option(name: .long, help: "A fixed ad instead of the asset list.")
    var ad: String?

    @OptionGroup var connection: AdminConnection

    func validate() throws { _ = try AdminResource.key(channel) }

    func run() async throws {
        var fields: [String: JSONValue] = [:]
        if let duration { fields["duration"] = .number(duration) }
        if let id { fields["id"] = .string(id) }
        if let ad { fields["ad"] = .string(ad) }
        try await connection.send(
            .POST, "channels/\(try AdminResource.key(channel))/breaks", body: JSONValue.object(fields).description)
    }
}
