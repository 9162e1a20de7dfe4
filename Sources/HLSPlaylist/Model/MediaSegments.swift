/// The media segments of a Media Playlist, in order: a random-access, mutable collection of
/// ``MediaSegment`` values.
///
/// A parsed playlist keeps its segments compactly: one fixed-size record per segment, with the URI
/// as a range of the playlist's bytes, and what segments share (keys, map, sequence numbers,
/// program date-times) kept once. A ``MediaSegment`` is made when an element is read. The first change (setting an
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
