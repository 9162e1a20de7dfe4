// The demo page's interstitial controller over the schedule conformance vectors, as the engine
// (Tests/InterstitialPlaybackTests/ConformancePlayoutTests.swift) and the CLI do: each vector's
// schedule document (Tests/Fixtures/golden/schedule-documents, what timeline.json serves for its
// playlist; Tests/HLSInterstitialsTests/ScheduleDocumentTests.swift keeps it current) is played by
// controller.mjs on a simulated clock, and each interstitial must start and end at its item's
// playout range, primary resume where the item says and playback end at the playout duration.
// Run: node --test Tests/Page/
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { EPSILON, initial, step } from "../../Sources/InterstitialServer/Resources/page/controller.mjs";

const root = new URL("../Fixtures/", import.meta.url);
const vectors = readdirSync(new URL("conformance/", root))
  .filter((name) => name.endsWith(".json"))
  .toSorted();
// The driver's step: how far the clock moves between two reports of a position (player.mjs reports
// every 100 ms); reports also land on every group's start and every asset's stop.
const STEP = 0.1;
const ms = (seconds) => Math.round(seconds * 1000);

/** Plays `document` to its end; the files of `vector` are its asset lists. Returns the trace:
 * `{name, id, clock}` per interstitial start and end, `{name: "resumed", at, clock}` per resumption,
 * `{name: "ended", clock}` at the end. */
function play(document, files) {
  let state = initial(document, { live: document.live });
  const trace = [];
  const primaryItems = document.items.filter((item) => item.kind === "primary");
  const primaryStart = primaryItems.length ? Math.min(...primaryItems.map((item) => item.primary[0])) : 0;
  const primaryEnd = primaryStart + (document.durations.primary ?? 0);
  let clock = 0;
  let primary = null; // primary time while primary plays
  let asset = null; // {t, stop, duration} while an asset plays
  let ended = false;
  const queue = [];
  const send = (input) => {
    const result = step(state, input);
    state = result.state;
    for (const action of result.actions) perform(action);
  };
  const perform = (action) => {
    switch (action.type) {
      case "fetchList": {
        const name = new URL(action.url, "https://origin.example/").pathname.slice(1);
        const list = files[name];
        queue.push(
          list ? { type: "listLoaded", id: action.id, list } : { type: "listFailed", id: action.id, error: "none" },
        );
        break;
      }
      case "playAsset": {
        const duration = Number(state.run.assets[action.index].DURATION) || 0;
        asset = { t: action.offset, stop: Math.min(duration, action.end ?? Infinity), duration };
        primary = null;
        break;
      }
      case "stopAsset":
        asset = null;
        break;
      case "pausePrimary":
        primary = null;
        break;
      case "playPrimary":
        primary = action.at ?? action.expected;
        asset = null;
        trace.push({ name: "resumed", at: primary, clock });
        break;
      case "ended":
        ended = true;
        trace.push({ name: "ended", clock });
        break;
      case "trace":
        if (action.name === "INTERSTITIAL_STARTED" || action.name === "INTERSTITIAL_ENDED") {
          trace.push({ name: action.name, id: action.id, clock });
        }
        break;
    }
  };
  send({ type: "start", at: primaryStart });
  for (let guard = 0; guard < 100000; guard += 1) {
    if (ended) break;
    if (queue.length) {
      send(queue.shift());
    } else if (asset) {
      if (asset.t >= asset.stop) {
        // Stopped at its end: the element ends; stopped at the limit: the controller ended it.
        if (asset.stop >= asset.duration) send({ type: "assetEnded" });
        else asset = null;
        continue;
      }
      const next = Math.min(asset.t + STEP, asset.stop);
      clock += next - asset.t;
      asset.t = next;
      send({ type: "assetTime", t: next });
    } else if (primary !== null) {
      if (primary >= primaryEnd) {
        send({ type: "primaryEnded" });
        continue;
      }
      const starts = state.groups.map((group) => group.at).filter((at) => at > primary + EPSILON);
      const next = Math.min(primary + STEP, primaryEnd, ...starts);
      clock += next - primary;
      primary = next;
      send({ type: "tick", primary: next });
    } else {
      break;
    }
  }
  return trace;
}

for (const name of vectors) {
  test(`conformance vector ${name}: the controller plays the schedule's items`, () => {
    const vector = JSON.parse(readFileSync(new URL(`conformance/${name}`, root), "utf8"));
    const document = JSON.parse(readFileSync(new URL(`golden/schedule-documents/${name}`, root), "utf8"));
    const trace = play(document, vector.files || {});
    const expected = vector.expected;
    let position = 0;
    for (const [index, item] of expected.items.entries()) {
      if (item.kind !== "interstitial") continue;
      const started = trace.findIndex(
        (entry, at) => at >= position && entry.name === "INTERSTITIAL_STARTED" && entry.id === item.id,
      );
      const ended = trace.findIndex(
        (entry, at) => at >= position && entry.name === "INTERSTITIAL_ENDED" && entry.id === item.id,
      );
      assert.ok(started >= 0 && ended >= 0, `${item.id} plays: ${JSON.stringify(trace)}`);
      assert.equal(ms(trace[started].clock), ms(item.playout[0]), `start of ${item.id}`);
      assert.equal(ms(trace[ended].clock), ms(item.playout[1]), `end of ${item.id}`);
      position = ended;
      // Where primary resumes after the last member of a group.
      const following = expected.items[index + 1];
      if (following && following.kind === "primary") {
        const resumed = trace.find((entry, at) => at > ended && entry.name === "resumed");
        assert.ok(resumed, `primary resumes after ${item.id}`);
        assert.equal(ms(resumed.at), ms(item.primary[1]), `resumption point after ${item.id}`);
      }
    }
    if (expected.durations && typeof expected.durations.playout === "number") {
      const end = trace.find((entry) => entry.name === "ended");
      assert.ok(end, "playback ends");
      assert.equal(ms(end.clock), ms(expected.durations.playout), "end of playout");
    }
  });
}
