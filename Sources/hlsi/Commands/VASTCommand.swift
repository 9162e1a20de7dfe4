import AdDecisioning
import ArgumentParser
import Foundation
import HLSLoading
import HLSPlaylist

/// `hlsi vast`: a VAST or VMAP document as the server reads it.
struct VASTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vast",
        abstract: "Print a VAST or VMAP document as the server reads it.",
        discussion: """
            Reads VAST 2.0 to 4.3 or VMAP 1.0 from a file or an http(s) URL and prints each ad (inline or \
            wrapper) with its pod sequence, its creatives with their duration, media files (type, size, \
            bitrate, and whether an interstitial can use them: hls as they are, needs-conditioning for \
            progressive MP4, or unusable), tracking events with offsets and error URLs. Non-linear and \
            companion creatives and ad verifications are listed as data: interstitials do not play them.

            --follow resolves wrappers as the server does (VAST 4.3 §3.19: at most --max-depth wrappers \
            per chain, loops refused, pods in sequence order, stand-alone ads as the fallback) and prints \
            the ads with the wrappers' impressions and tracking merged in, every request made, and the VAST \
            error codes the server would report (301 timeout, 302 wrapper limit or loop, 303 no ads after \
            wrappers). Nothing is requested but the VAST documents themselves: no tracking, impression or \
            error URL. Relative wrapper URLs resolve against the document given. A document read from a URL \
            only leads to http(s) URLs; one read from a file may also lead to files.

            Exit codes: 0 read (and, with --follow, at least one ad resolved); 1 the document cannot be \
            read (an error with its line and column) or no ad resolved; 2 usage or I/O failure.
            """
    )

    @Argument(help: "The VAST or VMAP document: a file or an http(s) URL.")
    var location: String

    @OptionGroup var output: JSONOutputOption

    @Flag(name: .long, help: "Follow wrappers to their InLine ads.")
    var follow = false

    @Option(name: .customLong("max-depth"), help: "The most wrappers followed in one chain (1 to 20).")
    var maxDepth = WrapperResolver.Configuration().maximumDepth

    @Option(name: .long, help: "Seconds allowed for each request (0.1 to 300).")
    var timeout: Double = 10

    func validate() throws {
        guard (1...20).contains(maxDepth) else {
            throw ValidationError("--max-depth must be from 1 to 20, not \(maxDepth)")
        }
        guard timeout.isFinite, (0.1...300).contains(timeout) else {
            throw ValidationError("--timeout must be from 0.1 to 300 seconds")
        }
    }

    func run() async throws {
        let reader = VASTReader()
        let configuration = PlaylistLoader.Configuration(
            timeout: .milliseconds(Int64(timeout * 1000)), maximumBodySize: reader.limits.xml.maximumBytes)
        try await PlaylistLoader.withLoader(configuration: configuration) { loader in
            let bytes: [UInt8]
            do {
                bytes = try await loader.loadResource(location).bytes
            } catch let error as LoadError {
                throw CommandFailure(error)
            }
            let document: AdDocument
            do throws(VASTError) {
                document = try AdDocument.read(bytes, reader: reader)
            } catch {
                fail(error, source: bytes)
                throw ExitCode(1)
            }
            var summary = VASTSummary(location: location, document: document)
            if follow, case .vast(let vast) = document {
                summary.resolution = await resolve(vast, loader: loader, reader: reader)
            }
            if output.json {
                Output.document(Array(try Output.json(summary).utf8))
            } else {
                Output.standardOutput(summary.text)
            }
            if let resolution = summary.resolution, resolution.ads.isEmpty { throw ExitCode(1) }
        }
    }

    /// An unreadable document: a diagnostic with the source line and a caret, or JSON.
    private func fail(_ error: VASTError, source: [UInt8]) {
        if output.json {
            let object = ErrorJSON(
                error: .init(
                    code: error.code.rawValue, file: location, line: error.location.line,
                    column: error.location.column, message: error.message, vastErrorCode: error.vastErrorCode.rawValue))
            Output.document(Array(((try? Output.json(object)) ?? "{}\n").utf8))
            return
        }
        var text = "\(location):\(error)"
        let lines = source.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if error.location.line >= 1, error.location.line <= lines.count {
            var line = lines[error.location.line - 1]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            text += "\n" + Diagnostic.excerptLine(line, column: error.location.column)
        }
        Output.standardError(text)
    }

    private struct ErrorJSON: Encodable {
        struct Body: Encodable {
            var code: String
            var file: String
            var line: Int
            var column: Int
            var message: String
            var vastErrorCode: Int
        }
        var error: Body
    }

    /// Follows the wrappers of `document` with a ``WrapperResolver``, one request at a time.
    private func resolve(
        _ document: VASTDocument, loader: PlaylistLoader, reader: VASTReader
    ) async -> VASTSummary.Resolution {
        var resolver = WrapperResolver(
            rootURL: location, configuration: WrapperResolver.Configuration(maximumDepth: maxDepth))
        var resolution = VASTSummary.Resolution(ads: [], requests: [], errors: [])
        var pending = resolver.start()
        while !pending.isEmpty {
            let action = pending.removeFirst()
            switch action {
            case .fetch(let request):
                let url = URIReference.resolve(request.url, against: location)
                let (response, outcome) = await fetch(request, url: url, root: document, reader: reader, loader: loader)
                resolution.requests.append(.init(url: url, depth: request.depth, outcome: outcome))
                pending += resolver.receive(response, for: request.id)
            case .reportError(let report):
                resolution.errors.append(.init(report))
            case .done(let ads):
                resolution.ads = ads.map { resolved in
                    var ad = VASTSummary.ad(resolved.ad)
                    ad.requestURLs = resolved.requestURLs
                    ad.depth = resolved.depth
                    return ad
                }
            case .fail(let report):
                resolution.failure = .init(report)
            }
        }
        return resolution
    }

    /// One request of the resolution: the root is the document already read; a relative wrapper URL
    /// resolves against the document given (files only from files).
    private func fetch(
        _ request: WrapperResolver.FetchRequest, url: String, root: VASTDocument, reader: VASTReader,
        loader: PlaylistLoader
    ) async -> (WrapperResolver.Response, String) {
        if request.depth == 0, request.url == location { return (.document(root), "vast") }
        if !URIReference.isFile(location), URIReference.isFile(url) {
            let message = "a document read from a URL cannot lead to a file"
            return (.failed(.wrapperGeneral, message), "refused: \(message)")
        }
        let bytes: [UInt8]
        do {
            bytes = try await loader.loadResource(url).bytes
        } catch {
            let message = (error as? LoadError)?.description ?? "\(error)"
            return (.failed(.wrapperTimeout, message), "failed: \(message)")
        }
        do {
            return (.document(try reader.read(bytes)), "vast")
        } catch {
            return (.failed(error.vastErrorCode, error.description), "unreadable: \(error.description)")
        }
    }
}
