import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOPosix
import Testing

@testable import InterstitialServer

/// Plain GETs whose answer is in memory are answered on the connection's event loop
/// (``FastLane``), with what the full path answers, in order, and without keeping idle
/// connections open.
@Suite("The fast lane")
struct FastLaneTests {
    /// A connection that sends one request at a time and reads its answer.
    final class Connection {
        var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
        let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
        var buffered: [UInt8] = []

        init(
            inbound: NIOAsyncChannelInboundStream<ByteBuffer>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
        ) {
            self.inbound = inbound.makeAsyncIterator()
            self.outbound = outbound
        }

        /// Runs `body` with a new connection to `port`, closed after.
        static func with<T>(port: Int, _ body: (Connection) async throws -> T) async throws -> T {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            return try await channel.executeThenClose { inbound, outbound in
                try await body(Connection(inbound: inbound, outbound: outbound))
            }
        }

        /// An answer: the status line, the fields (names lowercased) and the body.
        struct Answer: Equatable {
            var status: String
            var fields: [String: String]
            var body: [UInt8]
        }

        /// Sends `text` (one or more requests) and reads `count` answers.
        func exchange(_ text: String, answers count: Int = 1) async throws -> [Answer] {
            try await outbound.write(ByteBuffer(string: text))
            var answers: [Answer] = []
            while answers.count < count {
                answers.append(try await readAnswer())
            }
            return answers
        }

        /// Reads until the server closes the connection, ignoring what it sends (the tests that
        /// call it have a time limit).
        func waitForClose() async throws -> Bool {
            while try await inbound.next() != nil {}
            return true
        }

        private func readAnswer() async throws -> Answer {
            let separator = Array("\r\n\r\n".utf8)
            while true {
                if let end = buffered.firstRange(of: separator) {
                    let lines = String(decoding: buffered[..<end.lowerBound], as: UTF8.self)
                        .components(separatedBy: "\r\n")
                    var fields: [String: String] = [:]
                    for line in lines.dropFirst() {
                        let parts = line.split(separator: ":", maxSplits: 1)
                        fields[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
                    }
                    let length = Int(fields["content-length"] ?? "0") ?? 0
                    let bodyStart = end.upperBound
                    while buffered.count < bodyStart + length {
                        guard let more = try await inbound.next() else { throw ChannelError.eof }
                        buffered += Array(buffer: more)
                    }
                    let body = Array(buffered[bodyStart..<(bodyStart + length)])
                    buffered.removeFirst(bodyStart + length)
                    return Answer(status: lines[0], fields: fields, body: body)
                }
                guard let more = try await inbound.next() else { throw ChannelError.eof }
                buffered += Array(buffer: more)
            }
        }
    }

    static func get(_ path: String, _ fields: String = "") -> String {
        "GET \(path) HTTP/1.1\r\nHost: x\r\n\(fields)\r\n"
    }

    static func fastAnswers(port: Int) async throws -> Double {
        let text = try await Connection.with(port: port) { connection in
            try await connection.exchange(get("/metrics", "Authorization: Bearer \(Harness.token)\r\n"))[0]
        }
        let sample = String(decoding: text.body, as: UTF8.self).split(separator: "\n")
            .first { $0.hasPrefix("hlsi_fast_answers_total ") }
        return Double(sample?.split(separator: " ").last ?? "") ?? -1
    }

