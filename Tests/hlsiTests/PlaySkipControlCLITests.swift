import Foundation
import Testing

/// `hlsi play` traces the skip control API of AVFoundation 26 (issue 35, item 1): skippable state
/// changes with their label from `--strings`, a skip, and how each event finished.
@Suite("hlsi play skip control trace")
struct PlaySkipControlCLITests {
    /// A VOD primary with two 10 s interstitials: `ad` at 10 s with a skip window [3, 7) and label key
    /// `skip-ad`; `promo` at 30 s with a window from 0 and key `skip-promo`. Returns the primary's path.
    static func stream(in folder: URL) throws -> String {
        var asset = "#EXTM3U\n#EXT-X-TARGETDURATION:5\n"
        for index in 0..<2 { asset += "#EXTINF:5.0,\na\(index).ts\n" }
        try (asset + "#EXT-X-ENDLIST\n").write(
            to: folder.appendingPathComponent("ad.m3u8"), atomically: true, encoding: .utf8)
        let uri = folder.appendingPathComponent("ad.m3u8").absoluteString
        var lines = [
            "#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z",
            "#EXT-X-DATERANGE:ID=\"ad\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:10.000Z\","
                + "DURATION=10,X-ASSET-URI=\"\(uri)\",X-RESUME-OFFSET=0,X-SKIP-CONTROL-OFFSET=3,"
                + "X-SKIP-CONTROL-DURATION=4,X-SKIP-CONTROL-LABEL-ID=\"skip-ad\"",
            "#EXT-X-DATERANGE:ID=\"promo\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:30.000Z\","
                + "DURATION=10,X-ASSET-URI=\"\(uri)\",X-RESUME-OFFSET=0,X-SKIP-CONTROL-OFFSET=0,"
                + "X-SKIP-CONTROL-LABEL-ID=\"skip-promo\"",
        ]
        for index in 0..<6 { lines += ["#EXTINF:10.0,", "s\(index).ts"] }
        let primary = folder.appendingPathComponent("main.m3u8")
        try (lines + ["#EXT-X-ENDLIST", ""]).joined(separator: "\n").write(
            to: primary, atomically: true, encoding: .utf8)
        return primary.path
    }

    /// The log lines of the kinds that the skip control API reports, spaces collapsed.
    static func skipLines(_ output: String) -> [String] {
        let kinds = ["skippableStateChanged", "eventSkipped", "interstitialEnded"]
        return output.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard words.count > 1, kinds.contains(String(words[1])) else { return nil }
            return words.joined(separator: " ")
        }
    }

    @Test("a String Catalog gives the labels for --language; a script skips the promo once eligible")
    func catalogAndSkip() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("play-skip-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let primary = try Self.stream(in: folder)
        let catalog = folder.appendingPathComponent("Labels.xcstrings")
        try #"""
        {"sourceLanguage":"en","strings":{
          "skip-ad":{"localizations":{"en":{"stringUnit":{"value":"Skip ad"}},"fr":{"stringUnit":{"value":"Passer la pub"}}}},
          "skip-promo":{"localizations":{"en":{"stringUnit":{"value":"Skip promo"}}}}}}
        """#.write(to: catalog, atomically: true, encoding: .utf8)
        let run = try await CLITests.run([
            "play", primary, "--no-segments", "--strings", catalog.path, "--language", "fr-FR,en",
            "--script", "at 42 skip",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            Self.skipLines(run.standardOutput) == [
                "10.000 skippableStateChanged primary 10.000 id=ad state=notYetEligible label=Passer la pub",
                "13.000 skippableStateChanged primary 10.000 id=ad state=eligible label=Passer la pub",
                "17.000 skippableStateChanged primary 10.000 id=ad state=noLongerEligible label=Passer la pub",
                "20.000 skippableStateChanged primary 10.000 id=ad state=notSkippable",
                "20.000 interstitialEnded primary 10.000 id=ad playedDuration=10.000 resumeTime=10.000 playedEntirely=true",
                "40.000 skippableStateChanged primary 30.000 id=promo state=eligible label=Skip promo",
                "42.000 eventSkipped primary 30.000 id=promo",
                "42.000 skippableStateChanged primary 30.000 id=promo state=notSkippable",
                "42.000 interstitialEnded primary 30.000 id=promo playedDuration=2.000 resumeTime=30.000 reason=skipped playedEntirely=false",
            ])
    }

    @Test("a .strings file without the key, and --skip-label: the default label")
    func stringsDefaultLabel() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("play-skip-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let primary = try Self.stream(in: folder)
        let strings = folder.appendingPathComponent("Localizable.strings")
        try "/* Only the ad. */\n\"skip-ad\" = \"Skip this ad\";\n".write(
            to: strings, atomically: true, encoding: .utf8)
        let run = try await CLITests.run([
            "play", primary, "--no-segments", "--strings", strings.path, "--skip-label", "Next", "--duration", "45",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardOutput.contains("skippableStateChanged primary 10.000  id=ad state=eligible label=Skip this ad")
        )
        #expect(run.standardOutput.contains("skippableStateChanged primary 30.000  id=promo state=eligible label=Next"))
    }

    @Test("a malformed strings file stops hlsi play with its location and exit status 2")
    func malformedStrings() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("play-skip-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let primary = try Self.stream(in: folder)
        let strings = folder.appendingPathComponent("Bad.strings")
        try "\"skip-ad\" = \"Skip\"\n\"other\" = \"x\";\n".write(to: strings, atomically: true, encoding: .utf8)
        let run = try await CLITests.run(["play", primary, "--no-segments", "--strings", strings.path])
        #expect(run.status == 2)
        #expect(
            run.standardError.contains("Bad.strings:2:1: error: [strings-syntax] expected ';'"), "\(run.standardError)")
        let json = folder.appendingPathComponent("labels.json")
        try #"{"skip-ad": 1}"#.write(to: json, atomically: true, encoding: .utf8)
        let bad = try await CLITests.run(["play", primary, "--no-segments", "--strings", json.path])
        #expect(bad.status == 2)
        #expect(bad.standardError.contains("error: [strings-schema] skip-ad: must be a string"), "\(bad.standardError)")
        let unknown = try await CLITests.run(["play", primary, "--no-segments", "--language", "fr"])
        #expect(unknown.status != 0)
    }
}
