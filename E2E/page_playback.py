"""End-to-end test of the demo page of `hlsi serve --demo` in headless Chromium (issue 16, items 1-3).

1. Offline first: a server started without --hlsjs; every request to another host is blocked (and
   none may be attempted). The page says it plays with its built-in controller and why; the VOD plays
   pre-roll, midroll-1, midroll-2 (both assets) and post-roll in order, each ad for its asset's
   duration, primary resumes where timeline.json says, the status line says "ended" after the
   post-roll, no error and no stall longer than 1 s.
2. The controls (element state at each screenshot, saved to E2E/.cache/screens/): the Skip button of
   midroll-2 shows only inside its skip window, the countdown decreases, Skip ends the event and
   primary resumes; a forward seek during midroll-1 (X-RESTRICT=SKIP) is refused with the reason in
   #notice; a seek past midroll-1 plays it first (JUMP) and lands at the target; the seek bar carries
   a marker for each of the four interstitials where timeline.json puts them.
3. A browser with neither native HLS nor hls.js: the page says it cannot play and how to fix it.
4. Live: the live channel is joined at four points relative to a break at second 30 of a minute
   (well before, 5 s before, inside, just after), with the built-in controller at one break and with
   hls.js (a second server, --hlsjs) at the next, each page opened at the wall-clock moment that puts
   its start there: no stall longer than 1 s (the player's STALLED, waiting → playing, hls.js's
   bufferStalledError until the picture moves again, and the shown position standing still), no
   error, each ad plays its asset's duration, primary resumes where R10 says (after the break the
   viewer is as far behind the live edge as before it); joined inside, the asset list request carries
   _HLS_start_offset (R11).
5. The 5 s before join with the built-in controller at a third break with a CPU hog running.

What each page recorded is saved in E2E/.cache/traces/ for a look after a failure.

Usage: python3 E2E/page_playback.py --hlsi PATH --hls E2E/.cache/hls.mjs
"""

import argparse
import asyncio
import contextvars
import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request

from support import async_chromium, check as support_check, demo_server, failures

checks = 0
# Inside a case that may be tried again, its checks are collected here instead of counted at once.
collected = contextvars.ContextVar("collected", default=None)


def check(condition, message):
    """support.check, counted for the "N passed, N failed" line (or collected, see retrying)."""
    global checks
    pending = collected.get()
    if pending is not None:
        pending.append((bool(condition), message))
        return
    checks += 1
    support_check(condition, message)


async def retrying(case, again):
    """Runs `case()`; if any of its checks fails, prints them and runs `again()` instead, whose
    checks count. For hls.js on live, a third-party player on a shared CI machine: a failure must
    happen twice (at two breaks) to fail the suite, and the first is always shown."""
    first = []
    token = collected.set(first)
    try:
        await case()
    finally:
        collected.reset(token)
    failed = [message for ok, message in first if not ok]
    if not failed:
        for ok, message in first:
            check(ok, message)
        return
    print("  (first try failed, trying again at a later break:\n    " + "\n    ".join(failed) + ")", flush=True)
    await again()


SCREENS = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".cache", "screens")
TRACES = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".cache", "traces")
STALL_LIMIT = 1.0
LIVE_AD_TOLERANCE = 0.6
VOD_AD_TOLERANCE = 0.5
# The players start about three target durations (6 s) behind the live edge: a page opened at wall
# time W plays the stream from about W - LATENCY, so a join at `d` seconds from a break at T is a
# page opened at T + d + LATENCY.
LATENCY = 6.5
BREAK = 10.0
results = []  # (case, measurements) for the summary

