import HLSPlaylist
import SCTE35

/// One SCTE-35 marker of a media playlist, read but not yet paired (``SignalRecognizer``).
struct SignalMarker: Sendable {
    enum Kind: Sendable {
        case out
        case `in`
        /// EXT-X-CUE-OUT-CONT: the time since the OUT.
        case cont(elapsed: MediaTime?)
        case cancel
    }

    var kind: Kind
    var form: SignalledBreak.Form
    var line: Int
    /// The marker's date: its segment's, or the date range's.
    var date: DateTime?
    /// The index of the segment it applies to (the segment count when none follows).
    var segment: Int
    /// The duration it gives, and the name of where it comes from (for messages).
    var duration: (value: MediaTime, source: String)?
    /// The duration its section gives, if different from ``duration``'s source.
    var sectionDuration: MediaTime?
    var signal: BreakSignal?
    var section: SpliceInfoSection?
    var dateRangeID: String?

    var eventID: BreakSignal.EventID? { signal?.eventID }
}

/// The attributes of an EXT-X-CUE-OUT or EXT-X-CUE-OUT-CONT value: `KEY=VALUE` pairs (quotes removed)
/// and values without a key, separated by commas outside quotes.
struct CueAttributes {
    var named: [String: String] = [:]
    var positional: [String] = []

    /// At most 64 items are read: a marker has a handful.
    init(_ text: String) {
        var items: [String] = []
        var current = ""
        var quoted = false
        for character in text {
            if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                items.append(current)
                current = ""
                if items.count >= 64 { break }
            } else {
                current.append(character)
            }
        }
        if items.count < 64 { items.append(current) }
        for item in items where !item.isEmpty {
            if let equals = item.firstIndex(of: "=") {
                named[item[..<equals].uppercased()] = String(item[item.index(after: equals)...])
            } else {
                positional.append(item)
            }
        }
    }

    func value(_ key: String) -> String? { named[key] }
}
