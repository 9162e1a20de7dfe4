// The demo page: chooses a player, draws the integrated timeline with its ad markers, and wires the
// controls (play/pause, seek on the timeline, Skip) to it. Two players are available:
// - the page's own interstitial controller (player.mjs over controller.mjs) on the browser's
//   native HLS support (Safari, Chromium): no third-party code, no network beyond this server;
// - hls.js, when the server was started with --hlsjs URL|FILE (or ?player=hlsjs asks for it).
// Both fire the ads' tracking beacons from the asset lists' X-AD-CREATIVE-SIGNALING (tracking.mjs).

import { InterstitialPlayer, sendBeacons } from "./player.mjs";
import { BeaconTracker, signalingOf } from "./tracking.mjs";

const config = JSON.parse(document.getElementById("config").textContent);
const $ = (id) => document.getElementById(id);
const video = $("video");
const select = $("source");
const timeline = $("timeline");
const playhead = $("playhead");
const status = $("status");
const notice = $("notice");
const logBox = $("log");
const params = new URLSearchParams(location.search);
if (params.get("src")) select.value = params.get("src");
if (performance.setResourceTimingBufferSize) performance.setResourceTimingBufferSize(10000);

window.trace = [];
let hls = null;
let Hls = null;
let own = null;
let drawn = "";
let serverItems = [];
let serverDuration = 0;
let ended = false;
let cannotPlay = false; // no player: the status line says so until the next load

function log(entry) {
  entry.at = Math.round(performance.now());
  entry.time = video.currentTime;
  window.trace.push(entry);
  logBox.textContent += JSON.stringify(entry) + "\n";
  logBox.scrollTop = logBox.scrollHeight;
  if (entry.event === "PLAYBACK_ENDED") ended = true;
}

function say(text) {
  notice.textContent = text || "";
  if (text) log({ event: "NOTICE", text });
}

const nativeHLS = () => !!video.canPlayType("application/vnd.apple.mpegurl");

async function importHls() {
  if (Hls || !config.hlsjs) return Hls;
  try {
    const module = await import(config.hlsjs);
    Hls = module.default || module.Hls;
  } catch (error) {
    log({ event: "HLSJS_LOAD_FAILED", details: String(error) });
  }
  return Hls;
}

/** Which player to use, and why: the page says both. */
async function choosePlayer() {
  const asked = params.get("player");
  if (asked !== "native" && (config.hlsjs || asked === "hlsjs")) {
    const loaded = await importHls();
    if (loaded && loaded.isSupported()) {
      return {
        kind: "hlsjs",
        label: `hls.js ${loaded.version}`,
        why:
          `The server was started with --hlsjs ${config.hlsjsSource || ""}: ` +
          "hls.js plays the stream and its interstitials.",
      };
    }
    if (nativeHLS()) {
      return {
        kind: "native",
        label: "built-in controller",
        why:
          `hls.js (--hlsjs ${config.hlsjsSource || "not given"}) could not be loaded; ` +
          "this browser plays HLS natively, so the page's own interstitial controller plays the ads.",
      };
    }
  }
  if (nativeHLS()) {
    return {
      kind: "native",
      label: "built-in controller",
      why:
        "This browser plays HLS natively: the page's own interstitial controller (a primary and an " +
        "interstitial video, as the hlsi engine plays) schedules the ads from the server's timeline.json. " +
        "Start the server with --hlsjs URL|FILE to use hls.js instead.",
    };
  }
  return {
    kind: "none",
    label: "no HLS player",
    why:
      "This browser cannot play HLS natively and no hls.js was given. Open the page in Safari or " +
      "Chromium (141 or later), or start the server with --hlsjs URL|FILE (the hls.js ES module, " +
      "e.g. a local hls.mjs) to play with hls.js.",
  };
}