# Recorded in every page from its start: media events of every <video>, 10 samples a second of what
# plays and of the controls, and hls.js's asset events with their list index and duration.
INIT = r"""
(() => {
  window.media = [];
  window.samples = [];
  window.hlsEvents = [];
  const types = ["loadstart", "playing", "waiting", "ended", "pause", "seeking", "seeked", "error"];
  for (const type of types) {
    document.addEventListener(type, (event) => {
      const v = event.target;
      if (!(v instanceof HTMLMediaElement)) return;
      window.media.push({ type, id: v.id, at: performance.now(), t: v.currentTime, src: v.getAttribute("src") || v.currentSrc });
    }, true);
  }
  let hlsInstance = null;
  Object.defineProperty(window, "hls", {
    configurable: true,
    get() { return hlsInstance; },
    set(value) {
      hlsInstance = value;
      if (!value || !value.on) return;
      const record = (name) => value.on(name, (_, data) => window.hlsEvents.push({
        event: name, at: performance.now(), id: data && data.event ? data.event.identifier : null,
        index: data ? data.assetListIndex : null, uri: data && data.asset ? data.asset.uri : null,
        duration: data && data.asset ? data.asset.duration : null,
        startOffset: data && data.asset ? data.asset.startOffset : null,
        details: data ? data.details : null, fatal: data ? data.fatal : null,
        primaryDate: value.playingDate ? value.playingDate.getTime() / 1000 : null,
      }));
      for (const name of ["hlsInterstitialStarted", "hlsInterstitialEnded", "hlsInterstitialAssetStarted",
                          "hlsInterstitialAssetEnded", "hlsInterstitialsPrimaryResumed", "hlsError"]) record(name);
    },
  });
  const $ = (id) => document.getElementById(id);
  setInterval(() => {
    const primary = $("video");
    if (!primary) return;
    const shown = [...document.querySelectorAll("#stage video")].find((v) => !v.hidden && v !== primary && v.getAttribute("src")) || primary;
    let date = null;
    const hls = hlsInstance;
    if (hls && hls.playingDate) date = hls.playingDate.getTime() / 1000;
    else if (window.player && window.player.clock && window.player.state) date = window.player.clock.origin + primary.currentTime;
    const state = window.player && window.player.state;
    const run = state && state.run;
    const manager = hls && hls.interstitialsManager;
    window.samples.push({
      at: performance.now(), el: shown.id, t: shown.currentTime, paused: shown.paused, ended: shown.ended,
      date, primary: manager && manager.primary ? manager.primary.currentTime : primary.currentTime,
      mode: state ? state.mode : null, adId: run ? run.group.members[run.member] && run.group.members[run.member].id : null,
      elapsed: run ? run.eventElapsed : null,
      status: $("status").textContent, adHidden: $("ad").hidden, skipHidden: $("skip").hidden,
      skipIn: $("skip-in").textContent, countdown: $("countdown").textContent, notice: $("notice").textContent,
    });
  }, 100);
})();
"""


def events(trace, name, ident=None):
    return [e for e in trace if e.get("event") == name and (ident is None or e.get("id") == ident)]


def longest_freeze(samples, startup=8000):
    """The longest time (s) the shown picture lost against the wall clock while it should have played.

    Between two samples of the same element, playing, the position should move as much as the wall
    clock: what it falls short by (more than 50 ms) is lost, and consecutive losses add up. This
    sees a picture standing still and one the page was too starved to sample. Counted from the first
    sample where a position advanced, or `startup` ms after the first sample, whichever comes first
    (what comes before is the page's start-up); a change of element or a jump of the position (an
    asset or a seek) ends a freeze."""
    longest, current, previous, started = 0.0, 0.0, None, False
    for sample in samples:
        if previous is not None:
            wall = (sample["at"] - previous["at"]) / 1000
            moved = sample["t"] - previous["t"]
            same = sample["el"] == previous["el"]
            if same and moved > 0.005 or sample["at"] - samples[0]["at"] >= startup:
                started = True
            playing = same and not sample["paused"] and not sample["ended"] and -0.005 <= moved <= wall + 0.5
            lost = wall - moved if playing else 0.0
            if started and lost > 0.05:
                current += lost
                longest = max(longest, current)
            else:
                current = 0.0
        previous = sample
    return longest


def stalls(trace, media, element_ids):
    """Stall lengths (s): the player's STALLED entries, and waiting → playing on the given elements."""
    # The page's first frame (pre-roll or primary) is its start-up, not a stall.
    first = min((m["at"] for m in media if m["type"] == "playing"), default=None)
    lengths = [e["seconds"] for e in events(trace, "STALLED") if first is None or e["at"] > first + 5]
    since = {}
    started = set()  # waiting before an element's first `playing` is its start-up, not a stall
    for entry in media:
        if entry["id"] not in element_ids:
            continue
        if entry["type"] == "playing":
            started.add(entry["id"])
        if entry["type"] == "waiting" and entry["id"] in started:
            since.setdefault(entry["id"], entry["at"])
        elif entry["type"] == "playing" and entry["id"] in since:
            lengths.append((entry["at"] - since.pop(entry["id"])) / 1000)
    return lengths


def start_server(hlsi, hlsjs=None):
    """`hlsi serve --demo` with the admin token, and with hls.js when `hlsjs` is given."""
    return demo_server(hlsi, "--admin-token", "e2e-token", *(["--hlsjs", os.path.abspath(hlsjs)] if hlsjs else []))


def stop_server(server, label):
    output = server.stop()
    code = server.process.returncode
    check(code == 0, f"{label}: the server shuts down gracefully (exit {code})")
    return output


async def sleep_until(wall):
    delay = wall - time.time()
    if delay > 0:
        await asyncio.sleep(delay)


async def new_page(browser, blocked=None, origin=None):
    context = await browser.new_context(viewport={"width": 1000, "height": 900})
    await context.add_init_script(INIT)
    if blocked is not None:
        async def route(route):
            url = route.request.url
            if url.startswith(origin + "/") or url == origin:
                await route.continue_()
            else:
                blocked.append(url)
                await route.abort()
        await context.route("**/*", route)
    page = await context.new_page()
    page.bad = []  # responses with an error status, and requests that failed
    page.on("response", lambda response: page.bad.append(f"{response.status} {response.url}") if response.status >= 400 else None)
    page.on("requestfailed", lambda request: page.bad.append(f"failed ({request.failure}) {request.url}"))
    page.lists = {}  # interstitial id → (request URL, asset list) as the page received them

    async def on_response(response):
        if "asset-list.json" not in response.url:
            return
        query = urllib.parse.parse_qs(urllib.parse.urlparse(response.url).query)
        try:
            page.lists[query["_HLS_interstitial_id"][0]] = (response.url, await response.json())
        except Exception:  # noqa: BLE001 — a failed list is the player's to report
            pass
    page.on("response", on_response)
    return context, page


