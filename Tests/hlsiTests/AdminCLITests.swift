import Foundation
import Testing

/// `hlsi admin`'s verbs as subcommands: each with its own help and options, usage errors (exit 2)
/// before any connection. Talking to a server is `ServeCLITests`'.
@Suite("hlsi admin verbs: per-verb help, usage errors")
struct AdminCLITests {
    @Test("each verb has its own help, with its own options and the shared --server and --token")
    func perVerbHelp() async throws {
        let returnNow = try await CLITests.run(["admin", "return-now", "--help"])
        #expect(returnNow.status == 0)
        #expect(returnNow.standardOutput.contains("--break <break>"))
        #expect(returnNow.standardOutput.contains("--server <server>"))
        #expect(returnNow.standardOutput.contains("--token <token>"))
        #expect(!returnNow.standardOutput.contains("--json"), "\(returnNow.standardOutput)")
        #expect(!returnNow.standardOutput.contains("--duration"), "\(returnNow.standardOutput)")
        let create = try await CLITests.run(["admin", "create", "--help"])
        #expect(create.standardOutput.contains("--json <json>") && create.standardOutput.contains("--file <file>"))
        #expect(!create.standardOutput.contains("--break"), "\(create.standardOutput)")
        let list = try await CLITests.run(["admin", "list", "--help"])
        #expect(list.standardOutput.contains("--target <target>"))
        let admin = try await CLITests.run(["admin", "--help"])
        for verb in ["list", "get", "create", "update", "delete", "break-now", "return-now"] {
            #expect(admin.standardOutput.contains("  \(verb) "), "\(verb)")
        }
    }

    @Test(
        "usage errors exit 2 before connecting",
        arguments: [
            ["admin"], ["admin", "frobnicate"], ["admin", "list"], ["admin", "list", "things"],
            ["admin", "get", "break"], ["admin", "get", "break", "../x"], ["admin", "create", "break"],
            ["admin", "create", "break", "--json", "{}", "--file", "x.json"], ["admin", "update", "ad", "a"],
            ["admin", "return-now"], ["admin", "break-now", "a b"], ["admin", "get", "break", "x", "--duration", "3"],
        ])
    func usage(_ arguments: [String]) async throws {
        // A port nothing listens on: a verb that got that far would fail to connect, also exit 2,
        // so the message tells them apart.
        let run = try await CLITests.run(arguments + ["--server", "http://127.0.0.1:1", "--token", "t"])
        #expect(run.status == 2, "\(arguments)")
        #expect(!run.standardError.contains("127.0.0.1:1"), "\(arguments): \(run.standardError)")
    }
}
