import HLSInterstitials
import HLSPlaylist
import Testing

@testable import PlaybackEngine

/// The load bookkeeping on its own: what is in flight, requested, loaded, failed or discarded.
@Suite("Load book")
struct LoadBookTests {
    typealias Book = PlaybackStateMachine.LoadBook
    static let list = AssetList(assets: [AssetList.Asset(uri: "a.m3u8", duration: s(5))])
    static let media = AssetMedia(duration: s(5), segmentURLs: ["a-0.ts"])

    @Test("a buffering load is the one in flight until it finishes; its list or asset is requested")
    func buffering() {
        var book = Book()
        book.startedBuffering(.assetList("e"), url: "https://x/e.json")
        #expect(book.bufferLoad == .assetList("e"))
        #expect(book.inFlight == [.assetList("e")])
        #expect(book.lists["e"] == .requested)
        #expect(book.listURLs["e"] == "https://x/e.json")
        let listLoaded = book.listLoaded("e", Self.list)
        #expect(listLoaded)
        #expect(book.bufferLoad == nil)
        #expect(book.inFlight.isEmpty)
        #expect(book.lists["e"] == .loaded(Self.list))
        book.startedBuffering(.asset("e", 0), url: "https://x/a.m3u8")
        #expect(book.assets["e"]?[0] == .requested)
        book.failed(.asset("e", 0), "404")
        #expect(book.assets["e"]?[0] == .failed("404"))
        #expect(book.bufferLoad == nil)
    }

    @Test("a cancelled load may be asked for again; a forgotten event loads anew")
    func cancelAndForget() {
        var book = Book()
        book.startedBuffering(.asset("e", 1), url: "u")
        book.cancelled(.asset("e", 1))
        #expect(book.assets["e"]?[1] == nil)
        #expect(book.inFlight.isEmpty)
        book.startedBuffering(.assetList("e"), url: "u")
        _ = book.listLoaded("e", Self.list)
        book.forget(eventID: "e")
        #expect(book.lists["e"] == nil && book.listURLs["e"] == nil && book.assets["e"] == nil)
    }

    @Test("segments: pending until loading, then loaded or failed; buffered ones count as loaded")
    func segments() {
        var book = Book()
        #expect(book.isPending("s1"))
        book.startedBuffering(.segment("s1"), url: "s1")
        #expect(!book.isPending("s1"))
        book.segmentLoaded("s1")
        #expect(book.loadedSegments == ["s1"] && book.bufferLoad == nil)
        book.failed(.segment("s2"), "timeout")
        #expect(book.failedSegments == ["s2"] && !book.isPending("s2"))
        book.startedBuffering(.segment("s3"), url: "s3")
        book.buffered("s4")
        #expect(book.bufferLoad == .segment("s3"), "marking a segment buffered does not end the load in flight")
        #expect(!book.isPending("s4"))
    }

    @Test("a live reload is taken once when due and none is in flight")
    func reload() {
        var book = Book()
        book.scheduleReload(at: clock(10))
        let early = book.takeReload(at: clock(9))
        #expect(!early)
        book.started(.primary)
        let inFlight = book.takeReload(at: clock(10))
        #expect(!inFlight)
        book.finished(.primary)
        let due = book.takeReload(at: clock(10))
        #expect(due)
        let again = book.takeReload(at: clock(11))
        #expect(!again)
        #expect(book.nextReload == nil)
    }

    @Test("a removed preload hint discards what arrives for its event")
    func preloadDiscard() {
        var book = Book()
        book.place(hint: "h", at: s(3))
        book.startedBuffering(.assetList("e"), url: "u")
        book.issued(hint: "h", for: "e")
        #expect(book.removeHint("h") == "e")
        #expect(book.preloadPoints["h"] == nil && book.preloaded["h"] == nil)
        book.discardWhenArriving("e")
        let kept = book.listLoaded("e", Self.list)
        #expect(!kept)
        #expect(book.lists["e"] == nil)
        book.startedBuffering(.asset("e", 0), url: "u")
        let assetKept = book.assetLoaded("e", 0, Self.media)
        #expect(assetKept, "nothing is discarded once the discard was used")
        #expect(book.assets["e"]?[0] == .loaded(Self.media))
    }
}
