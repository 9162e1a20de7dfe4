import ArgumentParser
import HLSLoading

/// The options that bound the segment downloads of `--media` (`hlsi validate`, `hlsi report`).
struct MediaDownloadOptions: ParsableArguments {
    @Option(name: .long, help: "With --media, read only this many segments per playlist, evenly spaced.")
    var sample: Int?

    @Option(name: .long, help: "With --media, the most MiB downloaded in all.")
    var mediaBudget: Int = 512

    @Option(name: .long, help: "With --media, the most segment downloads at once (1 to 16).")
    var concurrency: Int = 4

    /// Refuses values out of range, and `--sample` without `--media`.
    func check(media: Bool) throws {
        if !media, sample != nil { throw ValidationError("--sample applies only with --media") }
        if let sample, !(1...100_000).contains(sample) { throw ValidationError("--sample needs 1 to 100000 segments") }
        if !(1...1_048_576).contains(mediaBudget) { throw ValidationError("--media-budget needs 1 to 1048576 MiB") }
        if !(1...16).contains(concurrency) { throw ValidationError("--concurrency needs 1 to 16 downloads") }
    }

    /// What the stream validator is given.
    var validationOptions: MediaValidationOptions {
        MediaValidationOptions(sample: sample, maximumBytes: mediaBudget << 20, concurrency: concurrency)
    }
}
