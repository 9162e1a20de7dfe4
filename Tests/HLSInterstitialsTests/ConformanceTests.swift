import Foundation
import HLSInterstitials
import HLSPlaylist
import Testing

/// A schedule conformance vector: a playlist, files beside it, and the expected schedule.
struct ScheduleVector: Sendable, CustomTestStringConvertible {
    var name: String
    var playlist: String
    var files: [String: JSONValue]
    var expected: JSONValue
    var loadError: String?

    var testDescription: String { name }

    /// The vectors copied into `Tests/Fixtures/conformance`, plus any newer ones in `../shared/conformance/schedule`.
    static func all() -> [ScheduleVector] {
        let local = Sample.fixtures.appendingPathComponent("conformance")
        let shared = Sample.fixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("shared/conformance/schedule")
        var urls: [URL] = []
        var names: Set<String> = []
        for directory in [local, shared] {
            let found = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for name in found.sorted() where name.hasSuffix(".json") && names.insert(name).inserted {
                urls.append(directory.appendingPathComponent(name))
            }
        }
        return urls.map { url in
            do {
                let value = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: url))
                guard case .object(let fields) = value, case .string(let name)? = fields["name"],
                    case .string(let playlist)? = fields["playlist"], let expected = fields["expected"]
                else { throw CocoaError(.fileReadCorruptFile) }
                var files: [String: JSONValue] = [:]
                if case .object(let given)? = fields["files"] { files = given }
                return ScheduleVector(name: name, playlist: playlist, files: files, expected: expected)
            } catch {
                return ScheduleVector(
                    name: url.lastPathComponent, playlist: "", files: [:], expected: .null, loadError: "\(error)")
            }
        }
    }
}

@Suite("Schedule conformance vectors")
struct ConformanceTests {
    /// Seconds, to the millisecond.
    static func ms(_ value: JSONValue?) -> Int64? {
        value?.number.map { Int64(($0 * 1000).rounded()) }
    }

    static func ms(_ time: MediaTime?) -> Int64? {
        time.map { Int64((Double($0.nanoseconds) / 1_000_000).rounded()) }
    }

    static func schedule(_ vector: ScheduleVector) throws -> InterstitialSchedule {
        let result = PlaylistParser.parse(vector.playlist, options: ParseOptions(file: vector.name))
        let playlist = try #require(result.playlist.media)
        var events = ScheduleInput.events(of: playlist)
        for index in events.indices {
            guard let uri = events[index].assetListURI else { continue }
            let name = String(uri.prefix { $0 != "?" })
            if let file = vector.files[name] { events[index].assetList = try AssetList.decode(file) }
        }
        return InterstitialSchedule.resolve(ScheduleInput(primary: playlist, events: events))
    }

    @Test(
        "the schedule matches the expected events, items and durations to the millisecond",
        arguments: ScheduleVector.all())
    func vector(_ vector: ScheduleVector) throws {
        #expect(vector.loadError == nil)
        let schedule = try Self.schedule(vector)
        guard case .object(let expected) = vector.expected else { return }
        if case .array(let events)? = expected["events"] {
            let actual = schedule.events.map { ($0.id, Self.ms($0.start), Self.ms($0.resumeTime)) }
            #expect(actual.count == events.count)
            for (event, item) in zip(events, actual) {
                guard case .object(let fields) = event else { continue }
                #expect(fields["id"] == .string(item.0))
                #expect(Self.ms(fields["start"]) == item.1, "start of \(item.0)")
                #expect(Self.ms(fields["resumeTime"]) == item.2, "resumeTime of \(item.0)")
            }
        }
        if case .array(let items)? = expected["items"] {
            #expect(schedule.items.count == items.count, "items")
            for (item, actual) in zip(items, schedule.items) {
                guard case .object(let fields) = item else { continue }
                #expect(fields["kind"] == .string(actual.kind.rawValue))
                if actual.kind == .interstitial { #expect(fields["id"] == .string(schedule.eventID(of: actual) ?? "")) }
                for (key, range) in [
                    ("primary", (actual.primary.start, actual.primary.end)),
                    ("playout", (actual.playout.lowerBound, actual.playout.upperBound)),
                    ("integrated", (actual.integrated.lowerBound, actual.integrated.upperBound)),
                ] {
                    guard case .array(let bounds)? = fields[key], bounds.count == 2 else {
                        Issue.record("\(key) missing")
                        continue
                    }
                    #expect(
                        [Self.ms(bounds[0]), Self.ms(bounds[1])] == [
                            Self.ms(range.0), Self.ms(range.1),
                        ],
                        "\(key) of \(actual.kind) \(schedule.eventID(of: actual) ?? "")")
                }
            }
        }
        if case .object(let durations)? = expected["durations"] {
            #expect(Self.ms(durations["primary"]) == Self.ms(schedule.primaryDuration))
            #expect(Self.ms(durations["playout"]) == Self.ms(schedule.playoutDuration))
            #expect(Self.ms(durations["integrated"]) == Self.ms(schedule.integratedDuration))
        }
    }
}
