import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Builds an ``XMLNode`` tree with Foundation's `XMLParser`, within ``XMLLimits``.
///
/// External entities are never resolved and a document type declaration is refused, so a
/// document cannot make the parser read files or expand entities without bound.
enum XMLTreeBuilder {
    /// Parses `bytes` into the tree of the root element.
    ///
    /// - Throws: ``VASTError`` with `vast-xml` (not well-formed, VAST error 100) or `vast-limit`
    ///   (over a limit, also 100), located at the parser's line and column.
    static func parse(_ bytes: some Collection<UInt8>, limits: XMLLimits) throws(VASTError) -> XMLNode {
        if bytes.count > limits.maximumBytes {
            throw VASTError(
                .limit, at: XMLLocation(line: 1, column: 1),
                "the document has \(bytes.count) bytes; at most \(limits.maximumBytes) are read")
        }
        let parser = XMLParser(data: Data(bytes))
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

    private static func reason(_ error: any Error) -> String {
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
        var elements = 0
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
            guard failure == nil else { return }
            elements += 1
            if elements > limits.maximumElements {
                fail(parser, .limit, "more than \(limits.maximumElements) elements")
                return
            }
            if stack.count >= limits.maximumDepth {
                fail(parser, .limit, "elements nested deeper than \(limits.maximumDepth)")
                return
            }
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

        func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
            fail(parser, .xml, "entity declarations are not accepted (entity '\(name)')")
        }

        func parser(
            _ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?,
            systemID: String?
        ) {
            fail(parser, .xml, "external entities are not accepted (entity '\(name)')")
        }
    }
}