function draw(items, duration) {
  const key = JSON.stringify([items, duration]);
  if (key === drawn) return;
  drawn = key;
  for (const node of timeline.querySelectorAll(".item")) node.remove();
  if (!duration || !isFinite(duration)) return;
  for (const item of items) {
    if (item.kind !== "interstitial") continue;
    const node = document.createElement("div");
    const point = item.end - item.start < 0.001;
    node.className = "item interstitial" + (point ? " point" : "");
    node.style.left = (100 * item.start) / duration + "%";
    node.style.width = (100 * (item.end - item.start)) / duration + "%";
    node.textContent = point ? "" : item.id || "";
    node.title = `${item.id}: ${item.start.toFixed(1)}–${item.end.toFixed(1)} s`;
    node.dataset.id = item.id || "";
    timeline.insertBefore(node, playhead);
  }
}

function documentItems(data) {
  return data.items.map((item) => ({
    kind: item.kind,
    id: item.id,
    start: item.integrated[0],
    end: item.integrated[1],
  }));
}

const clock = (seconds) => {
  const whole = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
};

// The view of whichever player runs: integrated time, duration, items, the playing ad.
function view() {
  if (own && own.state) {
    const state = own.state;
    const items = documentItems(state.document);
    const live = state.document.live;
    const start = live && items.length ? items[0].start : 0;
    const duration = live
      ? items.length
        ? items[items.length - 1].end - start
        : 0
      : state.document.durations.integrated;
    const shifted = live ? items.map((item) => ({ ...item, start: item.start - start, end: item.end - start })) : items;
    return {
      items: shifted,
      duration,
      current: own.integratedTime - start,
      ad: own.ad,
      mode: state.mode,
      paused: own.paused,
      live,
    };
  }
  const manager = hls && hls.interstitialsManager;
  if (manager && manager.schedule && manager.schedule.length) {
    const items = manager.schedule.map((item) => ({
      kind: item.event ? "interstitial" : "primary",
      id: item.event ? item.event.identifier : "",
      start: item.integrated ? item.integrated.start : item.start,
      end: item.integrated ? item.integrated.end : item.end,
    }));
    const playing = manager.playingItem && manager.playingItem.event;
    return {
      items,
      duration: manager.integrated ? manager.integrated.duration : 0,
      current: manager.integrated ? manager.integrated.currentTime : video.currentTime,
      ad: playing
        ? {
            id: playing.identifier,
            remaining: Math.max(0, manager.playingItem.playout.end - manager.integrated.currentTime),
            skippable: false,
            skipIn: null,
          }
        : null,
      mode: ended ? "ended" : playing ? "interstitial" : "primary",
      paused: video.paused,
      live: !isFinite(video.duration),
    };
  }
  return {
    items: serverItems,
    duration: serverDuration,
    current: video.currentTime,
    ad: null,
    mode: "primary",
    paused: video.paused,
  };
}

function render() {
  const state = view();
  draw(state.items, state.duration);
  if (state.duration > 0) playhead.style.left = Math.min(100, (100 * state.current) / state.duration) + "%";
  for (const node of timeline.querySelectorAll(".item"))
    node.classList.toggle("current", !!state.ad && node.dataset.id === state.ad.id);
  $("times").textContent = state.live
    ? `live ${state.current.toFixed(1)} s into the window`
    : `${clock(state.current)} / ${clock(state.duration || 0)}`;
  $("playpause").textContent = state.paused ? "Play" : "Pause";
  const ad = state.ad;
  $("ad").hidden = !ad;
  if (ad) {
    $("ad-label").textContent = ad.assets > 1 ? `Ad ${ad.asset + 1} of ${ad.assets}` : "Ad";
    $("countdown").textContent = `${clock(ad.remaining)} left`;
    $("skip").hidden = !ad.skippable;
    $("skip-in").textContent = ad.skipIn !== null && ad.skipIn !== undefined ? `Skip in ${Math.ceil(ad.skipIn)} s` : "";
  }
  let text;
  if (cannotPlay) text = "cannot play here: see above for why and how to fix it";
  else if (state.mode === "ended" || ended) text = "ended — everything, post-roll included, has played";
  else if (ad) text = `playing interstitial ${ad.id}`;
  else if (state.mode === "idle") text = "loading…";
  else text = state.paused ? "paused" : state.live ? "playing live primary" : "playing primary";
  status.textContent = text;
  requestAnimationFrame(render);
}

