// The demo page's ad tracking rules, driven directly: times in, beacons out, no browser.
// Run: node --test Tests/Page/
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  BeaconTracker,
  END_TOLERANCE,
  SIGNALING,
  beaconSchedule,
  due,
  readSignaling,
  requests,
  signalingOf,
  vastClock,
} from "../../Sources/InterstitialServer/Resources/page/tracking.mjs";

// A slot as the server writes it (AdCreativeSignaling.swift): one entry per VAST event.
const TYPES = ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"];
function slot(ad, duration, extra = []) {
  return {
    type: "linear",
    start: 0,
    duration,
    identifiers: [{ scheme: "e2e", value: ad }],
    tracking: [...TYPES.map((type) => ({ type, urls: [`https://ads.example/t/${ad}/${type}`] })), ...extra],
  };
}
const envelope = (type, payload) => ({ version: 2, type, payload });
// midroll-2 of the demo: ad2 (4 s) and ad3 (6 s), a skip entry on ad3, breakStart/breakEnd on the pod.
const skipEntry = { type: "skip", urls: ["https://ads.example/t/ad3/skip"] };
const list = {
  ASSETS: [
    { URI: "ad2.m3u8", DURATION: 4, [SIGNALING]: envelope("slot", [slot("ad2", 4)]) },
    { URI: "ad3.m3u8", DURATION: 6, [SIGNALING]: envelope("slot", [slot("ad3", 6, [skipEntry])]) },
  ],
  [SIGNALING]: envelope("pod", [
    {
      start: 0,
      duration: 10,
      slots: [slot("ad2", 4), slot("ad3", 6, [skipEntry])],
      tracking: [
        { type: "breakStart", urls: ["https://ads.example/t/pod/breakStart"] },
        { type: "breakEnd", urls: ["https://ads.example/t/pod/breakEnd"] },
      ],
    },
  ]),
};
const names = (firings) =>
  firings.map((firing) => (firing.index === null ? firing.type : `${firing.index}/${firing.type}`));

// Starts asset `index` of midroll-2 on `tracker` and feeds it the positions given.
function play(tracker, index, positions, { end = null, event = "midroll-2" } = {}) {
  const { slot: found, pod } = signalingOf(list, index);
  tracker.assetStarted({ eventID: event, index, slot: found, pod, end });
  return positions.flatMap((position) => tracker.advanced(event, index, position));
}

test("the signaling is read from the asset (slot) and the list (pod)", () => {
  const first = signalingOf(list, 0);
  assert.equal(first.slot.duration, 4);
  assert.deepEqual(
    first.slot.tracking.map((entry) => entry.type),
    TYPES,
  );
  assert.deepEqual(
    first.pod.map((entry) => entry.type),
    ["breakStart", "breakEnd"],
  );
  // Without slots on the assets, the pod's slot at the same index (one per asset).
  const podOnly = { ...list, ASSETS: list.ASSETS.map(({ URI, DURATION }) => ({ URI, DURATION })) };
  assert.equal(signalingOf(podOnly, 1).slot.duration, 6);
  // …but not when the pod does not list one slot per asset.
  const three = { ...podOnly, ASSETS: [...podOnly.ASSETS, { URI: "x.m3u8", DURATION: 1 }] };
  assert.equal(signalingOf(three, 1).slot, null);
  // No signaling at all: nothing to track.
  assert.deepEqual(signalingOf({ ASSETS: [{ URI: "a.m3u8" }] }, 0), { slot: null, pod: [] });
  assert.deepEqual(signalingOf(null, 0), { slot: null, pod: [] });
});

test("unreadable signaling is ignored; unknown members are not an error", () => {
  assert.equal(readSignaling({ type: "cue", payload: [] }), null);
  assert.equal(readSignaling({ type: "slot" }), null);
  assert.equal(readSignaling(envelope("slot", [{ duration: "4", tracking: [] }])), null);
  assert.equal(readSignaling(envelope("slot", [{ duration: 4, tracking: [{ urls: [] }] }])), null);
  assert.equal(readSignaling(envelope("slot", [{ duration: 4, tracking: [{ type: "start", urls: [1] }] }])), null);
  assert.equal(
    readSignaling(
      envelope("slot", [
        { duration: 4, tracking: [{ type: "start", urls: Array.from({ length: 65 }, () => "https://a") }] },
      ]),
    ),
    null,
  );
  assert.equal(readSignaling(envelope("pod", [])), null);
  const read = readSignaling({
    ...envelope("slot", [{ duration: 4, vendorThing: 1, tracking: [{ type: "start", urls: ["https://a"], x: 1 }] }]),
    extra: true,
  });
  assert.deepEqual(read, {
    kind: "slot",
    slots: [{ duration: 4, tracking: [{ type: "start", urls: ["https://a"], offset: null }] }],
    podTracking: [],
  });
});

