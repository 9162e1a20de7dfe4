/// The lines of a ``PlaylistDocument``: a random-access, mutable collection of ``Line`` values.
///
/// A parsed line is kept as where its bytes are in the source and how it ends (8 bytes), and its
/// ``Line/content`` is read again from those bytes when the line is read. A line that is set,
/// inserted or appended is kept as the value given. Reading a parsed line gives the content the
/// parser read; its diagnostics were reported when the document was parsed.
public struct PlaylistLines: RandomAccessCollection, MutableCollection, RangeReplaceableCollection, Sendable {
    /// A parsed line (its source range and terminator), or a line kept as a value, in 8 bytes.
    struct Entry {
        /// Where a parsed line starts in the source, or the index of a value in `values`.
        private var position: UInt32
        /// Bits 0–1: a parsed line's terminator; bit 2: a value; bits 3–31: a parsed line's length.
        private var bits: UInt32

        /// The longest line kept as a range (a longer one is kept as a value).
        static let maximumLength = Int(UInt32.max >> 3)

        /// A parsed line: `length` bytes from `start`, ending with `terminator`.
        init(start: Int, length: Int, terminator: LineTerminator) {
            position = UInt32(start)
            let code: UInt32
            switch terminator {
            case .lf: code = 0
            case .crlf: code = 1
            case .none: code = 2
            }
            bits = UInt32(length) << 3 | code
        }

        /// The value at `index` of `values`.
        init(value index: Int) {
            position = UInt32(index)
            bits = 4
        }

        var isValue: Bool { bits & 4 != 0 }
        /// The index of a value in `values`.
        var value: Int {
            get { Int(position) }
            set { position = UInt32(newValue) }
        }
        var start: Int { Int(position) }
        var length: Int { Int(bits >> 3) }
        var terminator: LineTerminator {
            switch bits & 3 {
            case 0: .lf
            case 1: .crlf
            default: .none
            }
        }
    }

    /// The bytes parsed lines refer to.
    private(set) var source: [UInt8]
    private var entries: [Entry] = []
    /// Lines kept as values; entries point into it. Entries removed or replaced leave their value
    /// behind until there are more such values than live ones.
    private var values: [Line] = []
    private var liveValues = 0
    /// Whether lines parsed from the source are kept as ranges.
    private var keepsRanges = false

    /// No lines.
    public init() { source = [] }

    /// The given lines.
    public init(_ lines: some Sequence<Line>) {
        source = []
        append(contentsOf: lines)
    }

    /// An empty collection of lines parsed from `source`, with room for `capacity` of them, kept
    /// as ranges when `keepsRanges` (their offsets must fit 32 bits) and as values otherwise.
    init(source: [UInt8], capacity: Int, keepsRanges: Bool) {
        self.source = source
        self.keepsRanges = keepsRanges && source.count < Int(UInt32.max)
        if self.keepsRanges { entries.reserveCapacity(capacity) }
    }

    /// Appends a line parsed from `range` of the source, with its content (kept only when the
    /// source is too large for ranges).
    mutating func appendParsed(_ range: Range<Int>, terminator: LineTerminator, content: @autoclosure () -> LineContent)
    {
        if keepsRanges, range.count <= Entry.maximumLength {
            entries.append(Entry(start: range.lowerBound, length: range.count, terminator: terminator))
        } else {
            append(Line(content: content(), terminator: terminator, sourceRange: range))
        }
    }

    /// The position of the first element: 0.
    public var startIndex: Int { 0 }
    /// The position after the last element: the count.
    public var endIndex: Int { entries.count }
    /// The next position.
    public func index(after index: Int) -> Int { index + 1 }
    /// The previous position.
    public func index(before index: Int) -> Int { index - 1 }

    /// The line at `position`.
    public subscript(position: Int) -> Line {
        get {
            let entry = entries[position]
            if entry.isValue { return values[entry.value] }
            let range = sourceRange(entry)
            return Line(content: content(of: range), terminator: entry.terminator, sourceRange: range)
        }
        set {
            if entries[position].isValue {
                values[entries[position].value] = newValue
            } else {
                entries[position] = store(newValue)
            }
        }
    }