    @Test(
        "A kept playlist or segment is answered as the full path answers it, Date aside",
        arguments: ["/demo/vod/video/main.m3u8", "/demo/live/video/main.m3u8", "/demo/vod/master.m3u8"])
    func sameAnswer(path: String) async throws {
        let clock = TestClock(DateTime(Date()))
        try await Harness.withServer(clock: clock) { client in
            let port = try #require(client.port)
            let segment = try HTTPSemanticsTests.firstSegment().path
            try await Connection.with(port: port) { connection in
                // The first request on a connection takes the full path; it renders and keeps once
                // the render decides nothing (the first serving of a date range moves the state on).
                var full = try await connection.exchange(Self.get(path))[0]
                var before = try await Self.fastAnswers(port: port)
                var fast = try await connection.exchange(Self.get(path))[0]
                for _ in 0..<3 where try await Self.fastAnswers(port: port) == before {
                    full = fast
                    before = try await Self.fastAnswers(port: port)
                    fast = try await connection.exchange(Self.get(path))[0]
                }
                #expect(try await Self.fastAnswers(port: port) == before + 1, "the fast lane answered")
                #expect(full.status == "HTTP/1.1 200 OK" && fast.status == full.status)
                var fullFields = full.fields
                var fastFields = fast.fields
                #expect(fullFields.removeValue(forKey: "date") != nil && fastFields.removeValue(forKey: "date") != nil)
                #expect(fastFields == fullFields)
                #expect(fast.body == full.body && !fast.body.isEmpty)
                // Segments: once read by the full path, kept.
                let fullSegment = try await connection.exchange(Self.get(segment))[0]
                let fastSegment = try await connection.exchange(Self.get(segment))[0]
                #expect(try await Self.fastAnswers(port: port) == before + 2)
                let bytes = try HTTPSemanticsTests.firstSegment().bytes
                #expect(fastSegment.body == fullSegment.body && fastSegment.body == bytes)
                #expect(fastSegment.fields["etag"] == fullSegment.fields["etag"])
                #expect(fastSegment.fields["accept-ranges"] == "bytes")
            }
        }
    }

    /// An answer without its date and the server's port, which asset URLs carry.
    static func normalized(_ answer: Connection.Answer, port: Int) -> Connection.Answer {
        var answer = answer
        answer.fields["date"] = nil
        answer.fields["content-length"] = nil
        answer.body = Array(
            String(decoding: answer.body, as: UTF8.self).replacingOccurrences(of: ":\(port)/", with: ":PORT/").utf8)
        return answer
    }

    @Test("A file too large to keep in memory is sent from the file system, as the full path sends it")
    func largeFiles() async throws {
        let size = FileBodyCache().fileLimit + 12345
        let bytes = {
            var bytes = [UInt8](repeating: 0x2A, count: size)
            for index in stride(from: 0, to: size, by: 4096) { bytes[index] = UInt8(truncatingIfNeeded: index / 4096) }
            return bytes
        }()
        try await Self.withSegment("big", bytes) { directory, port, connection in
            // The first takes the full path, which streams the file; the second is sent by the guard.
            let full = try await connection.exchange(Self.get("/big/big.m4s"))[0]
            let before = try await Self.fastAnswers(port: port)
            let fast = try await connection.exchange(Self.get("/big/big.m4s"))[0]
            #expect(try await Self.fastAnswers(port: port) == before + 1)
            #expect(full.body == bytes && fast.body == bytes)
            var fields = (full: full.fields, fast: fast.fields)
            #expect(fields.full.removeValue(forKey: "date") != nil)
            #expect(fields.fast.removeValue(forKey: "date") != nil)
            #expect(fast.status == full.status && fields.fast == fields.full)
            #expect(fast.fields["content-length"] == String(size))
            // Replaced by a smaller file: kept in memory from then on, never the old length.
            let small = Array("small".utf8)
            #expect(FileManager.default.createFile(atPath: directory + "/big.m4s", contents: Data(small)))
            let replaced = try await connection.exchange(Self.get("/big/big.m4s"))[0]
            #expect(replaced.body == small)
        }
    }

    @Test(
        "A file's answer is kept without its body: given again while the file is the one found, never once it changes")
    func keptFileAnswers() async throws {
        let first = Array("first segment".utf8)
        try await Self.withSegment("a", first) { directory, port, connection in
            // The first reads the file on the full path; the next two are the fast lane's, the
            // second of them from the kept head.
            let full = try await connection.exchange(Self.get("/a/a.m4s"))[0]
            let before = try await Self.fastAnswers(port: port)
            let made = try await connection.exchange(Self.get("/a/a.m4s"))[0]
            let kept = try await connection.exchange(Self.get("/a/a.m4s"))[0]
            #expect(try await Self.fastAnswers(port: port) == before + 2)
            for answer in [made, kept] {
                var fields = (full: full.fields, fast: answer.fields)
                #expect(fields.full.removeValue(forKey: "date") != nil)
                #expect(fields.fast.removeValue(forKey: "date") != nil)
                #expect(answer.status == full.status && fields.fast == fields.full && answer.body == first)
            }
            // Replaced by a file of the same length: its own bytes, never the old.
            let second = Array("other segment".utf8)
            #expect(FileManager.default.createFile(atPath: directory + "/a.m4s", contents: Data(second)))
            for _ in 0..<3 {
                let replaced = try await connection.exchange(Self.get("/a/a.m4s"))[0]
                #expect(replaced.status == "HTTP/1.1 200 OK" && replaced.body == second)
            }
            // Gone: not found, however it was kept.
            try FileManager.default.removeItem(atPath: directory + "/a.m4s")
            #expect(try await connection.exchange(Self.get("/a/a.m4s"))[0].status.hasPrefix("HTTP/1.1 404"))
        }
    }