async def state(page, name):
    """What the page recorded; also saved to E2E/.cache/traces/NAME.json for a look after a failure."""
    data = await page.evaluate("""() => ({ trace: window.trace || [], samples: window.samples, media: window.media,
        hlsEvents: window.hlsEvents })""")
    os.makedirs(TRACES, exist_ok=True)
    with open(os.path.join(TRACES, "".join(c if c.isalnum() else "-" for c in name) + ".json"), "w") as out:
        json.dump({**data, "lists": getattr(page, "lists", {})}, out)
    return data


async def wait_for(page, predicate, timeout, step=0.1):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = await page.evaluate(predicate)
        if value:
            return value
        await asyncio.sleep(step)
    return None


async def screenshot(page, name):
    os.makedirs(SCREENS, exist_ok=True)
    await page.screenshot(path=os.path.join(SCREENS, name + ".png"))


UI = """() => ({ status: document.getElementById('status').textContent, notice: document.getElementById('notice').textContent,
    adHidden: document.getElementById('ad').hidden, skipHidden: document.getElementById('skip').hidden,
    skipIn: document.getElementById('skip-in').textContent, countdown: document.getElementById('countdown').textContent,
    mode: window.player && window.player.state ? window.player.state.mode : null,
    ad: window.player ? window.player.ad : null,
    elapsed: window.player && window.player.state && window.player.state.run ? window.player.state.run.eventElapsed : null,
    primary: window.player && window.player.state ? window.player.state.primaryTime : null })"""


def seconds(countdown):
    """'0:07 left' → 7."""
    try:
        minutes, rest = countdown.split(" ")[0].split(":")
        return int(minutes) * 60 + int(rest)
    except ValueError:
        return None


# 1. Offline first ---------------------------------------------------------------------------------


async def offline_vod(browser, server, timeline):
    blocked = []
    context, page = await new_page(browser, blocked=blocked, origin=server.base)
    try:
        await page.goto(f"{server.base}/?src=/demo/vod/master.m3u8")
        kind = await wait_for(page, "() => document.getElementById('player-kind').textContent", 10)
        why = await page.evaluate("() => document.getElementById('player-why').textContent")
        check(kind == "built-in controller", f"offline: #player-kind says {kind!r}")
        check("natively" in why and "--hlsjs" in why, f"offline: #player-why says why and how to get hls.js: {why!r}")
        # midroll-2's skip window, shot before, inside and after it.
        shots = {"before": lambda u: u["elapsed"] is not None and 0.3 < u["elapsed"] < 1.7,
                 "inside": lambda u: u["elapsed"] is not None and 2.3 < u["elapsed"] < 7.7,
                 "after": lambda u: u["elapsed"] is not None and 8.3 < u["elapsed"] < 9.7}
        deadline = time.time() + 110
        while time.time() < deadline and shots:
            ui = await page.evaluate(UI)
            if ui["ad"] and ui["ad"]["id"] == "midroll-2":
                for name, due in list(shots.items()):
                    if due(ui):
                        await screenshot(page, f"vod-midroll-2-skip-{name}")
                        shown = not ui["skipHidden"]
                        check(shown == (name == "inside"),
                              f"screenshot vod-midroll-2-skip-{name}: Skip button {'shown' if shown else 'hidden'} "
                              f"{ui['elapsed']:.1f} s into midroll-2 (window 2-8 s); skip-in {ui['skipIn']!r}")
                        if name == "before":
                            check(ui["skipIn"].startswith("Skip in"), f"before the window the page says when: {ui['skipIn']!r}")
                        del shots[name]
            await asyncio.sleep(0.1)
        check(not shots, f"the skip-window screenshots were taken (missing: {list(shots)})")
        ended = await wait_for(page, "() => window.trace.some(e => e.event === 'PLAYBACK_ENDED')", 60)
        await asyncio.sleep(0.5)
        ui = await page.evaluate(UI)
        await screenshot(page, "vod-ended")
        check(bool(ended) and "ended" in ui["status"] and ui["adHidden"],
              f"screenshot vod-ended: #status after the post-roll: {ui['status']!r}, ad overlay hidden {ui['adHidden']}")
        data = await state(page, "vod offline")
        trace, samples, media = data["trace"], data["samples"], data["media"]
        order = ["preroll", "midroll-1", "midroll-2", "postroll"]
        started = [e["id"] for e in events(trace, "INTERSTITIAL_STARTED")]
        check(started == order, f"offline: interstitials play in order: {started}")
        assets = [(e["id"], e["index"]) for e in events(trace, "INTERSTITIAL_ASSET_STARTED")]
        check(("midroll-2", 0) in assets and ("midroll-2", 1) in assets, f"offline: both assets of midroll-2 play: {assets}")
        lists = {ident: body for ident, (_, body) in page.lists.items()}
        played = []
        # X-ASSET-URI events: their one asset lasts the event's duration.
        single = {event["id"]: event["playoutDuration"] for event in timeline["events"] if event.get("assetURI")}
        for ident, index, length, expected in ad_lengths(trace, media, lists, single):
            played.append((ident, index, round(length, 2), expected))
            check(expected is not None and abs(length - expected) <= VOD_AD_TOLERANCE,
                  f"offline: {ident} asset {index} plays {length:.2f} s (asset duration {expected})")
        resume = {}
        items = timeline["items"]
        for index, item in enumerate(items):
            if item["kind"] == "interstitial" and index + 1 < len(items) and items[index + 1]["kind"] == "primary":
                resume[item["id"]] = items[index + 1]["primary"][0]
        resumed = events(trace, "INTERSTITIALS_PRIMARY_RESUMED")
        for ident, expected in resume.items():
            end = events(trace, "INTERSTITIAL_ENDED", ident)
            after = [e for e in resumed if end and e["at"] >= end[0]["at"]]
            position = after[0]["primary"] if after else None
            check(position is not None and abs(position - expected) <= 0.25,
                  f"offline: after {ident} primary resumes at {position} (timeline.json: {expected})")
            # and really plays from there: the first primary sample after the resume.
            later = [s for s in samples if after and s["at"] > after[0]["at"] + 300 and s["el"] == "video"]
            sampled = round(later[0]["t"], 2) if later else None
            check(sampled is not None and expected - 0.1 <= sampled <= expected + 1.0,
                  f"offline: primary plays on from {expected} after {ident} (0.3 s later at {sampled})")
        problems = [e for e in trace if e["event"] in ("ERROR", "PLAY_FAILED") or e["event"].endswith("_ERROR")]
        check(not problems, f"offline: no ERROR or PLAY_FAILED: {problems}")
        stalled = stalls(trace, media, [])
        freeze = longest_freeze(samples)
        check(max(stalled, default=0) <= STALL_LIMIT and freeze <= STALL_LIMIT,
              f"offline: longest STALLED {max(stalled, default=0):.3f} s, longest freeze {freeze:.2f} s (≤ {STALL_LIMIT} s)")
        check(not blocked, f"offline: no request to another host was attempted: {blocked}")
        results.append(("VOD offline (built-in)", {"ads": played, "stall max": max(stalled, default=0), "freeze max": round(freeze, 2)}))
    finally:
        await context.close()


