import HLSInterstitials

/// What identifies a selected audio or subtitle rendition across presentations: its language and
/// characteristics (and, for display, its name), the terms in which an interstitial's renditions
/// are matched to the primary's.
public struct MediaOption: Hashable, Sendable, CustomStringConvertible {
    /// The LANGUAGE (an RFC 5646 tag), if any.
    public var language: String?
    /// The CHARACTERISTICS, such as `public.accessibility.describes-video`.
    public var characteristics: [String]
    /// The NAME.
    public var name: String?

    /// Creates an option.
    public init(language: String?, characteristics: [String] = [], name: String? = nil) {
        self.language = language
        self.characteristics = characteristics
        self.name = name
    }

    /// `en` or `en [public.accessibility.describes-video]`, `und` without a language.
    public var description: String {
        (language ?? "und") + (characteristics.isEmpty ? "" : " [\(characteristics.joined(separator: ","))]")
    }

    /// The JSON form: `{"language": "en", "characteristics": [...], "name": "English"}`.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["characteristics": .array(characteristics.map(JSONValue.string))]
        if let language { members["language"] = .string(language) }
        if let name { members["name"] = .string(name) }
        return .object(members)
    }

    init(json: JSONValue, path: String, code: CoordinationErrorCode) throws(CoordinationError) {
        var reader = try CoordinationReader(json, path: path, code: code)
        let language = try reader.string("language")
        var characteristics: [String] = []
        for (index, item) in (try reader.array("characteristics") ?? []).enumerated() {
            guard case .string(let text) = item else {
                throw reader.error("characteristics[\(index)]", "expected a string, found \(item.typeName)")
            }
            characteristics.append(text)
        }
        let name = try reader.string("name")
        try reader.finish(known: "language, characteristics, name")
        self.init(language: language, characteristics: characteristics, name: name)
    }
}

/// The selected audio and subtitle renditions; nil subtitles means subtitles are off.
public struct TrackSelection: Hashable, Sendable, CustomStringConvertible {
    /// The audio rendition, if the presentation has alternative audio.
    public var audio: MediaOption?
    /// The subtitle rendition, or nil when subtitles are off.
    public var subtitles: MediaOption?

    /// Creates a selection.
    public init(audio: MediaOption? = nil, subtitles: MediaOption? = nil) {
        self.audio = audio
        self.subtitles = subtitles
    }

    /// `audio en, subtitles off`.
    public var description: String {
        "audio \(audio?.description ?? "main"), subtitles \(subtitles?.description ?? "off")"
    }

    /// The JSON form.
    public var jsonValue: JSONValue {
        .object(["audio": audio?.jsonValue ?? .null, "subtitles": subtitles?.jsonValue ?? .null])
    }

    init(json: JSONValue, path: String, code: CoordinationErrorCode) throws(CoordinationError) {
        var reader = try CoordinationReader(json, path: path, code: code)
        var selection = TrackSelection()
        if let value = reader.take("audio") {
            selection.audio = try MediaOption(json: value, path: reader.at("audio"), code: code)
        }
        if let value = reader.take("subtitles") {
            selection.subtitles = try MediaOption(json: value, path: reader.at("subtitles"), code: code)
        }
        try reader.finish(known: "audio, subtitles")
        self = selection
    }
}
