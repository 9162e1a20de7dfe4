// The demo page's player: the thin driver of controller.mjs over two <video> elements.
//
// The primary <video> plays the primary presentation with the browser's own HLS support (Safari,
// Chromium); the interstitial <video> plays each asset. This file only does I/O: it loads the
// server's schedule document, fetches asset lists, drives the elements, and feeds what they report
// back to the controller, whose decisions it performs. The ads' tracking beacons are tracking.mjs's
// to decide; this file tells it what plays and sends what it says (sendBeacons, which page.mjs uses
// for hls.js too).

import { adStatus, initial, integratedTime, step } from "./controller.mjs";
import { BeaconTracker, requests, signalingOf } from "./tracking.mjs";

const LOOKAHEAD = 10; // R18: asset lists are requested this long before their event.
const LIST_DEADLINE = 10000;

/** A random `_HLS_primary_id` for one playback session (R19). */
export function sessionID() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
  return "s-" + Math.random().toString(16).slice(2) + Date.now().toString(16);
}

/** Appends query parameters to a URL, keeping the ones it has. */
export function withQuery(url, parameters, base = location.href) {
  const target = new URL(url, base);
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== null && value !== undefined) target.searchParams.set(name, value);
  }
  return target.toString();
}

/** The date (seconds since 1970) and absolute URI of each segment of a media playlist's text. */
export function segmentDates(text, base) {
  const segments = [];
  let date = null;
  let duration = 0;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith("#EXT-X-PROGRAM-DATE-TIME:")) date = Date.parse(line.slice(25)) / 1000;
    else if (line.startsWith("#EXTINF:")) duration = parseFloat(line.slice(8));
    else if (line && !line.startsWith("#")) {
      segments.push({ uri: new URL(line, base).toString().split("?")[0], date, duration });
      if (date !== null) date += duration;
    }
  }
  return segments;
}

/** The names (URLs without fragment) of the resources fetched since `since` (`performance.now()` when
 * a load began), in the order they were fetched. A page that played another presentation before
 * holds that one's playlists and segments too: they must not date the new one's element. */
export function fetchedSince(entries, since) {
  return entries.filter((entry) => entry.startTime >= since).map((entry) => entry.name.split("#")[0]);
}

/** The date (seconds since 1970) at a live element's time zero: the start of the first segment of
 * the run of `segments` (segmentDates) that `fetched` names last, less `buffered` (the element's
 * first buffered time). Null when no segment of the playlist was fetched or the segment is undated. */
export function liveOriginOf(segments, fetched, buffered) {
  const index = new Map(segments.map((segment, position) => [segment.uri, position]));
  const loaded = fetched.map((name) => index.get(name.split("?")[0])).filter((position) => position !== undefined);
  if (!loaded.length) return null;
  let first = loaded.length - 1;
  while (first > 0 && loaded[first - 1] === loaded[first] - 1) first -= 1;
  const date = segments[loaded[first]].date;
  return date === null || !isFinite(date) ? null : date - buffered;
}

/** Sends the beacons of `firings` (tracking.mjs), fire-and-forget: each http(s) URL is requested
 * once without credentials, errors are ignored and playback never waits; each is traced as BEACON. */
export function sendBeacons(firings, trace) {
  for (const { type, id, index, url } of requests(firings)) {
    trace({ event: "BEACON", type, id, index, url });
    try {
      fetch(url, { mode: "no-cors", keepalive: true, credentials: "omit" }).catch(() => {});
    } catch {
      /* a beacon never stops playback */
    }
  }
}

