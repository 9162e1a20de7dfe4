// Times MediaTiming (in-process, the whole parse) and `ffprobe -show_packets` (a process per file,
// as a tool runs it) on the same segments in one run, and prints the ratio.
//
// Usage: swift run -c release compare-ffprobe FILE...   (media-timing-vs-ffprobe.sh makes the files)
import Foundation
import MediaTiming

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// Runs ffprobe on `path`; returns the wall time and the number of packets it printed.
func ffprobe(_ path: String) throws -> (milliseconds: Double, packets: Int) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["ffprobe", "-v", "error", "-show_packets", "-of", "compact=p=0", path]
    let output = Pipe()
    process.standardOutput = output
    let start = ContinuousClock.now
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let elapsed = ContinuousClock.now - start
    guard process.terminationStatus == 0 else { throw CocoaError(.fileReadCorruptFile) }
    return (milliseconds(elapsed), data.split(separator: UInt8(ascii: "\n")).count)
}

let files = Array(CommandLine.arguments.dropFirst())
guard !files.isEmpty else {
    print("usage: compare-ffprobe FILE...")
    exit(2)
}
print("file                          bytes     ours (in-process)   ffprobe -show_packets   ratio   samples/packets")
for path in files {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let timing = try MediaTimingParser.parse(bytes)
    let samples = timing.tracks.map(\.sampleCount).reduce(0, +)
    // Ours: batches of iterations long enough to time, the median of 15 batches.
    var batch = 1
    while true {
        let start = ContinuousClock.now
        for _ in 0..<batch { _ = try MediaTimingParser.parse(bytes) }
        if ContinuousClock.now - start > .milliseconds(50) { break }
        batch *= 2
    }
    var ours: [Double] = []
    for _ in 0..<15 {
        let start = ContinuousClock.now
        for _ in 0..<batch { _ = try MediaTimingParser.parse(bytes) }
        ours.append(milliseconds(ContinuousClock.now - start) / Double(batch))
    }
    var theirs: [Double] = []
    var packets = 0
    for _ in 0..<7 {
        let run = try ffprobe(path)
        theirs.append(run.milliseconds)
        packets = run.packets
    }
    let name = URL(fileURLWithPath: path).lastPathComponent
    let line = [
        name.padding(toLength: 28, withPad: " ", startingAt: 0),
        String(bytes.count).padding(toLength: 10, withPad: " ", startingAt: 0),
        String(format: "%9.3f ms", median(ours)).padding(toLength: 20, withPad: " ", startingAt: 0),
        String(format: "%9.3f ms", median(theirs)).padding(toLength: 24, withPad: " ", startingAt: 0),
        String(format: "%6.0f×", median(theirs) / median(ours)).padding(toLength: 8, withPad: " ", startingAt: 0),
        "\(samples)/\(packets)",
    ]
    print(line.joined(separator: "  "))
}
