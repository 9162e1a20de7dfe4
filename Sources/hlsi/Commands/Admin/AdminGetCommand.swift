import ArgumentParser

/// `hlsi admin get schedule TARGET | break ID | ad ID`.
struct AdminGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get", abstract: "Print a schedule (by target), a break or an ad (by ID).")

    @OptionGroup var item: AdminItem

    @OptionGroup var connection: AdminConnection

    func run() async throws { try await connection.send(.GET, item.path()) }
}
