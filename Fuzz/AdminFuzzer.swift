// libFuzzer entry point for the admin API's JSON bodies and the asset-list query. Built by
// Fuzz/run.sh with the HLSPlaylist, HLSInterstitials and InterstitialServer/Model sources.
//
// An input starting with `?` is an asset-list query string (`a=b&c=d`, percent escapes left as they
// are): whatever AssetListQuery accepts must be inside its bounds. Any other input is a JSON body,
// decoded as a Break, a BreakSchedule, an Ad and an InsertionRequest: whatever is accepted must write
// an EXT-X-DATERANGE tag that re-parses with no syntax error and the same attributes.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func adminFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if bytes.first == UInt8(ascii: "?") {
        checkQuery(String(decoding: bytes.dropFirst(), as: UTF8.self))
        return 0
    }
    guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else { return 0 }
    let mapping: (MediaTime) -> DateTime? = { InterstitialInserter.defaultEpoch.adding($0) }
    if let item = try? Break.decode(value) {
        var request = item.interstitial
        if request.at == nil, request.date == nil { request.at = .zero }
        if request.assetURI == nil, request.assetListURI == nil { request.assetListURI = "/list.json" }
        guard let event = try? request.event(mapping: mapping) else { fatalError("an accepted break has no event") }
        checkWritten(event)
    }
    if let schedule = try? BreakSchedule.decode(value) {
        for epoch in [nil, InterstitialInserter.defaultEpoch] {
            let offset = schedule.cadence?.offset ?? .zero
            guard var request = schedule.cadenceBreak(at: offset, epoch: epoch)?.interstitial else { continue }
            if request.assetURI == nil, request.assetListURI == nil { request.assetListURI = "/list.json" }
            if let event = try? request.event(mapping: mapping) { checkWritten(event) }
        }
        let starts = schedule.cadenceStarts(in: .zero..<MediaTime(seconds: 86_400))
        guard starts.count <= 10_000, starts == starts.sorted() else { fatalError("cadence starts") }
    }
    if let ad = try? Ad.decode(value) {
        var event = InterstitialEvent(identifier: ad.id, date: InterstitialInserter.defaultEpoch)
        event.assetURI = ad.uri
        event.duration = ad.duration
        checkWritten(event)
    }
    if let request = try? InsertionRequest.decode(value), let event = try? request.event(mapping: mapping) {
        checkWritten(event)
    }
    return 0
}

/// The event's tag, written and parsed again: no syntax error, the same attributes.
func checkWritten(_ event: InterstitialEvent) {
    guard let tag = try? event.dateRangeTag else { fatalError("an accepted event cannot be written") }
    let text = "#EXTM3U\n" + tag.description + "\n"
    let result = PlaylistParser.parse(text)
    let syntax: Set<RuleID> = [
        "attribute-syntax", "attribute-name", "attribute-quoted-string", "attribute-value-character",
        "attribute-duplicate", "playlist-encoding", "tag-value",
    ]
    if let bad = result.diagnostics.first(where: { syntax.contains($0.rule) }) { fatalError("written tag: \(bad)") }
    guard result.document.lines.count == 2,
        result.document.lines[1].content.tag?.value.attributes == tag.value.attributes
    else { fatalError("written tag does not re-parse to the same attributes") }
}

/// Whatever the query reader accepts is inside its bounds.
func checkQuery(_ text: String) {
    var parameters: [String: String] = [:]
    for pair in text.split(separator: "&", omittingEmptySubsequences: false) {
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        parameters[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
    }
    guard let query = try? AssetListQuery(parameters: parameters) else { return }
    guard !query.interstitialID.isEmpty, query.interstitialID.utf8.count <= AssetListQuery.maximumInterstitialIDLength
    else { fatalError("interstitial ID out of bounds") }
    if let offset = query.startOffset, offset < .zero || offset > MediaTime.userInputLimit {
        fatalError("start offset out of bounds")
    }
    if let primary = query.primaryID,
        primary.utf8.count > AssetListQuery.defaultMaximumPrimaryIDLength
            || !primary.utf8.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E })
    {
        fatalError("primary ID out of bounds")
    }
}
