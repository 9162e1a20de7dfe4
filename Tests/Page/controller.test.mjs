// The demo page's interstitial controller, driven directly: inputs in, actions out, no browser.
// Run: node --test Tests/Page/
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  adStatus,
  groupsOf,
  initial,
  integratedTime,
  skipWindow,
  step,
} from "../../Sources/InterstitialServer/Resources/page/controller.mjs";

// The demo VOD's schedule document (what /demo/vod/timeline.json serves), trimmed to what the
// controller reads.
function eventAt(id, start, extra = {}) {
  return {
    id,
    start,
    resumeTime: start,
    resumptionOffset: 0,
    playoutDuration: 4,
    scheduled: true,
    restrictions: [],
    timelineOccupancy: "RANGE",
    supplementsPrimaryContent: false,
    ...extra,
  };
}
const vod = {
  live: false,
  durations: { primary: 40, playout: 66, integrated: 66 },
  events: [
    eventAt("preroll", 0, {
      cue: ["PRE", "ONCE"],
      playoutDuration: 6,
      assetList: "/demo/vod/asset-list.json?_HLS_interstitial_id=preroll",
      resumeOffset: 0,
    }),
    eventAt("midroll-1", 12, {
      restrictions: ["SKIP", "JUMP"],
      assetURI: "http://127.0.0.1/ads/ad2/master.m3u8",
      resumeOffset: 0,
    }),
    eventAt("midroll-2", 26, {
      playoutDuration: 10,
      assetList: "/demo/vod/asset-list.json?_HLS_interstitial_id=midroll-2",
      resumeOffset: 0,
    }),
    eventAt("postroll", 40, { cue: ["POST"], playoutDuration: 6, assetURI: "http://127.0.0.1/ads/ad3/master.m3u8" }),
  ],
  items: [
    { kind: "interstitial", id: "preroll", primary: [0, 0], playout: [0, 6], integrated: [0, 6] },
    { kind: "primary", primary: [0, 12], playout: [6, 18], integrated: [6, 18] },
    { kind: "interstitial", id: "midroll-1", primary: [12, 12], playout: [18, 22], integrated: [18, 22] },
    { kind: "primary", primary: [12, 26], playout: [22, 36], integrated: [22, 36] },
    { kind: "interstitial", id: "midroll-2", primary: [26, 26], playout: [36, 46], integrated: [36, 46] },
    { kind: "primary", primary: [26, 40], playout: [46, 60], integrated: [46, 60] },
    { kind: "interstitial", id: "postroll", primary: [40, 40], playout: [60, 66], integrated: [60, 66] },
  ],
  groups: [
    { members: ["preroll"], cue: "PRE", start: 0, resumeTime: 0, playoutDuration: 6, scheduled: true, integrated: 0 },
    { members: ["midroll-1"], start: 12, resumeTime: 12, playoutDuration: 4, scheduled: true, integrated: 18 },
    { members: ["midroll-2"], start: 26, resumeTime: 26, playoutDuration: 10, scheduled: true, integrated: 36 },
    {
      members: ["postroll"],
      cue: "POST",
      start: 40,
      resumeTime: 40,
      playoutDuration: 6,
      scheduled: true,
      integrated: 60,
    },
  ],
};

// Feeds inputs in order; returns the last state and every action.
function run(state, inputs) {
  const actions = [];
  for (const input of inputs) {
    const result = step(state, input);
    state = result.state;
    actions.push(...result.actions);
  }
  return { state, actions };
}
const types = (actions, type) => actions.filter((action) => action.type === type);
const traces = (actions, name) => actions.filter((action) => action.type === "trace" && action.name === name);
const twoAds = {
  ASSETS: [
    { URI: "a.m3u8", DURATION: 6 },
    { URI: "b.m3u8", DURATION: 4 },
  ],
  "SKIP-CONTROL": { OFFSET: 2, DURATION: 6 },
};

test("groups are the document's: where each fires and where primary resumes", () => {
  const groups = groupsOf(vod);
  assert.deepEqual(
    groups.map((group) => [group.members.map((event) => event.id), group.at, group.resume, group.pre, group.post]),
    [
      [["preroll"], 0, 0, true, false],
      [["midroll-1"], 12, 12, false, false],
      [["midroll-2"], 26, 26, false, false],
      [["postroll"], 40, 40, false, true],
    ],
  );
});

