import HLSInterstitials
import Testing

/// Reading skip control label tables: `.strings`, String Catalogs and flat JSON, good and malformed.
@Suite("Strings tables for skip control labels")
struct LocalizedStringsTableTests {
    func strings(_ text: String) throws(StringsTableError) -> LocalizedStringsTable {
        try LocalizedStringsTable.parse(Array(text.utf8), format: .strings)
    }

    func error(_ text: String, format: LocalizedStringsTable.Format = .strings) -> StringsTableError? {
        do {
            _ = try LocalizedStringsTable.parse(Array(text.utf8), format: format)
            return nil
        } catch {
            return error
        }
    }

    @Test(".strings: quoted and unquoted entries, comments, escapes, a key alone, the last entry wins")
    func stringsFile() throws {
        let table = try strings(
            """
            /* The skip button. */
            "skip-ad" = "Passer la pub";   // trailing comment
            skip_promo = Skip;
            "quote" = "say \\"hi\\"\\n\\tnow \\\\ \\U00E9\\u00e8 \\101";
            "emoji" = "\\UD83D\\UDE00";
            "alone";
            "skip-ad" = "Passer";
            """)
        #expect(table["skip-ad"] == "Passer")
        #expect(table["skip_promo"] == "Skip")
        #expect(table["quote"] == "say \"hi\"\n\tnow \\ éè A")
        #expect(table["emoji"] == "😀")
        #expect(table["alone"] == "alone")
        #expect(table["missing"] == nil)
        #expect(table.strings.count == 5)
    }

