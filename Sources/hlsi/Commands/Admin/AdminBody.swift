import ArgumentParser
import Foundation

/// The request body of `hlsi admin create` and `update`: `--json TEXT` or `--file FILE|-`.
struct AdminBody: ParsableArguments {
    @Option(name: .long, help: "The request body as JSON text.")
    var json: String?

    @Option(name: .long, help: "A file with the request body (- for standard input).")
    var file: String?

    /// Exactly one of the two is given.
    func validate() throws {
        switch (json, file) {
        case (nil, nil): throw ValidationError("give the body with --json TEXT or --file FILE")
        case (.some, .some): throw ValidationError("give --json or --file, not both")
        default: break
        }
    }

    /// The body's text (exit 2 when the file cannot be read).
    func text() throws -> String {
        if let json { return json }
        if file == "-" { return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }
        guard let file, let data = FileManager.default.contents(atPath: file) else {
            throw CommandFailure(message: "error: cannot read \(file ?? "")", exitCode: 2)
        }
        return String(decoding: data, as: UTF8.self)
    }
}
