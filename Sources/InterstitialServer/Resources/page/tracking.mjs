// Ad tracking for the demo page's players, as values: no DOM and no I/O.
//
// hls.js and the browser's own HLS player do not fire VAST tracking; the server's asset lists carry
// it as SVTA Ad Creative Signaling (`X-AD-CREATIVE-SIGNALING`, docs/ad-decisioning.md): a "pod" on
// the list, a "slot" on each asset. This module says which beacons are due as an asset plays, with
// the Swift engine's rules (AdDecisioning's BeaconSchedule, PlaybackEngine's BeaconTracker):
// - impression, creativeView, loaded and start with the asset's first frame; firstQuartile, midpoint
//   and thirdQuartile at 25/50/75 % of the played duration (from where playback entered the asset to
//   its end or playout limit); complete at that end; progress at its offset;
// - each at most once per event and asset (a new asset list is a new decision: `forget`);
// - after a skip only `skip` fires; an asset cut otherwise fires nothing more;
// - the pod's breakStart with the first frame of its first asset, breakEnd when its event ends.
// The players (player.mjs, page.mjs) report times and send what comes out. Times are seconds.

import { EPSILON } from "./controller.mjs";

/** The asset-list and asset key that carries the signaling. */
export const SIGNALING = "X-AD-CREATIVE-SIGNALING";
/** How far short of its end an asset that stops may be and still count as played to its end: a
 * player's last position falls a frame or a tick short. */
export const END_TOLERANCE = 0.5;

// The engine reader's bounds (AdCreativeSignaling+Reading.swift): more is unreadable.
const MAXIMUM = { slots: 256, entries: 1024, urls: 64 };
// Where in the played duration each timed type falls, and the order of ties.
const FRACTIONS = {
  impression: 0,
  creativeView: 0,
  loaded: 0,
  start: 0,
  firstQuartile: 0.25,
  midpoint: 0.5,
  thirdQuartile: 0.75,
  complete: 1,
};
const ORDER = [
  "impression",
  "creativeView",
  "loaded",
  "start",
  "progress",
  "firstQuartile",
  "midpoint",
  "thirdQuartile",
  "complete",
];
const rank = (type) => (ORDER.includes(type) ? ORDER.indexOf(type) : ORDER.length);
const POD_START = ["breakStart"];
const POD_END = ["breakEnd"];

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const seconds = (value) => (typeof value === "number" && isFinite(value) && value >= 0 ? value : null);

function unreadable(what) {
  throw new Error(`${SIGNALING}: ${what}`);
}

function readTracking(object) {
  const items = object.tracking ?? [];
  if (!Array.isArray(items) || items.length > MAXIMUM.entries) unreadable("bad tracking");
  return items.map((item) => {
    if (!isObject(item) || typeof item.type !== "string") unreadable("a tracking entry has no type");
    const urls = item.urls ?? [];
    if (!Array.isArray(urls) || urls.length > MAXIMUM.urls || !urls.every((url) => typeof url === "string"))
      unreadable("bad urls");
    if (item.offset !== undefined && seconds(item.offset) === null) unreadable("bad offset");
    return { type: item.type, urls, offset: item.offset ?? null };
  });
}

function readSlot(object) {
  if (!isObject(object)) unreadable("a slot is not an object");
  if (object.duration !== undefined && seconds(object.duration) === null) unreadable("bad duration");
  return { duration: object.duration ?? 0, tracking: readTracking(object) };
}

/** Reads an `X-AD-CREATIVE-SIGNALING` value: `{kind, slots, podTracking}`, or null when there is
 * none or it cannot be read (the engine ignores it then too). Unknown members are ignored. */
export function readSignaling(value) {
  if (value === undefined || value === null) return null;
  try {
    if (!isObject(value) || (value.type !== "slot" && value.type !== "pod")) unreadable("type is not slot or pod");
    if (!Array.isArray(value.payload)) unreadable("no payload");
    if (value.type === "slot") {
      if (value.payload.length > MAXIMUM.slots) unreadable("too many slots");
      return { kind: "slot", slots: value.payload.map(readSlot), podTracking: [] };
    }
    const pod = value.payload[0];
    if (!isObject(pod)) unreadable("a pod payload is empty");
    const slots = pod.slots ?? [];
    if (!Array.isArray(slots) || slots.length > MAXIMUM.slots) unreadable("bad slots");
    return { kind: "pod", slots: slots.map(readSlot), podTracking: readTracking(pod) };
  } catch {
    return null;
  }
}

/** The signaling of asset `index` of an asset list (the parsed JSON): its own slot, else the pod's
 * slot at the same index when the pod has one per asset; and the list's pod-level tracking. */
