/// What an ad server answers: a VAST response or a VMAP schedule, told apart by the root element.
public enum AdDocument: Hashable, Sendable {
    /// A VAST 2.0–4.3 response (root `<VAST>`).
    case vast(VASTDocument)
    /// A VMAP 1.0 schedule (root `<vmap:VMAP>`, any prefix).
    case vmap(VMAPDocument)

    /// Reads a VAST or VMAP document, parsing the XML once.
    ///
    /// - Throws: ``VASTError``: `vast-xml`/`vast-limit` for bad XML, `vast-schema` when the root is
    ///   neither `VAST` nor `VMAP`, `vast-version` for an unsupported version.
    public static func read(
        _ bytes: some Collection<UInt8>, reader: VASTReader = VASTReader()
    ) throws(VASTError) -> AdDocument {
        let root = try XMLTreeBuilder.parse(bytes, limits: reader.limits.xml)
        if root.localName == "VMAP" { return .vmap(try VMAPReader(vastReader: reader).read(root: root)) }
        guard root.localName == "VAST" else {
            throw VASTError(.schema, at: root.location, "the root element is <\(root.name)>, not <VAST> or <vmap:VMAP>")
        }
        return .vast(try reader.read(root: root))
    }
}
