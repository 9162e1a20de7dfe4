"""End-to-end test of `hlsi serve --demo` with a real client: hls.js 1.6.15 in headless Chromium.

1. Starts the demo server (hls.js served from the local copy), checks that ffprobe reads the VOD and
   live streams, and that `hlsi validate --recursive` finds no errors in anything the server serves.
2. VOD: the demo page plays /demo/vod/master.m3u8. Each interstitial (pre-roll, restricted mid-roll,
   asset-list mid-roll, post-roll) starts and ends in order; primary resumes where the server's
   schedule says; asset lists are requested as playback approaches their break and carry
   _HLS_primary_id.
3. Live: the page plays /demo/live/master.m3u8 through a scheduled break, then `hlsi admin break-now`
   starts a 30 s break and `hlsi admin return-now` ends it early: the player leaves it well before 30 s.
"""

import argparse
import json
import os
import subprocess
import time
import urllib.request

from support import check, chromium, demo_server, finish

TOKEN = "e2e-token"


def wait_for(page, predicate, timeout, step=250):
    deadline = time.time() + timeout
    while time.time() < deadline:
        trace = page.evaluate("window.trace")
        result = predicate(trace)
        if result:
            return trace
        page.wait_for_timeout(step)
    return page.evaluate("window.trace")


def events(trace, name, ident=None):
    return [e for e in trace if e["event"] == name and (ident is None or e.get("id") == ident)]


def sample_primary(page):
    return page.evaluate("""() => {
        const m = window.hls && window.hls.interstitialsManager;
        if (!m) return null;
        return { at: performance.now(), primary: m.primary ? m.primary.currentTime : null,
                 playing: m.playingItem && m.playingItem.event ? m.playingItem.event.identifier : null };
    }""")


def admin(hlsi, base, *words):
    result = subprocess.run([hlsi, "admin", *words, "--server", base, "--token", TOKEN],
                            capture_output=True, text=True, timeout=30)
    print(f"+ hlsi admin {' '.join(words)} -> {result.returncode} {result.stdout.strip()} {result.stderr.strip()}",
          flush=True)
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hlsi", required=True)
    parser.add_argument("--hls", required=True, help="hls.js ES module")
    args = parser.parse_args()
    server = demo_server(args.hlsi, "--admin-token", TOKEN, "--hlsjs", os.path.abspath(args.hls))
    try:
        server.wait()
        run_checks(args, server.base)
    finally:
        output = server.stop("the server (SIGTERM)")
        lines = output.splitlines()
        print("server log (last 15 lines):\n  " + "\n  ".join(lines[-15:]))
    finish("server end-to-end")


def run_checks(args, base):
    print("== ffprobe and hlsi validate on what the server serves", flush=True)
    for path in ["/demo/vod/master.m3u8", "/demo/live/master.m3u8"]:
        probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_type,codec_name", "-of", "json",
                                base + path], capture_output=True, text=True, timeout=120)
        codecs = sorted({s.get("codec_name") for s in json.loads(probe.stdout or "{}").get("streams", [])})
        check(probe.returncode == 0 and "h264" in codecs and "aac" in codecs,
              f"ffprobe reads {path}: {codecs} {probe.stderr.strip()[:200]}")
        validate = subprocess.run([args.hlsi, "validate", "--recursive", base + path], capture_output=True, text=True,
                                  timeout=120)
        check(validate.returncode == 0, f"hlsi validate --recursive {path}: {validate.stdout.strip()[-300:]}")

    timeline = json.loads(urllib.request.urlopen(base + "/demo/vod/timeline.json").read())
    resume = {}
    items = timeline["items"]
    for index, item in enumerate(items):
        if item["kind"] == "interstitial" and index + 1 < len(items) and items[index + 1]["kind"] == "primary":
            resume[item["id"]] = items[index + 1]["primary"][0]
    print(f"schedule: resume points {resume}")

    with chromium(autoplay=True) as browser:
        vod(browser, base, resume)
        group(browser, base)
        live(browser, base, args.hlsi)


