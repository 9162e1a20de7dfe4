import ArgumentParser

/// `--json`, "Print JSON.": the output option `vast`, `schedule`, `scte35` and `media-timing` share.
struct JSONOutputOption: ParsableArguments {
    @Flag(name: .long, help: "Print JSON.")
    var json = false
}