export class InterstitialPlayer {
  constructor({ primary, interstitial, trace, onChange }) {
    this.primary = primary;
    this.interstitial = interstitial;
    this.trace = trace || (() => {});
    this.onChange = onChange || (() => {});
    this.state = null;
    this.lists = new Map();
    this.session = sessionID();
    this.timer = null;
    this.lastRefusal = null;
    this.clock = null; // live: maps primary time to dates
    this.tracker = new BeaconTracker();
    this.tracked = null; // the asset the tracker follows: {id, index}
    // A second interstitial element loads the next asset while the current one plays (or before a
    // break), so that an ad starts without waiting for its first segments; the two swap roles.
    this.spare = interstitial.cloneNode(false);
    this.spare.removeAttribute("id");
    this.spare.hidden = true;
    interstitial.after(this.spare);
    primary.addEventListener("ended", () => this.send({ type: "primaryEnded" }));
    for (const element of [interstitial, this.spare]) {
      element.addEventListener("ended", () => {
        if (element !== this.interstitial) return;
        if (this.tracked) this.beacons(this.tracker.assetEnded(this.tracked.id, this.tracked.index));
        this.tracked = null;
        this.send({ type: "assetEnded" });
      });
      element.addEventListener("error", () => {
        if (element === this.interstitial && element.getAttribute("src"))
          this.send({ type: "assetFailed", error: this.describe(element.error) });
      });
    }
    // Stalls: how long each element waited for data while it should have been playing.
    for (const [name, element] of [
      ["primary", primary],
      ["interstitial", interstitial],
      ["interstitial", this.spare],
    ]) {
      let since = null;
      element.addEventListener("waiting", () => {
        if (since === null) since = performance.now();
      });
      element.addEventListener("playing", () => {
        if (since === null) return;
        const stalled = (performance.now() - since) / 1000;
        since = null;
        if (stalled > 0.05) this.trace({ event: "STALLED", player: name, seconds: Math.round(stalled * 1000) / 1000 });
      });
    }
    primary.addEventListener("error", () =>
      this.trace({ event: "ERROR", details: this.describe(primary.error), fatal: true }),
    );
  }

  describe(error) {
    return error ? `media error ${error.code}${error.message ? ": " + error.message : ""}` : "media error";
  }

  /** Loads `url` (a multivariant or media playlist) with its schedule and starts playback. */
  async load(url, { live = false } = {}) {
    this.stop();
    this.url = new URL(url, location.href).toString();
    this.live = live;
    this.session = sessionID();
    this.lists = new Map();
    this.clock = null;
    this.tracker = new BeaconTracker();
    this.tracked = null;
    // The resource entries that date a live element are this load's (liveOrigin); the browser stops
    // recording when its buffer is full, so each presentation starts with it empty.
    if (typeof performance.clearResourceTimings === "function") performance.clearResourceTimings();
    this.loadStarted = performance.now();
    const base = this.url.split("?")[0].substring(0, this.url.split("?")[0].lastIndexOf("/"));
    this.timelineURL = base + "/timeline.json";
    const document = await this.fetchSchedule();
    this.state = initial(document, { live });
    this.primary.src = withQuery(this.url, { _HLS_primary_id: this.session });
    let at = 0;
    if (live) {
      // Chromium's native HLS fails on a live stream left paused between its metadata and play()
      // (DEMUXER_ERROR_COULD_NOT_PARSE), so live primary plays at once, unseen and unheard until
      // the controller has decided what comes first (a break joined inside plays first, R11).
      const muted = this.primary.muted;
      this.show("nothing");
      this.primary.muted = true;
      this.play(this.primary);
      await this.waitFor(this.primary, "loadedmetadata");
      const origin = await this.liveOrigin();
      this.clock = origin === null ? null : { origin };
      if (!this.clock)
        this.trace({
          event: "ERROR",
          details: "the live stream's dates cannot be mapped onto the player",
          fatal: false,
        });
      this.state = initial(this.liveDocument(await this.fetchSchedule()), { live });
      this.primary.muted = muted;
      at = this.primary.currentTime;
    } else {
      this.show("primary");
    }
    this.send({ type: "start", at });
    this.timer = setInterval(() => this.tick(), 100);
    if (live) this.reload = setInterval(() => this.refreshLive(), 2000);
  }

