/// The compact form of parsed segments: one record per segment, text as ranges of the source,
/// and what segments share (keys, map, bitrate, the UTC offset and precision of dates) kept once.
struct CompactSegments: Sendable {
    /// Text: a range of the source, or (when `start` is `UInt32.max`) entry `length` of `strings`.
    struct Text {
        var start: UInt32
        var length: UInt32

        /// A range of a source under 4 GiB.
        init(range: Range<Int>) {
            start = UInt32(range.lowerBound)
            length = UInt32(range.count)
        }

        init(start: UInt32, length: UInt32) {
            self.start = start
            self.length = length
        }
    }

    /// What a run of segments shares: the tags in force, and the sequence numbers they count from.
    struct Context: Sendable {
        var keys: [EncryptionKey]
        var map: MediaInitializationSection?
        var bitrate: UInt64?
        /// The Media Sequence Number of segment 0 (EXT-X-MEDIA-SEQUENCE when the run started).
        var mediaSequence: UInt64
        /// EXT-X-DISCONTINUITY-SEQUENCE when the run started.
        var discontinuitySequence: UInt64
    }

    struct Record {
        var uri: Text
        var duration: Int64
        var startTime: Int64
        /// The date's nanoseconds, when `anchor` is not negative.
        var date: Int64
        /// The discontinuities up to and including this segment.
        var discontinuities: UInt32
        var context: Int32
        /// The anchor that gives the date its UTC offset and precision, or -1 for no date.
        var anchor: Int32
        var line: UInt32
        var flags: UInt8

        static let discontinuity: UInt8 = 1
        static let gap: UInt8 = 2
        /// The date is this segment's own EXT-X-PROGRAM-DATE-TIME.
        static let ownProgramDateTime: UInt8 = 4
    }

    /// The bytes the text ranges refer to.
    var source: [UInt8]
    var records: [Record] = []
    var strings: [String] = []
    var contexts: [Context] = []
    /// The UTC offsets and precisions of the dates: a program date-time for each change of them
    /// (the records keep the nanoseconds).
    var anchors: [DateTime] = []
    var titles: [Int: String] = [:]
    var byteRanges: [Int: ByteRange] = [:]
    var parts: [Int: [PartialSegment]] = [:]

    init(source: [UInt8]) { self.source = source }

    /// Text that is not a range of the source: the string is kept.
    mutating func keep(_ string: String) -> Text {
        strings.append(string)
        return Text(start: .max, length: UInt32(strings.count - 1))
    }

    func string(_ text: Text) -> String {
        if text.start == .max { return strings[Int(text.length)] }
        let start = Int(text.start)
        return source.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0[start..<(start + Int(text.length))]), as: UTF8.self)
        }
    }

    func date(at index: Int) -> DateTime? {
        let record = records[index]
        guard record.anchor >= 0 else { return nil }
        var date = anchors[Int(record.anchor)]
        date.nanosecondsSinceEpoch = record.date
        return date
    }

    func segment(at index: Int) -> MediaSegment {
        let record = records[index]
        let context = contexts[Int(record.context)]
        return MediaSegment(
            uri: string(record.uri),
            duration: MediaTime(nanoseconds: record.duration),
            title: titles.isEmpty ? nil : titles[index],
            byteRange: byteRanges.isEmpty ? nil : byteRanges[index],
            discontinuity: record.flags & Record.discontinuity != 0,
            keys: context.keys, map: context.map,
            programDateTime: record.flags & Record.ownProgramDateTime != 0 ? date(at: index) : nil,
            date: date(at: index), startTime: MediaTime(nanoseconds: record.startTime),
            gap: record.flags & Record.gap != 0, bitrate: context.bitrate,
            parts: parts.isEmpty ? [] : parts[index] ?? [],
            mediaSequence: context.mediaSequence &+ UInt64(index),
            discontinuitySequence: context.discontinuitySequence &+ UInt64(record.discontinuities),
            line: Int(record.line))
    }
}