    /// A server whose one content, VOD `id` at `/id`, is a temporary directory holding the segment
    /// `id.m4s` (`bytes`) and a playlist naming it; `body` gets the directory, the server's port
    /// and a connection to it.
    static func withSegment(
        _ id: String, _ bytes: [UInt8],
        _ body: @escaping @Sendable (_ directory: String, _ port: Int, _ connection: Connection) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlsi-fast-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(FileManager.default.createFile(atPath: directory + "/\(id).m4s", contents: Data(bytes)))
        try "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\n\(id).m4s\n#EXT-X-ENDLIST\n".write(
            toFile: directory + "/main.m3u8", atomically: true, encoding: .utf8)
        var configuration = try ServerConfiguration.decode(
            Array(#"{"vod":[{"id":"\#(id)","path":"/\#(id)","directory":"\#(directory)","entry":"main.m3u8"}]}"#.utf8),
            base: "/")
        configuration.adminToken = Harness.token
        configuration.port = 0
        try await Harness.withServer(configuration, store: try SQLiteStore(path: nil)) { client in
            let port = try #require(client.port)
            try await Connection.with(port: port) { connection in try await body(directory, port, connection) }
        }
    }

    @Test("Asset lists from the inventory: the fast lane gives each viewer what the full path gives, counting attempts")
    func assetLists() async throws {
        let list = "/demo/vod/asset-list.json?_HLS_interstitial_id=midroll-2"
        let requests =
            [
                "&_HLS_primary_id=v1", "&_HLS_primary_id=v2", "&_HLS_primary_id=v1",
                "&_HLS_primary_id=v3&_HLS_start_offset=4", "", "&_HLS_primary_id=v1", "&_HLS_start_offset=x",
                "&_HLS_primary_id=v2",
            ].map { list + $0 } + ["/demo/vod/asset-list.json?_HLS_interstitial_id=nothing"]
        // The full path: every request first on its own connection.
        let full = NIOLockedValueBox<[Connection.Answer]>([])
        try await Harness.withServer { client in
            let port = try #require(client.port)
            for request in requests {
                let answer = try await Connection.with(port: port) { try await $0.exchange(Self.get(request))[0] }
                full.withLockedValue { $0.append(Self.normalized(answer, port: port)) }
            }
        }
        try await Harness.withServer { client in
            let port = try #require(client.port)
            try await Connection.with(port: port) { connection in
                _ = try await connection.exchange(Self.get("/demo/vod/video/main.m3u8"))
                let before = try await Self.fastAnswers(port: port)
                for (index, request) in requests.enumerated() {
                    let fast = try await connection.exchange(Self.get(request))[0]
                    #expect(fast.fields["date"] != nil)
                    let expected = full.withLockedValue { $0[index] }
                    let answer = Self.normalized(fast, port: port)
                    #expect(answer.status == expected.status && answer.fields == expected.fields, "\(request)")
                    #expect(
                        String(decoding: answer.body, as: UTF8.self) == String(decoding: expected.body, as: UTF8.self),
                        "\(request)")
                }
                // The first (the asset's timeline is not known yet) and the errors (a bad offset, an
                // unknown break) take the full path.
                let answered = try await Self.fastAnswers(port: port) - before
                #expect(answered == Double(requests.count - 3))
            }
        }
        let bodies = full.withLockedValue { $0.map { String(decoding: $0.body, as: UTF8.self) } }
        #expect(bodies[0].contains("\"ASSETS\""))
        #expect(bodies[6].contains("\"error\"") && bodies[8].contains("\"error\""))
        #expect(bodies[0] != bodies[2], "a viewer's second request rebinds")
    }