test("a VOD plays pre-roll, mid-rolls and post-roll in order and ends (R9)", () => {
  let { state, actions } = run(initial(vod), [{ type: "start", at: 0 }]);
  assert.deepEqual(
    types(actions, "fetchList").map((action) => action.id),
    ["preroll"],
  );
  ({ state, actions } = run(state, [
    { type: "listLoaded", id: "preroll", list: { ASSETS: [{ URI: "p.m3u8", DURATION: 6 }] } },
    { type: "assetEnded" },
  ]));
  assert.deepEqual(types(actions, "playPrimary"), [{ type: "playPrimary", at: 0 }]);
  assert.equal(state.mode, "primary");
  ({ state, actions } = run(state, [
    { type: "tick", primary: 11.9 },
    { type: "tick", primary: 12.05 },
  ]));
  assert.equal(state.mode, "interstitial");
  assert.equal(types(actions, "playAsset")[0].uri, "http://127.0.0.1/ads/ad2/master.m3u8");
  ({ state, actions } = run(state, [{ type: "assetEnded" }]));
  assert.deepEqual(types(actions, "playPrimary"), [{ type: "playPrimary", at: 12 }]);
  ({ state, actions } = run(state, [
    { type: "tick", primary: 25.9 },
    { type: "tick", primary: 26.1 },
    { type: "listLoaded", id: "midroll-2", list: twoAds },
    { type: "assetEnded" },
    { type: "assetEnded" },
  ]));
  assert.deepEqual(
    types(actions, "playAsset").map((action) => action.uri),
    ["a.m3u8", "b.m3u8"],
  );
  assert.deepEqual(types(actions, "playPrimary"), [{ type: "playPrimary", at: 26 }]);
  ({ state, actions } = run(state, [{ type: "primaryEnded" }, { type: "assetEnded" }]));
  assert.equal(state.mode, "ended");
  assert.equal(types(actions, "ended").length, 1);
  assert.equal(integratedTime(state), 66);
});

test("ONCE: a pre-roll that started is not played again (R9)", () => {
  let { state } = run(initial(vod), [
    { type: "start", at: 0 },
    { type: "listFailed", id: "preroll", error: "x" },
  ]);
  assert.deepEqual(state.playedOnce, ["preroll"]);
  const again = run(state, [{ type: "seek", integrated: 0 }]).state;
  assert.notEqual(again.run && again.run.group.members[0].id, "preroll");
});

test("an asset-list failure cancels the event and primary resumes at its start (R7)", () => {
  let { state } = run(initial(vod), [
    { type: "start", at: 0 },
    { type: "listLoaded", id: "preroll", list: { ASSETS: [] } },
  ]);
  const { actions } = run({ ...state, mode: "primary", run: null, primaryTime: 25.9 }, [
    { type: "tick", primary: 26.1 },
    { type: "listFailed", id: "midroll-2", error: "HTTP 500" },
  ]);
  assert.deepEqual(types(actions, "playPrimary"), [{ type: "playPrimary", at: 26 }]);
  assert.equal(traces(actions, "ASSET_LIST_ERROR").length, 1);
});

test("a failing asset is skipped and the next one plays (R7)", () => {
  const { state } = run(initial(vod), [
    { type: "start", at: 0 },
    { type: "listLoaded", id: "preroll", list: { ASSETS: [] } },
  ]);
  const { actions } = run({ ...state, primaryTime: 25.9 }, [
    { type: "tick", primary: 26.1 },
    { type: "listLoaded", id: "midroll-2", list: twoAds },
    { type: "assetFailed", error: "decode" },
  ]);
  assert.deepEqual(
    types(actions, "playAsset").map((action) => action.uri),
    ["a.m3u8", "b.m3u8"],
  );
});

test("SKIP refuses forward seeks during the interstitial, with the reason (R13)", () => {
  const { state } = run(initial(vod), [
    { type: "start", at: 0 },
    { type: "listLoaded", id: "preroll", list: { ASSETS: [] } },
  ]);
  const inside = run({ ...state, primaryTime: 11.9 }, [{ type: "tick", primary: 12.05 }]).state;
  const { state: after, actions } = run(inside, [{ type: "seek", integrated: 50 }]);
  assert.equal(after.mode, "interstitial");
  assert.match(types(actions, "refused")[0].reason, /SKIP/);
});

test("a seek across a JUMP event plays it first, then lands on the target (R14)", () => {
  const { state } = run(initial(vod), [
    { type: "start", at: 0 },
    { type: "listLoaded", id: "preroll", list: { ASSETS: [] } },
  ]);
  let { state: jumping, actions } = run({ ...state, primaryTime: 5 }, [{ type: "seek", integrated: 30 }]);
  assert.equal(jumping.run.group.members[0].id, "midroll-1");
  assert.equal(traces(actions, "JUMP")[0].target, 20);
  ({ state: jumping, actions } = run(jumping, [{ type: "assetEnded" }]));
  assert.deepEqual(types(actions, "playPrimary"), [{ type: "playPrimary", at: 20 }]);
});