def ad_lengths(trace, media, lists, single=None):
    """(id, index, seconds played, DURATION) of each asset the built-in controller started.

    Played: from the interstitial element's first `playing` after the asset started to the start of
    the next asset or the end of the interstitial (so the load time before the first frame does not
    count, a stall while playing does)."""
    out = []
    entries = [e for e in trace if e["event"] in ("INTERSTITIAL_ASSET_STARTED", "INTERSTITIAL_ENDED", "INTERSTITIAL_SKIPPED")]
    for position, entry in enumerate(entries):
        if entry["event"] != "INTERSTITIAL_ASSET_STARTED":
            continue
        following = entries[position + 1] if position + 1 < len(entries) else None
        if following is None:
            continue
        playing = [m for m in media if m["id"] != "video" and m["type"] == "playing" and entry["at"] <= m["at"] < following["at"]]
        begin = playing[0]["at"] if playing else entry["at"]
        assets = (lists.get(entry["id"]) or {}).get("ASSETS") or []
        expected = assets[entry["index"]].get("DURATION") if entry["index"] < len(assets) else (single or {}).get(entry["id"])
        out.append((entry["id"], entry["index"], (following["at"] - begin) / 1000, expected,
                    following["event"] == "INTERSTITIAL_SKIPPED"))
    return [(i, n, length, expected) for i, n, length, expected, skipped in out if not skipped]


# 2. The controls ----------------------------------------------------------------------------------


