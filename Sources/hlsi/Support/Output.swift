import Foundation
import HLSLoading
import HLSPlaylist

/// A failure that ends a command with a message and an exit code.
struct CommandFailure: Error {
    /// The message for standard error.
    var message: String
    /// 1 for input errors, 2 for usage or I/O failures.
    var exitCode: Int32

    /// An I/O or usage failure (exit 2), or an input failure (exit 1) for content errors.
    init(_ error: LoadError) {
        self.message = error.description
        self.exitCode = error.isContentError ? 1 : 2
    }

    init(message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }
}

/// Writing to the terminal.
enum Output {
    /// Writes text and a terminator (a newline by default) to standard error.
    static func standardError(_ text: String, terminator: String = "\n") {
        FileHandle.standardError.write(Data((text + terminator).utf8))
    }

    /// Writes text to standard output without buffering surprises.
    static func standardOutput(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Renders diagnostics like a compiler, with a bounded window of the source line and a caret.
    static func render(_ diagnostics: [Diagnostic], document: PlaylistDocument?) -> String {
        var text = ""
        for diagnostic in diagnostics {
            text += diagnostic.render(in: document) + "\n"
        }
        return text
    }

    /// Pretty JSON with sorted keys (stable output) and unescaped slashes.
    static func json<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }
}
