import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Builds an ``XMLNode`` tree with Foundation's `XMLParser`, within ``XMLLimits``.
///
/// ``XMLPreScanner`` checks the bytes first, so the parser only sees documents within the limits,
/// without a document type declaration, in an encoding whose markup is ASCII. With no DTD no entity
/// can be declared: the parser expands only the five predefined entities (`&lt;` `&gt;` `&amp;`
/// `&quot;` `&apos;`) and character references; a reference to any other entity is not well-formed.
/// External entities are never resolved (`shouldResolveExternalEntities` is false as well).
enum XMLTreeBuilder {
    /// Parses `bytes` into the tree of the root element.
    ///
    /// - Throws: ``VASTError`` with `vast-xml` (not well-formed or a refused construct, VAST error 100)
    ///   or `vast-limit` (over a limit, also 100), located at the byte (pre-scan) or at the parser's
    ///   line and column.
    static func parse(_ bytes: some Collection<UInt8>, limits: XMLLimits) throws(VASTError) -> XMLNode {
        let array = Array(bytes)
        _ = try XMLPreScanner.scan(array, limits: limits)
        let parser = XMLParser(data: Data(array))
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        let delegate = Delegate(limits: limits)
        parser.delegate = delegate
        let success = parser.parse()
        if let failure = delegate.failure { throw failure }
        let location = XMLLocation(line: max(parser.lineNumber, 1), column: max(parser.columnNumber, 1))
        guard success, let root = delegate.root else {
            let reason = parser.parserError.map { Self.reason($0) } ?? "the document has no root element"
            throw VASTError(.xml, at: location, "not well-formed XML: \(reason)")
        }
        return root
    }

    fileprivate static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let description = nsError.userInfo[NSLocalizedDescriptionKey] as? String, !description.isEmpty {
            return description.trimmingXMLWhitespace()
        }
        return "parser error \(nsError.code)"
    }

    private final class Delegate: NSObject, XMLParserDelegate {
        let limits: XMLLimits
        var stack: [XMLNode] = []
        var root: XMLNode?
        var failure: VASTError?
        var textCharacters = 0

        init(limits: XMLLimits) {
            self.limits = limits
        }

        func fail(_ parser: XMLParser, _ code: VASTError.Code, _ message: String) {
            guard failure == nil else { return }
            failure = VASTError(
                code, at: XMLLocation(line: max(parser.lineNumber, 1), column: max(parser.columnNumber, 1)), message)
            parser.abortParsing()
        }

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            // The pre-scan bounded the elements, their depth and their attributes.
            guard failure == nil else { return }
            let location = XMLLocation(line: max(parser.lineNumber, 1), column: max(parser.columnNumber, 1))
            stack.append(XMLNode(name: elementName, attributes: attributeDict, location: location))
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
        ) {
            guard failure == nil, let node = stack.popLast() else { return }
            if stack.isEmpty {
                root = node
            } else {
                stack[stack.count - 1].children.append(node)
            }
        }

        /// Stops at the first error: libxml2 would go on and report every later one, and
        /// swift-corelibs-foundation leaks a string for each error it reports (72 bytes; 10,000
        /// undeclared entity references would leak 720 KB per document).
        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            guard failure == nil else { return }
            failure = VASTError(
                .xml, at: XMLLocation(line: max(parser.lineNumber, 1), column: max(parser.columnNumber, 1)),
                "not well-formed XML: \(XMLTreeBuilder.reason(parseError))")
            parser.abortParsing()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            appendText(parser, string)
        }

        func parser(_ parser: XMLParser, foundCDATA block: Data) {
            appendText(parser, String(decoding: block, as: UTF8.self))
        }

        func appendText(_ parser: XMLParser, _ string: String) {
            guard failure == nil, !stack.isEmpty else { return }
            textCharacters += string.utf8.count
            if textCharacters > limits.maximumTextCharacters {
                fail(parser, .limit, "more than \(limits.maximumTextCharacters) bytes of text")
                return
            }
            stack[stack.count - 1].text += string
        }
    }
}
