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
///
/// Text for people (summaries, tables, diagnostics, messages) goes through ``standardOutput(_:)`` and
/// ``standardError(_:terminator:)``, which write every control character but the line feed the way
/// diagnostics quote input (`\t`, `\r`, `\u{1B}`: ``Diagnostic/escapingControls(_:)``), so that a
/// playlist, a file name or a server's answer never drives the terminal. Documents (playlists,
/// JSON, a colored picture made here) go through ``document(_:)`` byte for byte.
enum Output {
    /// Writes text and a terminator (a newline by default) to standard error, control characters escaped.
    static func standardError(_ text: String, terminator: String = "\n") {
        FileHandle.standardError.write(Data((terminal(text) + terminator).utf8))
    }

    /// Writes text to standard output, control characters escaped.
    static func standardOutput(_ text: String) {
        FileHandle.standardOutput.write(Data(terminal(text).utf8))
    }

    /// Writes a document (a playlist, JSON, a picture with its own color codes) to standard output as it is.
    static func document(_ bytes: some Sequence<UInt8>) {
        FileHandle.standardOutput.write(Data(bytes))
    }

    /// Writes a document held in an array, without copying it first (large schedules are megabytes).
    static func document(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            FileHandle.standardOutput.write(
                Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: buffer.count, deallocator: .none))
        }
    }

    /// `text` with every control character except the line feed escaped, lines kept.
    static func terminal(_ text: String) -> String {
        guard hasControls(text) else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { Diagnostic.escapingControls(String($0)) }.joined(separator: "\n")
    }

    /// Whether `text` has a control character other than the line feed.
    static func hasControls(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0 != "\n" && AttributeGrammar.isControl($0) }
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
