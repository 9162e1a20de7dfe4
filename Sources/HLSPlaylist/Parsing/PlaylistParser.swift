/// Options for parsing a playlist.
public struct ParseOptions: Sendable {
    /// The file path or URL shown in diagnostics.
    public var file: String
    /// The URL the playlist was loaded from: its query parameters feed `EXT-X-DEFINE:QUERYPARAM`.
    public var playlistURL: String?
    /// Variables the Multivariant Playlist defined, for `EXT-X-DEFINE:IMPORT`.
    public var importedVariables: [String: String]
    /// Sources shorter than this are kept compactly (lines and segments as ranges of the source);
    /// longer ones, whose offsets would not fit 32 bits, as values. Tests lower it to compare.
    package var compactSourceLimit = Int(UInt32.max)

    /// Creates options.
    public init(file: String = "<memory>", playlistURL: String? = nil, importedVariables: [String: String] = [:]) {
        self.file = file
        self.playlistURL = playlistURL
        self.importedVariables = importedVariables
    }
}

/// The result of parsing: the lossless document, its meaning, and the diagnostics.
public struct ParseResult: Sendable {
    /// The document, which writes back byte for byte.
    public var document: PlaylistDocument
    /// The media or multivariant playlist it describes.
    public var playlist: Playlist
    /// Problems found, in line order: at most ``Diagnostic/maximumPerLine`` per line and
    /// ``Diagnostic/maximumPerFile`` in all, with `diagnostic-limit` summaries counting the rest.
    public var diagnostics: [Diagnostic]

    /// Whether any diagnostic is an error.
    public var hasErrors: Bool { diagnostics.containsErrors }
}

/// Parses M3U8 playlists (draft-pantos-hls-rfc8216bis-22).
///
/// Parsing never throws and never stops early: malformed lines become located diagnostics and
/// are kept verbatim, so `result.document.write()` always returns the input bytes.
public enum PlaylistParser {
    /// Parses playlist bytes.
    public static func parse(_ bytes: [UInt8], options: ParseOptions = ParseOptions()) -> ParseResult {
        var documentParser = DocumentParser(file: options.file)
        var interpreter = PlaylistInterpreter(
            document: PlaylistDocument(
                lines: PlaylistLines(
                    source: bytes, capacity: min(bytes.count / 24, 1 << 24),
                    keepsRanges: bytes.count < options.compactSourceLimit),
                file: options.file, source: bytes),
            options: options)
        documentParser.parse(bytes, into: &interpreter)
        let playlist = interpreter.finish()
        return result(
            interpreter.document, playlist, syntaxDiagnostics: documentParser.diagnostics,
            diagnostics: interpreter.diagnostics)
    }

    /// Parses playlist text.
    public static func parse(_ text: String, options: ParseOptions = ParseOptions()) -> ParseResult {
        parse(Array(text.utf8), options: options)
    }

    /// Reads the meaning of a document again, for example after editing it.
    public static func interpret(_ document: PlaylistDocument, options: ParseOptions = ParseOptions()) -> ParseResult {
        var options = options
        options.file = document.file
        var interpreter = PlaylistInterpreter(document: document, options: options)
        let playlist = interpreter.interpretDocument()
        return result(document, playlist, syntaxDiagnostics: [], diagnostics: interpreter.diagnostics)
    }

    private static func result(
        _ document: PlaylistDocument, _ playlist: Playlist, syntaxDiagnostics: [Diagnostic], diagnostics: [Diagnostic]
    ) -> ParseResult {
        var diagnostics = syntaxDiagnostics + diagnostics
        if !diagnostics.isEmpty {
            diagnostics.sort { ($0.location.line, $0.location.column) < ($1.location.line, $1.location.column) }
        }
        return ParseResult(document: document, playlist: playlist, diagnostics: diagnostics.limited())
    }
}
