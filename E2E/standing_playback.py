"""End-to-end (issue 43): hls.js 1.6.15 in headless Chromium plays a live break whose ads the server
decided before its cue (a standing decision), on a channel whose breaks show only as they start.

1. E2E/ad_server.py answers VAST (ad2 4 s, ad3 6 s, ad1 6 s) after 100 ms and logs every request.
   `hlsi serve` loops the demo's primary as channel live/cue; its `signalInserter` (form `cue-out`,
   no lead) writes EXT-X-CUE-OUT at the first segment of one 10 s break, about 22 s after the
   server starts; `signals: scte35` makes it an interstitial filled by the ad server, with
   `prefetch.expectedBreak` 10 (standing decisions on) and `tracking: server` (the server fires
   the impressions when it answers the asset list).
2. hls.js plays /cue/live/master.m3u8 with its interstitials controller on, behind the live edge as
   by default. Its playlist requests carry `X-PLAYBACK-SESSION-ID` (hls.js's own session ID, the
   `_HLS_primary_id` of its asset-list requests), as AVPlayer sends it, through `xhrSetup`: without
   it hls.js's playlist requests name no session, and the server first sees the viewer when it asks
   for its first asset list (docs/ad-decisioning.md, "Decisions made ahead").
3. The script polls the media playlist (with no session, so it is no viewer), /metrics and the ad
   server's log every 0.4 s. Checked:
   - before the break's first segment shows in the playlist: the viewer's standing decision is kept
     (`hlsi_standing_decisions`, `hlsi_ad_decisions_total{path="prefetched"}`), and the ad server
     was asked for it (`brk=standing-<period>`, `dur=10`, the viewer's `sid`);
   - after: the asset list hls.js asked for was answered from it (`path="standing"`, no other path;
     the ad server never asked for the signalled break's ID), fitted to the 10 s (ad2 then ad3);
     after the cue the viewer got a new standing decision for the next break;
   - hls.js starts the interstitial, plays both assets and resumes the primary; a screenshot of the
     video during the first asset shows ad2's frame (its red, green and blue bands; the primary
     shows vertical colour bars), one after the break the primary's;
   - the impression beacons of ad2 and ad3 reached the ad server, once each;
   - no stall longer than 1 s from the break's start on (a bufferStalledError lasts until the picture
     moves again, as E2E/page_playback.py measures it: short stalls come on a loaded machine), no
     other hls.js error; back on the primary, its position moves with the wall clock (no freeze
     longer than 1 s) for 4 s.
Loopback only; the whole script is bounded (about 50 s, 90 s at most). Screenshots and the page's
trace go to E2E/.cache/standing/.

Usage: python3 E2E/standing_playback.py --hlsi PATH --hls E2E/.cache/hls.mjs
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request

from support import Server, check, chromium, failures, finish, free_port, start_ad_server, stop

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, ".cache", "standing")
DEMO = os.path.join(HERE, "..", "Sources", "InterstitialServer", "Resources", "demo")
TOKEN = "e2e-standing-token"
EPOCH = 1767225600  # the live channels' default epoch, 2026-01-01T00:00:00Z
BUDGET = 90  # seconds, the whole script
# Seconds from the server's start to the break's planned start: the viewer plays (its reloads span
# prefetchPlayingSpan, 6 s) and is decided well before it.
LEAD = 22
BREAK = 10  # seconds, the break's signalled length and expectedBreak
FITTED = ["ad2", "ad3"]  # the ad server's pod (ad2 4 s, ad3 6 s, ad1 6 s) fitted to 10 s
AFTER = 4  # seconds of primary watched after the break
STEP = 0.4
STALL_LIMIT = 1.0  # seconds: a stall, or the primary's picture standing still, longer than this fails

# The player: hls.js with its interstitials on; every request names the session (xhrSetup).
PAGE = """<!doctype html>
<html><body style="margin:0;background:#000">
<video id="v" muted autoplay playsinline width="640" height="360"></video>
<script type="module">
import { Hls } from "/assets/hls.mjs";
window.trace = [];
window.samples = [];
const video = document.getElementById("v");
let session = "";
const hls = new Hls({
  xhrSetup(xhr, url) {
    if (!xhr.readyState) xhr.open("GET", url, true);
    // Playlists only: the server records viewers from them, and a page on another origin then pays
    // a CORS preflight per playlist URL (cached), not per segment.
    if (new URL(url, location.href).pathname.endsWith(".m3u8")) xhr.setRequestHeader("X-PLAYBACK-SESSION-ID", session);
  },
});
session = hls.sessionId;
window.hls = hls;
window.session = session;
const at = () => performance.now();
for (const [key, name] of Object.entries(Hls.Events)) {
  if (key.startsWith("INTERSTITIAL") || key === "ASSET_LIST_LOADED") {
    hls.on(name, (_, data) => window.trace.push({
      event: key, at: at(), id: data && data.event ? data.event.identifier : undefined,
      asset: data && data.asset ? data.asset.uri : undefined,
      list: data && data.assetListResponse ? data.assetListResponse.ASSETS.map((a) => [a.URI, a.DURATION]) : undefined }));
  }
}
hls.on(Hls.Events.ERROR, (_, data) => window.trace.push({ event: "ERROR", at: at(), details: data.details, fatal: data.fatal }));
setInterval(() => {
  const m = hls.interstitialsManager;
  window.samples.push({ at: at(), t: video.currentTime,
    primary: m && m.primary ? m.primary.currentTime : video.currentTime,
    playing: m && m.playingItem && m.playingItem.event ? m.playingItem.event.identifier : null,
    paused: video.paused });
}, 200);
hls.loadSource("/cue/live/master.m3u8");
hls.attachMedia(video);
video.play().catch((error) => window.trace.push({ event: "PLAY_FAILED", at: at(), details: String(error) }));
</script>
</body></html>
"""


def configuration(work, ad_origin, start):
    """The server's configuration: channel live/cue with one cue-out break planned at `start` (Unix s)."""
    demo = os.path.abspath(DEMO)
    vast = ad_origin + "/vast?brk=[BREAKID]&dur=[BREAKDURATION]&sid=[SESSIONID]&cb=[CACHEBUSTING]"
    config = {
        "live": [{"id": "cue", "path": "/cue/live", "loop": demo + "/primary", "windowSegments": 6,
                  "signals": "scte35",
                  "signalInserter": {"every": 3600, "duration": BREAK, "offset": (start - EPOCH) % 3600,
                                     "form": "cue-out"},
                  "adServer": {"vast": vast, "tracking": "server", "prefetch": {"expectedBreak": BREAK}}}],
        "ads": demo + "/ads", "database": os.path.join(work, "server.sqlite"), "creativeCache": None,
        "adServerFetch": {"allowPrivate": True},
        "seed": {"inventory": [{"id": "ad1", "uri": "/ads/ad1/master.m3u8", "duration": 6}]},
    }
    path = os.path.join(work, "config.json")
    with open(path, "w") as out:
        json.dump(config, out)
    return path