export function signalingOf(list, index) {
  const assets = list && Array.isArray(list.ASSETS) ? list.ASSETS : [];
  const listed = list ? readSignaling(list[SIGNALING]) : null;
  const pod = listed && listed.kind === "pod" ? listed : null;
  const own = assets[index] ? readSignaling(assets[index][SIGNALING]) : null;
  let slot = own && own.slots.length ? own.slots[0] : null;
  if (!slot && pod && pod.slots.length === assets.length && pod.slots[index]) slot = pod.slots[index];
  return { slot, pod: pod ? pod.podTracking : [] };
}

/** When each beacon of `slot` fires, played for `played` seconds (default: the slot's duration):
 * `timed` in time order, the viewer-driven ones (`skip`, `pause`, `clickTracking`…) by type. */
export function beaconSchedule(slot, played = slot.duration) {
  const timed = [];
  const onEvent = {};
  for (const entry of slot.tracking) {
    const fraction = FRACTIONS[entry.type];
    if (fraction !== undefined) timed.push({ time: played * fraction, type: entry.type, urls: entry.urls });
    else if (entry.type === "progress" && entry.offset !== null) {
      if (entry.offset <= played) timed.push({ time: entry.offset, type: entry.type, urls: entry.urls });
    } else onEvent[entry.type] = [...(onEvent[entry.type] || []), ...entry.urls];
  }
  // Sorting is stable: equal entries keep the signaling's order.
  const sorted = timed.toSorted((a, b) => a.time - b.time || rank(a.type) - rank(b.type));
  return { timed: sorted, onEvent, duration: played };
}

/** The timed beacons of `schedule` passed moving from `previous` (exclusive; null before the first
 * frame) to `current` (inclusive). */
export function due(schedule, previous, current) {
  return schedule.timed.filter((beacon) => beacon.time <= current && (previous === null || beacon.time > previous));
}

/**
 * Which beacons are due as a player's assets play.
 *
 * A player calls `assetStarted` when it starts an asset (nothing is due yet), `advanced` with the
 * asset's media position whenever it shows a frame (the first call is its first frame), then
 * `assetEnded` (played to its end), `assetStopped` (stopped somewhere: ended if within END_TOLERANCE
 * of its end, else cut) or `assetCut`, and `eventEnded` when the interstitial ends. These return the
 * firings due now: `{eventID, index, type, urls, adPlayhead}` (`index`, `adPlayhead` null for the pod's).
 */
export class BeaconTracker {
  constructor() {
    this.playing = null; // {eventID, index, slot, end, origin, schedule, reached}
    this.pod = null; // {eventID, tracking, started}
    this.fired = new Set();
  }

  /** Asset `index` of `eventID` starts: `slot`/`pod` are its signaling (see signalingOf), `end` the
   * media position where it stops playing (its duration, cut to a playout limit; null: the slot's
   * duration from where it enters). Nothing is due before its first frame. */
  assetStarted({ eventID, index, slot, pod = [], end = null }) {
    if (!this.pod || this.pod.eventID !== eventID) this.pod = { eventID, tracking: pod, started: false };
    this.playing = slot ? { eventID, index, slot, end, origin: null, schedule: null, reached: null } : null;
  }

  /** Asset `index` of `eventID` shows the frame at media `position`: the beacons passed since the
   * last call are due (at the first frame, those at its start and the pod's breakStart). */
  advanced(eventID, index, position) {
    const current = this.playing;
    const firings = [];
    if (this.pod && this.pod.eventID === eventID && !this.pod.started) {
      this.pod.started = true;
      firings.push(...this.firePod(POD_START));
    }
    if (!current || current.eventID !== eventID || current.index !== index) return firings;
    if (current.origin === null) {
      current.origin = position;
      const end = current.end === null ? position + current.slot.duration : current.end;
      current.schedule = beaconSchedule(current.slot, Math.max(0, end - position));
    }
    return [...firings, ...this.reach(Math.max(0, position - current.origin))];
  }

  /** The asset played to its end: what is left up to the end is due. */
  assetEnded(eventID, index) {
    const current = this.playing;
    if (!current || current.eventID !== eventID || current.index !== index || current.origin === null) return [];
    const firings = this.reach(current.schedule.duration);
    this.playing = null;
    return firings;
  }

  /** The asset playing reached `played` seconds from where it entered: its beacons passed since
   * the last position, once each. */
  reach(played) {
    const current = this.playing;
    const beacons = due(current.schedule, current.reached, played);
    current.reached = played;
    const { eventID, index } = current;
    return beacons
      .filter((beacon) => this.once(eventID, index, beacon.type, beacon.time))
      .map((beacon) => ({ eventID, index, type: beacon.type, urls: beacon.urls, adPlayhead: beacon.time }));
  }

