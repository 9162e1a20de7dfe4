import Foundation
import Testing

@testable import InterstitialServer

/// `docs/replicas.md` lists the store's error codes ("Store errors"): the list is ``StoreError/Code``'s.
@Suite("docs/replicas.md: the store's error codes")
struct StoreErrorDocumentTests {
    /// The codes in the first column of the table under "## Store errors", in order.
    static let documented: [String] = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = (try? String(contentsOf: root.appendingPathComponent("docs/replicas.md"), encoding: .utf8)) ?? ""
        guard let start = text.range(of: "\n## Store errors\n") else { return [] }
        var codes: [String] = []
        for line in text[start.upperBound...].split(separator: "\n") {
            if line.hasPrefix("## ") { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard line.hasPrefix("| `"), let first = cells.first else { continue }
            codes.append(first.trimmingCharacters(in: CharacterSet(charactersIn: "`")))
        }
        return codes
    }()

    @Test("Every code of StoreError is documented, once, and nothing else is")
    func codesAreDocumented() {
        #expect(Self.documented == StoreError.Code.allCases.map(\.rawValue))
    }
}
