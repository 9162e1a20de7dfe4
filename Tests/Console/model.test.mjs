// The operations console's model: the admin API's errors as the operator reads them, the break
// editor's JSON both ways, and the live timeline's layout. Run: node --test Tests/Console/
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  breakBody,
  cadenceStarts,
  describeError,
  editorFields,
  fieldOfPath,
  timelineLayout,
  PAST_BREAKS,
} from "../../Sources/InterstitialServer/Resources/console/model.mjs";

test("an API error says where, why and its code; a 401 says what to do about the token", () => {
  const body = { error: { status: 400, code: "invalid-break", path: "duration", message: "needs a duration" } };
  assert.deepEqual(describeError(400, body), {
    status: 400,
    code: "invalid-break",
    path: "duration",
    message: "needs a duration",
    text: "duration: needs a duration [invalid-break]",
  });
  const refused = describeError(401, { error: { code: "unauthorized", message: "send Authorization" } });
  assert.match(refused.text, /^The admin token is missing or wrong \(send Authorization\)\. Enter the token/);
  assert.equal(describeError(0, null).text, "The server cannot be reached.");
  assert.equal(describeError(502, "not an object").text, "The server answered 502.");
});

test("the editor's fields make a break's JSON: blanks left out, seconds as numbers, other fields merged", () => {
  const fields = { id: " b1 ", target: "vod/demo", at: "12.5", duration: "10", ad: "", date: "" };
  assert.deepEqual(breakBody(fields, '{"cue": "ONCE"}').body, {
    id: "b1",
    target: "vod/demo",
    at: 12.5,
    duration: 10,
    cue: "ONCE",
  });
  assert.deepEqual(breakBody({ at: "soon" }, "").error, { path: "at", message: 'expected seconds, found "soon"' });
  assert.equal(breakBody({}, "{").error.path, "other");
  assert.equal(breakBody({}, "[1]").error.message, "expected a JSON object of more fields");
  assert.equal(breakBody({ id: "x" }, '{"id": "y"}').error.path, "id");
});

test("a break the API answered fills the editor, and saving it unchanged gives it back", () => {
  const item = { id: "b1", target: "vod/demo", at: 5, duration: 10, cue: ["ONCE"], attributes: { "X-COM-A": "1" } };
  const { fields, other } = editorFields(item);
  assert.deepEqual(fields, { id: "b1", target: "vod/demo", at: "5", duration: "10" });
  assert.deepEqual(JSON.parse(other), { cue: ["ONCE"], attributes: { "X-COM-A": "1" } });
  assert.deepEqual(breakBody(fields, other).body, item);
  assert.equal(editorFields({ id: "x" }).other, "");
});

test("an error path points at its field, or at the other fields", () => {
  assert.equal(fieldOfPath("duration"), "duration");
  assert.equal(fieldOfPath("cue[0]"), "other");
  assert.equal(fieldOfPath("assetListSkipControl.offset"), "other");
  assert.equal(fieldOfPath(""), null);
  assert.equal(fieldOfPath(undefined), null);
});