async def controls(browser, server, timeline):
    context, page = await new_page(browser)
    try:
        await page.goto(f"{server.base}/?src=/demo/vod/master.m3u8")
        duration = timeline["durations"]["integrated"]
        # The ad markers on the seek bar, where timeline.json puts them.
        await wait_for(page, "() => document.querySelectorAll('#timeline .item.interstitial').length >= 4", 10)
        bar = await page.locator("#timeline").bounding_box()
        markers = await page.evaluate("""() => [...document.querySelectorAll('#timeline .item.interstitial')].map(n => {
            const box = n.getBoundingClientRect(); return { id: n.dataset.id, left: box.left, width: box.width, point: n.classList.contains('point') }; })""")
        await screenshot(page, "vod-markers")
        expected = [item for item in timeline["items"] if item["kind"] == "interstitial"]
        check([m["id"] for m in markers] == [item["id"] for item in expected],
              f"screenshot vod-markers: one marker per interstitial: {[m['id'] for m in markers]}")
        for marker, item in zip(markers, expected):
            start = (marker["left"] - bar["x"]) / bar["width"] * duration
            length = marker["width"] / bar["width"] * duration
            check(abs(start - item["integrated"][0]) <= 0.5 and abs(length - (item["integrated"][1] - item["integrated"][0])) <= 0.5,
                  f"marker {marker['id']} at {start:.1f}-{start + length:.1f} s of {duration} (timeline.json {item['integrated']})")

        def x_of(integrated):
            return {"x": bar["width"] * integrated / duration, "y": bar["height"] / 2}

        # A click past midroll-1 from before it: midroll-1 plays first (JUMP), then the target.
        playing = await wait_for(page, "() => window.player && window.player.state && window.player.state.mode === 'primary' && window.player.primary.currentTime > 1", 20)
        check(bool(playing), "controls: primary plays after the pre-roll")
        target_integrated = 28.0  # primary 18 (item [22, 36] ↦ [12, 26])
        target = 12 + (target_integrated - 22)
        before = await page.evaluate(UI)
        await page.locator("#timeline").click(position=x_of(target_integrated))
        jump = await wait_for(page, "() => window.trace.find(e => e.event === 'JUMP')", 3)
        check(bool(jump) and before["primary"] < 12 and jump.get("id") == "midroll-1" and abs(jump.get("target", 0) - target) < 0.3,
              f"controls: a click at integrated {target_integrated} s from primary {before['primary']:.1f} s jumps: {jump}")
        in_ad = await wait_for(page, "() => window.player.ad && window.player.ad.id === 'midroll-1' && window.player.state.run.eventElapsed > 0.5 ? true : null", 8)
        check(bool(in_ad), "controls: midroll-1 plays before the target")
        # A forward seek while midroll-1 (X-RESTRICT=SKIP) plays is refused, and the page says why.
        await page.locator("#timeline").click(position=x_of(50))
        await asyncio.sleep(0.3)
        ui = await page.evaluate(UI)
        await screenshot(page, "vod-seek-refused")
        check("refused" in ui["notice"] and "SKIP" in ui["notice"] and ui["ad"] and ui["ad"]["id"] == "midroll-1",
              f"screenshot vod-seek-refused: #notice {ui['notice']!r} while {ui['status']!r}")
        refused = await page.evaluate("() => window.trace.filter(e => e.event === 'REFUSED')")
        check(any("SKIP" in (e.get("reason") or "") for e in refused), f"controls: REFUSED traced: {refused}")
        resumed = await wait_for(page, "() => window.trace.find(e => e.event === 'INTERSTITIALS_PRIMARY_RESUMED' && e.at > %f)" % jump["at"], 8) if jump else None
        check(bool(resumed) and abs(resumed["primary"] - target) <= 0.3,
              f"controls: after midroll-1 primary lands at the target {target}: {resumed}")
        # midroll-2: countdown, Skip only inside the window, Skip ends the event.
        await wait_for(page, "() => window.player.ad && window.player.ad.id === 'midroll-2' && window.player.state.run.eventElapsed > 0.3 ? true : null", 15)
        ui = await page.evaluate(UI)
        await screenshot(page, "vod-skip-before-window")
        check(ui["ad"] is not None and ui["skipHidden"] and not ui["adHidden"] and ui["skipIn"].startswith("Skip in"),
              f"screenshot vod-skip-before-window: ad shown, Skip hidden, {ui['skipIn']!r}, countdown {ui['countdown']!r} at {ui['elapsed']}")
        counts = [seconds(ui["countdown"])]
        await wait_for(page, "() => window.player.ad && window.player.ad.skippable && window.player.state.run.eventElapsed > 3.2 ? true : null", 6)
        ui = await page.evaluate(UI)
        counts.append(seconds(ui["countdown"]))
        await screenshot(page, "vod-skip-inside-window")
        check(not ui["skipHidden"] and ui["ad"] and ui["ad"]["id"] == "midroll-2",
              f"screenshot vod-skip-inside-window: Skip shown {ui['elapsed']:.1f} s into midroll-2" if ui["elapsed"] else "Skip shown")
        check(None not in counts and counts[1] < counts[0], f"controls: the countdown decreases: {counts}")
        clicked_at = await page.evaluate("performance.now()")
        await page.click("#skip")
        skipped = await wait_for(page, "() => window.trace.find(e => e.event === 'INTERSTITIAL_SKIPPED')", 3)
        resumed = await wait_for(page, "() => window.trace.find(e => e.event === 'INTERSTITIALS_PRIMARY_RESUMED' && e.at > %f)" % clicked_at, 3)
        await asyncio.sleep(0.5)
        ui = await page.evaluate(UI)
        await screenshot(page, "vod-skipped")
        check(bool(skipped) and skipped.get("id") == "midroll-2", f"controls: Skip ends midroll-2: {skipped}")
        check(bool(resumed) and abs(resumed["primary"] - 26) <= 0.3 and ui["adHidden"] and ui["status"] == "playing primary",
              f"screenshot vod-skipped: primary resumes at {resumed and resumed['primary']} (26), status {ui['status']!r}, ad hidden {ui['adHidden']}")
        trace = await page.evaluate("window.trace")
        problems = [e for e in trace if e["event"] in ("ERROR", "PLAY_FAILED") or e["event"].endswith("_ERROR")]
        check(not problems, f"controls: no ERROR or PLAY_FAILED: {problems}")
    finally:
        await context.close()


