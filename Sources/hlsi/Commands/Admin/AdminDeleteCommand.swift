import ArgumentParser

/// `hlsi admin delete schedule TARGET | break ID | ad ID`.
struct AdminDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a schedule (by target), a break or an ad (by ID).")

    @OptionGroup var item: AdminItem

    @OptionGroup var connection: AdminConnection

    func run() async throws { try await connection.send(.DELETE, item.path()) }
}
