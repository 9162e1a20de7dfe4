// libFuzzer entry point for Date Range Schedule documents (issue 35, profile R27). Built by
// Fuzz/run.sh with the HLSPlaylist, SCTE35 and HLSInterstitials sources.
//
// Every input is a schedule document (`{"DATERANGES": [...]}`), decoded within small limits and with
// both entry-failure policies, then resolved against a fixed playlist with one schedule tag (and
// again with two levels followed, the document standing for both). Whatever is accepted must stay
// inside the limits, and resolution must give date ranges with IDs, unique, each entry's tag
// attributes writable on one EXT-X-DATERANGE line that re-parses to the same ID.

let scheduleFuzzPlaylist: MediaPlaylist = {
    let text = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:6
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
        #EXT-X-DATERANGE:ID="sched",CLASS="com.apple.hls.daterange-schedule",START-DATE="2026-01-01T00:00:00.000Z",X-URI="s.json"
        #EXT-X-DATERANGE:ID="ad",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:06.000Z",X-ASSET-URI="https://a.example/a.m3u8"
        #EXTINF:6,
        a.ts
        #EXTINF:6,
        b.ts
        #EXT-X-ENDLIST

        """
    guard case .media(let playlist) = PlaylistParser.parse(text).playlist else { fatalError("fixture") }
    return playlist
}()

let scheduleFuzzStart = DateTime(nanosecondsSinceEpoch: 1_767_225_600_000_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func scheduleFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = DateRangeScheduleDocument.Limits(maximumBytes: 16_384, maximumEntries: 64, maximumDepth: 8)
    let identity = DateRangeSchedule.Identity(identifier: "sched", uri: "https://example.com/s.json")
    let nested = DateRangeSchedule.Identity(identifier: "inner", uri: "https://example.com/inner.json")
    for policy in [
        DateRangeSchedulePolicy.profile,
        DateRangeSchedulePolicy(entryFailure: .wholeDocument, unknownClass: .refuse, maximumDepth: 2),
    ] {
        let result = Result { () throws(DateRangeScheduleError) in
            try DateRangeScheduleDocument.decode(bytes, limits: limits, policy: policy)
        }
        if case .success(let document) = result {
            guard bytes.count <= limits.maximumBytes, document.entries.count <= limits.maximumEntries else {
                fatalError("a document beyond the limits was accepted")
            }
            if policy.entryFailure == .wholeDocument, !document.problems.isEmpty {
                fatalError("a whole-document policy kept a document with problems")
            }
            for entry in document.entries {
                let attributes = entry.tagAttributes(scheduleStart: scheduleFuzzStart)
                guard (try? attributes.checkWritable()) != nil else { fatalError("an entry cannot be written") }
                let line = "#EXTM3U\n#EXT-X-DATERANGE:\(attributes)\n"
                guard case .media(let reparsed) = PlaylistParser.parse(line).playlist,
                    reparsed.dateRanges.first?.id == entry.identifier
                else { fatalError("an entry's tag does not re-parse to its ID") }
            }
        }
        let documents = [identity: result, nested: result]
        let resolution = DateRangeScheduleResolution.resolve(
            playlist: scheduleFuzzPlaylist, playlistURL: "https://example.com/main.m3u8", documents: documents,
            policy: policy)
        let ids = resolution.dateRanges.map(\.dateRange.id)
        guard !ids.contains(where: \.isEmpty), Set(ids).count == ids.count else {
            fatalError("resolution gave an empty or repeated ID")
        }
        guard resolution.schedules.count <= 1 + limits.maximumEntries else { fatalError("too many schedules") }
        _ = resolution.events
    }
    return 0
}
