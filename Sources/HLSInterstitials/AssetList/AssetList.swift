import Foundation
import HLSPlaylist

/// The JSON object an X-ASSET-LIST URI returns (App. D.2): the assets to play back to back and an
/// optional skip control that overrides the tag's X-SKIP-CONTROL-* attributes.
///
/// Keys are case-sensitive. Keys the schema does not define are kept and written back.
public struct AssetList: Hashable, Sendable {
    /// One interstitial asset: an Asset-Description object.
    public struct Asset: Hashable, Sendable {
        /// URI: "the absolute URI of a single interstitial asset".
        public var uri: String
        /// DURATION: the asset's duration in seconds.
        public var duration: MediaTime
        /// The other keys of the object.
        public var otherKeys: [String: JSONValue]

        /// Creates an asset.
        public init(uri: String, duration: MediaTime, otherKeys: [String: JSONValue] = [:]) {
            self.uri = uri
            self.duration = duration
            self.otherKeys = otherKeys
        }
    }

    /// ASSETS: played back to back in array order.
    public var assets: [Asset]
    /// SKIP-CONTROL, which overrides the tag's X-SKIP-CONTROL-* attributes.
    public var skipControl: SkipControl?
    /// The other top-level keys.
    public var otherKeys: [String: JSONValue]

    /// Creates an asset list.
    public init(assets: [Asset], skipControl: SkipControl? = nil, otherKeys: [String: JSONValue] = [:]) {
        self.assets = assets
        self.skipControl = skipControl
        self.otherKeys = otherKeys
    }

    /// The sum of the assets' durations.
    public var totalDuration: MediaTime { assets.reduce(.zero) { $0 + $1.duration } }

    /// Reads an asset list from JSON bytes.
    ///
    /// - Throws: ``AssetListError`` with code `asset-list-json` when the bytes are not JSON, or
    ///   `asset-list-schema` with every problem and its path (`ASSETS[2].DURATION: expected a number,
    ///   found a string`).
    public static func decode(_ bytes: some Collection<UInt8>) throws(AssetListError) -> AssetList {
        let value: JSONValue
        do throws(JSONError) {
            value = try JSONValue.parse(bytes, code: .assetListJSON)
        } catch {
            throw AssetListError(code: .json, problems: [.init(path: "", message: error.message)])
        }
        return try decode(value)
    }

    /// Reads an asset list from a decoded JSON value.
    ///
    /// A SKIP-CONTROL field whose value breaks App. D.3's type (OFFSET and DURATION whole seconds,
    /// LABEL-ID of [a-zA-Z-_]) is ignored, as the same X-SKIP-CONTROL-* attribute of the tag is
    /// (``SkipControl/wholeSeconds(_:)``); ``ignoredSkipControlFields(_:)`` names them.
    public static func decode(_ value: JSONValue) throws(AssetListError) -> AssetList {
        var ignored: [AssetListError.Problem] = []
        return try decode(value, ignored: &ignored)
    }

    /// The SKIP-CONTROL fields of an asset list that `decode(_:)` ignores because their values
    /// break App. D.3's types, each with its path and why (for the validator).
    public static func ignoredSkipControlFields(_ value: JSONValue) -> [AssetListError.Problem] {
        var ignored: [AssetListError.Problem] = []
        _ = try? decode(value, ignored: &ignored)
        return ignored
    }