    @Test(
        "Requests the fast lane leaves to the full path: conditions, ranges, queries, HEAD, Connection, HTTP/1.0",
        .timeLimit(.minutes(10)))
    func leftToTheFullPath() async throws {
        try await Harness.withServer { client in
            let port = try #require(client.port)
            let path = "/demo/vod/video/main.m3u8"
            let before = try await Connection.with(port: port) { connection in
                let first = try await connection.exchange(Self.get(path))[0]
                let tag = try #require(first.fields["etag"])
                let before = try await Self.fastAnswers(port: port)
                let notModified = try await connection.exchange(Self.get(path, "If-None-Match: \(tag)\r\n"))[0]
                #expect(notModified.status.hasPrefix("HTTP/1.1 304"))
                let segment = try HTTPSemanticsTests.firstSegment().path
                let partial = try await connection.exchange(Self.get(segment, "Range: bytes=0-9\r\n"))[0]
                #expect(partial.status.hasPrefix("HTTP/1.1 206") && partial.body.count == 10)
                let query = try await connection.exchange(Self.get(path + "?x=1"))[0]
                #expect(query.status.hasPrefix("HTTP/1.1 200") && query.body == first.body)
                #expect(try await Self.fastAnswers(port: port) == before)
                return before
            }
            let head = try await RawConnection.open(port: port).exchange(
                "HEAD \(path) HTTP/1.1\r\nHost: x\r\n\r\nHEAD \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(head.text.components(separatedBy: "HTTP/1.1 200 OK").count == 3 && head.closed)
            try await Connection.with(port: port) { connection in
                _ = try await connection.exchange(Self.get(path))
                let old = try await connection.exchange("GET \(path) HTTP/1.0\r\n\r\n")[0]
                #expect(old.status.hasSuffix(" 200 OK"))
            }
            try await Connection.with(port: port) { connection in
                _ = try await connection.exchange(Self.get(path))
                let closing = try await connection.exchange(Self.get(path, "Connection: close\r\n"))[0]
                #expect(closing.status.hasSuffix(" 200 OK"))
                #expect(try await connection.waitForClose(), "closed after its answer")
            }
            #expect(try await Self.fastAnswers(port: port) == before)
        }
    }

    @Test("Pipelined requests are answered in order when the fast lane answers a later one")
    func pipelinedOrder() async throws {
        try await Harness.withServer { client in
            let port = try #require(client.port)
            let playlist = "/demo/vod/video/main.m3u8"
            try await Connection.with(port: port) { connection in
                let kept = try await connection.exchange(Self.get(playlist))[0]
                // An asset list (made per request, the full path) then the kept playlist, in one write.
                let list = "/demo/vod/asset-list.json?_HLS_interstitial_id=midroll-2&_HLS_primary_id=p1"
                let answers = try await connection.exchange(
                    Self.get(list) + Self.get(playlist) + Self.get(playlist), answers: 3)
                #expect(
                    answers.map { $0.fields["content-type"] ?? "" } == [
                        "application/json", "application/vnd.apple.mpegurl", "application/vnd.apple.mpegurl",
                    ])
                #expect(answers[1].body == kept.body && answers[2].body == kept.body)
            }
        }
    }

    @Test("A connection the fast lane answers stays open while used and closes once idle", .timeLimit(.minutes(10)))
    func idleConnections() async throws {
        // The idle timeout (2 s) is on the server's clock, which moves only when the test says: a
        // request 1 s after the last keeps the connection, however late the machine runs it.
        let configuration = try RequestLimitTests.configuration(shortTimeouts: true)
        let clock = ManualServerClock.starting()
        try await Harness.withServer(configuration, serverClock: clock) { client in
            let port = try #require(client.port)
            let path = "/demo/vod/video/main.m3u8"
            try await Connection.with(port: port) { connection in
                let first = try await connection.exchange(Self.get(path))[0]
                // Requests for longer than the idle timeout, each well within it.
                for _ in 0..<5 {
                    clock.advance(1)
                    let answer = try await connection.exchange(Self.get(path))[0]
                    #expect(answer.body == first.body)
                }
                // Then nothing: it closes once the clock passes the idle timeout (it ticks on here).
                #expect(try await ticking(clock) { try await connection.waitForClose() }, "closed once idle")
            }
        }
    }