def fetch(url, headers=None):
    """The body of `url` as text, "" when it cannot be read within 2 s."""
    try:
        request = urllib.request.Request(url, headers=headers or {})
        return urllib.request.urlopen(request, timeout=2).read().decode()
    except OSError:
        return ""


def metrics(base):
    """{name{labels}: value} of the server's /metrics."""
    values = {}
    for line in fetch(base + "/metrics", {"Authorization": f"Bearer {TOKEN}"}).splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            try:
                values[name] = float(value)
            except ValueError:
                pass
    return values


def decisions(values, path):
    return values.get(f'hlsi_ad_decisions_total{{target="live/cue",path="{path}"}}', 0)


def ad_requests(log):
    with open(log) as source:
        return source.read().splitlines()


def query(line):
    return {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlparse(line).query).items()}


def frame(page, name):
    """Screenshot of the video as E2E/.cache/standing/NAME.png; returns what it shows (`classify`)."""
    path = os.path.join(OUT, name + ".png")
    page.locator("#v").screenshot(path=path)
    raw = subprocess.run(["ffmpeg", "-loglevel", "error", "-i", path, "-vf", "scale=320:180", "-f", "rawvideo",
                          "-pix_fmt", "rgb24", "pipe:1"], capture_output=True, timeout=20).stdout
    return classify(raw) if len(raw) == 320 * 180 * 3 else f"unreadable ({len(raw)} bytes)"


