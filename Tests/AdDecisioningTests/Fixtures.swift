import AdDecisioning
import Foundation

enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/vast")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func vast(_ name: String) throws -> VASTDocument {
        try VASTReader().read(try bytes(name))
    }
}
