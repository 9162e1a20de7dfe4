import Foundation
import Testing

@testable import HLSInterstitials

/// `docs/errors.md` lists the codes of the located errors and of the asset list's errors: each table
/// is its enum's cases, in order.
@Suite("docs/errors.md: the error codes it lists")
struct ErrorCodeDocumentTests {
    static let document: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("docs/errors.md"), encoding: .utf8)) ?? ""
    }()

    /// The codes in the first column of the table under the heading that starts with `heading`.
    static func codes(under heading: String) -> [String] {
        guard let start = document.range(of: "\n" + heading) else { return [] }
        var codes: [String] = []
        for line in document[start.upperBound...].split(separator: "\n").dropFirst() {
            if line.hasPrefix("## ") { break }
            guard line.hasPrefix("| `"), let first = line.split(separator: "|").first else { continue }
            codes.append(first.trimmingCharacters(in: CharacterSet(charactersIn: "` ")))
        }
        return codes
    }

    @Test("JSONError's codes")
    func jsonError() {
        #expect(Self.codes(under: "## `JSONError`") == JSONErrorCode.allCases.map(\.rawValue))
    }

    @Test("The asset list's and its request's codes")
    func assetList() {
        let codes = AssetListError.Code.allCases.map(\.rawValue) + AssetListQueryError.Code.allCases.map(\.rawValue)
        #expect(Self.codes(under: "## `AssetListError`") == codes)
    }

    @Test("DateRangeScheduleError's codes")
    func dateRangeSchedule() {
        #expect(Self.codes(under: "## `DateRangeScheduleError`") == DateRangeScheduleErrorCode.allCases.map(\.rawValue))
    }

    @Test("StringsTableError's codes")
    func stringsTable() {
        #expect(Self.codes(under: "## `StringsTableError`") == StringsTableErrorCode.allCases.map(\.rawValue))
    }
}