# 3. Neither native HLS nor hls.js -----------------------------------------------------------------


async def cannot_play(browser, server):
    context, page = await new_page(browser)
    try:
        await page.add_init_script("HTMLMediaElement.prototype.canPlayType = function () { return ''; };")
        await page.goto(f"{server.base}/?src=/demo/vod/master.m3u8&player=hlsjs")
        status = await wait_for(page, "() => window.playerKind ? document.getElementById('status').textContent : null", 10)
        await asyncio.sleep(0.3)
        kind = await page.evaluate("() => [window.playerKind, document.getElementById('player-kind').textContent, document.getElementById('player-why').textContent, document.getElementById('status').textContent]")
        await screenshot(page, "cannot-play")
        check(kind[0] == "none" and "cannot play" in kind[3], f"screenshot cannot-play: no player, status {kind[3]!r} ({kind[1]!r})")
        check("cannot play HLS" in kind[2] and "--hlsjs" in kind[2] and ("Safari" in kind[2] or "Chromium" in kind[2]),
              f"cannot-play: the page says how to fix it: {kind[2]!r}")
        del status
    finally:
        await context.close()


# 4, 5. Live joins ---------------------------------------------------------------------------------


async def live_join(browser, server, player, label, join, T, hog=None):
    """Opens the live channel so that playback starts about `join` s from the break at T (UNIX s)."""
    opened = T + join + LATENCY
    until = T + max(join, 0) + LATENCY + (BREAK + 6 if join < BREAK else 9)
    await sleep_until(opened - (3 if hog else 0))
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])] if hog else []
    await sleep_until(opened)
    name = f"live {label} ({player}{', loaded' if hog else ''})"
    context, page = await new_page(browser)
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    try:
        wall0 = time.time()
        await page.goto(f"{server.base}/?src=/demo/live/master.m3u8&player={player}")
        origin = wall0 - (await page.evaluate("performance.now()")) / 1000  # wall time of the page's at=0
        await sleep_until(until)
        data = await state(page, name)
        bad = list(page.bad)
    finally:
        await context.close()
        for process in hogs:
            process.kill()
            process.wait()
    trace, samples, media, hls_events = data["trace"], data["samples"], data["media"], data["hlsEvents"]
    ident = f"break-{T}"
    dated = [s for s in samples if s["date"]]
    start = dated[0]["date"] - T if dated else None
    summary = {"join": None if start is None else round(start, 2), "opened": round(opened - T, 1)}
    check(start is not None, f"{name}: playback starts (first position {start} s from the break)")
    lists = dict(page.lists)
    list_requests = [u for u in requests if "asset-list.json" in u]
    inside = start is not None and 0 < start < BREAK
    after = start is not None and start >= BREAK
    if player == "native":
        problems = [e for e in trace if e["event"] in ("ERROR", "PLAY_FAILED") or e["event"].endswith("_ERROR")]
        check(not problems, f"{name}: no error: {problems}" + (f"; failed requests: {bad[:5]}" if problems and bad else ""))
        stalled = stalls(trace, media, [])
    else:
        problems = [e for e in hls_events if e["event"] == "hlsError" and (e["fatal"] or e["details"] != "bufferStalledError")]
        check(not problems, f"{name}: no hls.js error other than bufferStalledError: {problems}")
        stalled = stalls([], media, ["video"])
        # How long each bufferStalledError lasted: until the shown position moved again.
        for error in [e for e in hls_events if e["details"] == "bufferStalledError"]:
            later = [s for s in samples if s["at"] >= error["at"]]
            moved = next((s for s, p in zip(later[1:], later) if abs(s["t"] - p["t"]) > 0.005), None)
            stalled.append(((moved["at"] if moved else later[-1]["at"] if later else error["at"]) - error["at"]) / 1000)
    freeze = longest_freeze(samples)
    summary["stall max"] = round(max(stalled, default=0), 3)
    summary["freeze max"] = round(freeze, 2)
    check(max(stalled, default=0) <= STALL_LIMIT and freeze <= STALL_LIMIT,
          f"{name}: longest stall {max(stalled, default=0):.3f} s, longest freeze {freeze:.2f} s (≤ {STALL_LIMIT} s)")
    if after:
        played = events(trace, "INTERSTITIAL_STARTED", ident) + [e for e in hls_events if e["event"] == "hlsInterstitialStarted" and e["id"] == ident]
        check(not played, f"{name}: joined {start:.1f} s after the break started, the finished break does not play")
        results.append((name, summary))
        return
    _, asset_list = lists.get(ident, (None, None))
    offsets = [urllib.parse.parse_qs(urllib.parse.urlparse(url).query).get("_HLS_start_offset", [None])[0]
               for url in list_requests if f"_HLS_interstitial_id={ident}" in url]
    if inside:
        summary["_HLS_start_offset"] = offsets
    if inside and player == "native":
        given = [float(offset) for offset in offsets if offset is not None]
        check(bool(given) and abs(given[-1] - start) <= 0.6,
              f"{name}: joined {start:.2f} s into the break, the asset list request carries _HLS_start_offset: {offsets} (R11)")
    if player == "native":
        began = events(trace, "INTERSTITIAL_STARTED", ident)
        ended = events(trace, "INTERSTITIAL_ENDED", ident)
        check(bool(began) and bool(ended), f"{name}: {ident} starts and ends")
        ads = []
        lists_by_id = {ident: asset_list or {}}
        for number, (event_id, index, length, expected) in enumerate(ad_lengths(trace, media, lists_by_id)):
            if event_id != ident:
                continue
            ads.append((index, round(length, 2), expected))
            if inside and number == 0:
                continue  # joined inside: the first asset starts part way in
            check(expected is not None and abs(length - expected) <= LIVE_AD_TOLERANCE,
                  f"{name}: asset {index} plays {length:.2f} s (DURATION {expected})")
        check(bool(ads), f"{name}: the break's assets play: {ads}")
        summary["ads"] = ads
        resumed = [e for e in events(trace, "INTERSTITIALS_PRIMARY_RESUMED") if ended and e["at"] >= ended[0]["at"]]
        if resumed:
            # What the controller computed (start + media time of the ads) against where primary is.
            summary["controller resume error"] = round(resumed[0]["primary"] - resumed[0]["expected"], 2)
        resume_check(name, summary, samples, began, resumed, inside)
    else:
        began = [e for e in hls_events if e["event"] == "hlsInterstitialStarted" and e["id"] == ident]
        ended = [e for e in hls_events if e["event"] == "hlsInterstitialEnded" and e["id"] == ident]
        check(bool(began) and bool(ended), f"{name}: {ident} starts and ends")
        ads = []
        starts = [e for e in hls_events if e["event"] == "hlsInterstitialAssetStarted" and e["id"] == ident]
        for number, entry in enumerate(starts):
            end = next((e for e in hls_events if e["event"] == "hlsInterstitialAssetEnded" and e["id"] == ident
                        and e["index"] == entry["index"] and e["at"] >= entry["at"]), None)
            length = (end["at"] - entry["at"]) / 1000 if end else None
            ads.append((entry["index"], None if length is None else round(length, 2), entry["duration"]))
            if inside and number == 0:
                continue
            check(length is not None and entry["duration"] is not None and abs(length - entry["duration"]) <= LIVE_AD_TOLERANCE,
                  f"{name}: asset {entry['index']} plays {length} s (DURATION {entry['duration']})")
        check(bool(ads), f"{name}: the break's assets play: {ads}")
        summary["ads"] = ads
        resumed = [e for e in hls_events if e["event"] == "hlsInterstitialsPrimaryResumed" and ended and e["at"] >= ended[0]["at"]]
        # hls.js, joined inside a break, first loads the asset list's entry for the part already gone
        # (0.8-2.3 s measured) instead of skipping it: the viewer ends up that much further behind.
        resume_check(name, summary, samples, began, resumed, inside, allowance=2.5 if inside else 1.0)
    results.append((name, summary))