test("the schedule: start at 0, quartiles of the played duration, complete at the end, progress at its offset", () => {
  const entries = [
    { type: "progress", offset: 3, urls: ["https://p3"] },
    { type: "progress", offset: 9, urls: ["https://p9"] },
    { type: "creativeView", urls: ["https://cv"] },
    { type: "pause", urls: ["https://pause"] },
  ];
  const schedule = beaconSchedule(readSignaling(envelope("slot", [slot("ad", 8, entries)])).slots[0], 6);
  assert.deepEqual(
    schedule.timed.map((beacon) => [beacon.time, beacon.type]),
    [
      [0, "impression"],
      [0, "creativeView"],
      [0, "start"],
      [1.5, "firstQuartile"],
      [3, "progress"],
      [3, "midpoint"],
      [4.5, "thirdQuartile"],
      [6, "complete"],
    ],
  );
  assert.deepEqual(schedule.onEvent, { pause: ["https://pause"] });
  assert.deepEqual(
    due(schedule, null, 0).map((beacon) => beacon.type),
    ["impression", "creativeView", "start"],
  );
  assert.deepEqual(
    due(schedule, 1.5, 4.5).map((beacon) => beacon.type),
    ["progress", "midpoint", "thirdQuartile"],
  );
});

test("an asset played through fires each beacon once, at its time; the pod's at its start and end", () => {
  const tracker = new BeaconTracker();
  assert.deepEqual(play(tracker, 0, []), [], "nothing before the first frame");
  assert.deepEqual(names(tracker.advanced("midroll-2", 0, 0)), ["breakStart", "0/impression", "0/start"]);
  assert.deepEqual(names(tracker.advanced("midroll-2", 0, 0.9)), []);
  assert.deepEqual(names(tracker.advanced("midroll-2", 0, 1.0)), ["0/firstQuartile"]);
  assert.deepEqual(names(tracker.advanced("midroll-2", 0, 3.5)), ["0/midpoint", "0/thirdQuartile"]);
  // Positions of another asset or event are not this asset's.
  assert.deepEqual(tracker.advanced("midroll-2", 1, 3.9), []);
  assert.deepEqual(tracker.advanced("other", 0, 3.9), []);
  // The element ends a little short of 4 s: ended means played to its end.
  assert.deepEqual(names(tracker.assetEnded("midroll-2", 0)), ["0/complete"]);
  assert.deepEqual(tracker.assetEnded("midroll-2", 0), []);
  const second = play(tracker, 1, [0, 6]);
  assert.deepEqual(names(second), [
    "1/impression",
    "1/start",
    "1/firstQuartile",
    "1/midpoint",
    "1/thirdQuartile",
    "1/complete",
  ]);
  assert.deepEqual(second.find((firing) => firing.type === "midpoint").adPlayhead, 3);
  assert.deepEqual(names(tracker.eventEnded("midroll-2")), ["breakEnd"]);
  assert.deepEqual(tracker.eventEnded("midroll-2"), []);
});

test("a seek back or the same position again does not fire twice; the event playing again does not either", () => {
  const tracker = new BeaconTracker();
  const first = play(tracker, 0, [0, 1, 2, 0.5, 2.5, 2]);
  assert.deepEqual(names(first), ["breakStart", "0/impression", "0/start", "0/firstQuartile", "0/midpoint"]);
  assert.deepEqual(tracker.assetCut(), []);
  tracker.eventEnded("midroll-2");
  assert.deepEqual(names(play(tracker, 0, [0, 3.5])), ["0/thirdQuartile"], "only what had not fired");
  assert.deepEqual(names(tracker.assetEnded("midroll-2", 0)), ["0/complete"]);
  // A new asset list for the event (a new decision) starts afresh.
  tracker.eventEnded("midroll-2");
  tracker.forget("midroll-2");
  assert.deepEqual(names(play(tracker, 0, [0])), ["breakStart", "0/impression", "0/start"]);
  // The same ad in another event is another beacon.
  assert.deepEqual(names(play(tracker, 0, [0], { event: "preroll" })), ["breakStart", "0/impression", "0/start"]);
});