    @Test(".strings in UTF-16 with a byte order mark, and UTF-8 with one")
    func encodings() throws {
        let text = "\"k\" = \"é\";"
        var little: [UInt8] = [0xFF, 0xFE]
        for unit in text.utf16 { little += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(try LocalizedStringsTable.parse(little, format: .strings)["k"] == "é")
        var big: [UInt8] = [0xFE, 0xFF]
        for unit in text.utf16 { big += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
        #expect(try LocalizedStringsTable.parse(big, format: .strings)["k"] == "é")
        #expect(try LocalizedStringsTable.parse([0xEF, 0xBB, 0xBF] + Array(text.utf8), format: .strings)["k"] == "é")
    }

    @Test(
        ".strings errors name the line and column",
        arguments: [
            ("\"a\" = \"b\"\n\"c\" = \"d\";", 2, 1, "expected ';'"),
            ("\"a\" = \"b;\n", 1, 7, "not closed"),
            ("/* open\n\"a\" = \"b\";", 1, 1, "comment"),
            ("\"a\" = ;", 1, 7, "expected a value"),
            ("  = \"b\";", 1, 3, "expected a quoted or unquoted key"),
            ("\"a\" = \"\\Uzz\";", 1, 8, "hex digits"),
            ("\"a\" = \"\\UD83D\";", 1, 8, "surrogate"),
            ("\"a\" = \"b\\", 1, 9, "backslash at the end"),
        ])
    func stringsErrors(text: String, line: Int, column: Int, message: String) {
        let failure = error(text)
        #expect(failure?.code == .syntax)
        #expect(failure?.line == line)
        #expect(failure?.column == column)
        #expect(failure?.message.contains(message) == true, "\(failure?.message ?? "no error")")
        #expect(failure?.rendered(source: "x.strings").hasPrefix("x.strings:\(line):\(column): error:") == true)
    }

    @Test("bad bytes, oversized input, too long a value and too many entries are refused at bounded cost")
    func bounds() {
        do {
            _ = try LocalizedStringsTable.parse([0x22, 0xC3, 0x28, 0x22, 0x3B], format: .strings)
            Issue.record("invalid UTF-8 was read")
        } catch { #expect(error.code == .encoding) }
        do {
            _ = try LocalizedStringsTable.parse([0xFF, 0xFE, 0x41], format: .strings)
            Issue.record("odd UTF-16 was read")
        } catch { #expect(error.code == .encoding) }
        let big = [UInt8](repeating: 0x20, count: LocalizedStringsTable.maximumBytes + 1)
        do {
            _ = try LocalizedStringsTable.parse(big, format: .json)
            Issue.record("an oversized table was read")
        } catch { #expect(error.code == .tooLarge) }
        let long = String(repeating: "x", count: LocalizedStringsTable.maximumTextLength + 1)
        #expect(error("\"k\" = \"\(long)\";")?.code == .tooMany)
        #expect(error("\"k\" = \"\(long)", format: .strings)?.code == .tooMany)
        #expect(error("{\"k\":\"\(long)\"}", format: .json)?.code == .tooMany)
        let many = (0...LocalizedStringsTable.maximumEntries).map { "k\($0) = v;" }.joined(separator: "\n")
        #expect(error(many)?.code == .tooMany)
        #expect(error(many)?.line == LocalizedStringsTable.maximumEntries + 1)
    }

    @Test("flat JSON: an object of strings; other shapes are located by JSON path")
    func flatJSON() throws {
        let table = try LocalizedStringsTable.parse(Array(#"{"skip-ad":"Skip ad","x":"y"}"#.utf8), format: .json)
        #expect(table.strings == ["skip-ad": "Skip ad", "x": "y"])
        #expect(
            error(#"{"skip-ad": 3}"#, format: .json)
                == StringsTableError(code: .schema, path: "skip-ad", "must be a string, not a number"))
        #expect(error(#"["a"]"#, format: .json)?.code == .schema)
        #expect(error(#"{"a": "b""#, format: .json)?.code == .json)
    }

    static let catalog = #"""
        {
          "sourceLanguage": "en",
          "version": "1.0",
          "strings": {
            "skip-ad": {
              "comment": "The skip button",
              "localizations": {
                "en": {"stringUnit": {"state": "translated", "value": "Skip ad"}},
                "fr": {"stringUnit": {"state": "translated", "value": "Passer la pub"}},
                "pt-BR": {"stringUnit": {"state": "translated", "value": "Pular anúncio"}}
              }
            },
            "skip-intro": {
              "localizations": {
                "en": {"stringUnit": {"state": "translated", "value": "Skip intro"}},
                "de": {"variations": {"plural": {"other": {"stringUnit": {"value": "x"}}}}}
              }
            },
            "Skip": {}
          }
        }
        """#

    @Test("a String Catalog: the first preferred language the key has, its base language, else the source")
    func stringCatalog() throws {
        func read(_ languages: [String]) throws -> LocalizedStringsTable {
            try LocalizedStringsTable.parse(Array(Self.catalog.utf8), format: .stringCatalog, languages: languages)
        }
        let french = try read(["fr-CA", "en"])
        #expect(french["skip-ad"] == "Passer la pub")
        #expect(french["skip-intro"] == "Skip intro")
        #expect(french["Skip"] == "Skip")  // no localization: the key is the source text
        #expect(try read(["pt_BR"])["skip-ad"] == "Pular anúncio")
        #expect(try read(["de"])["skip-intro"] == "Skip intro")  // variations only: the source language
        #expect(try read([])["skip-ad"] == "Skip ad")
    }

    @Test(
        "String Catalog errors carry the JSON path",
        arguments: [
            (#"{"strings":{}}"#, "sourceLanguage", StringsTableErrorCode.schema),
            (#"{"sourceLanguage":"en","strings":[]}"#, "strings", .schema),
            (#"{"sourceLanguage":"en","strings":{"k":{"localizations":3}}}"#, "strings.k.localizations", .schema),
            (
                #"{"sourceLanguage":"en","strings":{"k":{"localizations":{"en":{"stringUnit":{"value":1}}}}}}"#,
                "strings.k.localizations.en.stringUnit.value", .schema
            ),
            (#"{"sourceLanguage":"en","strings":{"k":[]}}"#, "strings.k", .schema),
            (#"{"sourceLanguage":"#, "", .json),
        ])
    func catalogErrors(text: String, path: String, code: StringsTableErrorCode) {
        let failure = error(text, format: .stringCatalog)
        #expect(failure?.code == code)
        #expect(failure?.path == path, "\(failure?.description ?? "no error")")
        #expect(failure?.line == nil)
    }

    @Test("the format follows the file name's extension")
    func formats() {
        #expect(LocalizedStringsTable.Format(fileName: "Localizable.strings") == .strings)
        #expect(LocalizedStringsTable.Format(fileName: "dir/Labels.xcstrings") == .stringCatalog)
        #expect(LocalizedStringsTable.Format(fileName: "labels.JSON") == .json)
        #expect(LocalizedStringsTable.Format(fileName: "labels.txt") == nil)
        #expect(LocalizedStringsTable.Format(fileName: "a.json/labels") == nil)
    }
}