  stop() {
    clearInterval(this.timer);
    clearInterval(this.reload);
    this.timer = null;
    for (const video of [this.primary, this.interstitial, this.spare]) this.clear(video);
  }

  async fetchSchedule() {
    const response = await fetch(this.timelineURL, { cache: "no-store" });
    if (!response.ok) throw new Error(`${this.timelineURL}: HTTP ${response.status}`);
    return response.json();
  }

  // Live: the schedule document's primary times count from its window's start (`startDate`); the
  // primary element's time counts from the segment it started with. `clock.origin`, the date of
  // the element's time zero, ties the two together.
  liveDocument(document) {
    if (!this.clock || !document.startDate) return document;
    const shift = Date.parse(document.startDate) / 1000 - this.clock.origin;
    const move = (range) => range.map((value) => value + shift);
    return {
      ...document,
      events: document.events.map((event) => ({
        ...event,
        start: event.start + shift,
        resumeTime: event.resumeTime + shift,
      })),
      groups: (document.groups || []).map((group) => ({
        ...group,
        start: group.start + shift,
        resumeTime: group.resumeTime + shift,
        integrated: typeof group.integrated === "number" ? group.integrated + shift : group.integrated,
      })),
      items: document.items.map((item) => ({
        ...item,
        primary: move(item.primary),
        integrated: move(item.integrated),
      })),
    };
  }

  /** The date (seconds since 1970) at the primary element's time zero, for a live stream. */
  async liveOrigin() {
    // Safari says it directly.
    if (typeof this.primary.getStartDate === "function") {
      const date = this.primary.getStartDate();
      if (date && !isNaN(date.getTime())) return date.getTime() / 1000;
    }
    // Elsewhere: the element's time zero is the start of the first segment of the run of segments
    // it loaded last; the media playlist dates that segment.
    // Only what this load fetched: after the VOD played, the page's resource entries begin with the
    // VOD's playlists, whose undated segments mapped the live window some 1.8e9 s away.
    const entries = fetchedSince(performance.getEntriesByType("resource"), this.loadStarted);
    const playlists = entries.filter((name) => /\.m3u8(\?|$)/.test(name) && !name.startsWith(this.url.split("?")[0]));
    const media = playlists[0];
    if (!media) return null;
    const text = await (await fetch(media, { cache: "no-store" })).text();
    const buffered = this.primary.buffered.length ? this.primary.buffered.start(0) : 0;
    return liveOriginOf(segmentDates(text, media), entries, buffered);
  }

  async refreshLive() {
    try {
      const document = this.liveDocument(await this.fetchSchedule());
      this.send({ type: "schedule", document });
    } catch (error) {
      this.trace({ event: "SCHEDULE_RELOAD_FAILED", details: String(error) });
    }
  }

  tick() {
    if (!this.state) return;
    if (this.state.mode === "primary" && !this.primary.seeking) {
      this.send({ type: "tick", primary: this.primary.currentTime });
      this.prefetch();
    } else if (this.state.mode === "interstitial" && this.interstitial.getAttribute("src")) {
      const video = this.interstitial;
      // A frame is shown (the first one is the asset's start for the beacons).
      if (this.tracked && video.readyState >= 2 && !video.seeking) {
        this.beacons(this.tracker.advanced(this.tracked.id, this.tracked.index, video.currentTime));
      }
      this.send({ type: "assetTime", t: video.currentTime });
    }
    this.onChange(this);
  }

  // R18: the next group's first asset list is requested LOOKAHEAD seconds before it.
  prefetch() {
    const t = this.state.primaryTime;
    for (const group of this.state.groups) {
      const first = group.members[0];
      if (
        group.pre ||
        this.lists.has(first.id) ||
        !(group.at - t > 0 && group.at - t <= LOOKAHEAD) ||
        this.state.fired.includes(group.key)
      )
        continue;
      if (first.assetURI) {
        this.lists.set(first.id, null);
        this.preload(first.assetURI);
      } else if (first.assetList && !group.post) {
        const request = this.requestList(first.assetList, null);
        this.lists.set(first.id, request);
        request.then(
          (list) => {
            if (list && list.ASSETS && list.ASSETS[0]) this.preload(list.ASSETS[0].URI);
          },
          () => {},
        );
      }
    }
  }

