import HLSPlaylist

/// Values for the macros of VAST URLs (tracking, error, impression and ad request URLs).
///
/// VAST 4.3 §6.1 ("Macro Formatting and Replacement"): "All macro names are surrounded by square
/// brackets … the whole name - including brackets - needs to be replaced with the value", and "make
/// sure to apply `encodeURIComponent` to any value … encoding should be applied to individual
/// values only" with `Array<T>` values joined by unencoded commas. Macros this type knows whose
/// value is nil are filled with `-1` ("Value is unknown, but would be shared if it was known");
/// names in ``withheld`` with `-2` ("can't be shared because of policy"). Macros it does not know
/// and ``custom`` does not name are left as they are (§6.1: "do not replace all unknown macros with
/// `-1`, only do this for macros specifically mentioned in this section").
public struct VASTMacroValues: Hashable, Sendable {
    /// `[CACHEBUSTING]`: "Random 8-digit integer" (see ``cacheBuster(_:)``).
    public var cacheBusting: String?
    /// `[TIMESTAMP]`: ISO 8601 with milliseconds, from the injected clock.
    public var timestamp: DateTime?
    /// `[ERRORCODE]`.
    public var errorCode: VASTErrorCode?
    /// `[CONTENTPLAYHEAD]` (deprecated in 4.1) and `[MEDIAPLAYHEAD]`: the primary's playhead.
    public var mediaPlayhead: MediaTime?
    /// `[ADPLAYHEAD]`: the playhead within the ad.
    public var adPlayhead: MediaTime?
    /// `[BREAKPOSITION]`: 1 pre-roll, 2 mid-roll, 3 post-roll, 4 standalone, 0 other.
    public var breakPosition: Int?
    /// `[ADCOUNT]`.
    public var adCount: Int?
    /// `[PODSEQUENCE]`: the ad's `sequence` in its pod.
    public var podSequence: Int?
    /// `[BREAKMAXDURATION]` in whole seconds.
    public var breakMaxDuration: Int?
    /// `[CLIENTUA]`: "{player name}/{player version} {plugin name}/{plugin version}".
    public var clientUA: String?
    /// `[SERVERUA]`: the server making requests for the client.
    public var serverUA: String?
    /// `[DEVICEUA]`: the viewer's user agent.
    public var deviceUA: String?
    /// `[DEVICEIP]`, also written `[IPADDRESS]` by VAST 3: the viewer's IP address.
    public var deviceIP: String?
    /// `[SERVERSIDE]`: 0 client, 1 server for the client, 2 server on its own.
    public var serverSide: Int?
    /// `[ASSETURI]`: the media file played.
    public var assetURI: String?
    /// `[UNIVERSALADID]`: `registry value` pairs.
    public var universalAdIds: [VASTUniversalAdId]?
    /// `[TRANSACTIONID]`.
    public var transactionID: String?
    /// Names (without brackets) filled with `-2`.
    public var withheld: Set<String>
    /// Other macros by name without brackets, such as `CONTENTID`; each element is one value of an
    /// `Array<T>` macro. They override the named fields.
    public var custom: [String: [String]]

    /// Creates values; every field may be set afterwards.
    public init(cacheBusting: String? = nil, timestamp: DateTime? = nil, errorCode: VASTErrorCode? = nil) {
        self.cacheBusting = cacheBusting
        self.timestamp = timestamp
        self.errorCode = errorCode
        self.withheld = []
        self.custom = [:]
    }

    /// An 8-digit cache buster (10000000–99999999) from `generator`, so tests can seed it.
    public static func cacheBuster(_ generator: inout some RandomNumberGenerator) -> String {
        String(Int.random(in: 10_000_000...99_999_999, using: &generator))
    }

