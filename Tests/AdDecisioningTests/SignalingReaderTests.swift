import AdDecisioning
import HLSInterstitials
import HLSPlaylist
import Testing

/// Reading `X-AD-CREATIVE-SIGNALING` back, as a player that fires the beacons does.
struct SignalingReaderTests {
    static func slots() throws -> [AdCreativeSignaling.Slot] {
        try ["inline-3.0.xml", "inline-4.1.xml", "inline-4.2.xml"].map {
            try #require(AdCreativeSignaling.Slot(try SignalingTests.resolved($0)))
        }
    }

    @Test("a pod and a slot read back to what was written")
    func roundTrip() throws {
        let pod = AdCreativeSignaling.pod(
            try Self.slots(), tracking: [.init(type: "breakStart", urls: ["https://b/s"])])
        // What is written reads back to the same JSON, with the same tracking and times.
        let read = try AdCreativeSignaling(json: pod.json)
        #expect(read.json == pod.json)
        #expect(read.slots.map(\.tracking) == pod.slots.map(\.tracking))
        #expect(read.slots.map(\.start) == [.zero, MediaTime(decimal: "20.5"), MediaTime(decimal: "30.5")])
        #expect(read.podTracking == pod.podTracking)
        for slot in try Self.slots() {
            let signaling = AdCreativeSignaling.slot(slot)
            let back = try AdCreativeSignaling(json: signaling.json)
            #expect(back.json == signaling.json)
            #expect(back.slots.map(\.skipOffset) == [slot.skipOffset])
        }
    }

    @Test("members it does not know are ignored; known members of the wrong type are located errors")
    func errors() throws {
        let lenient = try JSONValue.parse(
            Array(
                #"{"version":2,"type":"slot","x-vendor":1,"payload":[{"type":"linear","start":0,"duration":10,"tracking":[{"type":"start","urls":["https://t/s"],"x":true}]}]}"#
                    .utf8), code: .json)
        let read = try AdCreativeSignaling(json: lenient)
        #expect(read.slots.first?.tracking == [.init(type: "start", urls: ["https://t/s"])])
        let cases: [(String, String)] = [
            (#"{"type":"ad","payload":[]}"#, "X-AD-CREATIVE-SIGNALING.type"),
            (#"{"type":"slot"}"#, "X-AD-CREATIVE-SIGNALING.payload"),
            (#"{"type":"pod","payload":[]}"#, "X-AD-CREATIVE-SIGNALING.payload"),
            (
                #"{"type":"pod","payload":[{"slots":[{"duration":5},{"duration":"5"}]}]}"#,
                "X-AD-CREATIVE-SIGNALING.payload[0].slots[1].duration"
            ),
            (
                #"{"type":"slot","payload":[{"tracking":[{"type":"start","urls":[3]}]}]}"#,
                "X-AD-CREATIVE-SIGNALING.payload[0].tracking[0].urls[0]"
            ),
            (
                #"{"type":"slot","payload":[{"tracking":[{"urls":[]}]}]}"#,
                "X-AD-CREATIVE-SIGNALING.payload[0].tracking[0].type"
            ),
        ]
        for (text, path) in cases {
            let value = try JSONValue.parse(Array(text.utf8), code: .json)
            #expect(throws: JSONError.self, "\(text)") { try AdCreativeSignaling(json: value) }
            do {
                _ = try AdCreativeSignaling(json: value)
            } catch {
                #expect(error.code == .adSignaling)
                #expect(error.path == path, "\(text): \(error)")
            }
        }
    }

    @Test("more tracking entries than the limit is an error, not unbounded work")
    func limits() throws {
        let entry = JSONValue.object(["type": .string("start"), "urls": .array([.string("https://t")])])
        let slot = JSONValue.object([
            "tracking": .array(Array(repeating: entry, count: AdCreativeSignaling.maximumTrackingEntries + 1))
        ])
        let value = JSONValue.object(["type": .string("slot"), "payload": .array([slot])])
        #expect(throws: JSONError.self) { try AdCreativeSignaling(json: value) }
    }
}
