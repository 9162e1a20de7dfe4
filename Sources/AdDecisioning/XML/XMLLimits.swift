/// The bounds on an XML document the readers accept, so bad input costs bounded time and memory.
public struct XMLLimits: Hashable, Sendable {
    /// The most bytes of a document (1 MiB by default).
    public var maximumBytes: Int
    /// The deepest element nesting (64 by default; VAST needs about 10).
    public var maximumDepth: Int
    /// The most elements in a document (50,000 by default).
    public var maximumElements: Int
    /// The most characters of text in a document, entity expansion included (4 Mi by default).
    public var maximumTextCharacters: Int

    /// Creates limits.
    public init(
        maximumBytes: Int = 1 << 20, maximumDepth: Int = 64, maximumElements: Int = 50_000,
        maximumTextCharacters: Int = 4 << 20
    ) {
        self.maximumBytes = maximumBytes
        self.maximumDepth = maximumDepth
        self.maximumElements = maximumElements
        self.maximumTextCharacters = maximumTextCharacters
    }

    /// The defaults.
    public static let standard = XMLLimits()
}
