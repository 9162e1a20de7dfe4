import ArgumentParser

/// `hlsi admin update schedule TARGET | break ID | ad ID (--json TEXT | --file FILE|-)`.
struct AdminUpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update", abstract: "Replace a schedule (by target), a break or an ad (by ID) with a JSON body.")

    @OptionGroup var item: AdminItem

    @OptionGroup var body: AdminBody

    @OptionGroup var connection: AdminConnection

    func run() async throws { try await connection.send(.PUT, item.path(), body: body.text()) }
}