def vod(browser, base, resume):
    print("== VOD: /demo/vod/master.m3u8 in hls.js", flush=True)
    page = browser.new_page()
    page.goto(f"{base}/?src=/demo/vod/master.m3u8")
    order = ["preroll", "midroll-1", "midroll-2", "postroll"]
    samples = []
    deadline = time.time() + 150
    while time.time() < deadline:
        sample = sample_primary(page)
        if sample:
            samples.append(sample)
        trace = page.evaluate("window.trace")
        if events(trace, "INTERSTITIAL_ENDED", "postroll") or any(e.get("fatal") for e in events(trace, "ERROR")):
            break
        page.wait_for_timeout(200)
    trace = page.evaluate("window.trace")
    started = [e["id"] for e in events(trace, "INTERSTITIAL_STARTED")]
    # hls.js 1.6.15 announces a PRE with X-RESUME-OFFSET=0 twice within a few ms at startup (it plays
    # and ends once): repeated announcements in a row count once.
    distinct = [ident for index, ident in enumerate(started) if index == 0 or started[index - 1] != ident]
    check(distinct == order, f"interstitials start in order: {started}")
    ended = [e["id"] for e in events(trace, "INTERSTITIAL_ENDED")]
    check(ended == order, f"each ends once, in order: {ended}")
    for ident in order:
        start = events(trace, "INTERSTITIAL_STARTED", ident)
        end = events(trace, "INTERSTITIAL_ENDED", ident)
        check(bool(start) and bool(end) and end[0]["at"] > start[0]["at"], f"{ident} starts and ends")
        assets = [e for e in events(trace, "INTERSTITIAL_ASSET_STARTED", ident)]
        check(bool(assets), f"{ident} plays an asset: {[a.get('asset') for a in assets]}")
    ends = [events(trace, "INTERSTITIAL_ENDED", ident)[0]["at"] for ident in order if events(trace, "INTERSTITIAL_ENDED", ident)]
    check(ends == sorted(ends), "each interstitial ends before the next starts")
    check(not [e for e in events(trace, "ERROR") if e.get("fatal")], "no fatal player error")
    # Primary resumes where the schedule says: the first primary position sampled after each event ends.
    for ident in ["preroll", "midroll-1", "midroll-2"]:
        ended = events(trace, "INTERSTITIAL_ENDED", ident)
        if not ended:
            continue
        after = [s for s in samples if s["at"] > ended[0]["at"] + 100 and s["playing"] is None and s["primary"] is not None]
        expected = resume.get(ident, 0.0)
        position = after[0]["primary"] if after else None
        check(position is not None and expected - 0.5 <= position <= expected + 2.5,
              f"after {ident} primary resumes at {position} (schedule: {expected})")
    # Asset lists: requested late (late binding), with _HLS_primary_id.
    resources = page.evaluate("performance.getEntriesByType('resource').map(e => [e.startTime, e.name])")
    lists = [(at, url) for at, url in resources if "asset-list.json" in url]
    check(all("_HLS_primary_id=" in url for _, url in lists) and len(lists) >= 2,
          f"asset-list requests carry _HLS_primary_id: {[url for _, url in lists]}")
    mid = [at for at, url in lists if "_HLS_interstitial_id=midroll-2" in url]
    pre_end = events(trace, "INTERSTITIAL_ENDED", "preroll")
    mid_start = events(trace, "INTERSTITIAL_STARTED", "midroll-2")
    check(bool(mid) and bool(pre_end) and bool(mid_start) and pre_end[0]["at"] < mid[0] < mid_start[0]["at"],
          f"midroll-2's asset list is requested as playback approaches it, not at load "
          f"(at {mid[:1]} ms; pre-roll ended {pre_end[0]['at'] if pre_end else None}, midroll-2 started "
          f"{mid_start[0]['at'] if mid_start else None})")
    ads = [url for _, url in resources if "/ads/" in url and "master.m3u8" in url]
    check(ads and all("_HLS_primary_id=" in url and "_HLS_interstitial_id=" in url for url in ads),
          f"ad requests carry _HLS_interstitial_id and _HLS_primary_id ({len(ads)})")
    page.close()