async function drawServerTimeline(url) {
  try {
    const base = url.substring(0, url.lastIndexOf("/"));
    const response = await fetch(base + "/timeline.json", { cache: "no-store" });
    if (!response.ok) return;
    // timeline.json is the schedule document that `hlsi schedule --json` prints.
    const data = await response.json();
    serverItems = documentItems(data);
    serverDuration = data.durations.integrated || 0;
  } catch {
    /* the player's own timeline is drawn instead */
  }
}

/** Fires the ad tracking beacons of what `instance` (hls.js, which fires none itself) plays, each
 * traced with `trace`: hls.js reports each asset's start and end; its asset player's position is
 * read every 100 ms while the asset shows a frame. */
function trackBeacons(instance, trace) {
  const tracker = new BeaconTracker();
  let current = null; // {id, index, player}
  const send = (firings) => sendBeacons(firings, trace);
  const frame = () => {
    const media = current && current.player.media;
    if (media && media.readyState >= 2 && !media.seeking)
      send(tracker.advanced(current.id, current.index, current.player.currentTime));
  };
  const timer = setInterval(frame, 100);
  instance.on(Hls.Events.ASSET_LIST_LOADING, (_, data) => tracker.forget(data.event.identifier)); // a new ad decision
  instance.on(Hls.Events.INTERSTITIAL_ASSET_STARTED, (_, data) => {
    const id = data.event.identifier;
    const index = data.assetListIndex;
    current = { id, index, player: data.player };
    // The list as ASSET_LIST_LOADED gave it (hls.js keeps it on the event): hls.js may start the
    // first asset inside its own ASSET_LIST_LOADED handler, before the page's would run.
    const list = data.event.assetListResponse;
    tracker.assetStarted({ eventID: id, index, ...signalingOf(list, index), end: data.player.duration || null });
  });
  instance.on(Hls.Events.INTERSTITIAL_ASSET_ENDED, (_, data) => {
    frame();
    send(tracker.assetStopped(data.event.identifier, data.assetListIndex, data.player.currentTime));
    current = null;
  });
  instance.on(Hls.Events.INTERSTITIAL_ENDED, (_, data) => send(tracker.eventEnded(data.event.identifier)));
  instance.on(Hls.Events.DESTROYING, () => clearInterval(timer));
}

async function load() {
  const url = select.value;
  ended = false;
  say("");
  if (hls) {
    hls.destroy();
    hls = null;
  }
  if (own) {
    own.stop();
  }
  const player = await choosePlayer();
  $("player-kind").textContent = player.label;
  $("player-why").textContent = player.why;
  window.playerKind = player.kind;
  log({ event: "PLAYER", kind: player.kind });
  drawServerTimeline(url);
  cannotPlay = player.kind === "none";
  if (cannotPlay) return;
  if (player.kind === "native") {
    own = own || new InterstitialPlayer({ primary: video, interstitial: $("interstitial"), trace: log });
    window.player = own;
    try {
      await own.load(url, { live: url.includes("/live/") });
    } catch (error) {
      log({ event: "ERROR", details: String(error), fatal: true });
      say(`cannot load ${url}: ${error}`);
    }
    return;
  }
  // Not appended in place: each asset gets its own MediaSource. Appended in place (hls.js's default),
  // live breaks of the demo stalled at their boundary or cut an ad short (E2E/page_playback.py).
  hls = new Hls({ debug: false, interstitialAppendInPlace: false });
  window.hls = hls;
  for (const [key, name] of Object.entries(Hls.Events)) {
    if (key.startsWith("INTERSTITIAL") && key !== "INTERSTITIALS_BUFFERED_TO_BOUNDARY") {
      hls.on(name, (_, data) => {
        log({
          event: key,
          id: data && data.event ? data.event.identifier : undefined,
          asset: data && data.asset ? data.asset.uri : undefined,
        });
        // After a post-roll hls.js leaves the element detached, with no "ended": the page says it ended.
        if (key === "INTERSTITIAL_ENDED" && data && data.event && data.event.cue && data.event.cue.post)
          log({ event: "PLAYBACK_ENDED" });
      });
    }
  }
  hls.on(Hls.Events.ERROR, (_, data) => log({ event: "ERROR", details: data.details, fatal: data.fatal }));
  trackBeacons(hls, log);
  hls.loadSource(url);
  hls.attachMedia(video);
  video.play().catch((error) => {
    if (error.name !== "AbortError") log({ event: "PLAY_FAILED", details: String(error) });
  });
}

