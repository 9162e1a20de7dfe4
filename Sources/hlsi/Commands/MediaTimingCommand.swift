import ArgumentParser
import Foundation
import MediaTiming

/// `hlsi media-timing`: what a media segment holds, track by track.
struct MediaTimingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media-timing",
        abstract: "Read a media segment's timing: each track's start, duration, bytes and first key frame.",
        discussion: """
            Reads fragmented MP4 (give its EXT-X-MAP with --init unless the file holds the moov), MPEG-TS \
            and packed audio (AAC, MP3, AC-3 with an ID3 timestamp), from box and packet headers only. \
            A malformed segment gets an error with its byte offset and box or packet (exit 1).
            """
    )

    @Argument(help: "The media segment file.")
    var file: String

    @Option(name: .long, help: "The initialization segment (EXT-X-MAP) of an fMP4 media segment.")
    var `init`: String?

    @OptionGroup var output: JSONOutputOption

    func run() throws {
        let bytes = try read(file)
        do {
            var initSegment: InitSegment?
            if let path = `init` { initSegment = try MediaTimingParser.parseInitSegment(try read(path)) }
            let timing = try MediaTimingParser.parse(bytes, initSegment: initSegment)
            if output.json {
                Output.document(Array(try Output.json(timing).utf8))
                return
            }
            var text = "\(file): \(timing.format.rawValue), \(timing.byteCount) bytes\n"
            for track in timing.tracks {
                text += "  track \(track.id) \(track.kind.rawValue)"
                if let codec = track.codec { text += " \(codec)" }
                text += ": starts \(String(format: "%.6f", track.editedPresentationStart.seconds)) s"
                text += ", lasts \(String(format: "%.6f", track.duration.seconds)) s"
                text += ", \(track.sampleCount) samples, \(track.byteCount) bytes"
                if let key = track.startsWithKeyFrame {
                    text += key ? ", starts with a key frame" : ", NO key frame first"
                }
                text += "\n"
            }
            for warning in timing.warnings { text += "  warning: \(warning)\n" }
            Output.standardOutput(text)
        } catch let error as MediaTimingError {
            Output.standardError(error.rendered(source: file))
            throw ExitCode(1)
        }
    }

    private func read(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(message: "error: \(path): cannot be read", exitCode: 2)
        }
        return Array(data)
    }
}
