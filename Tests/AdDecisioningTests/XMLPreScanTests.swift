import Testing

@testable import AdDecisioning

/// The linear pre-scan that bounds a VAST or VMAP document before libxml2 parses it (issue 37, item 3),
/// and what the reader does with entities and encodings (item 15).
@Suite("XML pre-scan")
struct XMLPreScanTests {
    /// `count` distinct attribute names of 3 bytes: a letter, then two of letters, digits, `_`, `-`.
    static func names(_ count: Int) -> [String] {
        let first = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        let rest = first + Array("0123456789_-")
        var names: [String] = []
        names.reserveCapacity(count)
        outer: for a in first {
            for b in rest {
                for c in rest {
                    if names.count == count { break outer }
                    names.append(String([a, b, c]))
                }
            }
        }
        return names
    }

    /// `<VAST version="4.2"><Ad a="" b="" …/></VAST>` with `count` attributes on `<Ad>`.
    static func document(attributes count: Int) -> [UInt8] {
        var text = "<VAST version=\"4.2\"><Ad"
        for name in names(count) { text += " \(name)=\"\"" }
        return Array((text + "/></VAST>").utf8)
    }

    static func error(_ bytes: [UInt8], limits: XMLLimits = .standard) -> VASTError? {
        do {
            _ = try VASTReader(limits: .init(xml: limits)).read(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test("the issue's document (149,000 attributes on one element, ~1 MB) is refused at its 65th attribute")
    func attributeFlood() throws {
        let bytes = Self.document(attributes: 149_000)
        #expect(bytes.count > 1_040_000 && bytes.count <= XMLLimits.standard.maximumBytes)
        guard let error = Self.error(bytes) else {
            Issue.record("the document with 149,000 attributes was read")
            return
        }
        #expect(error.code == .limit && error.vastErrorCode == .xmlParsing)
        #expect(error.message.contains("maximumAttributesPerElement") && error.message.contains("<Ad>"))
        // The work: the scan stopped at the 65th attribute, 23 + 64 × 7 bytes in; the parser never ran.
        let prefix = "<VAST version=\"4.2\"><Ad".utf8.count
        #expect(error.byteOffset == prefix + 64 * 7 + 1)
        #expect(error.location == XMLLocation(line: 1, column: prefix + 64 * 7 + 2))
        #expect(
            error.description.hasPrefix("1:\(prefix + 64 * 7 + 2) (byte \(prefix + 64 * 7 + 1)): error: [vast-limit]"))
    }

    @Test("64 attributes on one element are read, 65 are refused")
    func attributesAtTheLimit() throws {
        let summary = try XMLPreScanner.scan(Self.document(attributes: 64), limits: .standard)
        #expect(summary.attributes == 64 && summary.elements == 2)
        #expect(try VASTReader().read(Self.document(attributes: 64)).version == "4.2")
        #expect(Self.error(Self.document(attributes: 65))?.code == .limit)
    }

    @Test("a valid document is scanned in one pass: the scan reaches its end and counts its elements")
    func scanIsLinear() throws {
        let bytes = try Fixtures.bytes("inline-3.0.xml")
        let summary = try XMLPreScanner.scan(bytes, limits: .standard)
        #expect(summary.steps == bytes.count)
        // The scan and the parser see the same elements.
        func count(_ node: XMLNode) -> Int { 1 + node.children.reduce(0) { $0 + count($1) } }
        func depth(_ node: XMLNode) -> Int { 1 + (node.children.map(depth).max() ?? 0) }
        let root = try XMLTreeBuilder.parse(bytes, limits: .standard)
        #expect(summary.elements == count(root) && summary.depth == depth(root))
        for file in [
            "inline-2.0.xml", "inline-4.0.xml", "inline-4.1.xml", "inline-4.2.xml", "pod-4.3.xml", "vmap-1.0.xml",
            "no-ad-error-4.2.xml", "wrapper-a-4.2.xml", "empty-4.2.xml",
        ] {
            let bytes = try Fixtures.bytes(file)
            #expect(try XMLPreScanner.scan(bytes, limits: .standard).steps == bytes.count, "\(file)")
        }
    }

    @Test("depth: 64 levels are read, 65 are refused before parsing")
    func depthAtTheLimit() throws {
        func nested(_ levels: Int) -> [UInt8] {
            // <VAST> is the first level.
            Array(
                ("<VAST version=\"4.2\">" + String(repeating: "<a>", count: levels - 1)
                    + String(repeating: "</a>", count: levels - 1) + "</VAST>").utf8)
        }
        #expect(try XMLPreScanner.scan(nested(64), limits: .standard).depth == 64)
        #expect(try VASTReader().read(nested(64)).ads.isEmpty)
        let error = try #require(Self.error(nested(65)))
        #expect(error.code == .limit && error.message.contains("maximumDepth"))
        #expect(error.byteOffset == "<VAST version=\"4.2\">".utf8.count + 63 * 3)
        // An empty element at the limit counts as a level too.
        let empty = Array(
            ("<VAST version=\"4.2\">" + String(repeating: "<a>", count: 63) + "<b/>"
                + String(repeating: "</a>", count: 63) + "</VAST>").utf8)
        #expect(Self.error(empty)?.code == .limit)
    }

    @Test("elements, names, attribute values and bytes: at the limit read, one over refused")
    func otherLimits() throws {
        func elements(_ count: Int) -> [UInt8] {
            Array(("<VAST version=\"4.2\">" + String(repeating: "<x/>", count: count - 1) + "</VAST>").utf8)
        }
        let ten = XMLLimits(maximumElements: 10)
        #expect(Self.error(elements(10), limits: ten) == nil)
        #expect(Self.error(elements(11), limits: ten)?.message.contains("maximumElements") == true)

        func named(_ length: Int) -> [UInt8] {
            Array("<VAST version=\"4.2\"><\(String(repeating: "n", count: length))/></VAST>".utf8)
        }
        #expect(Self.error(named(256)) == nil)
        #expect(Self.error(named(257))?.message.contains("maximumNameBytes") == true)
        let longAttribute = Array("<VAST version=\"4.2\" \(String(repeating: "n", count: 257))=\"1\"/>".utf8)
        #expect(Self.error(longAttribute)?.code == .limit)

        func valued(_ length: Int) -> [UInt8] {
            Array("<VAST version=\"4.2\"><x v='\(String(repeating: "v", count: length))'/></VAST>".utf8)
        }
        #expect(Self.error(valued(32 << 10)) == nil)
        let value = try #require(Self.error(valued((32 << 10) + 1)))
        #expect(value.code == .limit && value.message.contains("maximumAttributeValueBytes"))
        #expect(value.byteOffset == "<VAST version=\"4.2\"><x v='".utf8.count)

        let document = Array("<VAST version=\"4.2\"/>".utf8)
        #expect(Self.error(document, limits: XMLLimits(maximumBytes: document.count)) == nil)
        let bytes = try #require(Self.error(document, limits: XMLLimits(maximumBytes: document.count - 1)))
        #expect(bytes.code == .limit && bytes.byteOffset == 0)
    }

    @Test("what is not a tag is not counted: comments, CDATA, processing instructions, '>' in quoted values")
    func markupThatIsNotATag() throws {
        let crowded = (0..<100).map { " a\($0)=\"1\"" }.joined()
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <?stylesheet <x\(crowded)> ?>
            <!-- <Ad\(crowded)> - -->
            <VAST version="4.2" note='a > b' other="c/>d">
              <Error><![CDATA[https://e.example/?<Ad\(crowded)>]]></Error>
            </VAST>
            """
        let summary = try XMLPreScanner.scan(Array(text.utf8), limits: .standard)
        #expect(summary.elements == 2 && summary.attributes == 3)
        let document = try VASTReader().read(text)
        #expect(document.errorURLs == ["https://e.example/?<Ad\(crowded)>"])
    }

    @Test(
        "constructs the parser could read otherwise than the scan are refused with vast-xml at their byte",
        arguments: [
            ("<?xml version=\"1.0\"?>\n<!DOCTYPE VAST [<!ENTITY a \"x\">]>\n<VAST version=\"4.2\"/>", 22),
            ("<?xml version=\"1.0\" encoding=\"UTF-16\"?><VAST version=\"4.2\"/>", 30),
            ("<?xml version='1.0' encoding='UTF-7'?><VAST version=\"4.2\"/>", 30),
            ("<?xml version=\"1.0\" encoding=\"IBM037\"?><VAST version=\"4.2\"/>", 30),
            ("Lo<VAST version=\"4.2\"/>", 0),
            ("<VAST version=\"4.2\"\0/>", 19),
            ("<VAST version=\"4.2\"a=\"1\"/>", 19),
            ("<VAST version=\"4<2\"/>", 16),
            ("<VAST version=\"4.2\"><!ELEMENT x ANY></VAST>", 20),
            ("<VAST version=\"4.2\"><!-- open", 20),
            ("<VAST version=\"4.2\" version/>", 20),
            ("<VAST version=4.2/>", 6),
            ("<VAST version=\"4.2\">< x/></VAST>", 21),
            ("<VAST version=\"4.2\"></VAST x>", 20),
            // Found by the fuzzer: Foundation's XMLParser dereferences NULL on a PI without data.
            ("<?i?>\n<VAST version=\"4.2\"/>", 0),
            ("<VAST version=\"4.2\"><?xml-stylesheet?></VAST>", 20),
        ] as [(String, Int)])
    func refusedConstructs(_ text: String, _ offset: Int) throws {
        let error = try #require(Self.error(Array(text.utf8)))
        #expect(error.code == .xml && error.vastErrorCode == .xmlParsing)
        #expect(error.byteOffset == offset)
    }

    @Test("UTF-16 (with or without a byte order mark) is refused; a UTF-8 byte order mark and ISO-8859-1 are read")
    func encodings() throws {
        let utf16 = Array("<VAST version=\"4.2\"/>".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(Self.error([0xFF, 0xFE] + utf16)?.code == .xml)
        #expect(Self.error([0xFE, 0xFF] + Array("<VAST version=\"4.2\"/>".utf8))?.byteOffset == 0)
        #expect(Self.error(utf16)?.code == .xml)
        #expect(try VASTReader().read([0xEF, 0xBB, 0xBF] + Array("<VAST version=\"4.2\"/>".utf8)).version == "4.2")
        let latin1 =
            Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><VAST version=\"4.2\"><Ad><InLine><AdTitle>".utf8)
            + [0x43, 0x61, 0x66, 0xE9] + Array("</AdTitle></InLine></Ad></VAST>".utf8)
        #expect(try VASTReader().read(latin1).ads.first?.adTitle == "Café")
    }

    @Test("entities: the five predefined ones and character references are expanded; any other is an error")
    func entities() throws {
        let text = """
            <VAST version="4.2"><Error>https://e.example/?a=1&amp;b=&lt;&gt;&quot;&apos;&#38;&#x41;</Error></VAST>
            """
        #expect(try VASTReader().read(text).errorURLs == ["https://e.example/?a=1&b=<>\"'&A"])
        let error = try #require(Self.error(Array("<VAST version=\"4.2\"><Error>&x;</Error></VAST>".utf8)))
        #expect(error.code == .xml && error.byteOffset == nil)
        // An external entity cannot even be declared: the DOCTYPE is refused before parsing.
        let external = """
            <?xml version="1.0"?>
            <!DOCTYPE VAST [<!ENTITY x SYSTEM "file:///etc/passwd">]>
            <VAST version="4.2"><Error>&x;</Error></VAST>
            """
        let refused = try #require(Self.error(Array(external.utf8)))
        #expect(refused.code == .xml && refused.location == XMLLocation(line: 2, column: 1))
        #expect(refused.message.contains("document type declarations"))
    }

    @Test("the work bound grows with the limits, never overflows")
    func workBound() {
        #expect(XMLLimits.standard.workBound == (1 << 20) * 68)
        #expect(XMLLimits(maximumBytes: .max).workBound == .max)
    }
}