async def vod_then_live(browser, server, T):
    """Issue 47, item 1: the page autoplays the VOD; picking "Live demo" and Play then plays the live
    channel's break at T (UNIX s). The live dates were mapped from the VOD's playlists: the status read
    "live -1795869633.9 s into the window" and no break played."""
    name = "VOD, then live (native)"
    await sleep_until(T - 45)
    context, page = await new_page(browser)
    try:
        await page.goto(f"{server.base}/?player=native")
        vod = await wait_for(page, "() => window.player && window.player.state && window.player.state.mode === 'primary' "
                             "&& document.getElementById('video').currentTime > 2", 30)
        check(bool(vod), f"{name}: the VOD plays first")
        await sleep_until(T - 25)
        await page.select_option("#source", "/demo/live/master.m3u8")
        await page.click("#load")
        await sleep_until(T + 3)
        during = await page.evaluate("document.getElementById('times').textContent")
        await sleep_until(T + LATENCY + BREAK + 4)
        data = await state(page, name)
    finally:
        await context.close()
    trace = data["trace"]
    unmapped = [e for e in trace if "cannot be mapped" in str(e.get("details", ""))]
    check(not unmapped, f"{name}: the live dates are mapped onto the player ({unmapped[:1]})")
    seconds_in = re.search(r"live (-?[0-9.]+) s", during or "")
    check(bool(seconds_in) and 0 <= float(seconds_in.group(1)) <= 600,
          f"{name}: the status places the playhead in the live window ({during!r})")
    ident = f"break-{T}"
    check(bool(events(trace, "INTERSTITIAL_STARTED", ident)), f"{name}: {ident} plays after the switch to live")
    results.append((name, {"status": during}))


