import Foundation
import PlaybackCoordination
import Testing

/// `docs/errors.md` lists ``CoordinationError``'s codes: the table is ``CoordinationErrorCode``'s cases.
@Suite("docs/errors.md: the coordination error codes")
struct CoordinationErrorDocumentTests {
    @Test("CoordinationError's codes")
    func codes() {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = (try? String(contentsOf: root.appendingPathComponent("docs/errors.md"), encoding: .utf8)) ?? ""
        var codes: [String] = []
        if let start = text.range(of: "\n## `CoordinationError`") {
            for line in text[start.upperBound...].split(separator: "\n").dropFirst() {
                if line.hasPrefix("## ") { break }
                guard line.hasPrefix("| `"), let first = line.split(separator: "|").first else { continue }
                codes.append(first.trimmingCharacters(in: CharacterSet(charactersIn: "` ")))
            }
        }
        #expect(codes == CoordinationErrorCode.allCases.map(\.rawValue))
    }
}