  requestList(url, startOffset) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), LIST_DEADLINE);
    const target = withQuery(
      url,
      {
        _HLS_primary_id: this.session,
        _HLS_start_offset: startOffset === null ? null : startOffset.toFixed(3),
      },
      this.url,
    );
    return fetch(target, { signal: controller.signal, headers: { "X-PLAYBACK-SESSION-ID": this.session } })
      .then(async (response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return response.json();
      })
      .finally(() => clearTimeout(timer));
  }

  /** Feeds one input to the controller and performs its actions. */
  send(input) {
    if (!this.state) return null;
    const { state, actions } = step(this.state, input);
    const before = this.state.mode;
    this.state = state;
    let refusal = null;
    for (const action of actions) {
      const result = this.perform(action, before, input);
      if (result) refusal = result;
    }
    this.onChange(this);
    return refusal;
  }

  /** Sends `firings` (tracking.mjs) to the trace and the ad server. */
  beacons(firings) {
    sendBeacons(firings, this.trace);
  }

  /** The tracked asset stopped where the element is (`skipped` by the viewer, or not), and its event
   * `eventID` ended (default: the event the tracker follows). */
  stopTracking({ skipped = false, eventID } = {}) {
    const at = this.interstitial.currentTime;
    if (this.tracked) {
      const { id, index } = this.tracked;
      this.beacons(skipped ? this.tracker.assetCut({ skipped, at }) : this.tracker.assetStopped(id, index, at));
      this.tracked = null;
    }
    this.beacons(this.tracker.eventEnded(eventID));
  }

  perform(action, before, input) {
    switch (action.type) {
      case "pausePrimary":
        if (action.keepRunning) {
          this.restoreMuted = this.primary.muted;
          this.primary.muted = true;
          // Joined inside a live break (R11), primary has not started yet: it runs from the join
          // point, unseen, so that it is where R10 says when the break ends.
          if (this.primary.paused) this.play(this.primary);
        } else {
          this.primary.pause();
        }
        break;
      case "fetchList": {
        const cached = action.startOffset === null ? this.lists.get(action.id) || null : null;
        const request = cached || this.requestList(action.url, action.startOffset);
        this.lists.delete(action.id);
        this.tracker.forget(action.id); // a new ad decision
        request.then(
          (list) => this.send({ type: "listLoaded", id: action.id, list }),
          (error) => this.send({ type: "listFailed", id: action.id, error: String(error) }),
        );
        break;
      }
      case "playAsset": {
        this.show("interstitial");
        this.trace({ event: "INTERSTITIAL_ASSET_STARTED", id: action.id, asset: action.uri, index: action.index });
        if (this.spare.dataset.uri === action.uri && !(action.offset > 0)) {
          // Loaded ahead: the spare element becomes the one shown, the other one is freed.
          [this.interstitial, this.spare] = [this.spare, this.interstitial];
          this.clear(this.spare);
          this.show("interstitial");
        } else {
          this.interstitial.src = withQuery(action.uri, { _HLS_primary_id: this.session }, this.url);
          this.interstitial.dataset.uri = action.uri;
        }
        const video = this.interstitial;
        const next = this.state && this.state.run && this.state.run.assets[action.index + 1];
        if (next && typeof next.URI === "string") this.preload(next.URI);
        if (action.offset > 0) {
          video.addEventListener(
            "loadedmetadata",
            () => {
              video.currentTime = action.offset;
            },
            { once: true },
          );
        }
        this.play(video);
        this.trackAsset(action);
        break;
      }
      case "stopAsset":
        // A skip, the group's end, a seek away or a failed list: the asset and its event end.
        this.stopTracking({ skipped: input.type === "skip" });
        this.clear(this.interstitial);
        break;
      case "playPrimary": {
        this.show("primary");
        if (this.restoreMuted !== undefined) {
          this.primary.muted = this.restoreMuted;
          this.restoreMuted = undefined;
        }
        if (action.at !== null && Math.abs(this.primary.currentTime - action.at) > 0.25)
          this.primary.currentTime = action.at;
        if (before === "interstitial") {
          this.trace({
            event: "INTERSTITIALS_PRIMARY_RESUMED",
            primary: action.at ?? this.primary.currentTime,
            expected: action.expected ?? action.at,
          });
        }
        this.play(this.primary);
        break;
      }
      case "ended":
        this.show("primary");
        this.trace({ event: "PLAYBACK_ENDED" });
        break;
      case "refused":
        this.lastRefusal = action;
        return action;
      case "trace": {
        const names = {
          INTERSTITIAL_STARTED: "INTERSTITIAL_STARTED",
          INTERSTITIAL_ENDED: "INTERSTITIAL_ENDED",
          INTERSTITIAL_SKIPPED: "INTERSTITIAL_SKIPPED",
          ASSET_LIST_ERROR: "INTERSTITIAL_ASSET_LIST_ERROR",
          ASSET_ERROR: "INTERSTITIAL_ASSET_ERROR",
          REFUSED: "REFUSED",
          JUMP: "JUMP",
          PLAYOUT_LIMIT_REACHED: "INTERSTITIAL_PLAYOUT_LIMIT_REACHED",
        };
        if (action.name === "INTERSTITIAL_ENDED") this.stopTracking({ eventID: action.id });
        if (names[action.name]) {
          const { type: _type, name, ...rest } = action;
          this.trace({ event: names[name], ...rest });
        }
        break;
      }
    }
    return null;
  }

  /** Tells the tracker that the asset of `action` (playAsset) starts: its signaling, and where it
   * stops (`action.end`: its DURATION, or sooner at the event's playout limit). */
  trackAsset(action) {
    const run = this.state.run;
    this.tracker.assetStarted({
      eventID: action.id,
      index: action.index,
      ...signalingOf(run.list, action.index),
      end: action.end,
    });
    this.tracked = { id: action.id, index: action.index };
  }

  play(video) {
    // A play() interrupted by our own load() or pause() is not a failure.
    const result = video.play();
    if (result)
      result.catch((error) => {
        if (error.name !== "AbortError") this.trace({ event: "PLAY_FAILED", details: String(error) });
      });
  }

  show(which) {
    this.primary.hidden = which !== "primary";
    this.interstitial.hidden = which !== "interstitial";
    this.spare.hidden = true;
  }

  /** Loads asset `uri` into the spare element, paused, so that it can start at once. */
  preload(uri) {
    if (this.spare.dataset.uri === uri) return;
    this.spare.preload = "auto";
    this.spare.src = withQuery(uri, { _HLS_primary_id: this.session }, this.url);
    this.spare.dataset.uri = uri;
  }

  clear(video) {
    video.pause();
    video.removeAttribute("src");
    delete video.dataset.uri;
    video.load();
  }

  waitFor(element, name) {
    return new Promise((resolve) => element.addEventListener(name, resolve, { once: true }));
  }

  // For the page's controls.
  get integratedTime() {
    return this.state ? integratedTime(this.state) : 0;
  }
  get ad() {
    return this.state ? adStatus(this.state) : null;
  }
  get paused() {
    return this.state && this.state.mode === "interstitial" ? this.interstitial.paused : this.primary.paused;
  }
  togglePause() {
    const video = this.state && this.state.mode === "interstitial" ? this.interstitial : this.primary;
    if (video.paused) this.play(video);
    else video.pause();
  }
  seek(integrated) {
    return this.send({ type: "seek", integrated });
  }
  skip() {
    return this.send({ type: "skip" });
  }
}
