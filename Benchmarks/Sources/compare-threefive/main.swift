// Decodes the same SCTE-35 sections with our SCTE35 library and with threefive (PyPI), both
// in-process (a timed loop here, timeit in Python), in one run, and prints the ratio.
//
// Usage: swift run -c release compare-threefive CORPUS_DIR   (Tests/Fixtures/scte35; needs threefive)
import Foundation
import SCTE35

let corpus = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? "../Tests/Fixtures/scte35")
var texts: [(name: String, text: String)] = []
for folder in ["ours", "threefive"] {
    let directory = corpus.appendingPathComponent(folder)
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    where name.hasSuffix(".hex") || name.hasSuffix(".b64") {
        let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        texts.append((folder + "/" + name, text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }
}
// The typical section: a time_signal with one segmentation_descriptor (break start), about 50 bytes.
guard let typical = texts.first(where: { $0.name == "ours/break-start.hex" }) else {
    print("no ours/break-start.hex in \(corpus.path)")
    exit(2)
}
let typicalBytes = (typical.text.count - 2) / 2

func nanoseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
}

/// Nanoseconds per decode of `inputs`, the median of 9 runs of `loops` passes.
func ours(_ inputs: [String], loops: Int) throws -> Double {
    var runs: [Double] = []
    for _ in 0..<9 {
        let start = ContinuousClock.now
        for _ in 0..<loops {
            for text in inputs { _ = try SpliceInfoSection.decode(text: text) }
        }
        runs.append(nanoseconds(ContinuousClock.now - start) / Double(loops * inputs.count))
    }
    return runs.sorted()[runs.count / 2]
}

let script = """
    import sys, timeit, threefive
    texts = [line for line in sys.stdin.read().split("\\n") if line]
    def run(inputs, loops):
        def decode():
            for text in inputs:
                cue = threefive.Cue(text)
                assert cue.decode() is not False
        best = sorted(timeit.repeat(decode, number=loops, repeat=5))
        return best[len(best) // 2] / (loops * len(inputs)) * 1e9
    print(run(texts[:1], 2000))
    print(run(texts[1:], 50))
    """
let python = Process()
python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
python.arguments = ["python3", "-c", script]
let input = Pipe()
let output = Pipe()
python.standardInput = input
python.standardOutput = output
try python.run()
input.fileHandleForWriting.write(Data(([typical.text] + texts.map(\.text)).joined(separator: "\n").utf8))
try input.fileHandleForWriting.close()
let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
python.waitUntilExit()
let theirs = printed.split(separator: "\n").compactMap { Double($0) }
guard python.terminationStatus == 0, theirs.count == 2 else {
    print("threefive failed (pip install threefive): \(printed)")
    exit(1)
}
let oursTypical = try ours([typical.text], loops: 20_000)
let oursCorpus = try ours(texts.map(\.text), loops: 500)
print(
    "SCTE-35 decode (from hex/base64 text), in-process both: ours (Swift, -c release) vs threefive \(ProcessInfo.processInfo.environment["THREEFIVE_VERSION"] ?? "")"
)
print(
    String(
        format: "typical section (%@, %d bytes): ours %8.0f ns  threefive %10.0f ns  ratio %5.0f×",
        typical.name, typicalBytes, oursTypical, theirs[0], theirs[0] / oursTypical))
print(
    String(
        format: "corpus (%d sections):          ours %8.0f ns  threefive %10.0f ns  ratio %5.0f×  (per section)",
        texts.count, oursCorpus, theirs[1], theirs[1] / oursCorpus))