    // MARK: Known answers follow what they depend on

    /// What `library` answers `path` with at once (``Pending/now(_:)``, what the fast lane gives),
    /// or nil when it must be found later (the full path).
    static func known(_ library: ContentLibrary, _ path: String) throws -> [UInt8]? {
        let mounted = try #require(library.mounted(path))
        return (try? library.answer(mounted, query: [:]))?.known?.bytes
    }

    /// The full answer for `path` once answering it decides nothing more (a first serving moves the
    /// state on), checked to be the one known at once from then on.
    static func settled(_ library: ContentLibrary, _ path: String) async throws -> [UInt8] {
        let mounted = try #require(library.mounted(path))
        for _ in 0..<4 {
            let full = try #require(try await library.get(mounted, query: [:]).bytes)
            if try known(library, path) == full { return full }
        }
        Issue.record("\(path) is never known at once")
        return []
    }

    @Test(
        "A known answer is the full path's, and goes when what it depends on changes: an admin break, a new live window, any state change"
    )
    func knownAnswersFollow() async throws {
        try await withDemoLibrary { library, state, clock in
            let vod = "/demo/vod/video/main.m3u8"
            let live = "/demo/live/video/main.m3u8"
            // An admin break: the state's version moves on, the known answer goes, the next has the break.
            let before = try await Self.settled(library, vod)
            var request = InsertionRequest(id: "known-answer-break")
            request.at = MediaTime(seconds: 20)
            request.duration = MediaTime(seconds: 6)
            try await Catalog(library: library).createBreak(
                Break(target: Target(.vod, "demo"), interstitial: request, ad: "ad1"))
            #expect(try Self.known(library, vod) == nil, "an admin break drops the known answer")
            let after = try await Self.settled(library, vod)
            #expect(after != before && String(decoding: after, as: UTF8.self).contains("known-answer-break"))
            // A new live window (the clock passes a segment): the old window is not given again.
            let window = try await Self.settled(library, live)
            clock.advance(6)
            #expect(try Self.known(library, live) == nil, "a new live window drops the known answer")
            let next = try await Self.settled(library, live)
            #expect(next != window)
            // Within one window, the known answer stays.
            clock.advance(0.1)
            #expect(try Self.known(library, live) == next)
            // Any change to the state moves its version on: a write here, or one loaded from another
            // replica's (``ServerState/refresh()``; StoreReplicaTests checks that the version moves).
            let version = state.versioned.version
            let ad = Ad(id: "other", uri: "/ads/o.m3u8", duration: MediaTime(seconds: 5))
            try await state.update { $0.apply(.saveAd(ad)) }
            #expect(state.versioned.version > version)
            #expect(try Self.known(library, vod) == nil && Self.known(library, live) == nil)
            #expect(try await Self.settled(library, vod) == after)
        }
    }

    // MARK: The guard, driven directly

    /// A guard whose fast lane answers `/kept` with "hello", on `clock`.
    static func channel(clock: ManualServerClock = .starting()) throws -> (EmbeddedChannel, RequestGuard) {
        let lane = FastLane(serverName: "test") { path, _ in
            guard path == "/kept" else { return nil }
            return FastLane.Answer(fields: [.contentLength: "5"], body: .bytes(ByteBuffer(string: "hello")))
        }
        var limits = RequestGuard.Limits(ServerLimits())
        limits.idleTimeout = MediaTime(seconds: 60)
        let requestGuard = RequestGuard(limits: limits, logger: Harness.logger, clock: clock, fastLane: lane)
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(requestGuard)
        return (channel, requestGuard)
    }

    static func passed(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let buffer = try channel.readInbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
        return text
    }

    static func answered(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let data = try channel.readOutbound(as: IOData.self) {
            guard case .byteBuffer(let buffer) = data else { continue }
            text += String(buffer: buffer)
        }
        return text
    }