def resume_check(name, summary, samples, began, resumed, inside, allowance=1.0):
    """R10: live primary resumes at the break's start plus the time it played, "so the viewer stays
    as far behind the live edge as before": the delay (wall clock minus the date playing) after the
    break equals the delay before it (at the join, when joined inside)."""
    check(bool(resumed), f"{name}: primary resumes")
    if not resumed or not began:
        return
    dated = [s for s in samples if s["date"] and s["el"] == "video"]
    if not dated:
        check(False, f"{name}: the dates playing are known")
        return
    first = dated[0]["at"]
    if inside:
        before = dated[:1]
    else:
        before = [s for s in dated if first + 1000 <= s["at"] < began[0]["at"]] or dated[:1]
    after = [s for s in dated if resumed[0]["at"] + 500 <= s["at"] <= resumed[0]["at"] + 2500]
    if not after:
        check(False, f"{name}: primary plays after the resume")
        return

    def delay(window):
        values = sorted(s["at"] / 1000 - s["date"] for s in window)
        return values[len(values) // 2]
    change = delay(after) - delay(before)
    summary["live delay change"] = round(change, 2)
    check(abs(change) <= allowance, f"{name}: after the break primary is {change:+.2f} s further from the live edge "
                                    f"than before it (R10: ± {allowance:g} s)")


# Main ---------------------------------------------------------------------------------------------


async def run(args, plain, with_hlsjs):
    timeline = json.loads(urllib.request.urlopen(plain.base + "/demo/vod/timeline.json").read())
    async with async_chromium(autoplay=True) as browser:
        now = time.time()
        # The first break (second 30 of a minute) whose well-before join can still be opened.
        T = int(now // 60 * 60 + 30)
        while T - 25 + LATENCY < now + 3:
            T += 60
        # One break per player, so that no more than four live pages play at once on a small
        # machine: the built-in controller at T, hls.js at T + 60, the built-in one beside a CPU hog at T + 120.
        joins = [("well before", -25), ("5 s before", -5), ("inside", 3), ("just after", 12)]
        wanted = set(args.only.split(",")) if args.only else None

        def want(*names):
            return wanted is None or bool(wanted & set(names))
        tasks = []
        if want("vod"):
            tasks.append(offline_vod(browser, plain, timeline))
        if want("controls"):
            tasks.append(controls(browser, plain, timeline))
        if want("cannot"):
            tasks.append(cannot_play(browser, plain))
        # One break per player, so that no more than four live pages play at once on a small
        # machine: the built-in controller at T, hls.js at T + 60, the built-in one beside a CPU hog at T + 120.
        hls_break = T + 60 if want("native", "live") else T
        load_break = max(T, hls_break) + 60 if want("native", "hlsjs", "live") else T
        print(f"live breaks: break-{T} in {T - now:.0f} s (built-in controller), break-{hls_break} (hls.js), "
              f"break-{load_break} (built-in, beside a CPU hog)", flush=True)
        for label, join in joins:
            if want("live", "native"):
                tasks.append(live_join(browser, plain, "native", label, join, T))
            if want("live", "hlsjs"):
                tasks.append(retrying(
                    lambda label=label, join=join: live_join(browser, with_hlsjs, "hlsjs", label, join, hls_break),
                    lambda label=label, join=join: live_join(
                        browser, with_hlsjs, "hlsjs", label, join, max(load_break, hls_break) + 60)))
        if want("load"):
            tasks.append(live_join(browser, plain, "native", "5 s before", -5, load_break, hog=True))
        if want("switch"):
            tasks.append(vod_then_live(browser, plain, max(load_break, hls_break) + 60))
        outcomes = await asyncio.gather(*tasks, return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                check(False, f"a case raised {type(outcome).__name__}: {outcome}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hlsi", required=True)
    parser.add_argument("--hls", required=True, help="hls.js ES module")
    parser.add_argument("--only", help="comma-separated cases: vod, controls, cannot, live, native, hlsjs, load, switch")
    args = parser.parse_args()
    began = time.time()
    plain = start_server(args.hlsi)
    with_hlsjs = start_server(args.hlsi, args.hls)
    try:
        check(plain.wait() and with_hlsjs.wait(), "both servers serve")
        asyncio.run(run(args, plain, with_hlsjs))
    finally:
        stop_server(plain, "without --hlsjs")
        stop_server(with_hlsjs, "with --hlsjs")
    print("\nmeasurements:")
    for name, summary in results:
        print(f"  {name}: {json.dumps(summary)}")
    total = len(failures)
    passed = checks - total
    print(f"\n{passed} passed, {total} failed ({time.time() - began:.0f} s)")
    if failures:
        print("- " + "\n- ".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