    /// Replaces the lines in `subrange`.
    public mutating func replaceSubrange(_ subrange: Range<Int>, with newElements: some Collection<Line>) {
        for entry in entries[subrange] where entry.isValue { liveValues -= 1 }
        var added: [Entry] = []
        added.reserveCapacity(newElements.count)
        for line in newElements { added.append(store(line)) }
        entries.replaceSubrange(subrange, with: added)
        if values.count > 2 * liveValues + 64 { compactValues() }
    }

    /// Removes the lines `shouldBeRemoved` picks, keeping the others as they are (a parsed line
    /// stays a range of the source).
    public mutating func removeAll(where shouldBeRemoved: (Line) throws -> Bool) rethrows {
        var kept: [Entry] = []
        kept.reserveCapacity(entries.count)
        for index in entries.indices {
            if try shouldBeRemoved(self[index]) {
                if entries[index].isValue { liveValues -= 1 }
            } else {
                kept.append(entries[index])
            }
        }
        entries = kept
        if values.count > 2 * liveValues + 64 { compactValues() }
    }

    /// Reserves room for `minimumCapacity` lines.
    public mutating func reserveCapacity(_ minimumCapacity: Int) {
        entries.reserveCapacity(minimumCapacity)
    }

    // MARK: Reading without making lines

    /// The bytes of line `index` as it will be written, without terminator: a parsed line's
    /// source bytes, a verbatim value's bytes of `documentSource` (the source its range refers
    /// to), or a changed line's canonical text.
    package func bytes(at index: Int, documentSource: [UInt8]) -> ArraySlice<UInt8> {
        let entry = entries[index]
        guard entry.isValue else { return source[sourceRange(entry)] }
        let line = values[entry.value]
        if let range = line.sourceRange { return documentSource[range] }
        return ArraySlice(line.content.text.utf8)
    }

    /// Appends the document's bytes to `output` (see ``bytes(at:documentSource:)``).
    package func write(into output: inout [UInt8], documentSource: [UInt8]) {
        source.withUnsafeBufferPointer { sourceBytes in
            documentSource.withUnsafeBufferPointer { documentBytes in
                for entry in entries {
                    let terminator: LineTerminator
                    if entry.isValue {
                        let line = values[entry.value]
                        if let range = line.sourceRange {
                            output.append(contentsOf: UnsafeBufferPointer(rebasing: documentBytes[range]))
                        } else {
                            output.append(contentsOf: line.content.text.utf8)
                        }
                        terminator = line.terminator
                    } else {
                        output.append(contentsOf: UnsafeBufferPointer(rebasing: sourceBytes[sourceRange(entry)]))
                        terminator = entry.terminator
                    }
                    switch terminator {
                    case .lf: output.append(0x0A)
                    case .crlf:
                        output.append(0x0D)
                        output.append(0x0A)
                    case .none: break
                    }
                }
            }
        }
    }

    /// Whether line `index` is still the source text.
    package func isVerbatim(at index: Int) -> Bool {
        let entry = entries[index]
        return !entry.isValue || values[entry.value].sourceRange != nil
    }

    /// How line `index` ends.
    package func terminator(at index: Int) -> LineTerminator {
        let entry = entries[index]
        return entry.isValue ? values[entry.value].terminator : entry.terminator
    }

    // MARK: Storage

    private func sourceRange(_ entry: Entry) -> Range<Int> {
        entry.start..<(entry.start + entry.length)
    }

    /// The content the parser reads from `range`.
    private func content(of range: Range<Int>) -> LineContent {
        source.withUnsafeBufferPointer { DocumentParser.content($0, range.lowerBound, range.upperBound) }
    }

    private mutating func store(_ line: Line) -> Entry {
        values.append(line)
        liveValues += 1
        return Entry(value: values.count - 1)
    }

    /// Drops the values no entry points to.
    private mutating func compactValues() {
        var kept: [Line] = []
        kept.reserveCapacity(liveValues)
        for index in entries.indices where entries[index].isValue {
            kept.append(values[entries[index].value])
            entries[index].value = kept.count - 1
        }
        values = kept
    }
}

extension PlaylistLines: Equatable {
    /// Whether the lines are equal one by one.
    public static func == (lhs: PlaylistLines, rhs: PlaylistLines) -> Bool { lhs.elementsEqual(rhs) }
}