    @Test("The guard answers only once the pipeline is in place and nothing is being answered behind")
    func guardOrder() throws {
        let (channel, requestGuard) = try Self.channel()
        defer { _ = try? channel.finish() }
        let kept = Self.get("/kept")
        // Before the HTTP/1 pipeline is in place, everything passes on.
        try channel.writeInbound(ByteBuffer(string: kept))
        #expect(try Self.passed(channel) == kept)
        requestGuard.trackerAdded()
        // The first answer is still being written behind: in order, this one passes on too.
        try channel.writeInbound(ByteBuffer(string: kept))
        #expect(try Self.passed(channel) == kept)
        requestGuard.answerEnded()
        requestGuard.answerEnded()
        try channel.writeInbound(ByteBuffer(string: kept))
        #expect(try Self.passed(channel).isEmpty)
        let answer = try Self.answered(channel)
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nDate: "))
        #expect(answer.hasSuffix("\r\nServer: test\r\n\r\nhello"))
        // A request it has no answer for passes on, and the one pipelined behind it waits its turn.
        let other = Self.get("/other")
        try channel.writeInbound(ByteBuffer(string: other + kept))
        #expect(try Self.passed(channel) == other + kept)
        #expect(try Self.answered(channel).isEmpty)
        requestGuard.answerEnded()
        requestGuard.answerEnded()
        // A request with a body or a condition passes on (the lane has no answer for the query).
        for request in [
            "GET /kept HTTP/1.1\r\nContent-Length: 2\r\n\r\nab", Self.get("/kept?a=1"),
            Self.get("/kept", "If-None-Match: \"x\"\r\n"), Self.get("/kept", "RANGE: bytes=0-1\r\n"),
            "GET /kept HTTP/1.0\r\n\r\n", "HEAD /kept HTTP/1.1\r\n\r\n", Self.get("/k%65pt"),
        ] {
            try channel.writeInbound(ByteBuffer(string: request))
            // An HTTP/1.0 request without keep-alive passes on closing its connection (RFC 9112 §9.3).
            let passed = request.replacingOccurrences(
                of: "HTTP/1.0\r\n\r\n", with: "HTTP/1.0\r\nConnection: close\r\n\r\n")
            #expect(try Self.passed(channel) == passed, "\(request.debugDescription)")
            requestGuard.answerEnded()
        }
        #expect(try Self.answered(channel).isEmpty)
    }

    @Test("Heads split across reads and blank lines between requests: answered once whole, nothing else passes")
    func guardSplitHeads() throws {
        let (channel, requestGuard) = try Self.channel()
        defer { _ = try? channel.finish() }
        requestGuard.trackerAdded()
        let kept = Self.get("/kept")
        for split in 1..<kept.utf8.count {
            let bytes = Array(kept.utf8)
            try channel.writeInbound(ByteBuffer(bytes: [0x0D, 0x0A] + bytes[..<split]))
            #expect(try Self.answered(channel).isEmpty)
            try channel.writeInbound(ByteBuffer(bytes: bytes[split...]))
            #expect(try Self.answered(channel).hasSuffix("hello"), "split at \(split)")
            #expect(try Self.passed(channel).isEmpty)
        }
        // A request split across reads that it has no answer for passes on whole, once.
        let other = Array(Self.get("/other", "X-A: 1\r\n").utf8)
        try channel.writeInbound(ByteBuffer(bytes: other[..<20]))
        #expect(try Self.passed(channel).isEmpty)
        try channel.writeInbound(ByteBuffer(bytes: other[20...]))
        #expect(try Self.passed(channel) == String(decoding: other, as: UTF8.self))
    }

    @Test("On the server's clock: a client not reading its answer is not idle; an idle connection is closed")
    func guardIdle() throws {
        let clock = ManualServerClock.starting()
        let (channel, requestGuard) = try Self.channel(clock: clock)
        defer { _ = try? channel.finish() }
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        requestGuard.trackerAdded()
        try channel.writeInbound(ByteBuffer(string: Self.get("/kept")))
        #expect(try Self.answered(channel).hasSuffix("hello"))
        // The answer waits for a client that does not read: not idle, however long.
        channel.isWritable = false
        clock.advance(200, on: channel)
        #expect(channel.isActive)
        channel.isWritable = true
        clock.advance(30, on: channel)
        #expect(channel.isActive, "idle for less than the idle timeout since the timer last looked")
        clock.advance(61, on: channel)
        // Idle: the input is closed for the handlers behind, and the connection closed in time.
        clock.advance(11, on: channel)
        #expect(!channel.isActive)
    }