def group(browser, base):
    print("== Coordinated group: the page's two players through /group/NAME", flush=True)
    page = browser.new_page()
    page.goto(f"{base}/?autoplay=0&group=e2e-page")
    page.click("#group-start")
    state = lambda: page.evaluate("""() => window.groupMembers.map(m => ({ paused: m.video.paused,
        t: m.hls && m.hls.interstitialsManager ? m.hls.interstitialsManager.primary.currentTime : m.video.currentTime }))""")
    deadline = time.time() + 30
    while time.time() < deadline and not all(not m["paused"] for m in state()):
        page.wait_for_timeout(250)
    check(all(not m["paused"] for m in state()), f"starting one member plays both: {state()}")
    page.wait_for_timeout(8000)
    page.evaluate("() => window.groupMembers[0].video.pause()")
    page.wait_for_timeout(1500)
    paused = state()
    check(all(m["paused"] for m in paused), f"pausing member A pauses member B: {paused}")
    page.evaluate("() => { window.groupMembers[1].hls.interstitialsManager.primary.currentTime = 9; }")
    page.wait_for_timeout(2500)
    seeked = state()
    check(all(abs(m["t"] - 9) < 1.0 for m in seeked), f"a seek on member B moves member A: {seeked}")
    trace = page.evaluate("() => window.groupTrace")
    check(len(trace) >= 2, f"group states applied: {len(trace)}")
    page.close()


def live(browser, base, hlsi):
    print("== Live: /demo/live/master.m3u8 in hls.js", flush=True)
    page = browser.new_page()
    page.goto(f"{base}/?src=/demo/live/master.m3u8")
    trace = wait_for(page, lambda t: [e for e in events(t, "INTERSTITIAL_ENDED") if (e.get("id") or "").startswith("break-")],
                     timeout=95)
    cadence = [e["id"] for e in events(trace, "INTERSTITIAL_STARTED") if (e.get("id") or "").startswith("break-")]
    check(bool(cadence), f"a scheduled live break starts: {cadence}")
    check(any(e.get("id") in cadence for e in events(trace, "INTERSTITIAL_ENDED")), "and ends")
    check(bool(events(trace, "INTERSTITIALS_PRIMARY_RESUMED")), "primary resumes after it")
    result = admin(hlsi, base, "break-now", "demo", "--duration", "30", "--id", "e2e-now")
    check(result.returncode == 0, "hlsi admin break-now starts a 30 s break")
    trace = wait_for(page, lambda t: events(t, "INTERSTITIAL_STARTED", "e2e-now"), timeout=40)
    started = events(trace, "INTERSTITIAL_STARTED", "e2e-now")
    check(bool(started), "the player starts the new break")
    page.wait_for_timeout(3000)
    result = admin(hlsi, base, "return-now", "demo")
    check(result.returncode == 0 and '"id":"e2e-now"' in result.stdout, "hlsi admin return-now ends it early")
    playlist = urllib.request.urlopen(base + "/demo/live/video/main.m3u8").read().decode()
    line = next((l for l in playlist.splitlines() if 'ID="e2e-now"' in l), "")
    check("X-PLAYOUT-LIMIT=" in line and "PLANNED-DURATION=30" in line,
          f"the live playlist adds X-PLAYOUT-LIMIT under the same ID: {line}")
    trace = wait_for(page, lambda t: events(t, "INTERSTITIAL_ENDED", "e2e-now"), timeout=40)
    ended = events(trace, "INTERSTITIAL_ENDED", "e2e-now")
    length = (ended[0]["at"] - started[0]["at"]) / 1000 if ended and started else None
    check(length is not None and length < 24, f"the early return shortens the 30 s break to {length} s")
    trace = wait_for(page, lambda t: [e for e in events(t, "INTERSTITIALS_PRIMARY_RESUMED") if ended and e["at"] >= ended[0]["at"]],
                     timeout=10)
    check(any(ended and e["at"] >= ended[0]["at"] for e in events(trace, "INTERSTITIALS_PRIMARY_RESUMED")),
          "primary resumes after the shortened break")
    page.close()


if __name__ == "__main__":
    main()