test("a seek into an interstitial starts its group from the beginning (R15)", () => {
  const { state } = run(initial(vod), [
    { type: "start", at: 0 },
    { type: "listLoaded", id: "preroll", list: { ASSETS: [] } },
  ]);
  const { state: seeking, actions } = run({ ...state, primaryTime: 30 }, [{ type: "seek", integrated: 40 }]);
  assert.equal(seeking.run.group.members[0].id, "midroll-2");
  assert.equal(types(actions, "fetchList")[0].startOffset, null);
});

test("skip control opens a window from the interstitial's start; the asset list's overrides the tag (R16)", () => {
  assert.deepEqual(skipWindow({ skipControl: { offset: 5 } }, null), [5, Infinity]);
  assert.deepEqual(
    skipWindow({ skipControl: { offset: 5, duration: 3 } }, { "SKIP-CONTROL": { OFFSET: 2, DURATION: 6 } }),
    [2, 8],
  );
  assert.equal(skipWindow({}, null), null);
  const { state } = run(initial(vod), [
    { type: "start", at: 0 },
    { type: "listLoaded", id: "preroll", list: { ASSETS: [] } },
  ]);
  let playing = run({ ...state, primaryTime: 25.9 }, [
    { type: "tick", primary: 26.1 },
    { type: "listLoaded", id: "midroll-2", list: twoAds },
  ]).state;
  playing = run(playing, [{ type: "assetTime", t: 1 }]).state;
  assert.equal(adStatus(playing).skippable, false);
  assert.equal(adStatus(playing).skipIn, 1);
  const early = run(playing, [{ type: "skip" }]);
  assert.match(types(early.actions, "refused")[0].reason, /in 1 s/);
  playing = run(playing, [{ type: "assetTime", t: 3 }]).state;
  assert.equal(adStatus(playing).skippable, true);
  assert.equal(adStatus(playing).remaining, 7);
  const skipped = run(playing, [{ type: "skip" }]);
  assert.equal(traces(skipped.actions, "INTERSTITIAL_SKIPPED").length, 1);
  assert.deepEqual(types(skipped.actions, "playPrimary"), [{ type: "playPrimary", at: 26 }]);
});

test("without skip control there is no skip button", () => {
  const { state } = run(initial(vod), [
    { type: "start", at: 0 },
    { type: "listLoaded", id: "preroll", list: { ASSETS: [] } },
  ]);
  const inside = run({ ...state, primaryTime: 11.9 }, [{ type: "tick", primary: 12.05 }]).state;
  assert.equal(adStatus(inside).skippable, false);
  assert.match(types(step(inside, { type: "skip" }).actions, "refused")[0].reason, /no skip control/);
});

const live = {
  live: true,
  durations: { primary: null, playout: null, integrated: null },
  events: [
    eventAt("break-1", 20, {
      playoutDuration: 10,
      assetList: "/demo/live/asset-list.json?_HLS_interstitial_id=break-1",
      date: "2026-11-24T05:30:30.000Z",
    }),
  ],
  items: [
    { kind: "primary", primary: [0, 20], playout: [0, 20], integrated: [0, 20] },
    { kind: "interstitial", id: "break-1", primary: [20, 30], playout: [20, 30], integrated: [20, 30] },
    { kind: "primary", primary: [30, 40], playout: [30, 40], integrated: [30, 40] },
  ],
  groups: [{ members: ["break-1"], start: 20, resumeTime: 30, playoutDuration: 10, scheduled: true, integrated: 20 }],
};

test("live without X-RESUME-OFFSET: primary keeps running and resumes at start + played (R10)", () => {
  let { state, actions } = run(initial(live, { live: true }), [
    { type: "start", at: 3 },
    { type: "tick", primary: 19.9 },
    { type: "tick", primary: 20.1 },
  ]);
  assert.deepEqual(types(actions, "pausePrimary"), [{ type: "pausePrimary", keepRunning: true }]);
  ({ state, actions } = run(state, [
    {
      type: "listLoaded",
      id: "break-1",
      list: {
        ASSETS: [
          { URI: "a", DURATION: 6 },
          { URI: "b", DURATION: 4 },
        ],
      },
    },
    { type: "assetEnded" },
    { type: "assetEnded" },
  ]));
  assert.deepEqual(types(actions, "playPrimary"), [{ type: "playPrimary", at: null, expected: 30 }]);
});

