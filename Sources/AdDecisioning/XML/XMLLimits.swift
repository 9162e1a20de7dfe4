/// The bounds on an XML document the readers accept, so bad input costs bounded time and memory.
///
/// All but ``maximumTextCharacters`` are checked by one linear pass over the bytes before the XML
/// parser sees any of them, so a document over a limit costs one read of its bytes at most.
public struct XMLLimits: Hashable, Sendable {
    /// The most bytes of a document (1 MiB by default).
    public var maximumBytes: Int
    /// The deepest element nesting (64 by default; VAST needs about 10).
    public var maximumDepth: Int
    /// The most elements in a document (50,000 by default).
    public var maximumElements: Int
    /// The most characters of text in a document, entity expansion included (4 Mi by default).
    public var maximumTextCharacters: Int
    /// The most attributes on one element (64 by default; a VAST `<MediaFile>` has 14).
    ///
    /// libxml2 compares each attribute of an element with all the others, so this bounds that work.
    public var maximumAttributesPerElement: Int
    /// The most bytes of an element or attribute name, prefix included (256 by default).
    public var maximumNameBytes: Int
    /// The most bytes of one attribute value as written, quotes excluded (32 KiB by default).
    public var maximumAttributeValueBytes: Int

    /// Creates limits.
    public init(
        maximumBytes: Int = 1 << 20, maximumDepth: Int = 64, maximumElements: Int = 50_000,
        maximumTextCharacters: Int = 4 << 20, maximumAttributesPerElement: Int = 64, maximumNameBytes: Int = 256,
        maximumAttributeValueBytes: Int = 32 << 10
    ) {
        self.maximumBytes = maximumBytes
        self.maximumDepth = maximumDepth
        self.maximumElements = maximumElements
        self.maximumTextCharacters = maximumTextCharacters
        self.maximumAttributesPerElement = maximumAttributesPerElement
        self.maximumNameBytes = maximumNameBytes
        self.maximumAttributeValueBytes = maximumAttributeValueBytes
    }

    /// The defaults.
    public static let standard = XMLLimits()

    /// An upper bound on the steps of reading one document within these limits, so a caller can
    /// tell that the work of a read is bounded before it starts (about 69 Mi with the defaults).
    ///
    /// The pre-scan reads each byte once; the parser reads each byte a bounded number of times and
    /// compares each attribute with at most ``maximumAttributesPerElement`` others of its element;
    /// the tree and the readers walk each element once. The bound counts
    /// `maximumBytes × (maximumAttributesPerElement + 4)` steps: a model of the work, not a time.
    public var workBound: Int {
        let (product, overflow) = max(0, maximumBytes).multipliedReportingOverflow(
            by: max(0, maximumAttributesPerElement) + 4)
        return overflow ? Int.max : product
    }
}
