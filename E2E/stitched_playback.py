"""End-to-end test of the stitched form (issue 45) with a player that does not play interstitials:
hls.js 1.6.15 in headless Chromium with `enableInterstitialPlayback: false`.

1. Starts `hlsi serve --demo`; `hlsi validate` finds no error in the stitched VOD and live playlists.
2. VOD: hls.js plays /demo/vod/master.m3u8?ads=stitched from its start past the first mid-roll: the
   ad segments (served through /stitched/ redirects) are fetched, playback runs on with no stall
   error, and it plays no interstitial (its interstitials are off, and the playlist has none).
3. Live: hls.js joins /demo/live/master.m3u8?ads=stitched inside a scheduled break (one a minute)
   and plays on for 50 s: the ad segments are fetched, fragments keep coming (the video
   and audio playlists number their discontinuities alike, or hls.js holds the audio for ever
   without an error, as it did on CI when it joined inside a break), and there is no stall error.
4. Beacons: a second server (`--config`) serves the demo's primary as VOD /vod/movie with one
   10 s mid-roll at 8 s filled by E2E/ad_server.py (VAST: ad2 4 s then ad3 6 s, each with an
   impression and quartile tracking at /t/BREAK/AD/EVENT). hls.js plays its stitched form past the
   break: the server fires each ad's impression once as hls.js fetches the ad's first segment (the
   player knows nothing of the ads), and `complete` as it fetches the last; the ad server's log shows
   each once.
Screenshots go to $ARTIFACTS_DIR (default .build/artifacts/stitched/).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

from playwright.sync_api import sync_playwright

from support import check, failures, free_port, start_ad_server, stop, wait_until_serving

PAGE = """async () => {
    document.body.innerHTML = '<video id="v" muted autoplay playsinline width="640" height="360"></video>';
    const module = await import('/assets/hls.mjs');
    const Hls = module.default || module.Hls;
    window.trace = { fragments: [], errors: [], interstitials: 0 };
    const hls = new Hls({ enableInterstitialPlayback: false });
    window.hls = hls;
    hls.on(Hls.Events.FRAG_LOADED, (_, data) => window.trace.fragments.push(data.frag.url));
    hls.on(Hls.Events.ERROR, (_, data) => window.trace.errors.push(data.details + (data.fatal ? ' (fatal)' : '')));
    hls.on(Hls.Events.INTERSTITIAL_STARTED, () => { window.trace.interstitials += 1; });
    hls.loadSource(SOURCE);
    hls.attachMedia(document.getElementById('v'));
    return true;
}"""


def play(browser, base, source, seconds, name, artifacts):
    page = browser.new_page()
    page.set_default_timeout(30000)
    page.goto(base + "/")
    print(f"  page loaded, starting {source}", flush=True)
    page.evaluate(PAGE.replace("SOURCE", repr(source)))
    print("  hls.js started", flush=True)
    deadline = time.time() + seconds
    shots = 0
    while time.time() < deadline:
        page.wait_for_timeout(1000)
        trace = page.evaluate("window.trace")
        print(f"  {len(trace['fragments'])} fragments, errors {trace['errors'][-3:]}", flush=True)
        # A screenshot as the first ad segments arrive, and one later on.
        if artifacts and shots == 0 and any("/stitched/" in url for url in trace["fragments"]):
            page.wait_for_timeout(1500)
            page.screenshot(path=os.path.join(artifacts, f"{name}-ad.png"))
            shots = 1
    if artifacts:
        page.screenshot(path=os.path.join(artifacts, f"{name}-end.png"))
    trace = page.evaluate("window.trace")
    time_played = page.evaluate("document.getElementById('v').currentTime")
    page.close()
    return trace, time_played


def wait_for_break(base):
    """Waits (at most 70 s: breaks come once a minute) until a new viewer's stitched live window
    lists at least two ad segments, so the player joins inside a break; returns the seconds waited."""
    began = time.time()
    while time.time() - began < 70:
        url = base + "/demo/live/video/main.m3u8?ads=stitched&session=e2e-probe-" + str(int(time.time() * 1000))
        text = urllib.request.urlopen(url, timeout=10).read().decode()
        if sum(1 for line in text.splitlines() if "/stitched/" in line and not line.startswith("#")) >= 2:
            return time.time() - began
        time.sleep(0.5)
    check(False, "live: the stitched window showed no break within 70 s")
    return time.time() - began


def beacons(args):
    """Step 4: the server fires the ad server's beacons as hls.js fetches a stitched VOD's ad segments."""
    print("== beacons: /vod/movie/master.m3u8?ads=stitched, its break filled by a VAST ad server", flush=True)
    demo = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources",
                                        "InterstitialServer", "Resources", "demo"))
    work = tempfile.mkdtemp(prefix="hlsi-stitched-beacons-")
    log = os.path.join(work, "ad-server.log")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    ads, origin = start_ad_server(base, log)
    check(origin is not None, "the ad server starts")
    if origin is None:
        stop(ads)
        return
    config = {
        "vod": [{"id": "movie", "path": "/vod/movie", "directory": os.path.join(demo, "primary"),
                 "adServer": {"vast": origin + "/vast?brk=[BREAKID]&dur=[BREAKDURATION]&sid=[SESSIONID]",
                              "tracking": "client"}}],
        "ads": os.path.join(demo, "ads"), "database": os.path.join(work, "db.sqlite"), "creativeCache": None,
        "adServerFetch": {"allowPrivate": True},
        "seed": {"breaks": [{"id": "mid", "target": "vod/movie", "at": 8, "duration": 10, "resumeOffset": 0}]},
    }
    path = os.path.join(work, "config.json")
    with open(path, "w") as out:
        json.dump(config, out)
    server = subprocess.Popen([args.hlsi, "serve", "--config", path, "--port", str(port), "--admin-token", "e2e",
                               "--hlsjs", os.path.abspath(args.hls)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        check(wait_until_serving(base + "/"), "the beacons' server answers")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                        args=["--autoplay-policy=no-user-gesture-required"])
            try:
                trace, played = play(browser, base, "/vod/movie/master.m3u8?ads=stitched", 30, "beacons", None)
            finally:
                browser.close()
        ads_fetched = [url for url in trace["fragments"] if "/stitched/" in url]
        check(len(ads_fetched) >= 4, f"beacons: ad segments fetched through /stitched/ ({len(ads_fetched)})")
        check(played > 20, f"beacons: playback runs on past the break ({played:.1f} s)")
        check(not [e for e in trace["errors"] if "Stall" in e or "fatal" in e],
              f"beacons: no stall or fatal error ({trace['errors']})")
        # The server fires beacons in the background: give them a moment to arrive.
        deadline = time.time() + 20
        while time.time() < deadline:
            with open(log) as lines:
                requests = [line.strip() for line in lines]
            fired = [r for r in requests if r.startswith("/t/mid/")]
            if all(any(r.startswith(f"/t/mid/{ad}/{event}") for r in fired)
                   for ad in ("ad2", "ad3") for event in ("impression", "complete")):
                break
            time.sleep(0.5)
        for ad in ("ad2", "ad3"):
            for event in ("impression", "start", "complete"):
                count = sum(1 for r in fired if r.startswith(f"/t/mid/{ad}/{event}"))
                check(count == 1, f"beacons: {ad}'s {event} reached the ad server once ({count}; log {fired})")
    finally:
        stop(server, "the beacons' server (SIGTERM)")
        stop(ads)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hlsi", required=True)
    parser.add_argument("--hls", required=True, help="hls.js ES module")
    args = parser.parse_args()
    artifacts = os.environ.get("ARTIFACTS_DIR", ".build/artifacts/stitched")
    os.makedirs(artifacts, exist_ok=True)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([args.hlsi, "serve", "--demo", "--port", str(port), "--admin-token", "e2e",
                               "--hlsjs", os.path.abspath(args.hls)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        check(wait_until_serving(base + "/"), "the server answers")
        for path in ["/demo/vod/video/main.m3u8?ads=stitched&session=e2e",
                     "/demo/live/video/main.m3u8?ads=stitched&session=e2e"]:
            validate = subprocess.run([args.hlsi, "validate", base + path], capture_output=True, text=True,
                                      timeout=120)
            check(validate.returncode == 0, f"hlsi validate {path}: {validate.stdout.strip()[-300:]}")
        text = urllib.request.urlopen(base + "/demo/vod/master.m3u8?ads=stitched", timeout=10).read().decode()
        check("ads=stitched&session=" in text, "the stitched multivariant playlist gives every URI a session")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                        args=["--autoplay-policy=no-user-gesture-required"])
            try:
                print("== VOD: /demo/vod/master.m3u8?ads=stitched, interstitials off", flush=True)
                trace, played = play(browser, base, "/demo/vod/master.m3u8?ads=stitched", 40, "vod", artifacts)
                ads = [url for url in trace["fragments"] if "/stitched/" in url]
                check(len(ads) >= 3, f"VOD: ad segments fetched through /stitched/ ({len(ads)})")
                check(played > 20, f"VOD: playback runs on past the pre-roll and mid-roll-1 ({played:.1f} s)")
                check(not [e for e in trace["errors"] if "Stall" in e or "fatal" in e],
                      f"VOD: no stall or fatal error ({trace['errors']})")
                check(trace["interstitials"] == 0, "VOD: no interstitial played (the ads are in the playlist)")
                print("== live: /demo/live/master.m3u8?ads=stitched, joining inside a scheduled break", flush=True)
                waited = wait_for_break(base)
                print(f"  the live window shows a break's ads (after {waited:.0f} s)", flush=True)
                trace, played = play(browser, base, "/demo/live/master.m3u8?ads=stitched", 50, "live", artifacts)
                ads = [url for url in trace["fragments"] if "/stitched/" in url]
                check(len(ads) >= 2, f"live: ad segments fetched through /stitched/ ({len(ads)})")
                # 50 s of 2 s segments, video and audio (about 55 fragments): a player held after its
                # first fragments (mismatched discontinuity numbers) loads a handful.
                check(len(trace["fragments"]) >= 30,
                      f"live: fragments keep coming after a join inside a break ({len(trace['fragments'])})")
                check(played > 25, f"live: playback runs on ({played:.1f} s)")
                check(not [e for e in trace["errors"] if "Stall" in e or "fatal" in e],
                      f"live: no stall or fatal error ({trace['errors']})")
            finally:
                browser.close()
    finally:
        output = stop(server, "the server (SIGTERM)")
        print("server log (last 10 lines):\n  " + "\n  ".join(output.splitlines()[-10:]))
    beacons(args)
    if failures:
        print(f"\n{len(failures)} check(s) failed:\n- " + "\n- ".join(failures))
        sys.exit(1)
    print("\nall stitched playback checks passed")


if __name__ == "__main__":
    main()
