import Foundation
import HLSInterstitials
import HLSPlaylist
import Testing

/// The peer corpus: test cases of hls.js, Media3 and Shaka (and draft-22's examples) with what each
/// peer asserts, kept outside the repository in `shared/peers` beside it (issue 33). Never copied in.
enum PeerCorpus {
    /// The corpus directory: `HLSI_PEERS`, else the first `shared/peers` beside a folder above this
    /// file (a clone has `shared/` beside the repository folder); nil when there is none.
    static let directory: URL? = {
        let manager = FileManager.default
        if let given = ProcessInfo.processInfo.environment["HLSI_PEERS"], !given.isEmpty {
            let url = URL(fileURLWithPath: given)
            return manager.fileExists(atPath: url.appendingPathComponent("index.json").path) ? url : nil
        }
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.pathComponents.count > 1 {
            let candidate = folder.appendingPathComponent("shared/peers")
            if manager.fileExists(atPath: candidate.appendingPathComponent("index.json").path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }()

    /// One case of `index.json`.
    struct Case: CustomStringConvertible {
        var peer: String
        var name: String
        var folder: URL
        var description: String { "\(peer)/\(name)" }
    }

    /// Every case the index lists.
    static func cases() throws -> [Case] {
        guard let directory else { return [] }
        let data = try Data(contentsOf: directory.appendingPathComponent("index.json"))
        let list = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
        return list.compactMap { entry in
            guard let peer = entry["peer"] as? String, let name = entry["case"] as? String else { return nil }
            return Case(
                peer: peer, name: name, folder: directory.appendingPathComponent(peer).appendingPathComponent(name))
        }
    }
}

/// Runs every case of the peer corpus whose expectation the toolkit's parser, validator and schedule
/// can express, and compares what the peer asserts with what the toolkit computes. A case passes when
/// it agrees, or when it is listed in ``PeerDifferences/documented`` with the peer rule or profile rule
/// that explains the difference.
@Suite("Peer corpus (../shared/peers): agreement or a documented difference")
struct PeerCorpusTests {
    @Test(
        "every comparable peer case agrees, or its difference is documented",
        // Skipped where ../shared/peers is absent (a clone without it); CI has it beside the repository.
        .enabled(
            if: PeerCorpus.directory != nil,
            "../shared/peers is absent: set HLSI_PEERS or put shared/ beside the repository")
    )
    func corpus() throws {
        let cases = try PeerCorpus.cases()
        #expect(cases.count >= 143)
        var compared = 0
        var agreeing = 0
        for peerCase in cases {
            guard let differences = try PeerComparison.differences(peerCase) else { continue }
            compared += 1
            let key = peerCase.description
            if differences.isEmpty {
                agreeing += 1
                #expect(PeerDifferences.documented[key] == nil, "\(key) agrees now: remove it from PeerDifferences")
            } else {
                #expect(
                    PeerDifferences.documented[key] != nil,
                    "\(key) differs without a documented reason:\n\(differences.joined(separator: "\n"))")
            }
        }
        // Most of the corpus is expressible: playlists parsed, validated and scheduled.
        #expect(compared >= 80, "only \(compared) cases compared")
        #expect(agreeing >= compared / 2, "\(agreeing) of \(compared) agree")
        for key in PeerDifferences.documented.keys {
            #expect(cases.contains { $0.description == key }, "PeerDifferences lists \(key), which is not a case")
        }
    }
}

/// What the toolkit computes for a case, compared with what the peer asserts.
enum PeerComparison {
    /// The differences, each as `path: expected …, got …`; nil when the case has nothing the toolkit
    /// expresses (no playlist, or only engine or peer-API assertions).
    static func differences(_ peerCase: PeerCorpus.Case) throws -> [String]? {
        let expectedURL = peerCase.folder.appendingPathComponent("expected.json")
        let playlistURL = peerCase.folder.appendingPathComponent("playlist.m3u8")
        guard FileManager.default.fileExists(atPath: playlistURL.path),
            let document = try JSONSerialization.jsonObject(with: Data(contentsOf: expectedURL)) as? [String: Any],
            let normalized = document["normalized"] as? [String: Any]
        else { return nil }
        let test = document["test"] as? String ?? ""
        let result = PlaylistParser.parse(
            String(decoding: try Data(contentsOf: playlistURL), as: UTF8.self),
            options: ParseOptions(file: playlistURL.lastPathComponent))
        var differences: [String] = []
        var compared = false
        if let error = normalized["parseError"], !(error is NSNull) {
            compared = true
            let errors = InterstitialValidator.validate(result).filter { $0.severity == .error }
            if errors.isEmpty { differences.append("parseError: expected \(error), got no error") }
        }
        guard case .media(let playlist) = result.playlist else {
            return compared ? differences : nil
        }
        let schedule = InterstitialSchedule.resolve(
            ScheduleInput(
                primary: playlist, events: ScheduleInput.events(of: playlist), playbackStart: liveStart(playlist)))
        if let events = normalized["events"] as? [[String: Any]] {
            compared = true
            differences += compare(events: events, schedule)
            // The parser's own cases list every event it keeps: the toolkit keeps no other one.
            if test.contains("ParserTest") {
                let listed = Set(events.compactMap { $0["id"] as? String })
                for event in schedule.events where event.problem == nil && !listed.contains(event.id) {
                    differences.append("events: \(event.id) is scheduled, the peer ignores it")
                }
            }
        }
        if let items = normalized["schedule"] as? [[String: Any]] {
            compared = true
            differences += compare(items: items, schedule)
        }
        // The asset-list request of a live join: its _HLS_start_offset is the schedule's start offset
        // of the event that covers the join point (R11, R26).
        let join = (normalized["liveJoin"] as? [String: Any])?["assetListRequestQuery"] as? String
        if let query = join ?? (normalized["assetListRequest"] as? String) {
            compared = true
            differences += compare(startOffsetIn: query, schedule)
        }
        if let groups = normalized["adGroups"] as? [[String: Any]] {
            compared = true
            differences += compare(adGroups: groups, schedule)
        }
        return compared ? differences : nil
    }

