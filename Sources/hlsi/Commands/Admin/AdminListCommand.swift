import ArgumentParser

/// `hlsi admin list content|schedules|breaks|inventory [--target vod/ID|live/ID]`.
struct AdminListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the content, the schedules, the breaks or the inventory.")

    @Argument(help: "content, schedules, breaks or inventory.")
    var resource: String

    @Option(name: .long, help: "Only this target (vod/ID or live/ID).")
    var target: String?

    @OptionGroup var connection: AdminConnection

    func validate() throws { _ = try AdminResource.path(resource) }

    func run() async throws {
        try await connection.send(.GET, AdminResource.path(resource) + AdminResource.query(target: target))
    }
}
