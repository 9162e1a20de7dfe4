// The demo page's player: how a live element's time zero is dated (issue 47, item 1: the live
// channel played after the VOD had its dates mapped from the VOD's playlists).

import assert from "node:assert/strict";
import { test } from "node:test";
import { fetchedSince, liveOriginOf, segmentDates } from "../../Sources/InterstitialServer/Resources/page/player.mjs";

const base = "http://127.0.0.1:8080/demo/live/video.m3u8";
const live = [
  "#EXTM3U",
  "#EXT-X-TARGETDURATION:2",
  "#EXT-X-MEDIA-SEQUENCE:100",
  "#EXT-X-PROGRAM-DATE-TIME:2026-11-28T12:00:00.000Z",
  "#EXTINF:2,",
  "s100.mp4",
  "#EXTINF:2,",
  "s101.mp4",
  "#EXTINF:2,",
  "s102.mp4",
].join("\n");
const vod = ["#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXTINF:6,", "v0.mp4", "#EXTINF:6,", "v1.mp4"].join("\n");
const noon = Date.parse("2026-11-28T12:00:00Z") / 1000;

test("only the resources fetched since the load began count", () => {
  const entries = [
    { name: "http://127.0.0.1:8080/demo/vod/video.m3u8", startTime: 10 },
    { name: "http://127.0.0.1:8080/demo/vod/v0.mp4#t=0", startTime: 11 },
    { name: "http://127.0.0.1:8080/demo/live/master.m3u8", startTime: 500 },
    { name: "http://127.0.0.1:8080/demo/live/s101.mp4#x", startTime: 501 },
  ];
  assert.deepEqual(fetchedSince(entries, 500), [
    "http://127.0.0.1:8080/demo/live/master.m3u8",
    "http://127.0.0.1:8080/demo/live/s101.mp4",
  ]);
});

test("the origin is the first segment of the last run fetched, less what is buffered before it", () => {
  const segments = segmentDates(live, base);
  const fetched = [
    "http://127.0.0.1:8080/demo/live/s100.mp4",
    "http://127.0.0.1:8080/demo/live/s101.mp4?x=1",
    "http://127.0.0.1:8080/demo/live/s102.mp4",
  ];
  assert.equal(liveOriginOf(segments, fetched, 0), noon);
  assert.equal(liveOriginOf(segments, fetched.slice(1), 0.5), noon + 2 - 0.5);
});

test("undated segments (a VOD's) and unfetched playlists give no origin, never a date near 1970", () => {
  const vodBase = "http://127.0.0.1:8080/demo/vod/video.m3u8";
  assert.equal(liveOriginOf(segmentDates(vod, vodBase), ["http://127.0.0.1:8080/demo/vod/v0.mp4"], 0), null);
  assert.equal(liveOriginOf(segmentDates(live, base), ["http://127.0.0.1:8080/demo/vod/v0.mp4"], 0), null);
});
