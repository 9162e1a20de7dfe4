import ArgumentParser

/// `hlsi admin`: drives a running server's admin API, one subcommand per verb.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Drive the admin API of a running `hlsi serve`.",
        discussion: """
            Every verb takes --server URL (default http://127.0.0.1:8080) and --token T (default \
            $HLSI_ADMIN_TOKEN), and prints the server's JSON answer. Exit codes: 0 done, 1 refused by the \
            server (its JSON error goes to standard error), 2 usage or connection failure.
            """,
        subcommands: [
            AdminListCommand.self, AdminGetCommand.self, AdminCreateCommand.self, AdminUpdateCommand.self,
            AdminDeleteCommand.self, AdminBreakNowCommand.self, AdminReturnNowCommand.self,
        ]
    )

    /// Without a verb: a usage error (exit 2), as before the verbs were subcommands.
    func run() async throws {
        throw ValidationError("give a verb: list, get, create, update, delete, break-now, return-now")
    }
}
