import Foundation
import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import PlaybackEngine
import Testing

/// The skip control API of AVFoundation 26 on `Player`: the monitor's skippable state and label,
/// the controller's strings table, and the notifications, on a manual clock.
@Suite("Skip control on the player")
struct SkipControlPlayerTests {
    /// A 10 s ad at 10 s with a skip window [3, 7) and label key `skip-ad`.
    static let files = vod(
        [
            Content.interstitial(
                "ad", at: 10,
                "DURATION=10,X-ASSET-URI=\"{ORIGIN}/long.m3u8\",X-RESUME-OFFSET=0,X-SKIP-CONTROL-OFFSET=3,X-SKIP-CONTROL-DURATION=4,X-SKIP-CONTROL-LABEL-ID=\"skip-ad\""
            )
        ], ads)

    @Test("the monitor reads the state and label at each time; the controller's table gives the label")
    func stateAndLabel() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("skip-labels-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("Localizable.strings")
        try "\"skip-ad\" = \"Passer la pub\";\n".write(to: file, atomically: true, encoding: .utf8)
        let table = try LocalizedStringsTable.load(contentsOf: file.path)

        let seen = try await TestOrigin.with(files: Self.files) { origin in
            let player = makePlayer(origin)
            let controller = InterstitialEventController(primaryPlayer: player)
            #expect(controller.currentEventSkipControlLabel == nil)
            controller.localizedStrings = table
            #expect(player.skipControlLabels.table == table)
            let changes = controller.currentEventSkippableStateDidChange
            player.play()
            var seen: [String] = []
            for time in [5.0, 11, 14, 18, 25] {
                await player.run(until: .nanoseconds(s(time).nanoseconds))
                seen.append(
                    "\(controller.currentEventSkippableState.rawValue) \(controller.currentEventSkipControlLabel ?? "-")"
                )
            }
            await player.shutdown()
            var notified: [String] = []
            for await change in changes { notified.append("\(change.state.rawValue) \(change.label ?? "-")") }
            #expect(
                notified == [
                    "notYetEligible Passer la pub", "eligible Passer la pub", "noLongerEligible Passer la pub",
                    "notSkippable -",
                ])
            return seen
        }
        #expect(
            seen == [
                "notSkippable -", "notYetEligible Passer la pub", "eligible Passer la pub",
                "noLongerEligible Passer la pub", "notSkippable -",
            ])
    }

    @Test("without a table the label is the player's default; skipping posts skipped and finished (not entire)")
    func skipNotifications() async throws {
        let received = try await TestOrigin.with(files: Self.files) { origin in
            let player = makePlayer(origin)
            player.skipControlLabels = SkipControlLabels(defaultLabel: "Ignorer")
            let controller = InterstitialEventController(primaryPlayer: player)
            let all = controller.notifications
            let skipped = controller.currentEventSkipped
            player.play()
            await player.run(until: .nanoseconds(s(14).nanoseconds))
            #expect(controller.currentEventSkipControlLabel == "Ignorer")
            #expect(controller.skipCurrentEvent())
            #expect(controller.currentEventSkippableState == .notSkippable)
            await player.run(until: .nanoseconds(s(30).nanoseconds))
            await player.shutdown()
            var names: [String] = []
            for await notification in all {
                switch notification {
                case .currentEventSkippableStateDidChange(let event, let state, let label):
                    names.append("state:\(event.identifier):\(state.rawValue):\(label ?? "-")")
                case .currentEventSkipped(let event): names.append("skipped:\(event.identifier)")
                case .eventDidFinish(let event, let time, let entire):
                    names.append("finish:\(event.identifier):\(time):\(entire)")
                case .currentEventDidChange(let event): names.append("current:\(event?.identifier ?? "nil")")
                default: break
                }
            }
            var skips: [String] = []
            for await event in skipped { skips.append(event.identifier) }
            return (names, skips)
        }
        #expect(
            received.0 == [
                "current:ad", "state:ad:notYetEligible:Ignorer", "state:ad:eligible:Ignorer", "skipped:ad",
                "state:ad:notSkippable:-", "finish:ad:4:false", "current:nil",
            ])
        #expect(received.1 == ["ad"])
    }

    @Test("reading a strings file: an unknown extension, a missing file and a malformed one are located errors")
    func fileErrors() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("skip-labels-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: StringsTableError.self) { try LocalizedStringsTable.load(contentsOf: folder.path + "/x.txt") }
        do {
            _ = try LocalizedStringsTable.load(contentsOf: folder.path + "/missing.json")
            Issue.record("a missing file was read")
        } catch { #expect(error.code == .file) }
        let bad = folder.appendingPathComponent("bad.xcstrings")
        try #"{"sourceLanguage":"en","strings":{"k":{"localizations":{"en":{"stringUnit":{"value":[]}}}}}}"#.write(
            to: bad, atomically: true, encoding: .utf8)
        do {
            _ = try LocalizedStringsTable.load(contentsOf: bad.path)
            Issue.record("a malformed catalog was read")
        } catch {
            #expect(error.code == .schema)
            #expect(error.path == "strings.k.localizations.en.stringUnit.value")
        }
        let big = folder.appendingPathComponent("big.json")
        try Data(repeating: 0x20, count: LocalizedStringsTable.maximumBytes + 10).write(to: big)
        do {
            _ = try LocalizedStringsTable.load(contentsOf: big.path)
            Issue.record("an oversized file was read")
        } catch { #expect(error.code == .tooLarge) }
    }
}