def classify(rgb):
    """What a 320x180 RGB frame of the demo shows: `ad2` (horizontal red, green and blue bands, their
    right side bright), `primary` (vertical red, green, blue and cyan bars), else `other`."""
    def colour(x, y):
        pixels = [rgb[((y + dy) * 320 + x + dx) * 3:((y + dy) * 320 + x + dx) * 3 + 3]
                  for dy in range(-3, 4) for dx in range(-3, 4)]
        r, g, b = (sum(p[i] for p in pixels) / len(pixels) for i in range(3))
        bright = lambda v: v > 150
        dark = lambda v: v < 90
        if bright(r) and dark(g) and dark(b):
            return "red"
        if bright(g) and dark(r) and dark(b):
            return "green"
        if bright(b) and dark(r) and dark(g):
            return "blue"
        if bright(g) and bright(b) and dark(r):
            return "cyan"
        return "other"

    if [colour(300, y) for y in (45, 90, 150)] == ["red", "green", "blue"]:
        return "ad2"
    # The primary's bars, each read at ten points: its moving gradient and boxes cover some.
    bars = [((10, 40), "red"), ((60, 98), "green"), ((170, 205), "blue"), ((275, 310), "cyan")]
    if all(sum(colour(x, y) == bar for x in xs for y in (50, 80, 110, 140, 170)) >= 3 for xs, bar in bars):
        return "primary"
    return "other"


def events(trace, name, ident=None):
    return [e for e in trace if e["event"] == name and (ident is None or e.get("id") == ident)]


def stalls(trace, samples, since):
    """Each bufferStalledError from `since` (page ms) on: (when, from `since`, in s; how long, in s,
    until the shown picture moved again, as E2E/page_playback.py measures it)."""
    found = []
    for error in [e for e in events(trace, "ERROR") if e["details"] == "bufferStalledError" and e["at"] >= since]:
        later = [s for s in samples if s["at"] >= error["at"]]
        moved = next((s for s, p in zip(later[1:], later) if abs(s["t"] - p["t"]) > 0.005), None)
        end = moved["at"] if moved else later[-1]["at"] if later else error["at"]
        found.append(((error["at"] - since) / 1000, (end - error["at"]) / 1000))
    return found


def longest_freeze(samples, since, until):
    """The longest time (s) the primary's position stood still while the page's clock ran, between
    `since` and `until` (page ms), outside interstitials and pauses."""
    longest, current, previous = 0.0, 0.0, None
    for sample in samples:
        if not since <= sample["at"] <= until:
            continue
        if previous and sample["playing"] is None and previous["playing"] is None and not sample["paused"]:
            wall = (sample["at"] - previous["at"]) / 1000
            moved = sample["primary"] - previous["primary"]
            current = current + wall if moved < 0.01 else 0.0
            longest = max(longest, current)
        previous = sample
    return longest


