// Parses the same generated 100,000-segment VOD playlist with HLSPlaylist, with Python's `m3u8`
// package (`m3u8.loads`) and, when HLSJS names hls.js's module, with hls.js's parser in Node
// (`M3U8Parser.parseLevelPlaylist`), side by side in one run, and prints the ratios. Also reports
// write time, the memory the parsed playlist holds against the file size, and, when HLSI names the
// `hlsi` binary, whole processes: `hlsi inspect FILE` against `python3` loading FILE with m3u8.
//
// Usage: Benchmarks/compare-python.sh [SEGMENTS]   (installs m3u8==6.0.0 and extracts hls.js)
import Foundation
import HLSPlaylist

func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
}

// `compare-python --memory FILE`: the memory one parse of FILE holds, measured in a process that
// has parsed nothing before (in the main run, memory freed by earlier parses would be reused).
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--memory" {
    let bytes = Array(FileManager.default.contents(atPath: CommandLine.arguments[2]) ?? Data())
    let before = residentBytes()
    let held = PlaylistParser.parse(bytes)
    print(residentBytes() - before)
    withExtendedLifetime(held) {}
    exit(0)
}

let segments = Int(CommandLine.arguments.dropFirst().first ?? "100000") ?? 100_000
let text = SyntheticPlaylist.vod(segments: segments, interstitialEvery: 100)
let bytes = Array(text.utf8)
let path = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-compare-\(segments).m3u8").path
try text.write(toFile: path, atomically: true, encoding: .utf8)

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

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
/// Runs a process and returns its standard output, or nil when it fails.
func run(_ arguments: [String]) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return process.terminationStatus == 0 ? output : nil
}

/// The median wall time of `count` runs of a whole process, in milliseconds: started with
/// `posix_spawnp`, its output sent to /dev/null, and waited for with `waitpid` (Foundation's
/// `Process` adds about 50 ms of polling to every run, which would hide the difference); nil when
/// it fails.
func wallTime(_ arguments: [String], count: Int) -> Double? {
    var times: [Double] = []
    for _ in 0..<count {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        guard posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ) == 0 else { return nil }
        var status: Int32 = 0
        guard waitpid(pid, &status, 0) == pid, status == 0 else { return nil }
        let elapsed = ContinuousClock.now - start
        times.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
    }
    return median(times)
}

// hls.js: its parser class is not exported; a copy of the module exports it (the class that holds
// `static findGroup`, `parseLevelPlaylist` and `parseMasterPlaylist`).
var hlsjsMilliseconds: Double?
if let module = ProcessInfo.processInfo.environment["HLSJS"],
    let source = try? String(contentsOfFile: module, encoding: .utf8),
    let match = source.firstMatch(of: /(\w+)=class t\{static findGroup\(/)
{
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-compare-hlsjs").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try (source + "\nexport{\(match.1) as M3U8Parser};\n").write(
        toFile: directory + "/parser.mjs", atomically: true, encoding: .utf8)
    let runner = """
        globalThis.self = globalThis;
        const { M3U8Parser } = await import('./parser.mjs');
        const { readFileSync } = await import('node:fs');
        const text = readFileSync(process.argv[2], 'utf8');
        const times = [];
        for (let i = 0; i < 7; i++) {
          const start = performance.now();
          const details = M3U8Parser.parseLevelPlaylist(text, 'http://example.com/p.m3u8', 0, 'main', 0, null);
          times.push(performance.now() - start);
          if (details.fragments.length !== Number(process.argv[3])) process.exit(1);
        }
        times.sort((a, b) => a - b);
        console.log(times[3]);
        """
    try runner.write(toFile: directory + "/run.mjs", atomically: true, encoding: .utf8)
    hlsjsMilliseconds = run(["node", directory + "/run.mjs", path, String(segments)])
        .flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
}

let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
let memory =
    run([executable, "--memory", path]).flatMap {
        Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
    } ?? 0
let parse = median(parseTimes)
let write = median(writeTimes)
print("file: \(segments) segments, \(bytes.count) bytes")
print(
    String(
        format: "HLSPlaylist parse: %.1f ms (median of 15), %.0f MB/s", parse, Double(bytes.count) / parse / 1000))
print(String(format: "HLSPlaylist write: %.1f ms (median of 15)", write))
print(String(format: "Python m3u8 6.0.0 loads: %.1f ms (median of 5)", pythonMilliseconds))
print(String(format: "parse ratio: %.1f× faster than m3u8.loads", pythonMilliseconds / parse))
print(String(format: "write/parse: write is %.1f× faster than parse", parse / write))
print(
    String(
        format: "memory held by the parsed playlist (a fresh process): %.1f MB = %.2f× the file size",
        Double(memory) / 1e6,
        Double(memory) / Double(bytes.count)))
if let hlsjsMilliseconds {
    print(String(format: "hls.js 1.6.15 parseLevelPlaylist (Node): %.1f ms (median of 7)", hlsjsMilliseconds))
    print(String(format: "parse ratio: %.1f× faster than hls.js's parser", hlsjsMilliseconds / parse))
}
if let hlsi = ProcessInfo.processInfo.environment["HLSI"],
    let inspect = wallTime([hlsi, "inspect", path], count: 5),
    let load = wallTime(["python3", "-c", "import sys, m3u8; m3u8.load(sys.argv[1])", path], count: 3)
{
    print(
        String(
            format: "whole process: hlsi inspect %.0f ms (median of 5), python3 + m3u8.load %.0f ms (median of 3)",
            inspect, load))
    print(String(format: "whole-process ratio: %.1f×", load / inspect))
}