    @Test("A head sent across reads slower than the header timeout gets 408, on the server's clock")
    func guardSlowHead() throws {
        let clock = ManualServerClock.starting()
        let (channel, _) = try Self.channel(clock: clock)
        defer { _ = try? channel.finish() }
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.writeInbound(ByteBuffer(string: "GET /kept HTTP/1.1\r\n"))
        clock.advance(9, on: channel)
        try channel.writeInbound(ByteBuffer(string: "Host: x\r\n"))
        #expect(try Self.answered(channel).isEmpty)
        clock.advance(2, on: channel)
        channel.close(promise: nil)
        #expect(try Self.answered(channel).hasPrefix("HTTP/1.1 408 Request Timeout"))
    }

    @Test(
        "Whatever the reads, the guard passes on every request it does not answer, byte for byte, and answers the rest",
        arguments: 0..<40)
    func guardAnyReads(seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        let session = #"{"url":"http://x/main.m3u8","location":{"primary":1}}"#
        let kinds = [
            Self.get("/kept"),
            Self.get("/kept", "Accept: */*\r\nX-Long: " + String(repeating: "a", count: 300) + "\r\n"),
            Self.get("/other"), Self.get("/kept", "If-None-Match: \"x\"\r\n"),
            "POST /handoff/a HTTP/1.1\r\nContent-Length: \(session.utf8.count)\r\n\r\n" + session,
            "POST /handoff/b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                + String(session.utf8.count, radix: 16) + "\r\n" + session + "\r\n0\r\n\r\n",
        ]
        // Kept requests first, then any, some after a blank line. The kept ones before the first
        // request passed on are answered here; from that request on, every later one waits behind
        // it and passes on too.
        var requests: [String] = []
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            requests.append(kinds[Int.random(in: 0...1, using: &random)])
        }
        for _ in 0..<Int.random(in: 0...5, using: &random) { requests.append(kinds.randomElement(using: &random)!) }
        let blank = requests.map { _ in Bool.random(using: &random) }
        let answeredCount = requests.firstIndex { !kinds[0...1].contains($0) } ?? requests.count
        let bytes = Array(zip(requests, blank).map { ($1 ? "\r\n" : "") + $0 }.joined().utf8)
        let (channel, requestGuard) = try Self.channel()
        defer { _ = try? channel.finish() }
        requestGuard.trackerAdded()
        var index = 0
        while index < bytes.count {
            let count = min(bytes.count - index, Int.random(in: 1...80, using: &random))
            try channel.writeInbound(ByteBuffer(bytes: bytes[index..<(index + count)]))
            index += count
        }
        // Blank lines before a request line are dropped; the rest passes on as it came.
        #expect(try Self.passed(channel) == requests.dropFirst(answeredCount).joined(), "seed \(seed)")
        let answers = try Self.answered(channel).components(separatedBy: "HTTP/1.1 200 OK").count - 1
        #expect(answers == answeredCount, "seed \(seed)")
    }

    @Test("HTTP dates are IMF-fixdate")
    func httpDate() {
        #expect(FastLane.httpDate(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(FastLane.httpDate(1_795_000_000) == "Wed, 18 Nov 2026 11:06:40 GMT")
    }

    @Test(
        "A file's media type comes from the extension after its last dot, in any case",
        arguments: [
            ("/srv/.build-x/demo/vod/video/seg001.m4s", "video/iso.segment"),
            ("/srv/a.b/MAIN.M3U8", "application/vnd.apple.mpegurl"), ("ad.MP4", "video/mp4"),
            ("subs/en.webvtt", "text/vtt"), ("/srv/page/index.html", "text/html; charset=utf-8"),
            ("/srv/a.m4s/file", "application/octet-stream"), ("seg.m4s.", "application/octet-stream"),
            ("m3u8", "application/octet-stream"), ("", "application/octet-stream"),
        ])
    func contentType(_ name: String, _ type: String) {
        #expect(ContentResponse.contentType(of: name) == type)
    }
}
