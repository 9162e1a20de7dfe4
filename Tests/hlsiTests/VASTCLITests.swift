import Foundation
import Testing

/// `hlsi vast`: VAST and VMAP documents as the server reads them, wrappers followed from files and
/// from a real HTTP server.
@Suite("hlsi vast")
struct VASTCLITests {
    static let vast = "Tests/Fixtures/vast/"

    static let goldenCases: [CLITests.GoldenCase] = [
        .init(arguments: ["vast", vast + "pod-4.3.xml"], golden: "vast-pod.txt", status: 0),
        .init(arguments: ["vast", "--json", vast + "vmap-1.0.xml"], golden: "vast-vmap.json", status: 0),
        .init(arguments: ["vast", vast + "bad-xml.xml"], golden: "vast-bad-xml.txt", status: 1),
        .init(arguments: ["vast", "--json", vast + "not-vast.xml"], golden: "vast-not-vast.json", status: 1),
        .init(arguments: ["vast", "--follow", vast + "follow/wrapper-1.xml"], golden: "vast-follow.txt", status: 0),
        .init(
            arguments: ["vast", "--follow", "--json", vast + "follow/wrapper-1.xml"], golden: "vast-follow.json",
            status: 0),
    ]

    @Test("golden output and exit status", arguments: goldenCases)
    func golden(_ testCase: CLITests.GoldenCase) async throws { try await CLITests.check(testCase) }

    @Test("--follow: a pod resolves in sequence order with every wrapper's impressions and tracking merged in")
    func followMerges() async throws {
        let run = try await CLITests.run(["vast", "--follow", "--json", Self.vast + "follow/wrapper-1.xml"])
        #expect(run.status == 0, "\(run.standardError)")
        let object = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any]
        let resolution = try #require(object?["resolution"] as? [String: Any])
        let ads = try #require(resolution["ads"] as? [[String: Any]])
        #expect(ads.map { $0["id"] as? String } == ["pod-1", "pod-2"])
        #expect(ads.map { $0["depth"] as? Int } == [2, 2])
        let impressions = ads.first?["impressions"] as? [String]
        #expect(
            impressions == [
                "https://ads.example.com/imp?ad=1", "https://middle.example.com/imp",
                "https://outer.example.com/imp?cb=[CACHEBUSTING]",
            ])
        let creative = (ads.first?["creatives"] as? [[String: Any]])?.first
        let events = (creative?["tracking"] as? [[String: Any]])?.compactMap { $0["event"] as? String }
        #expect(events == ["progress", "firstQuartile", "complete"])
        let files = (creative?["mediaFiles"] as? [[String: Any]])?.compactMap { $0["usability"] as? String }
        #expect(files == ["needs-conditioning", "unusable"])
        #expect((resolution["requests"] as? [Any])?.count == 3)
    }

    @Test("--follow: a wrapper loop is VAST error 302 and a chain that ends without ads 303; both exit 1")
    func followFailures() async throws {
        let loop = try await CLITests.run(["vast", "--follow", Self.vast + "follow/loop-a.xml"])
        #expect(loop.status == 1)
        #expect(loop.standardOutput.contains("failed: VAST error 302 [wrapper-loop]"), "\(loop.standardOutput)")
        #expect(loop.standardOutput.contains("would request: https://a.example.com/error?code=[ERRORCODE]"))
        let empty = try await CLITests.run(["vast", "--follow", Self.vast + "follow/to-empty.xml"])
        #expect(empty.status == 1)
        #expect(empty.standardOutput.contains("VAST error 303"), "\(empty.standardOutput)")
        let shallow = try await CLITests.run([
            "vast", "--follow", "--max-depth", "1", Self.vast + "follow/wrapper-1.xml",
        ])
        #expect(shallow.status == 1)
        #expect(shallow.standardOutput.contains("VAST error 302 [wrapper-limit]"), "\(shallow.standardOutput)")
        let missing = try await CLITests.run(["vast", Self.vast + "none.xml"])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("[load-file-unreadable]"))
        let depth = try await CLITests.run(["vast", "--max-depth", "0", Self.vast + "pod-4.3.xml"])
        #expect(depth.status == 2)
        #expect(depth.standardError.contains("--max-depth"))
    }

    @Test(
        "--follow over HTTP: relative wrapper URLs resolve against the URL; a document from a URL cannot lead to a file"
    )
    func followOverHTTP() async throws {
        try await withFileServer(directory: Self.vast) { base in
            let run = try await CLITests.run(["vast", "--follow", base + "follow/wrapper-1.xml"])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.contains("depth 2: \(base)follow/inline-pod.xml: vast"), "\(run.standardOutput)")
            #expect(run.standardOutput.contains("resolved ads: 2"))
            let file = try await CLITests.run(["vast", "--follow", base + "follow/to-file.xml"])
            #expect(file.status == 1)
            #expect(
                file.standardOutput.contains("refused: a document read from a URL cannot lead to a file"),
                "\(file.standardOutput)")
            #expect(!file.standardOutput.contains("root:"), "nothing of the file is read")
        }
    }

    /// Runs Python's `http.server` on a free port over `directory` while `body` runs.
    func withFileServer(directory: String, _ body: (String) async throws -> Void) async throws {
        try await CLITests.withPython(
            ["-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory]
        ) { line in
            // "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
            let words = line.split(separator: " ")
            let port = try #require(
                words.firstIndex(of: "port").map { words[$0 + 1] }, "python3 -m http.server did not start: \(line)")
            try await body("http://127.0.0.1:\(port)/")
        }
    }
}