  /** The asset stopped at media `position`: played to its end when within END_TOLERANCE of it,
   * else cut (nothing more is due). */
  assetStopped(eventID, index, position) {
    const current = this.playing;
    if (!current || current.eventID !== eventID || current.index !== index) return [];
    if (current.origin !== null && position >= current.origin + current.schedule.duration - END_TOLERANCE) {
      return this.assetEnded(eventID, index);
    }
    return this.assetCut({ at: position });
  }

  /** The asset playing ended before its end: by a skip (`skip` is due, nothing else) or otherwise
   * (nothing is due). `at` is its media position, when known. */
  assetCut({ skipped = false, at = null } = {}) {
    const current = this.playing;
    this.playing = null;
    if (!current || !skipped || current.origin === null) return [];
    const urls = beaconSchedule(current.slot).onEvent.skip;
    if (!urls || !urls.length || !this.once(current.eventID, current.index, "skip", null)) return [];
    const adPlayhead = at === null ? null : Math.max(0, at - current.origin);
    return [{ eventID: current.eventID, index: current.index, type: "skip", urls, adPlayhead }];
  }

  /** Interstitial `eventID` (default: the current pod's) ended: its pod's breakEnd is due if the
   * pod began. */
  eventEnded(eventID = this.pod && this.pod.eventID) {
    if (this.playing && this.playing.eventID === eventID) this.playing = null;
    if (!this.pod || this.pod.eventID !== eventID) return [];
    const firings = this.pod.started ? this.firePod(POD_END) : [];
    this.pod = null;
    return firings;
  }

  /** Forgets what fired for `eventID`: its asset list was loaded anew (a new ad decision). */
  forget(eventID) {
    const prefix = JSON.stringify([eventID]).slice(0, -1) + ",";
    for (const key of this.fired) if (key.startsWith(prefix)) this.fired.delete(key);
  }

  /** True the first time (event, asset, type, time) is seen. */
  once(eventID, index, type, time) {
    const key = JSON.stringify([eventID, index, type, time]);
    if (this.fired.has(key)) return false;
    this.fired.add(key);
    return true;
  }

  /** The pod-level entries of the current pod whose type is in `types`, once each (URLs of entries
   * of one type together). */
  firePod(types) {
    const firings = [];
    for (const entry of this.pod.tracking) {
      if (!types.includes(entry.type) || !entry.urls.length) continue;
      const same = firings.find((firing) => firing.type === entry.type);
      if (same) same.urls = [...same.urls, ...entry.urls];
      else if (this.once(this.pod.eventID, null, entry.type, null)) {
        firings.push({ eventID: this.pod.eventID, index: null, type: entry.type, urls: entry.urls, adPlayhead: null });
      }
    }
    return firings;
  }
}

const two = (value) => String(value).padStart(2, "0");

/** `[ADPLAYHEAD]`'s format: HH:MM:SS.mmm. */
export function vastClock(time) {
  const total = Math.max(0, Math.floor(time * 1000 + EPSILON));
  const whole = Math.floor(total / 1000);
  const milliseconds = String(total % 1000).padStart(3, "0");
  return `${two(Math.floor(whole / 3600))}:${two(Math.floor(whole / 60) % 60)}:${two(whole % 60)}.${milliseconds}`;
}

/**
 * The requests to send for `firings`: `{type, id, index, url}` per http(s) URL (other schemes are
 * never requested), with the macros a player knows filled (VAST 4.3 §6.1, as the engine does):
 * [CACHEBUSTING], [TIMESTAMP] and [ADPLAYHEAD]; other macros are left as written.
 */
export function requests(firings, { now = Date.now(), random = Math.random } = {}) {
  const out = [];
  for (const firing of firings) {
    for (const raw of firing.urls) {
      let url;
      try {
        url = new URL(raw);
      } catch {
        continue;
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") continue;
      const values = {
        CACHEBUSTING: String(10000000 + Math.floor(random() * 90000000)),
        TIMESTAMP: new Date(now).toISOString(),
        ADPLAYHEAD: firing.adPlayhead === null ? null : vastClock(firing.adPlayhead),
      };
      const filled = raw.replace(/\[([A-Z_]+)\]/g, (whole, name) =>
        values[name] ? encodeURIComponent(values[name]) : whole,
      );
      out.push({ type: firing.type, id: firing.eventID, index: firing.index, url: filled });
    }
  }
  return out;
}
