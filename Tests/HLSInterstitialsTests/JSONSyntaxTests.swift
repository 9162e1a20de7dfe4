import HLSInterstitials
import Testing

/// The strict JSON grammar every JSON input goes through (``JSONValue/parse(_:code:as:)``): what
/// RFC 8259 refuses is refused, with the line and column of the byte at fault (issue 47).
@Suite("JSON syntax: line, column, strictness")
struct JSONSyntaxTests {
    @Test(
        "Text RFC 8259 refuses is refused with its code, line and column",
        arguments: [
            ("{\"a\": 1,}", JSONSyntaxError.Code.trailingComma, 1, 8),
            ("[1, 2,\n]", .trailingComma, 1, 6),
            ("{\n  \"a\": [1,\n    2,\n  ],\n  \"b\": 2\n}", .trailingComma, 3, 6),
            ("{\"a\": 1 \"b\": 2}", .unexpectedCharacter, 1, 9),
            ("{a: 1}", .unexpectedCharacter, 1, 2),
            ("{\"a\": tru}", .unexpectedCharacter, 1, 7),
            ("{\"a\": 01}", .badNumber, 1, 7),
            ("{\"a\": 1.}", .badNumber, 1, 7),
            ("{\"a\": -}", .badNumber, 1, 7),
            ("{\"a\": \"x\ty\"}", .controlCharacter, 1, 9),
            ("{\"a\": \"\\x\"}", .badEscape, 1, 8),
            ("{\"a\": \"\\u12G4\"}", .badEscape, 1, 8),
            ("{\"a\": 1} x", .trailingText, 1, 10),
            ("{\"a\": [1, 2", .unexpectedEnd, 1, 12),
            ("{\"a\": \"open", .unexpectedEnd, 1, 12),
            ("", .unexpectedEnd, 1, 1),
            ("[,]", .unexpectedCharacter, 1, 2),
            ("{,}", .unexpectedCharacter, 1, 2),
        ])
    func refused(text: String, code: JSONSyntaxError.Code, line: Int, column: Int) {
        let error = JSONSyntaxCheck.firstError(in: Array(text.utf8))
        #expect(error?.code == code, "\(text): \(error?.description ?? "accepted")")
        #expect(error?.line == line, "\(text): \(error?.description ?? "accepted")")
        #expect(error?.column == column, "\(text): \(error?.description ?? "accepted")")
        #expect(throws: JSONError.self) { _ = try JSONValue.parse(Array(text.utf8), code: .json) }
    }

    @Test(
        "Valid JSON passes the check and parses",
        arguments: [
            "{}", "[]", " {\"a\": [1, -2.5e+3, 0, 0.25, 1E2, true, false, null, \"\\u00e9\\n\\\"\", {}]}\n", "\"text\"",
            "-0", "[[[]]]", "{\"a\":{\"b\":{\"c\":[]}}}", "\"é — 😀\"",
        ])
    func accepted(text: String) throws {
        #expect(JSONSyntaxCheck.firstError(in: Array(text.utf8)) == nil, "\(text)")
        _ = try JSONValue.parse(Array(text.utf8), code: .json)
    }

    @Test("The parse error quotes the line and column: `not valid JSON: line L, column C: …`")
    func message() {
        #expect {
            _ = try JSONValue.parse(Array("{\n \"a\": 1,\n}".utf8), code: .json)
        } throws: { error in
            (error as? JSONError)?.message.hasPrefix("not valid JSON: line 2, column 8: a trailing comma") == true
        }
    }

    @Test("The check is linear: a megabyte of nesting and of numbers costs one pass")
    func linear() {
        let deep = String(repeating: "[", count: 500_000) + String(repeating: "]", count: 500_000)
        #expect(JSONSyntaxCheck.firstError(in: Array(deep.utf8)) == nil)
        let wide = "[" + Array(repeating: "123456.789", count: 100_000).joined(separator: ",") + ",]"
        #expect(JSONSyntaxCheck.firstError(in: Array(wide.utf8))?.code == .trailingComma)
    }
}