test("entered late or cut by a playout limit, quartiles are of the duration played", () => {
  const tracker = new BeaconTracker();
  // ad3 (6 s) entered at 2 s: 4 s played, quartiles at 3, 4 and 5 s of its media.
  assert.deepEqual(names(play(tracker, 1, [2, 2.9], { end: 6 })), ["breakStart", "1/impression", "1/start"]);
  assert.deepEqual(names(tracker.advanced("midroll-2", 1, 3)), ["1/firstQuartile"]);
  assert.deepEqual(names(tracker.advanced("midroll-2", 1, 5)), ["1/midpoint", "1/thirdQuartile"]);
  assert.deepEqual(names(tracker.advanced("midroll-2", 1, 6)), ["1/complete"]);
  // Its end unknown: the slot's duration from where it was entered.
  const unknown = new BeaconTracker();
  assert.deepEqual(names(play(unknown, 0, [1, 2, 4.9])), [
    "breakStart",
    "0/impression",
    "0/start",
    "0/firstQuartile",
    "0/midpoint",
    "0/thirdQuartile",
  ]);
  assert.deepEqual(names(unknown.advanced("midroll-2", 0, 5)), ["0/complete"]);
  // Cut to 2 s by a playout limit: complete at 2 s.
  const limited = new BeaconTracker();
  assert.deepEqual(names(play(limited, 1, [0, 1, 2], { end: 2 })), [
    "breakStart",
    "1/impression",
    "1/start",
    "1/firstQuartile",
    "1/midpoint",
    "1/thirdQuartile",
    "1/complete",
  ]);
});

test("after a skip only skip fires; an asset cut otherwise fires nothing more", () => {
  const tracker = new BeaconTracker();
  play(tracker, 1, [0, 2]);
  const skipped = tracker.assetCut({ skipped: true, at: 2.5 });
  assert.deepEqual(names(skipped), ["1/skip"]);
  assert.equal(skipped[0].adPlayhead, 2.5);
  assert.deepEqual(tracker.advanced("midroll-2", 1, 6), []);
  assert.deepEqual(tracker.assetEnded("midroll-2", 1), []);
  assert.deepEqual(names(tracker.eventEnded("midroll-2")), ["breakEnd"]);
  // A skip of an asset without a skip entry, and any other cut: nothing.
  const other = new BeaconTracker();
  play(other, 0, [0, 1.5]);
  assert.deepEqual(other.assetCut({ skipped: true }), []);
  play(other, 1, [0, 1.5]);
  assert.deepEqual(other.assetCut(), []);
  assert.deepEqual(other.advanced("midroll-2", 1, 6), []);
});

test("an asset that stops: at its end (within the tolerance) it completed, else it was cut", () => {
  const tracker = new BeaconTracker();
  play(tracker, 0, [0, 3.8]);
  assert.deepEqual(names(tracker.assetStopped("midroll-2", 0, 4 - END_TOLERANCE / 2)), ["0/complete"]);
  play(tracker, 1, [0, 3.1]);
  assert.deepEqual(tracker.assetStopped("midroll-2", 1, 3.2), []);
  assert.deepEqual(tracker.advanced("midroll-2", 1, 6), []);
});

test("an event with no frame shown fires no breakEnd; an asset without signaling fires only the pod's", () => {
  const tracker = new BeaconTracker();
  play(tracker, 0, []);
  assert.deepEqual(tracker.eventEnded("midroll-2"), []);
  const bare = { ASSETS: [{ URI: "a.m3u8", DURATION: 4 }], [SIGNALING]: list[SIGNALING] };
  const { slot: none, pod } = signalingOf(bare, 0);
  tracker.assetStarted({ eventID: "e", index: 0, slot: none, pod });
  assert.deepEqual(names(tracker.advanced("e", 0, 0)), ["breakStart"]);
  assert.deepEqual(tracker.assetEnded("e", 0), []);
  assert.deepEqual(names(tracker.eventEnded()), ["breakEnd"], "the current pod's by default");
});

test("requests: one per http(s) URL, with the macros a player knows filled", () => {
  const firings = [
    {
      eventID: "e",
      index: 0,
      type: "start",
      adPlayhead: 3725.5,
      urls: [
        "https://a.example/s?cb=[CACHEBUSTING]&t=[TIMESTAMP]&p=[ADPLAYHEAD]&x=[OTHER]",
        "javascript:alert(1)",
        "ftp://a/b",
        "not a url",
      ],
    },
    { eventID: "e", index: null, type: "breakEnd", adPlayhead: null, urls: ["http://a.example/end?p=[ADPLAYHEAD]"] },
  ];
  const sent = requests(firings, { now: Date.UTC(2025, 0, 2, 3, 4, 5, 6), random: () => 0.5 });
  assert.deepEqual(sent, [
    {
      type: "start",
      id: "e",
      index: 0,
      url: "https://a.example/s?cb=55000000&t=2025-01-02T03%3A04%3A05.006Z&p=01%3A02%3A05.500&x=[OTHER]",
    },
    { type: "breakEnd", id: "e", index: null, url: "http://a.example/end?p=[ADPLAYHEAD]" },
  ]);
  assert.equal(vastClock(0), "00:00:00.000");
  assert.equal(vastClock(4.2), "00:00:04.200");
});