test("the live timeline: the window, now, and each break placed with its state", () => {
  const start = Date.parse("2026-01-02T00:00:00Z");
  const timeline = {
    startDate: "2026-01-02T00:00:00.000Z",
    durations: { primary: 60 },
    events: [
      { id: "next", date: "2026-01-02T00:01:10.000Z", playoutDuration: 10 },
      { id: "old", date: "2026-01-02T00:00:05.000Z", playoutDuration: 10 },
    ],
  };
  const served = [
    { id: "old", startDate: "2026-01-02T00:00:05.000Z", duration: 10, attributes: { DURATION: "10" } },
    { id: "now", startDate: "2026-01-02T00:00:50.000Z", duration: 30, playoutLimit: 4 },
    { id: "air", startDate: "2026-01-02T00:00:58.000Z", duration: 20 },
    { id: "gone", startDate: "2026-01-02T00:00:20.000Z", duration: 5, withdrawn: true },
  ];
  const stored = [{ id: "later", target: "live/demo", date: "2026-01-02T00:02:00Z", plannedDuration: 30 }];
  const layout = timelineLayout(timeline, served, stored, start + 60_000);
  const states = Object.fromEntries(layout.breaks.map((item) => [item.id, item.state]));
  assert.deepEqual(states, {
    old: "over",
    gone: "withdrawn",
    now: "returned",
    air: "on-air",
    next: "upcoming",
    later: "upcoming",
  });
  assert.deepEqual(
    layout.breaks.map((item) => item.id),
    ["old", "gone", "now", "air", "next", "later"],
  );
  assert.equal(layout.onAir.id, "air");
  assert.equal(layout.next.id, "next");
  assert.equal(layout.start, start);
  assert.ok(layout.end > start + 150_000, "past the latest break's end");
  assert.ok(Math.abs(layout.windowWidth - layout.now) < 1e-9, "now is the window's end here");
  const old = layout.breaks[0];
  assert.ok(old.left > 0 && old.left + old.width < layout.windowWidth);
  assert.equal(layout.breaks.find((item) => item.id === "now").seconds, 4, "a returned break ends at its limit");
  assert.equal(timelineLayout({}, [], [], 0), null);
  // A live document: no durations, the window as long as its primary items; a served break with a
  // planned duration only is as long as that, not the part of it the window shows.
  const live = {
    startDate: "2026-01-02T00:00:00.000Z",
    durations: { primary: null },
    items: [{ kind: "primary", primary: [0, 12] }],
    events: [{ id: "cut", date: "2026-01-01T23:59:58.000Z", playoutDuration: 2 }],
  };
  const cut = [{ id: "cut", startDate: "2026-01-01T23:59:58.000Z", plannedDuration: 10 }];
  const liveLayout = timelineLayout(live, cut, [], start + 12_000);
  assert.equal(liveLayout.edge, start + 12_000);
  assert.ok(liveLayout.windowWidth > 50);
  assert.equal(liveLayout.breaks[0].seconds, 10);
  assert.equal(liveLayout.breaks[0].state, "over");
});

test("a standing schedule's next breaks: epoch + offset + k × every, drawn past the window", () => {
  const epoch = "2026-01-01T00:00:00.000Z";
  const base = Date.parse(epoch);
  const cadence = { every: 60, duration: 10, offset: 30 };
  assert.deepEqual(cadenceStarts({ cadence, epoch }, base + 95_000, 2), [base + 150_000, base + 210_000]);
  assert.deepEqual(cadenceStarts({ cadence, epoch }, base - 1_000_000, 1), [base + 30_000], "never before k = 0");
  assert.deepEqual(cadenceStarts({ cadence }, base, 2), [], "no epoch");
  assert.deepEqual(cadenceStarts({ epoch }, base, 2), [], "no cadence");
  const timeline = { startDate: "2026-01-01T00:01:00.000Z", items: [{ kind: "primary", primary: [0, 12] }] };
  // The break at 01:30 is announced already: it is not drawn twice.
  const announced = [{ id: "break-90", startDate: "2026-01-01T00:01:30.000Z", plannedDuration: 10 }];
  const layout = timelineLayout(timeline, announced, [], base + 72_000, { cadence, epoch });
  assert.deepEqual(
    layout.breaks.map((item) => [item.id, item.state]),
    [
      ["break-90", "upcoming"],
      ["scheduled@2026-01-01T00:02:30.000Z", "upcoming"],
      ["scheduled@2026-01-01T00:03:30.000Z", "upcoming"],
    ],
  );
  assert.equal(layout.next.id, "break-90");
});

test("an SCTE-35 channel's breaks that left the window are still listed, the latest few, as over", () => {
  const start = Date.parse("2026-01-02T00:10:00Z");
  // A short live window (12 s) and breaks signalled as they start: none is in the window any more.
  const timeline = { startDate: "2026-01-02T00:10:00.000Z", items: [{ kind: "primary", primary: [0, 12] }] };
  const served = Array.from({ length: 8 }, (_, k) => ({
    id: `splice-${k}`,
    startDate: new Date(start - (8 - k) * 60_000).toISOString(),
    duration: 10,
  }));
  served.push({ id: "pulled", startDate: new Date(start - 30_000).toISOString(), duration: 5, withdrawn: true });
  const layout = timelineLayout(timeline, served, [], start + 12_000);
  assert.deepEqual(layout.breaks, [], "nothing is drawn outside the window");
  assert.equal(layout.next, null);
  assert.deepEqual(
    layout.past.map((item) => [item.id, item.state]),
    [
      ["splice-4", "over"],
      ["splice-5", "over"],
      ["splice-6", "over"],
      ["splice-7", "over"],
      ["pulled", "withdrawn"],
    ],
  );
  assert.equal(layout.past.length, PAST_BREAKS);
  assert.equal(layout.past[0].end, layout.past[0].start + 10_000);
});
