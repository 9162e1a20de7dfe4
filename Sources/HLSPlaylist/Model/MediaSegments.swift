/// The media segments of a Media Playlist, in order: a random-access, mutable collection of
/// ``MediaSegment`` values.
///
/// A parsed playlist keeps its segments compactly: one fixed-size record per segment, with the URI
/// and title as ranges of the playlist's bytes, and the keys, map and dates shared between
/// segments. A ``MediaSegment`` is made when an element is read. The first change (setting an
/// element, appending, removing) turns the collection into a plain array of values, so changes
/// cost what they cost on an `Array`. Both forms behave the same; equality compares the segments.
public struct MediaSegments: RandomAccessCollection, MutableCollection, RangeReplaceableCollection, Hashable,
    Sendable, ExpressibleByArrayLiteral
{
    enum Storage: Sendable {
        case compact(CompactSegments)
        case values([MediaSegment])
    }

    var storage: Storage

    /// No segments.
    public init() { storage = .values([]) }

    /// The given segments.
    public init(_ segments: some Sequence<MediaSegment>) { storage = .values(Array(segments)) }

    /// The given segments.
    public init(arrayLiteral elements: MediaSegment...) { storage = .values(elements) }

    init(compact: CompactSegments) { storage = .compact(compact) }

    /// The position of the first element: 0.
    public var startIndex: Int { 0 }

    /// The position after the last element: the count.
    public var endIndex: Int {
        switch storage {
        case .compact(let compact): compact.records.count
        case .values(let values): values.count
        }
    }

    /// The next position.
    public func index(after index: Int) -> Int { index + 1 }
    /// The previous position.
    public func index(before index: Int) -> Int { index - 1 }

    /// The segment at `position`.
    public subscript(position: Int) -> MediaSegment {
        get {
            switch storage {
            case .compact(let compact): compact.segment(at: position)
            case .values(let values): values[position]
            }
        }
        set {
            var values = takeValues()
            values[position] = newValue
            storage = .values(values)
        }
    }

    /// Replaces the segments in `subrange`.
    public mutating func replaceSubrange(_ subrange: Range<Int>, with newElements: some Collection<MediaSegment>) {
        var values = takeValues()
        values.replaceSubrange(subrange, with: newElements)
        storage = .values(values)
    }

    /// Reserves room for `minimumCapacity` segments (compact segments are left as they are).
    public mutating func reserveCapacity(_ minimumCapacity: Int) {
        guard case .values = storage else { return }
        var values = takeValues()
        values.reserveCapacity(minimumCapacity)
        storage = .values(values)
    }

    /// The segments as an array of values, leaving the storage empty (so the array is unique).
    private mutating func takeValues() -> [MediaSegment] {
        switch storage {
        case .values(let values):
            storage = .values([])
            return values
        case .compact(let compact):
            return compact.records.indices.map(compact.segment(at:))
        }
    }

    // MARK: Fast reads (no segment is made)

    /// Where segment `index` starts on the playlist's timeline.
    package func startTime(at index: Int) -> MediaTime {
        switch storage {
        case .compact(let compact): MediaTime(nanoseconds: compact.records[index].startTime)
        case .values(let values): values[index].startTime
        }
    }

    /// The duration of segment `index`.
    package func duration(at index: Int) -> MediaTime {
        switch storage {
        case .compact(let compact): MediaTime(nanoseconds: compact.records[index].duration)
        case .values(let values): values[index].duration
        }
    }

    /// The date of segment `index` (``MediaSegment/date``).
    package func date(at index: Int) -> DateTime? {
        switch storage {
        case .compact(let compact): compact.date(at: index)
        case .values(let values): values[index].date
        }
    }

    /// Whether EXT-X-DISCONTINUITY precedes segment `index`.
    package func hasDiscontinuity(at index: Int) -> Bool {
        switch storage {
        case .compact(let compact): compact.records[index].flags & CompactSegments.Record.discontinuity != 0
        case .values(let values): values[index].discontinuity
        }
    }

    // MARK: Equality

    /// Whether the segments are equal one by one, whichever form each collection is in.
    public static func == (lhs: MediaSegments, rhs: MediaSegments) -> Bool {
        lhs.elementsEqual(rhs)
    }

    /// Hashes the count and the first and last segments (equal collections hash equally).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        hasher.combine(first)
        hasher.combine(last)
    }
}

extension MediaSegments: Codable {
    /// Decodes an array of segments.
    public init(from decoder: any Decoder) throws {
        storage = .values(try [MediaSegment](from: decoder))
    }

    /// Encodes an array of segments.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for segment in self { try container.encode(segment) }
    }
}

/// The compact form of parsed segments: one record per segment, text as ranges of the source,
/// and what segments share (keys, map, bitrate, program date-times) kept once.
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
        /// The program date-time the date counts from (its UTC offset and precision), or -1.
        var anchor: Int32
        var line: UInt32
        var flags: UInt8

        static let discontinuity: UInt8 = 1
        static let gap: UInt8 = 2
        /// The anchor is this segment's own EXT-X-PROGRAM-DATE-TIME.
        static let ownProgramDateTime: UInt8 = 4
    }

    /// The bytes the text ranges refer to.
    var source: [UInt8]
    var records: [Record] = []
    var strings: [String] = []
    var contexts: [Context] = []
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
            programDateTime: record.flags & Record.ownProgramDateTime != 0 ? anchors[Int(record.anchor)] : nil,
            date: date(at: index), startTime: MediaTime(nanoseconds: record.startTime),
            gap: record.flags & Record.gap != 0, bitrate: context.bitrate,
            parts: parts.isEmpty ? [] : parts[index] ?? [],
            mediaSequence: context.mediaSequence &+ UInt64(index),
            discontinuitySequence: context.discontinuitySequence &+ UInt64(record.discontinuities),
            line: Int(record.line))
    }
}