    /// The macros with a named field; filled with `-1` when the field is nil.
    public static let known: Set<String> = [
        "CACHEBUSTING", "TIMESTAMP", "ERRORCODE", "CONTENTPLAYHEAD", "MEDIAPLAYHEAD", "ADPLAYHEAD", "BREAKPOSITION",
        "ADCOUNT", "PODSEQUENCE", "BREAKMAXDURATION", "CLIENTUA", "SERVERUA", "DEVICEUA", "DEVICEIP", "IPADDRESS",
        "SERVERSIDE", "ASSETURI", "UNIVERSALADID", "TRANSACTIONID",
    ]

    /// The values of `name`, or nil when this type has no value for it.
    public func values(for name: String) -> [String]? {
        if let values = custom[name] { return values }
        switch name {
        case "CACHEBUSTING": return cacheBusting.map { [$0] }
        case "TIMESTAMP": return timestamp.map { [$0.iso8601] }
        case "ERRORCODE": return errorCode.map { [String($0.rawValue)] }
        case "CONTENTPLAYHEAD", "MEDIAPLAYHEAD": return mediaPlayhead.map { [VASTClock.format($0)] }
        case "ADPLAYHEAD": return adPlayhead.map { [VASTClock.format($0)] }
        case "BREAKPOSITION": return breakPosition.map { [String($0)] }
        case "ADCOUNT": return adCount.map { [String($0)] }
        case "PODSEQUENCE": return podSequence.map { [String($0)] }
        case "BREAKMAXDURATION": return breakMaxDuration.map { [String($0)] }
        case "CLIENTUA": return clientUA.map { [$0] }
        case "SERVERUA": return serverUA.map { [$0] }
        case "DEVICEUA": return deviceUA.map { [$0] }
        case "DEVICEIP", "IPADDRESS": return deviceIP.map { [$0] }
        case "SERVERSIDE": return serverSide.map { [String($0)] }
        case "ASSETURI": return assetURI.map { [$0] }
        case "UNIVERSALADID": return universalAdIds.map { $0.map { "\($0.idRegistry) \($0.value)" } }
        case "TRANSACTIONID": return transactionID.map { [$0] }
        default: return nil
        }
    }

    /// The replacement text of `[name]`, or nil to leave it.
    func replacement(for name: String) -> String? {
        if withheld.contains(name) { return "-2" }
        if let values = values(for: name) { return values.map(VASTMacros.encodeURIComponent).joined(separator: ",") }
        return Self.known.contains(name) ? "-1" : nil
    }
}

/// Fills `[MACRO]`s in URLs.
public enum VASTMacros {
    /// `template` with every `[NAME]` (`NAME` of `A–Z`, `0–9` and `_`) that `values` knows replaced.
    public static func fill(_ template: String, with values: VASTMacroValues) -> String {
        fill(template) { values.replacement(for: $0) }
    }

    /// The macro names (without brackets) written in `template`, in order, each once.
    public static func names(in template: String) -> [String] {
        var names: [String] = []
        _ = fill(template) { name in
            if !names.contains(name) { names.append(name) }
            return nil
        }
        return names
    }

    /// `template` with every `[NAME]` for which `replacement` returns text replaced by it.
    static func fill(_ template: String, replacement: (String) -> String?) -> String {
        var output = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "[") {
            output += rest[..<open]
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(where: { !Self.isNameCharacter($0) }), rest[close] == "]",
                close > afterOpen
            else {
                output += "["
                rest = rest[afterOpen...]
                continue
            }
            let name = String(rest[afterOpen..<close])
            output += replacement(name) ?? "[\(name)]"
            rest = rest[rest.index(after: close)...]
        }
        output += rest
        return output
    }

    private static func isNameCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isUppercase || character.isNumber || character == "_")
    }

    /// JavaScript's `encodeURIComponent`: everything but `A–Z a–z 0–9 - _ . ! ~ * ' ( )` is
    /// percent-encoded as UTF-8.
    public static func encodeURIComponent(_ value: String) -> String {
        var output = ""
        for byte in value.utf8 {
            let scalar = Unicode.Scalar(byte)
            let unreserved =
                (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || "-_.!~*'()".unicodeScalars.contains(scalar)
            if unreserved {
                output.unicodeScalars.append(scalar)
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                output += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return output
    }
}