def watch(page, base, log, start, deadline):
    """Polls until the primary has played AFTER s past the break (or `deadline`); returns what was seen."""
    seen = {"cue": None, "before": {}, "asked_before": [], "shots": {}, "resumed_at": None}
    playlist_url = base + "/cue/live/video/main.m3u8"
    while time.time() < deadline:
        # Metrics and the ad server's log first, then the playlist: when the playlist has no cue
        # yet, what was read before it was read before the cue.
        values = metrics(base)
        asked = ad_requests(log)
        playlist = fetch(playlist_url)
        if seen["cue"] is None:
            if "#EXT-X-CUE-OUT:" in playlist:
                ident = re.search(r'#EXT-X-DATERANGE:ID="([^"]+)",CLASS="com\.apple\.hls\.interstitial"', playlist)
                seen["cue"] = {"wall": time.time(), "id": ident.group(1) if ident else None}
                print(f"  the cue shows in the playlist {time.time() - start:+.1f} s from the break's planned "
                      f"start (break {seen['cue']['id']})", flush=True)
            elif playlist:
                seen["before"], seen["asked_before"] = values, asked
        trace = page.evaluate("window.trace")
        started = events(trace, "INTERSTITIAL_ASSET_STARTED")
        if started and "ad" not in seen["shots"]:
            # Inside the first (4 s) asset, once its first frames are shown.
            if (page.evaluate("performance.now()") - started[0]["at"]) / 1000 >= 1.5:
                seen["shots"]["ad"] = frame(page, "ad")
                print(f"  screenshot during the first asset ({started[0]['asset']}): {seen['shots']['ad']}", flush=True)
        resumed = events(trace, "INTERSTITIALS_PRIMARY_RESUMED")
        if resumed and events(trace, "INTERSTITIAL_ENDED"):
            now = page.evaluate("performance.now()")
            if seen["resumed_at"] is None:
                seen["resumed_at"] = time.time()
                print(f"  primary resumed {time.time() - start:+.1f} s from the break's planned start", flush=True)
            if (now - resumed[-1]["at"]) / 1000 >= AFTER:
                seen["shots"]["primary"] = frame(page, "primary")
                print(f"  screenshot {AFTER} s after the break: {seen['shots']['primary']}", flush=True)
                break
        if any(e.get("fatal") for e in events(trace, "ERROR")):
            break
        time.sleep(STEP)
    seen["trace"] = page.evaluate("window.trace")
    seen["samples"] = page.evaluate("window.samples")
    seen["session"] = page.evaluate("window.session")
    seen["lists"] = page.evaluate(
        "performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('asset-list.json'))")
    seen["after"] = metrics(base)
    return seen


def timeline(trace):
    """hls.js's events, one a line, in seconds from the interstitial's start."""
    first = events(trace, "INTERSTITIAL_STARTED")
    zero = first[0]["at"] if first else 0
    for e in trace:
        detail = e.get("details") or (e.get("asset") or "").split("/ads/")[-1] or e.get("id") or ""
        print(f"    {(e['at'] - zero) / 1000:+7.2f} s  {e['event']} {detail}")


