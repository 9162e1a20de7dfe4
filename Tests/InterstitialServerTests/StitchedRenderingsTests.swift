import HLSPlaylist
import NIOConcurrencyHelpers
import Testing

@testable import InterstitialServer

/// The stitched playlists kept per viewer (issue 45): the same bytes for the same version of the
/// primary, for at most a minute, within the memo's bounds.
@Suite("Stitched renderings")
struct StitchedRenderingsTests {
    @Test("a rendering is used for its primary's version only, and for at most its lifetime (manual clock)")
    func versionAndLifetime() {
        let clock = NIOLockedValueBox(DateTime(iso8601: "2026-03-01T12:00:00Z")!)
        let renderings = StitchedRenderings(
            limits: .init(count: 10, bytes: 1 << 20, idle: MediaTime(seconds: 3600)),
            now: { clock.withLockedValue { $0 } })
        #expect(renderings.bytes("t|viewer|video.m3u8", version: "v1") == nil)
        renderings.keep([1, 2, 3], for: "t|viewer|video.m3u8", version: "v1")
        #expect(renderings.bytes("t|viewer|video.m3u8", version: "v1") == [1, 2, 3])
        // Another version of the primary (the window moved, a break changed), another viewer.
        #expect(renderings.bytes("t|viewer|video.m3u8", version: "v2") == nil)
        #expect(renderings.bytes("t|other|video.m3u8", version: "v1") == nil)
        // Used while young, whatever the requests in between.
        clock.withLockedValue { $0 = $0 + MediaTime(seconds: 59) }
        #expect(renderings.bytes("t|viewer|video.m3u8", version: "v1") == [1, 2, 3])
        clock.withLockedValue { $0 = $0 + MediaTime(seconds: 1) }
        #expect(renderings.bytes("t|viewer|video.m3u8", version: "v1") == nil, "made again after a minute")
        renderings.keep([4], for: "t|viewer|video.m3u8", version: "v2")
        #expect(renderings.bytes("t|viewer|video.m3u8", version: "v2") == [4])
        #expect(renderings.memo.usage.count == 1, "one entry per viewer and playlist")
    }

    @Test("renderings are bounded in count: the least recently used go first")
    func bounded() {
        let renderings = StitchedRenderings(
            limits: .init(count: 3, bytes: 1 << 20, idle: MediaTime(seconds: 3600)),
            now: { DateTime(iso8601: "2026-03-01T12:00:00Z")! })
        for viewer in 0..<10 { renderings.keep([UInt8(viewer)], for: "t|\(viewer)|video.m3u8", version: "v") }
        #expect(renderings.memo.usage.count == 3)
        #expect(renderings.bytes("t|9|video.m3u8", version: "v") == [9])
        #expect(renderings.bytes("t|0|video.m3u8", version: "v") == nil)
    }
}