    /// Where the toolkit's player joins a live playlist (`hlsi play`): the hold-back (three target
    /// durations by default) before the end, at the start of its segment; nil for VOD.
    static func liveStart(_ playlist: MediaPlaylist) -> MediaTime? {
        guard playlist.isLive, let last = playlist.segments.last else { return nil }
        let target = MediaTime(seconds: Int(clamping: playlist.targetDuration ?? 6))
        let holdBack = playlist.serverControl?.holdBack ?? MediaTime(nanoseconds: target.nanoseconds * 3)
        let point = last.endTime - holdBack
        return playlist.segments.last { $0.startTime <= point }?.startTime ?? playlist.segments.first?.startTime
    }

    // MARK: Events

    /// Keys that name the case's bookkeeping, not an assertion about the event.
    static let bookkeeping: Set<String> = ["id", "_notAsserted", "tagOrder"]

    static func compare(events: [[String: Any]], _ schedule: InterstitialSchedule) -> [String] {
        var differences: [String] = []
        for entry in events {
            guard let id = entry["id"] as? String else { continue }
            guard let resolved = schedule.events.first(where: { $0.id == id }) else {
                differences.append("events[\(id)]: missing")
                continue
            }
            if let problem = resolved.problem { differences.append("events[\(id)]: not scheduled: \(problem)") }
            let ignored = Set(entry["_notAsserted"] as? [String] ?? []).union(bookkeeping)
            for (key, expected) in entry.sorted(by: { $0.key < $1.key }) where !ignored.contains(key) {
                guard let ours = value(of: key, resolved) else { continue }
                if !matches(expected, ours) {
                    differences.append("events[\(id)].\(key): expected \(describe(expected)), got \(describe(ours))")
                }
            }
        }
        return differences
    }

    /// The toolkit's value for a normalized key, as JSON would hold it (`NSNull` for absent); nil
    /// when the key is not one the toolkit expresses.
    static func value(of key: String, _ resolved: InterstitialSchedule.Event) -> Any? {
        let event = resolved.event
        func seconds(_ time: MediaTime?) -> Any { time.map { $0.seconds as Any } ?? NSNull() }
        func tokens(_ list: [String]?, _ known: Set<String>) -> Any { (list ?? []).filter(known.contains).sorted() }
        switch key {
        case "startTime": return event.cue == .leave ? "POST" : resolved.start.seconds
        case "resumeTime": return resolved.resumeTime.seconds
        case "duration": return seconds(event.duration)
        case "plannedDuration": return seconds(event.plannedDuration)
        case "playoutLimit": return seconds(event.playoutLimit)
        case "resumptionOffset": return seconds(event.resumptionOffset?.time)
        case "cue": return tokens(event.cueTokens, ["PRE", "POST", "ONCE"])
        case "restrict": return tokens(event.restrictTokens, ["SKIP", "JUMP"])
        case "snapTypes": return tokens(event.snapTokens, ["IN", "OUT"])
        case "snapOut": return event.alignsStartWithPrimarySegmentBoundary
        case "snapIn": return event.alignsResumptionWithPrimarySegmentBoundary
        case "timelineOccupies": return event.timelineOccupancy == .fill ? "RANGE" : "POINT"
        case "timelineStyle": return event.supplementsPrimaryContent ? "PRIMARY" : "HIGHLIGHT"
        case "supplementsPrimary": return event.supplementsPrimaryContent
        case "contentMayVary": return event.contentMayVary
        case "skipControlOffset": return seconds(event.skipControl.offset)
        case "skipControlDuration": return seconds(event.skipControl.duration)
        case "skipControlLabelId": return event.skipControl.labelID ?? NSNull()
        case "assetUri": return event.assetURI ?? NSNull()
        case "assetListUri": return event.assetListURI ?? NSNull()
        case "startDate": return event.date.map { $0.nanosecondsSinceEpoch as Any } ?? NSNull()
        case "endDate": return event.endDate.map { $0.nanosecondsSinceEpoch as Any } ?? NSNull()
        case "endOnNext": return event.otherAttributes["END-ON-NEXT"]?.rawValue == "YES"
        default: return nil
        }
    }