    private static func decode(
        _ value: JSONValue, ignored: inout [AssetListError.Problem]
    ) throws(AssetListError) -> AssetList {
        var problems: [AssetListError.Problem] = []
        func problem(_ path: String, _ message: String) { problems.append(.init(path: path, message: message)) }
        func duration(_ value: JSONValue, _ path: String) -> MediaTime? {
            guard let number = value.number else {
                problem(path, "expected a number, found \(value.typeName)")
                return nil
            }
            guard number >= 0, number.isFinite, number < 9e9 else {
                problem(path, "expected a non-negative number of seconds, found \(value)")
                return nil
            }
            return MediaTime(seconds: number)
        }
        guard case .object(var top) = value else {
            throw AssetListError(
                code: .schema,
                problems: [.init(path: "", message: "expected an object with ASSETS, found \(value.typeName)")])
        }
        var assets: [Asset] = []
        switch top.removeValue(forKey: "ASSETS") {
        case nil: problem("ASSETS", "missing; the asset list \"MUST contain\" an ASSETS array (App. D.2)")
        case .array(let items)?:
            for (index, item) in items.enumerated() {
                let path = "ASSETS[\(index)]"
                guard case .object(var fields) = item else {
                    problem(path, "expected an object, found \(item.typeName)")
                    continue
                }
                var uri: String?
                switch fields.removeValue(forKey: "URI") {
                case nil: problem("\(path).URI", "missing; each asset MUST have a URI")
                case .string(let text)?: uri = text
                case let other?: problem("\(path).URI", "expected a string, found \(other.typeName)")
                }
                var time: MediaTime?
                if let value = fields.removeValue(forKey: "DURATION") {
                    time = duration(value, "\(path).DURATION")
                } else {
                    problem("\(path).DURATION", "missing; each asset MUST have a DURATION")
                }
                if let uri, let time { assets.append(Asset(uri: uri, duration: time, otherKeys: fields)) }
            }
        case let other?: problem("ASSETS", "expected an array, found \(other.typeName)")
        }
        var skipControl: SkipControl?
        switch top.removeValue(forKey: "SKIP-CONTROL") {
        case nil: break
        case .object(var fields)?:
            var control = SkipControl()
            // The keys have the X-SKIP-CONTROL-* attributes' types (App. D.3): one rule for both.
            func seconds(_ key: String) -> MediaTime? {
                guard let value = fields.removeValue(forKey: key) else { return nil }
                if let number = value.number, let seconds = SkipControl.wholeSeconds(number) { return seconds }
                ignored.append(
                    .init(
                        path: "SKIP-CONTROL.\(key)",
                        message: "\(value) is not a decimal-integer (whole seconds, App. D.3); ignored"))
                return nil
            }
            control.offset = seconds("OFFSET")
            control.duration = seconds("DURATION")
            if let value = fields.removeValue(forKey: "LABEL-ID") {
                if case .string(let text) = value, let label = SkipControl.labelID(text) {
                    control.labelID = label
                } else {
                    ignored.append(
                        .init(
                            path: "SKIP-CONTROL.LABEL-ID",
                            message: "\(value) is not a string of the characters [a-zA-Z-_] (App. D.3); ignored"))
                }
            }
            for key in fields.keys.sorted() {
                problem("SKIP-CONTROL.\(key)", "unknown key (OFFSET, DURATION, LABEL-ID)")
            }
            skipControl = control
        case let other?: problem("SKIP-CONTROL", "expected an object, found \(other.typeName)")
        }
        if !problems.isEmpty { throw AssetListError(code: .schema, problems: problems) }
        return AssetList(assets: assets, skipControl: skipControl, otherKeys: top)
    }

    /// The JSON text: ASSETS, then SKIP-CONTROL, then the other keys in sorted order.
    public func encoded() -> String {
        var text = "{\"ASSETS\":["
        for (index, asset) in assets.enumerated() {
            if index > 0 { text += "," }
            guard asset.otherKeys.isEmpty else {
                Self.json(of: asset).write(to: &text)
                continue
            }
            // The common asset, written directly, its keys in the sorted order the tree has.
            text += "{\"DURATION\":"
            JSONValue.seconds(asset.duration).write(to: &text)
            text += ",\"URI\":"
            JSONValue.writeString(asset.uri, to: &text)
            text += "}"
        }
        text += "]"
        for member in trailingMembers {
            text += ","
            JSONValue.writeString(member.key, to: &text)
            text += ":"
            member.value.write(to: &text)
        }
        text += "}"
        return text
    }

    /// The asset list as a JSON value (object keys sorted, unlike ``encoded()``).
    public var jsonValue: JSONValue {
        let members = [("ASSETS", JSONValue.array(assets.map(Self.json(of:))))] + trailingMembers
        return .object(Dictionary(members, uniquingKeysWith: { first, _ in first }))
    }

    /// An asset's object: its other keys, URI and DURATION.
    private static func json(of asset: Asset) -> JSONValue {
        var fields = asset.otherKeys
        fields["URI"] = .string(asset.uri)
        fields["DURATION"] = .seconds(asset.duration)
        return .object(fields)
    }

    /// The top-level members after ASSETS, in writing order: SKIP-CONTROL, then the other keys sorted.
    private var trailingMembers: [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = []
        if let skipControl {
            var fields: [String: JSONValue] = [:]
            fields["OFFSET"] = skipControl.offset.map(JSONValue.seconds)
            fields["DURATION"] = skipControl.duration.map(JSONValue.seconds)
            fields["LABEL-ID"] = skipControl.labelID.map(JSONValue.string)
            members.append(("SKIP-CONTROL", .object(fields)))
        }
        members += otherKeys.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return members
    }
}