def verify(seen, log):
    session, cue, trace = seen["session"], seen["cue"], seen["trace"]
    print("  hls.js's events, from the interstitial's start:")
    timeline(trace)
    with open(os.path.join(OUT, "trace.json"), "w") as out:
        json.dump({k: v for k, v in seen.items() if k not in ("before", "after")}, out)
    print("== before the cue", flush=True)
    check(cue is not None and cue["id"], f"the break's cue (EXT-X-CUE-OUT) showed in the playlist: {cue}")
    before = seen["before"]
    standing = before.get('hlsi_standing_decisions{target="live/cue"}', 0)
    check(standing >= 1 and decisions(before, "prefetched") >= 1,
          f"before the cue, the server kept a standing decision: hlsi_standing_decisions {standing:g} (expected "
          f"≥ 1), ad_decisions_total{{path=\"prefetched\"}} {decisions(before, 'prefetched'):g} (expected ≥ 1)")
    asked = [query(line) for line in seen["asked_before"] if line.startswith("/vast?")]
    mine = [q for q in asked if q.get("sid") == session]
    check(bool(mine) and all(q.get("brk", "").startswith("standing-") and q.get("dur") == str(BREAK) for q in mine),
          f"before the cue, the ad server was asked for hls.js's session {session} for the standing break "
          f"(brk=standing-<period>, dur={BREAK}): {mine or asked}")
    print("== the break", flush=True)
    after = seen["after"]
    paths = {name.split('path="')[1].rstrip('"}'): value for name, value in after.items()
             if name.startswith('hlsi_ad_decisions_total{target="live/cue"')}
    answered = {path: value for path, value in paths.items() if path != "prefetched"}
    check(answered == {"standing": 1},
          f"the asset list was answered from the standing decision: decisions by path {paths} (expected standing 1, "
          f"and no live, fallback, prefetch or other path)")
    lists = [url for url in seen["lists"] if cue and f"_HLS_interstitial_id={cue['id']}" in url]
    check(len(lists) == 1 and f"_HLS_primary_id={session}" in lists[0],
          f"hls.js asked once for the break's asset list, with its session: {seen['lists']}")
    requests = ad_requests(log)
    vast = [query(line) for line in requests if line.startswith("/vast?")]
    check(cue is not None and not [q for q in vast if q.get("brk") == cue["id"]],
          f"the ad server was never asked for the signalled break {cue and cue['id']}: "
          f"{sorted({q.get('brk') for q in vast})}")
    later = [query(line) for line in requests[len(seen["asked_before"]):] if line.startswith("/vast?")]
    again = [q for q in later if q.get("sid") == session and q.get("brk", "").startswith("standing-")]
    kept = after.get('hlsi_standing_decisions{target="live/cue"}', 0)
    check(bool(again) and kept >= 1,
          f"after the cue the viewer got a new standing decision, for the next break: the ad server was asked "
          f"again {again}, hlsi_standing_decisions {kept:g} (expected ≥ 1)")
    loaded = events(trace, "ASSET_LIST_LOADED", cue and cue["id"])
    listed = [(re.search(r"/ads/(ad\d)/", uri or "") or [None, uri])[1] for uri, _ in (loaded[0]["list"] if loaded else [])]
    check(listed == FITTED, f"the asset list is the ad server's pod fitted to {BREAK} s, in its order: {listed} "
                            f"(expected {FITTED})")
    print("== hls.js", flush=True)
    started = [e["id"] for e in events(trace, "INTERSTITIAL_STARTED")]
    check(cue is not None and started == [cue["id"]], f"hls.js started the break's interstitial once: {started}")
    assets = [(re.search(r"/ads/(ad\d)/", e.get("asset") or "") or [None, e.get("asset")])[1]
              for e in events(trace, "INTERSTITIAL_ASSET_STARTED")]
    check(assets == FITTED, f"hls.js played the fitted ads in order: {assets} (expected {FITTED})")
    ended = events(trace, "INTERSTITIAL_ASSET_ENDED")
    check(len(ended) == len(FITTED), f"each asset ended: {len(ended)} of {len(FITTED)}")
    check(bool(events(trace, "INTERSTITIAL_ENDED")) and bool(events(trace, "INTERSTITIALS_PRIMARY_RESUMED")),
          "the interstitial ended and hls.js resumed the primary")
    check(seen["shots"].get("ad") == "ad2",
          f"the screenshot during the first asset shows ad2's frame: {seen['shots'].get('ad')} "
          f"(E2E/.cache/standing/ad.png)")
    check(seen["shots"].get("primary") == "primary",
          f"the screenshot {AFTER} s after the break shows the primary: {seen['shots'].get('primary')} "
          f"(E2E/.cache/standing/primary.png)")
    print("== impressions and the return", flush=True)
    deadline = time.time() + 5
    while True:
        beacons = [line for line in ad_requests(log) if line.startswith("/t/") and line.endswith("/impression")]
        if len(beacons) >= len(FITTED) or time.time() >= deadline:
            break
        time.sleep(0.25)
    got = sorted(line.split("/")[3] for line in beacons)
    breaks = {line.split("/")[2] for line in beacons}
    check(got == sorted(FITTED) and all(b.startswith("standing-") for b in breaks),
          f"the ad server received the impression of each ad played, once, from the standing decision: {beacons}")
    first = events(trace, "INTERSTITIAL_STARTED")
    stalled = stalls(trace, seen["samples"], first[0]["at"] if first else 0)
    longest = max((length for _, length in stalled), default=0)
    check(longest <= STALL_LIMIT,
          f"no stall longer than {STALL_LIMIT} s from the break's start on (hls.js's bufferStalledError until the "
          f"picture moves again): {[(f'{at:+.1f} s', round(length, 2)) for at, length in stalled]}")
    other = [e for e in events(trace, "ERROR") if e.get("fatal") or e["details"] != "bufferStalledError"]
    check(not other + events(trace, "PLAY_FAILED"), f"no hls.js error but bufferStalledError: {other}")
    resumed = events(trace, "INTERSTITIALS_PRIMARY_RESUMED")
    if resumed:
        since = resumed[-1]["at"]
        # From 0.5 s after the resume (hls.js's own hand-over) to AFTER s, before the last screenshot.
        window = [s for s in seen["samples"] if since + 500 <= s["at"] <= since + AFTER * 1000 and s["playing"] is None]
        moved = window[-1]["primary"] - window[0]["primary"] if len(window) > 1 else 0
        span = (window[-1]["at"] - window[0]["at"]) / 1000 if len(window) > 1 else 0
        freeze = longest_freeze(seen["samples"], since + 500, since + AFTER * 1000)
        check(span >= AFTER - 1.5 and moved >= span - 1 and freeze <= STALL_LIMIT,
              f"back on the primary, playback runs on: {moved:.1f} s played in {span:.1f} s, longest freeze "
              f"{freeze:.2f} s (at most {STALL_LIMIT} s)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hlsi", required=True)
    parser.add_argument("--hls", required=True, help="hls.js ES module")
    args = parser.parse_args()
    began = time.time()
    os.makedirs(OUT, exist_ok=True)
    work = tempfile.mkdtemp(prefix="hlsi-standing-")
    log = os.path.join(work, "ads.log")
    open(log, "w").close()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    ads, origin = start_ad_server(base, log, delay_ms=100)
    started = []
    try:
        check(origin is not None, f"the ad server starts ({origin})")
        if origin is not None:
            play(args, base, port, work, origin, log, began, started)
    finally:
        stop(ads)
        for server in started:
            output = server.stop("the server")
            if failures:
                print("server log (last 15 lines):\n  " + "\n  ".join(output.splitlines()[-15:]))
        shutil.rmtree(work, ignore_errors=True)
        elapsed = time.time() - began
        check(elapsed <= BUDGET, f"the script ran {elapsed:.0f} s (at most {BUDGET} s)")
    finish("standing playback")


def play(args, base, port, work, origin, log, began, started):
    """Starts the server (appended to `started`, for the caller to stop) and hls.js, watches the
    break and checks it."""
    # Chromium first: the break is planned once the browser is up, LEAD s after the server starts.
    with chromium(autoplay=True) as browser:
        start = (int(time.time()) + LEAD + 1) // 2 * 2  # on a segment boundary (2 s from the epoch)
        server = Server(os.path.abspath(args.hlsi), "--config", configuration(work, origin, start),
                        "--admin-token", TOKEN, "--hlsjs", os.path.abspath(args.hls), port=port)
        started.append(server)
        check(server.wait("/cue/live/master.m3u8"), "hlsi serve serves channel live/cue")
        print(f"== hls.js joins live/cue; its break is planned {start - time.time():.1f} s from now", flush=True)
        page = browser.new_page()
        page.route(base + "/e2e/standing.html", lambda route: route.fulfill(body=PAGE, content_type="text/html"))
        page.goto(base + "/e2e/standing.html")
        seen = watch(page, base, log, start, min(began + BUDGET - 12, start + 45))
        page.close()
    verify(seen, log)


if __name__ == "__main__":
    main()