    /// Whether a peer's value and the toolkit's agree: numbers within a millisecond, lists as sets,
    /// dates as instants.
    static func matches(_ expected: Any, _ ours: Any) -> Bool {
        switch (expected, ours) {
        case (is NSNull, is NSNull): return true
        case (let text as String, let nanoseconds as Int64):
            return DateTime(iso8601: text)?.nanosecondsSinceEpoch == nanoseconds
        case (_, let flag as Bool): return (expected as? Bool) == flag
        case (let number as NSNumber, let value as Double): return abs(number.doubleValue - value) < 0.001
        case (let text as String, let value as String): return text == value
        case (let list as [String], let value as [String]): return Set(list) == Set(value)
        default: return false
        }
    }

    static func describe(_ value: Any) -> String {
        switch value {
        case is NSNull: "null"
        case let list as [String]: "[\(list.joined(separator: ","))]"
        default: "\(value)"
        }
    }

    // MARK: Asset-list requests

    static func compare(startOffsetIn query: String, _ schedule: InterstitialSchedule) -> [String] {
        let expected = query.split(separator: "&").first {
            $0.hasSuffix("_HLS_start_offset") || $0.contains("_HLS_start_offset=")
        }
        .flatMap { Double($0.split(separator: "=").last ?? "") }
        let covering = schedule.events.first { $0.isScheduled && $0.startOffset > .zero }
        let ours = covering.map { $0.startOffset.seconds }
        switch (expected, ours) {
        case (nil, nil): return []
        case (let expected?, let ours?) where abs(expected - ours) < 0.001: return []
        default:
            return [
                "assetListRequest: expected _HLS_start_offset \(expected.map { "\($0)" } ?? "absent"), got \(ours.map { "\($0) (\(covering?.id ?? ""))" } ?? "absent")"
            ]
        }
    }

    // MARK: hls.js schedule items

    static func compare(items: [[String: Any]], _ schedule: InterstitialSchedule) -> [String] {
        let ours = schedule.items
        guard items.count == ours.count else {
            let kinds = ours.map { item in schedule.eventID(of: item) ?? "primary" }
            return ["schedule: expected \(items.count) items, got \(ours.count) (\(kinds.joined(separator: ", ")))"]
        }
        var differences: [String] = []
        for (index, (entry, item)) in zip(items, ours).enumerated() {
            if let kind = entry["kind"] as? String, kind != item.kind.rawValue {
                differences.append("schedule[\(index)].kind: expected \(kind), got \(item.kind.rawValue)")
            }
            if let id = entry["id"] as? String, id != schedule.eventID(of: item) {
                differences.append("schedule[\(index)].id: expected \(id), got \(schedule.eventID(of: item) ?? "none")")
            }
            let ranges: [(String, [Double])] = [
                ("primary", [item.primary.start.seconds, item.primary.end.seconds]),
                ("playout", [item.playout.lowerBound.seconds, item.playout.upperBound.seconds]),
                ("integrated", [item.integrated.lowerBound.seconds, item.integrated.upperBound.seconds]),
            ]
            for (name, range) in ranges {
                guard let expected = entry[name] as? [Any], expected.count == 2 else { continue }
                let last = index == ours.count - 1
                let agree = zip(expected, range).allSatisfy { value, ours in
                    // An open live end: the toolkit's last item ends at the known end (R23).
                    if value as? String == "Infinity" { return schedule.isLive && last }
                    return (value as? NSNumber).map { abs($0.doubleValue - ours) < 0.001 } ?? false
                }
                if !agree {
                    differences.append(
                        "schedule[\(index)].\(name): expected \(expected.map(describe)), got \(range)")
                }
            }
        }
        return differences
    }

    // MARK: Media3 ad groups

    static func compare(adGroups: [[String: Any]], _ schedule: InterstitialSchedule) -> [String] {
        var differences: [String] = []
        for (index, entry) in adGroups.enumerated() {
            let ids = (entry["ads"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            guard !ids.isEmpty else { continue }
            let members = ids.compactMap { id in schedule.events.firstIndex { $0.id == id } }
            guard members.count == ids.count, let group = schedule.group(ofEvent: members[0]) else {
                differences.append("adGroups[\(index)]: \(ids) not all scheduled")
                continue
            }
            let ourIDs = group.members.map { schedule.events[$0].id }
            if ourIDs != ids { differences.append("adGroups[\(index)]: expected members \(ids), got \(ourIDs)") }
            if let time = entry["time"] {
                let ours: Any = group.cue == .leave ? "POST" : group.start.seconds
                if !matches(time, ours) {
                    differences.append("adGroups[\(index)].time: expected \(describe(time)), got \(describe(ours))")
                }
            }
            if let offset = entry["contentResumeOffset"] as? NSNumber, group.cue != .leave {
                let ours = (group.resumeTime - group.start).seconds
                if abs(offset.doubleValue - ours) >= 0.001 {
                    differences.append("adGroups[\(index)].contentResumeOffset: expected \(offset), got \(ours)")
                }
            }
        }
        return differences
    }
}
