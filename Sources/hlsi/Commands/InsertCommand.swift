import ArgumentParser
import Foundation
import HLSInterstitials
import HLSLoading
import HLSPlaylist

/// `hlsi insert`: add interstitials to a media playlist or to every media playlist of a presentation.
struct InsertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "insert",
        abstract: "Add interstitial date ranges to a media playlist or a whole presentation.",
        discussion: """
            Writes EXT-X-DATERANGE tags of CLASS "com.apple.hls.interstitial" and leaves every other \
            byte as it was. Asset URLs get _HLS_interstitial_id. A playlist without \
            EXT-X-PROGRAM-DATE-TIME gets one dated 2000-01-01T00:00:00.000Z on its first segment, so \
            that time t is that date plus t seconds.

            One interstitial comes from the options (--id, --at or --date, --asset-uri or \
            --asset-list, …); many from --schedule FILE.json: {"interstitials": [{"id": "ad1", \
            "at": 10, "assetUri": "https://…", "duration": 15, "restrict": ["SKIP", "JUMP"]}]} with \
            the same names in camelCase (assetUri, assetList, plannedDuration, resumeOffset, \
            playoutLimit, restrict, snap, cue, occupies, style, contentMayVary, skipControlOffset, \
            skipControlDuration, skipControlLabelId, attributes).

            With --in MASTER --out DIR, every media playlist of the multivariant playlist gets the \
            identical tags; the playlists are written under DIR at their relative paths, and the \
            files they reference are copied there too. --in also takes a media playlist: without \
            --out it is the positional form (standard output or --output); with --out DIR the \
            playlist is written into DIR with the files it references.

            Exit codes: 0 success, 1 the input playlist has errors, 2 usage or I/O failure.
            """
    )

    @Argument(help: "The media playlist (file or URL) to add to; written to standard output or --output.")
    var playlist: String?

    @Option(name: .shortAndLong, help: "Write the result to this file instead of standard output.")
    var output: String?

    @Option(
        name: .customLong("in"),
        help: "A multivariant playlist file: insert into all its media playlists (a media playlist works too).")
    var input: String?

    @Option(name: .customLong("out"), help: "With --in: the directory to write the presentation to.")
    var outputDirectory: String?

    @Option(name: .long, help: "A JSON file of interstitials to insert.")
    var schedule: String?

    @Option(name: .long, help: "ID of the date range.")
    var id: String?

    @Option(name: .long, help: "Start, in seconds on the playlist's timeline (mapped to START-DATE).")
    var at: String?

    @Option(name: .long, help: "Start as an ISO-8601 date (START-DATE).")
    var date: String?

    @Option(name: .customLong("asset-uri"), help: "X-ASSET-URI: an absolute URL of the interstitial asset.")
    var assetURI: String?

    @Option(name: .customLong("asset-list"), help: "X-ASSET-LIST: the URL of a JSON asset list (may be relative).")
    var assetList: String?

    @Option(name: .long, help: "DURATION in seconds.")
    var duration: String?

    @Option(name: .customLong("planned-duration"), help: "PLANNED-DURATION in seconds.")
    var plannedDuration: String?

    @Option(
        name: .customLong("resume-offset"), parsing: .unconditional,
        help: "X-RESUME-OFFSET in seconds (may be negative; absent means the interstitial's duration).")
    var resumeOffset: String?

    @Option(name: .customLong("playout-limit"), help: "X-PLAYOUT-LIMIT in seconds.")
    var playoutLimit: String?

    @Option(name: .long, help: "X-RESTRICT: SKIP, JUMP or SKIP,JUMP.")
    var restrict: String?

    @Option(name: .long, help: "X-SNAP: OUT, IN or OUT,IN.")
    var snap: String?

    @Option(name: .long, help: "CUE: PRE, POST and/or ONCE, comma-separated.")
    var cue: String?

    @Option(name: .long, help: "X-TIMELINE-OCCUPIES: POINT or RANGE.")
    var occupies: String?

    @Option(name: .long, help: "X-TIMELINE-STYLE: HIGHLIGHT or PRIMARY.")
    var style: String?

    @Option(name: .customLong("content-may-vary"), help: "X-CONTENT-MAY-VARY: YES or NO.")
    var contentMayVary: String?

    @Option(name: .customLong("skip-control-offset"), help: "X-SKIP-CONTROL-OFFSET in whole seconds.")
    var skipControlOffset: String?

    @Option(name: .customLong("skip-control-duration"), help: "X-SKIP-CONTROL-DURATION in whole seconds.")
    var skipControlDuration: String?

    @Option(name: .customLong("skip-control-label-id"), help: "X-SKIP-CONTROL-LABEL-ID ([a-zA-Z-_]).")
    var skipControlLabelID: String?

    @Option(name: .customLong("attr"), help: "Another attribute X-NAME=VALUE (repeatable); text is quoted.")
    var attributes: [String] = []

    func validate() throws {
        switch (playlist, input) {
        case (nil, nil): throw ValidationError("give a media playlist, or --in MASTER --out DIR")
        case (.some, .some): throw ValidationError("give either a playlist or --in, not both")
        case (nil, .some):
            if output != nil, outputDirectory != nil {
                throw ValidationError("give --output FILE or --out DIR, not both")
            }
        case (.some, nil):
            if outputDirectory != nil { throw ValidationError("--out applies with --in; use --output FILE") }
        }
        if id == nil, schedule == nil { throw ValidationError("give --id and its options, or --schedule FILE.json") }
        if id == nil, optionsGiven { throw ValidationError("options of one interstitial need --id") }
    }

    private var optionsGiven: Bool {
        let values: [String?] = [
            at, date, assetURI, assetList, duration, plannedDuration, resumeOffset, playoutLimit, restrict, snap, cue,
            occupies, style, contentMayVary, skipControlOffset, skipControlDuration, skipControlLabelID,
        ]
        return values.contains { $0 != nil } || !attributes.isEmpty
    }

    func run() async throws {
        let requests = try makeRequests()
        if let input {
            try await insertTree(requests, master: input, into: outputDirectory)
            return
        }
        guard let playlist else { return }
        let result: ParseResult
        do {
            (_, result) = try await PlaylistLoader.withLoader { try await $0.loadPlaylist(playlist) }
        } catch let error as LoadError {
            throw CommandFailure(error)
        }
        try checkInput(result)
        try emit(try insert(requests, into: result))
    }

    /// Writes one inserted playlist to --output, or else to standard output.
    private func emit(_ inserted: InterstitialInserter.Output) throws {
        let bytes = inserted.document.write()
        if let output {
            try write(bytes, to: output)
            Output.standardError("\(output): inserted \(inserted.events.count) interstitial(s)")
        } else {
            Output.document(bytes)
        }
    }

    // MARK: Requests

    private func makeRequests() throws -> [InsertionRequest] {
        var requests: [InsertionRequest] = []
        if let schedule {
            guard let data = FileManager.default.contents(atPath: schedule) else {
                throw CommandFailure(message: "\(schedule): error: [insert-schedule] cannot read the file", exitCode: 2)
            }
            do {
                requests = try InsertionRequest.decodeSchedule([UInt8](data))
            } catch {
                throw CommandFailure(message: error.rendered(source: schedule), exitCode: 2)
            }
        }
        if let id {
            var request = InsertionRequest(id: id)
            request.at = try seconds(at, "--at")
            if let date {
                guard let value = DateTime(iso8601: date) else {
                    throw ValidationError(
                        "--date needs an ISO-8601 date such as 2026-01-01T00:00:10.000Z, found \(date)")
                }
                request.date = value
            }
            request.assetURI = assetURI
            request.assetListURI = assetList
            request.duration = try seconds(duration, "--duration")
            request.plannedDuration = try seconds(plannedDuration, "--planned-duration")
            request.resumeOffset = try seconds(resumeOffset, "--resume-offset", signed: true)
            request.playoutLimit = try seconds(playoutLimit, "--playout-limit")
            request.restrict = restrict.map(Self.tokens)
            request.snap = snap.map(Self.tokens)
            request.cue = cue.map(Self.tokens)
            request.occupies = occupies
            request.style = style
            request.contentMayVary = contentMayVary
            request.skipControl.offset = try seconds(skipControlOffset, "--skip-control-offset")
            request.skipControl.duration = try seconds(skipControlDuration, "--skip-control-duration")
            request.skipControl.labelID = skipControlLabelID
            for text in attributes {
                do {
                    request.attributes.append(try InsertionRequest.attribute(text))
                } catch {
                    throw ValidationError(error.description)
                }
            }
            requests.append(request)
        }
        return requests
    }

    private func seconds(_ text: String?, _ option: String, signed: Bool = false) throws -> MediaTime? {
        guard let text else { return nil }
        guard let value = MediaTime(decimal: text), signed || value >= .zero else {
            throw ValidationError("\(option) needs \(signed ? "a" : "a non-negative") number of seconds, found \(text)")
        }
        do {
            return try value.checkedUserInput()
        } catch {
            throw ValidationError("\(option): \(error)")
        }
    }

    private static func tokens(_ text: String) -> [String] {
        text.isEmpty ? [] : text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    private func insert(_ requests: [InsertionRequest], into result: ParseResult) throws -> InterstitialInserter.Output
    {
        do {
            return try InterstitialInserter.insert(requests, into: result)
        } catch {
            throw CommandFailure(message: error.rendered(source: result.document.file), exitCode: 2)
        }
    }

    /// Refuses inputs with errors: inserting into them could not give a valid playlist.
    private func checkInput(_ result: ParseResult) throws {
        let errors = result.diagnostics.filter { $0.severity == .error }
        guard errors.isEmpty else {
            Output.standardError(Output.render(errors, document: result.document), terminator: "")
            throw CommandFailure(
                message: "\(result.document.file): the playlist has errors; fix them before inserting", exitCode: 1)
        }
    }

    // MARK: Presentation

    /// `--in`: a multivariant playlist and all its media playlists into `--out DIR`; a media
    /// playlist like the positional form (to `--output` or standard output), or into `--out DIR`
    /// with the media it references.
    private func insertTree(_ requests: [InsertionRequest], master: String, into directory: String?) async throws {
        let masterResult: ParseResult
        let data: [UInt8]
        do {
            let loaded = try await PlaylistLoader.withLoader { try await $0.loadPlaylist(master) }
            (data, masterResult) = (loaded.0.bytes, loaded.1)
        } catch let error as LoadError {
            throw CommandFailure(error)
        }
        try checkInput(masterResult)
        let uris: [String]
        switch masterResult.playlist {
        case .media:
            guard let directory else {
                try emit(try insert(requests, into: masterResult))
                return
            }
            // The presentation is this one playlist, written into DIR under its own name.
            try insertFiles(
                requests, uris: [(master as NSString).lastPathComponent], master: master, masterBytes: nil,
                into: directory)
            return
        case .multivariant(let multivariant):
            var list: [String] = []
            for uri in multivariant.variants.map(\.uri) + multivariant.iFrameVariants.map(\.uri)
                + multivariant.renditions.compactMap(\.uri) where !list.contains(uri)
            {
                list.append(uri)
            }
            uris = list
        }
        guard let directory else {
            throw CommandFailure(
                message: "\(master): a multivariant playlist needs --out DIR to write its media playlists to",
                exitCode: 2)
        }
        try insertFiles(requests, uris: uris, master: master, masterBytes: data, into: directory)
    }

    /// Inserts into the media playlists `uris` (relative to `master`), writes them under `directory`
    /// with the multivariant playlist (`masterBytes`, unchanged) and copies the media they reference.
    private func insertFiles(
        _ requests: [InsertionRequest], uris: [String], master: String, masterBytes: [UInt8]?, into directory: String
    ) throws {
        let fileManager = FileManager.default
        let base = (master as NSString).deletingLastPathComponent
        var fixed = requests
        var copies: Set<String> = []
        for uri in uris {
            guard !URIReference.isAbsolute(uri), !uri.hasPrefix("/") else {
                throw CommandFailure(
                    message: "\(master): \(uri) is not a relative path inside the presentation's directory", exitCode: 2
                )
            }
            let relative = URIReference.resolve(uri, against: "")
            let source = URIReference.resolve(uri, against: master)
            guard let bytes = fileManager.contents(atPath: source) else {
                throw CommandFailure(
                    message: "\(source): error: [load-file-unreadable] cannot read the file", exitCode: 2)
            }
            let result = PlaylistParser.parse([UInt8](bytes), options: ParseOptions(file: source))
            try checkInput(result)
            let inserted = try insert(fixed, into: result)
            // The first playlist fixes the dates, so every playlist gets identical tags.
            for (index, event) in inserted.events.enumerated() {
                fixed[index].at = nil
                fixed[index].date = event.date
            }
            try write(inserted.document.write(), to: (directory as NSString).appendingPathComponent(relative))
            if case .media(let media) = result.playlist {
                let folder = (relative as NSString).deletingLastPathComponent
                for segment in media.segments {
                    for reference in [segment.uri, segment.map?.uri].compactMap({ $0 })
                        + segment.keys.compactMap(\.uri)
                    where !URIReference.isAbsolute(reference) && !reference.hasPrefix("/") {
                        copies.insert(
                            ((folder as NSString).appendingPathComponent(
                                URIReference.resolve(reference, against: ""))
                                as NSString).standardizingPath)
                    }
                }
            }
        }
        if let masterBytes {
            let masterName = (master as NSString).lastPathComponent
            try write(masterBytes, to: (directory as NSString).appendingPathComponent(masterName))
        }
        let sourceRoot = (base.isEmpty ? "." : base)
        for relative in copies.sorted() {
            let from = (sourceRoot as NSString).appendingPathComponent(relative)
            let to = (directory as NSString).appendingPathComponent(relative)
            guard (from as NSString).standardizingPath != (to as NSString).standardizingPath,
                !fileManager.fileExists(atPath: to), fileManager.fileExists(atPath: from)
            else { continue }
            try fileManager.createDirectory(
                atPath: (to as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try fileManager.copyItem(atPath: from, toPath: to)
        }
        Output.standardError(
            "\(directory): inserted \(requests.count) interstitial(s) into \(uris.count) media playlist(s)")
    }

    private func write(_ bytes: [UInt8], to path: String) throws {
        let fileManager = FileManager.default
        let folder = (path as NSString).deletingLastPathComponent
        do {
            if !folder.isEmpty { try fileManager.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure(message: "\(path): error: cannot write: \(error.localizedDescription)", exitCode: 2)
        }
    }
}