// hls.js plays everything in `video`: the element also ends with each interstitial asset, and
// before a post-roll (whose end the INTERSTITIAL_ENDED handler reports). Only the end of it all is
// the page's end.
video.addEventListener("ended", () => {
  const manager = hls && hls.interstitialsManager;
  if (!hls || ended || (manager && (manager.playingItem?.event || manager.events.some((event) => event.cue.post))))
    return;
  log({ event: "PLAYBACK_ENDED" });
});

// Controls.
$("load").addEventListener("click", load);
$("playpause").addEventListener("click", () => {
  if (own && own.state) own.togglePause();
  else if (video.paused) video.play().catch(() => {});
  else video.pause();
});
$("skip").addEventListener("click", () => {
  if (!own) return;
  const refusal = own.skip();
  say(refusal ? `skip refused: ${refusal.reason}` : "");
});
timeline.addEventListener("click", (click) => {
  const state = view();
  const box = timeline.getBoundingClientRect();
  const target = ((click.clientX - box.left) / box.width) * state.duration;
  if (own && own.state) {
    const refusal = own.seek(target);
    say(refusal ? `seek refused: ${refusal.reason}` : "");
    return;
  }
  const manager = hls && hls.interstitialsManager;
  if (manager && manager.integrated) manager.integrated.seekTo(target);
  else video.currentTime = target;
});
window.currentTime = () => video.currentTime;
requestAnimationFrame(render);

