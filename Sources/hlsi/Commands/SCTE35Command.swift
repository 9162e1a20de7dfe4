import ArgumentParser
import Foundation
import SCTE35

/// `hlsi scte35`: SCTE-35 splice information.
struct SCTE35Command: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scte35",
        abstract: "Decode SCTE-35 splice_info_section messages.",
        subcommands: [Decode.self]
    )

    /// `hlsi scte35 decode HEX|BASE64`.
    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decode",
            abstract: "Print a splice_info_section given as hex (0xFC…) or base64.",
            discussion: """
                Prints every field of the section (header, command, descriptors, CRC), with times in 90 kHz \
                ticks and seconds; --json prints the fields with the names SCTE 35 gives them. A section \
                that cannot be decoded gets an error naming the byte and the field (exit 1).
                """
        )

        @Argument(help: "The section, as hex (with or without 0x) or base64.")
        var section: String

        @OptionGroup var output: JSONOutputOption

        func run() throws {
            do {
                let decoded = try SpliceInfoSection.decode(text: section)
                if output.json {
                    Output.document(Array((try decoded.renderedJSON(pretty: true) + "\n").utf8))
                } else {
                    Output.standardOutput(try decoded.renderedText() + "\n")
                }
            } catch {
                if output.json {
                    Output.document(Array((error.errorJSON + "\n").utf8))
                } else {
                    Output.standardError(error.rendered(source: "section"))
                }
                throw ExitCode(1)
            }
        }
    }
}
