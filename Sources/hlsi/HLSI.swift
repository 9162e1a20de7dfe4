import ArgumentParser
import Foundation
import NIOCore
import NIOPosix

/// The `hlsi` command: HLS Interstitials tools.
struct HLSI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hlsi",
        abstract: "Author, inspect, validate and play HLS Interstitials streams.",
        discussion: """
            Exit codes: 0 success, 1 the input has errors, 2 usage or I/O failure.
            """,
        version: "0.1.0",
        subcommands: [
            InspectCommand.self, ValidateCommand.self, InsertCommand.self, ScheduleCommand.self, TimelineCommand.self,
            GenerateCommand.self, ServeCommand.self, AdminCommand.self, PlayCommand.self, HandoffCommand.self,
            RulesCommand.self, SCTE35Command.self, MediaTimingCommand.self, VASTCommand.self,
            ReportCommand.self,
        ]
    )
}

/// Runs `hlsi`, mapping outcomes to the documented exit codes.
@main
enum Main {
    static func main() async {
        if CommandLine.arguments.dropFirst().first == "serve" {
            NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        }
        do {
            var command = try HLSI.parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch let failure as CommandFailure {
            Output.standardError(failure.message)
            Foundation.exit(failure.exitCode)
        } catch {
            let code = HLSI.exitCode(for: error)
            if code == .success {
                print(HLSI.fullMessage(for: error))
                Foundation.exit(0)
            }
            Output.standardError(HLSI.fullMessage(for: error))
            Foundation.exit(2)
        }
    }
}