test("joining live inside a break plays it from the offset (R11)", () => {
  let { state, actions } = run(initial(live, { live: true }), [{ type: "start", at: 24 }]);
  assert.equal(types(actions, "fetchList")[0].startOffset, 4);
  ({ state, actions } = run(state, [
    {
      type: "listLoaded",
      id: "break-1",
      list: {
        ASSETS: [
          { URI: "a", DURATION: 6 },
          { URI: "b", DURATION: 4 },
        ],
      },
    },
  ]));
  assert.deepEqual(
    types(actions, "playAsset").map((action) => [action.uri, action.offset]),
    [["a", 4]],
  );
});

test("live refuses seeks with a reason", () => {
  const { state } = run(initial(live, { live: true }), [{ type: "start", at: 3 }]);
  assert.match(types(step(state, { type: "seek", integrated: 10 }).actions, "refused")[0].reason, /live/);
});

test("live: the element jumping into a break at start-up joins it from the offset (R11)", () => {
  const { state, actions } = run(initial(live, { live: true }), [
    { type: "start", at: 18 },
    { type: "tick", primary: 22.5 },
  ]);
  assert.equal(state.mode, "interstitial");
  assert.deepEqual(
    types(actions, "fetchList").map((action) => action.startOffset),
    [2.5],
  );
});

test("live: a jump past a whole break does not play it", () => {
  const { state, actions } = run(initial(live, { live: true }), [
    { type: "start", at: 18 },
    { type: "tick", primary: 31 },
  ]);
  assert.equal(state.mode, "primary");
  assert.deepEqual(types(actions, "fetchList"), []);
});

test("live: a break that played is not played again when a reload moves its time by rounding", () => {
  let { state } = run(initial(live, { live: true }), [
    { type: "start", at: 19.9 },
    { type: "tick", primary: 20.1 },
  ]);
  state = run(state, [
    { type: "listLoaded", id: "break-1", list: { ASSETS: [{ URI: "a", DURATION: 10 }] } },
    { type: "assetEnded" },
  ]).state;
  assert.equal(state.mode, "primary");
  const moved = structuredClone(live);
  moved.events[0].start += 2e-7;
  moved.items = moved.items.map((item) => ({ ...item, primary: item.primary.map((value) => value + 2e-7) }));
  moved.groups[0].start += 2e-7;
  moved.groups[0].resumeTime += 2e-7;
  const { state: after, actions } = run(state, [
    { type: "schedule", document: moved },
    { type: "tick", primary: 30.05 },
    { type: "tick", primary: 30.2 },
  ]);
  assert.equal(after.mode, "primary");
  assert.deepEqual(types(actions, "fetchList"), []);
});

test("a seek back before a mid-roll plays it again when reached; a seek past one without JUMP passes it over", () => {
  let { state } = run(initial(vod), [
    { type: "start", at: 0 },
    { type: "listLoaded", id: "preroll", list: { ASSETS: [] } },
  ]);
  state = run({ ...state, primaryTime: 11.9 }, [{ type: "tick", primary: 12.05 }, { type: "assetEnded" }]).state;
  assert.equal(state.mode, "primary");
  state = run(state, [{ type: "seek", integrated: 10 }]).state;
  assert.equal(state.primaryTime, 4);
  const again = run({ ...state, primaryTime: 11.9 }, [{ type: "tick", primary: 12.05 }]).state;
  assert.equal(again.mode, "interstitial");
  // Across midroll-2 (no JUMP) forward: it is passed over, and playing on does not go back to it.
  const past = run({ ...state, primaryTime: 14 }, [{ type: "seek", integrated: 48 }]).state;
  assert.equal(past.mode, "primary");
  assert.equal(past.primaryTime, 28);
  assert.equal(run(past, [{ type: "tick", primary: 28.2 }]).state.mode, "primary");
});