// A coordinated group: each member speaks the /group protocol over its own WebSocket. Members
// play with hls.js when it is loaded, else with the page's own controller.
const groupName = params.get("group") || "demo-page";
const groupURL =
  (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/group/" + encodeURIComponent(groupName);
$("group-name").textContent = groupName;
$("group-command").textContent =
  "hlsi play " + location.origin + (select.options[0] ? select.options[0].value : "") + " --group " + groupURL;
window.groupTrace = [];
function member(name, element, adElement) {
  const m = { name, video: element, socket: null, offset: 0, applyingUntil: 0, hls: null, player: null };
  const primaryTime = () =>
    m.hls && m.hls.interstitialsManager
      ? m.hls.interstitialsManager.primary.currentTime
      : m.player && m.player.state
        ? m.player.state.primaryTime
        : element.currentTime;
  const seek = (t) => {
    if (m.hls && m.hls.interstitialsManager) m.hls.interstitialsManager.primary.currentTime = t;
    else element.currentTime = t;
  };
  // Players pause, seek and play the element themselves around interstitials: only primary playback proposes.
  const inInterstitial = () =>
    m.hls
      ? !!(
          m.hls.interstitialsManager &&
          m.hls.interstitialsManager.playingItem &&
          m.hls.interstitialsManager.playingItem.event
        )
      : !!(m.player && m.player.state && m.player.state.mode !== "primary");
  const now = () => Date.now() * 1e6 + m.offset;
  // `playing` given: the user's intent (the start button), proposed even inside an interstitial.
  m.propose = (playing) => {
    if (!m.socket || m.socket.readyState !== 1) return;
    if (playing === undefined && (performance.now() < m.applyingUntil || inInterstitial())) return;
    m.socket.send(
      JSON.stringify({
        type: "propose",
        state: {
          playing: playing === undefined ? !element.paused : playing,
          rate: element.playbackRate || 1,
          location: { primary: primaryTime() },
          referenceTime: Math.round(now()),
        },
      }),
    );
  };
  m.apply = (state) => {
    m.applyingUntil = performance.now() + 400;
    const gone = state.playing ? ((now() - state.referenceTime) / 1e9) * state.rate : 0;
    const target = (state.location.primary !== undefined ? state.location.primary : primaryTime()) + Math.max(0, gone);
    // hls.js plays its interstitials in the same element; the built-in controller in its own, and
    // its primary element waits (or runs on, hidden) until the interstitial is over.
    const native = !!m.player && inInterstitial();
    const playing = native ? m.player.interstitial : element;
    if (!native && Math.abs(primaryTime() - target) > 0.25) seek(target);
    if (element.playbackRate !== state.rate) element.playbackRate = state.rate;
    if (state.playing && playing.paused) playing.play().catch(() => {});
    if (!state.playing && !playing.paused) playing.pause();
    window.groupTrace.push({ member: name, revision: state.revision, playing: state.playing, target });
  };
  m.connect = () => {
    m.socket = new WebSocket(groupURL);
    m.socket.addEventListener("open", () => {
      m.socket.send(JSON.stringify({ type: "ping", sent: Date.now() * 1e6 }));
      m.socket.send(JSON.stringify({ type: "join", name }));
    });
    m.socket.addEventListener("message", (message) => {
      const data = JSON.parse(message.data);
      if (data.type === "pong") m.offset = data.time - (data.sent + (Date.now() * 1e6 - data.sent) / 2);
      else if (data.type === "welcome") {
        m.id = data.participant;
        // The start button asked this member to play: the group plays, whatever its player is doing now.
        if (m.startsGroup) {
          m.startsGroup = false;
          m.propose(true);
        } else if (data.state) m.apply(data.state);
        else if (!element.paused) m.propose(); // a paused joiner waits for the group's state
      } else if (data.type === "state" && data.state.originator !== m.id) m.apply(data.state);
      else if (data.type === "release") m.apply(data.state);
      else if (data.type === "participants") $("group-status").textContent = data.participants.length + " in the group";
    });
  };
  for (const type of ["play", "pause", "seeked", "ratechange"]) element.addEventListener(type, () => m.propose());
  m.start = async (url) => {
    const useHls = config.hlsjs && params.get("player") !== "native" && (await importHls());
    if (useHls && Hls.isSupported()) {
      m.hls = new Hls();
      trackBeacons(m.hls, () => {});
      m.hls.loadSource(url);
      m.hls.attachMedia(element);
    } else if (nativeHLS()) {
      m.player = new InterstitialPlayer({ primary: element, interstitial: adElement, trace: () => {} });
      await m.player.load(url);
    }
  };
  return m;
}
const members = [member("page-a", $("member-a"), $("member-a-ad")), member("page-b", $("member-b"), $("member-b-ad"))];
window.groupMembers = members;
$("group-start").addEventListener("click", async () => {
  members[0].startsGroup = !members[0].socket;
  const vod =
    [...select.options].map((option) => option.value).find((value) => value.includes("/vod/")) ||
    select.options[0].value;
  for (const m of members) {
    if (!m.hls && !m.player) await m.start(vod);
    if (!m.socket) m.connect();
  }
  members[0].video.play().catch(() => {});
  if (!members[0].startsGroup) members[0].propose(true);
});

if (params.get("autoplay") !== "0") load();
