import AdDecisioning
import HLSInterstitials
import HLSPlaylist
import Testing

struct SignalingTests {
    static func resolved(_ name: String) throws -> ResolvedAd {
        let document = try Fixtures.vast(name)
        return ResolvedAd(
            inline: try #require(document.ads.first), wrappers: [], requestURLs: ["https://ads.example.com/\(name)"])
    }

    @Test func slotCarriesTrackingWithOffsets() throws {
        let slot = try #require(AdCreativeSignaling.Slot(try Self.resolved("inline-3.0.xml")))
        #expect(slot.duration == MediaTime(decimal: "20.5"))
        #expect(slot.skipOffset == MediaTime(seconds: 5))
        #expect(
            slot.tracking.map(\.type) == ["impression", "start", "progress", "progress", "complete", "skip", "error"])
        #expect(
            slot.tracking.filter { $0.type == "progress" }.map(\.offset) == [
                MediaTime(seconds: 10), MediaTime(decimal: "2.05"),
            ])
        let json = AdCreativeSignaling.slot(slot).json
        #expect(
            json.description.hasPrefix(
                "{\"payload\":[{\"duration\":20.5,\"identifiers\":[],\"skipOffset\":5,\"start\":0,\"tracking\":[{\"type\":\"impression\",\"urls\":[\"https://ads.example.com/imp?ad=v3&cb=[CACHEBUSTING]\"]}"
            ))
        #expect(
            json.description.contains(
                "{\"offset\":10,\"type\":\"progress\",\"urls\":[\"https://ads.example.com/t?e=p10\"]}"))
        #expect(json.description.hasSuffix("\"type\":\"linear\"}],\"type\":\"slot\",\"version\":2}"))
    }

    @Test func podPlacesSlotsBackToBack() throws {
        let slots = try ["inline-4.1.xml", "inline-4.2.xml"].map {
            try #require(AdCreativeSignaling.Slot(try Self.resolved($0)))
        }
        let pod = AdCreativeSignaling.pod(slots, tracking: [.init(type: "breakStart", urls: ["https://b/start"])])
        #expect(pod.slots.map(\.start) == [.zero, MediaTime(seconds: 10)])
        guard case .object(let envelope) = pod.json, case .array(let payload) = envelope["payload"],
            case .object(let first) = payload.first
        else {
            Issue.record("not an envelope")
            return
        }
        #expect(envelope["type"] == .string("pod") && envelope["version"] == .integer(2))
        #expect(first["duration"] == .number(16.006))
        #expect(
            first["tracking"]
                == .array([.object(["type": .string("breakStart"), "urls": .array([.string("https://b/start")])])]))
        guard case .array(let slotJSON) = first["slots"], case .object(let slot) = slotJSON.first else {
            Issue.record("no slots")
            return
        }
        #expect(
            slot["identifiers"]
                == .array([.object(["scheme": .string("ad-id.org"), "value": .string("EXAM0041000H")])]))
        #expect(
            slot["verifications"]
                == .array([
                    .object([
                        "vendor": .string("verifier.example.com-omid"),
                        "resource": .string("https://verifier.example.com/omid.js"),
                        "parameters": .string("{\"campaign\":\"41\"}"),
                    ])
                ]))
    }

    @Test func beaconScheduleUsesThePlayedDuration() throws {
        let slot = try #require(AdCreativeSignaling.Slot(try Self.resolved("inline-2.0.xml")))
        let schedule = BeaconSchedule(slot: slot, duration: MediaTime(seconds: 12))
        #expect(
            schedule.timed.map(\.type) == [
                "impression", "creativeView", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete",
            ])
        #expect(schedule.timed.map(\.time) == [0, 0, 0, 3, 6, 9, 12].map { MediaTime(seconds: $0) })
        #expect(schedule.onEvent["pause"] == ["https://ads.example.com/t?e=pause"])
        #expect(schedule.onEvent["clickTracking"] == ["https://ads.example.com/click"])
        #expect(schedule.due(after: nil, through: .zero).map(\.type) == ["impression", "creativeView", "start"])
        #expect(
            schedule.due(after: .zero, through: MediaTime(seconds: 6)).map(\.type) == ["firstQuartile", "midpoint"])
        #expect(schedule.due(after: MediaTime(seconds: 6), through: MediaTime(seconds: 8)).isEmpty)
    }

    @Test func progressBeaconsFireAtTheirOffsets() throws {
        let slot = try #require(AdCreativeSignaling.Slot(try Self.resolved("inline-3.0.xml")))
        let schedule = BeaconSchedule(slot: slot)
        #expect(
            schedule.timed.filter { $0.type == "progress" }.map(\.time) == [
                MediaTime(decimal: "2.05"), MediaTime(seconds: 10),
            ])
        #expect(schedule.onEvent["skip"] == ["https://ads.example.com/t?e=skip"])
    }

    struct Selection: Sendable, CustomStringConvertible {
        var file: String
        var hls: Int
        var progressive: Int
        var key: String?
        var description: String { file }
    }

    @Test(arguments: [
        Selection(file: "inline-2.0.xml", hls: 0, progressive: 2, key: "https://cdn.example.com/v2/spot-720.mp4"),
        Selection(file: "inline-3.0.xml", hls: 1, progressive: 0, key: "https://cdn.example.com/v3/master.m3u8"),
        Selection(file: "inline-4.1.xml", hls: 1, progressive: 1, key: "ad-id.org:EXAM0041000H"),
        Selection(file: "inline-4.2.xml", hls: 1, progressive: 0, key: "ad-id.org:EXAM0042000H"),
    ])
    func creativeSelection(_ expected: Selection) throws {
        let selection = CreativeSelection(ad: try Self.resolved(expected.file))
        #expect(selection.hlsFiles.count == expected.hls)
        #expect(selection.progressiveFiles.count == expected.progressive)
        #expect(selection.creativeKey == expected.key)
        #expect(!selection.isEmpty)
    }

    @Test func flashOnlyCreativeIsNotUsable() {
        var file = VASTMediaFile(url: "https://x/a.swf", type: "application/x-shockwave-flash")
        #expect(CreativeSelection.usability(of: file) == .unusable)
        file = VASTMediaFile(url: "https://x/a.m3u8?token=1")
        #expect(CreativeSelection.usability(of: file) == .hls)
        file = VASTMediaFile(url: "https://x/a.mp4", type: "video/mp4")
        file.apiFramework = "VPAID"
        #expect(CreativeSelection.usability(of: file) == .unusable)
    }
}
