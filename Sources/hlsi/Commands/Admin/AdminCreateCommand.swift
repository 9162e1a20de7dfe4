import ArgumentParser

/// `hlsi admin create schedule|break|ad (--json TEXT | --file FILE|-)`.
struct AdminCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Create a schedule, a break or an ad from a JSON body.")

    @Argument(help: "schedule, break or ad.")
    var resource: String

    @OptionGroup var body: AdminBody

    @OptionGroup var connection: AdminConnection

    func validate() throws { _ = try AdminResource.path(resource) }

    func run() async throws {
        try await connection.send(.POST, AdminResource.path(resource), body: body.text())
    }
}
