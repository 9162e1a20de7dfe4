// Parses the same generated 100,000-segment VOD playlist with HLSPlaylist and with Python's `m3u8`
// package (`m3u8.loads`), side by side in one run, and prints the ratio. Also reports write time
// and the memory the parsed playlist holds, against the file size.
//
// Usage: swift run -c release compare-python [SEGMENTS]   (needs `pip install m3u8==6.0.0`)
import Foundation
import HLSPlaylist

let segments = Int(CommandLine.arguments.dropFirst().first ?? "100000") ?? 100_000
let text = SyntheticPlaylist.vod(segments: segments, interstitialEvery: 100)
let bytes = Array(text.utf8)
let path = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-compare-\(segments).m3u8").path
try text.write(toFile: path, atomically: true, encoding: .utf8)

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
}

var parseTimes: [Double] = []
var writeTimes: [Double] = []
for _ in 0..<15 {
    let start = ContinuousClock.now
    let result = PlaylistParser.parse(bytes)
    let parsed = ContinuousClock.now
    let written = result.document.write()
    let end = ContinuousClock.now
    precondition(written == bytes && result.playlist.media?.segments.count == segments)
    parseTimes.append(
        Double((parsed - start).components.attoseconds) / 1e15 + Double((parsed - start).components.seconds) * 1000)
    writeTimes.append(
        Double((end - parsed).components.attoseconds) / 1e15 + Double((end - parsed).components.seconds) * 1000)
}
let before = residentBytes()
let held = PlaylistParser.parse(bytes)
let memory = residentBytes() - before
withExtendedLifetime(held) {}

let script = """
    import sys, time, m3u8
    text = open(sys.argv[1]).read()
    times = []
    for _ in range(5):
        start = time.perf_counter(); playlist = m3u8.loads(text); times.append(time.perf_counter() - start)
        assert len(playlist.segments) == int(sys.argv[2])
    times.sort(); print(times[len(times) // 2] * 1000)
    """
let python = Process()
python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
python.arguments = ["python3", "-c", script, path, String(segments)]
let pipe = Pipe()
python.standardOutput = pipe
try python.run()
let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
python.waitUntilExit()
guard python.terminationStatus == 0,
    let pythonMilliseconds = Double(output.trimmingCharacters(in: .whitespacesAndNewlines))
else {
    FileHandle.standardError.write(Data("python3 with m3u8==6.0.0 is needed: pip install m3u8==6.0.0\n".utf8))
    exit(2)
}
let parse = median(parseTimes)
let write = median(writeTimes)
print("file: \(segments) segments, \(bytes.count) bytes")
print(String(format: "HLSPlaylist parse: %.1f ms (median of 15)", parse))
print(String(format: "HLSPlaylist write: %.1f ms (median of 15)", write))
print(String(format: "Python m3u8 6.0.0 loads: %.1f ms (median of 5)", pythonMilliseconds))
print(String(format: "parse ratio: %.1f× faster than m3u8.loads", pythonMilliseconds / parse))
print(String(format: "write/parse: write is %.1f× faster than parse", parse / write))
print(
    String(
        format: "memory held by the parsed playlist: %.1f MB = %.2f× the file size", Double(memory) / 1e6,
        Double(memory) / Double(bytes.count)))