test("X-PLAYOUT-LIMIT ends an event early, and the asset's beacons count to the limit", () => {
  const limited = structuredClone(vod);
  limited.events[2].playoutLimit = 7;
  const { state } = run(initial(limited), [
    { type: "start", at: 0 },
    { type: "listLoaded", id: "preroll", list: { ASSETS: [] } },
  ]);
  let { state: playing, actions } = run({ ...state, primaryTime: 25.9 }, [
    { type: "tick", primary: 26.1 },
    { type: "listLoaded", id: "midroll-2", list: twoAds },
    { type: "assetEnded" },
  ]);
  // The first asset (6 s) plays whole; the second stops 1 s in, at the limit.
  assert.deepEqual(
    types(actions, "playAsset").map((action) => [action.uri, action.end]),
    [
      ["a.m3u8", 6],
      ["b.m3u8", 1],
    ],
  );
  ({ state: playing, actions } = run(playing, [{ type: "assetTime", t: 0.5 }]));
  assert.equal(playing.mode, "interstitial");
  ({ state: playing, actions } = run(playing, [{ type: "assetTime", t: 1 }]));
  assert.equal(traces(actions, "PLAYOUT_LIMIT_REACHED").length, 1);
  assert.deepEqual(types(actions, "playPrimary"), [{ type: "playPrimary", at: 26 }]);
  assert.equal(playing.mode, "primary");
});

test("return-now: a live reload that adds X-PLAYOUT-LIMIT to the break playing cuts it short", () => {
  let { state } = run(initial(live, { live: true }), [
    { type: "start", at: 19.9 },
    { type: "tick", primary: 20.1 },
    { type: "listLoaded", id: "break-1", list: { ASSETS: [{ URI: "a", DURATION: 10 }] } },
    { type: "assetTime", t: 3 },
  ]);
  assert.equal(state.mode, "interstitial");
  const returned = structuredClone(live);
  returned.events[0].playoutLimit = 4;
  returned.groups[0].playoutDuration = 4;
  returned.groups[0].resumeTime = 24;
  let actions;
  ({ state, actions } = run(state, [
    { type: "schedule", document: returned },
    { type: "assetTime", t: 3.5 },
  ]));
  assert.equal(state.mode, "interstitial");
  ({ state, actions } = run(state, [{ type: "assetTime", t: 4 }]));
  assert.equal(traces(actions, "PLAYOUT_LIMIT_REACHED").length, 1);
  assert.equal(state.mode, "primary");
  // R10: live primary ran on and resumes at the start plus the time played.
  assert.deepEqual(types(actions, "playPrimary"), [{ type: "playPrimary", at: null, expected: 24 }]);
});

test("a joined event's playout limit counts from the event's start (R11)", () => {
  const limited = structuredClone(live);
  limited.events[0].playoutLimit = 8;
  let { state, actions } = run(initial(limited, { live: true }), [
    { type: "start", at: 24 },
    { type: "listLoaded", id: "break-1", list: { ASSETS: [{ URI: "a", DURATION: 10 }] } },
  ]);
  assert.deepEqual(
    types(actions, "playAsset").map((action) => [action.offset, action.end]),
    [[4, 8]],
  );
  ({ state, actions } = run(state, [{ type: "assetTime", t: 7.5 }]));
  assert.equal(state.mode, "interstitial");
  ({ state, actions } = run(state, [{ type: "assetTime", t: 8 }]));
  assert.equal(state.mode, "primary");
});

test("return-now inside a group: the break ends at its limit and an event it covered plays as its own group", () => {
  const both = structuredClone(live);
  both.events.push(eventAt("break-2", 26, { playoutDuration: 4, assetURI: "http://127.0.0.1/ads/ad3/master.m3u8" }));
  both.groups = [{ members: ["break-1", "break-2"], start: 20, resumeTime: 34, playoutDuration: 14, scheduled: true }];
  let { state } = run(initial(both, { live: true }), [
    { type: "start", at: 19.9 },
    { type: "tick", primary: 20.1 },
    { type: "listLoaded", id: "break-1", list: { ASSETS: [{ URI: "a", DURATION: 10 }] } },
    { type: "assetTime", t: 2 },
  ]);
  const returned = structuredClone(both);
  returned.events[0].playoutLimit = 3;
  returned.groups = [
    { members: ["break-1"], start: 20, resumeTime: 23, playoutDuration: 3, scheduled: true },
    { members: ["break-2"], start: 26, resumeTime: 30, playoutDuration: 4, scheduled: true },
  ];
  let actions;
  ({ state, actions } = run(state, [
    { type: "schedule", document: returned },
    { type: "assetTime", t: 3 },
  ]));
  assert.equal(state.mode, "primary");
  assert.deepEqual(traces(actions, "INTERSTITIAL_STARTED"), []);
  assert.deepEqual(types(actions, "playPrimary"), [{ type: "playPrimary", at: null, expected: 23 }]);
  ({ state, actions } = run(state, [
    { type: "tick", primary: 25.9 },
    { type: "tick", primary: 26.05 },
  ]));
  assert.equal(state.run.group.members[0].id, "break-2");
});
