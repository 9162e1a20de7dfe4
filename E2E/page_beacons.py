"""End-to-end: the demo page fires the ads' tracking beacons with both its players (issue 18, item 7).

`hlsi serve --demo --hlsjs hls.mjs` fills the breaks of vod/demo from E2E/ad_server.py (the admin
API's `adServer`, as Tests/hlsiTests/AdServerCLITests.swift does for `hlsi play`). The demo page
plays /demo/vod/master.m3u8 to the end in headless Chromium with hls.js (?player=hlsjs), then, in a
fresh browser context (a new session), with its own controller (?player=native). Neither hls.js nor
the browser fires VAST tracking: the page does, from the asset lists' X-AD-CREATIVE-SIGNALING
(Resources/page/tracking.mjs). For each player the ad server must have received, for every ad
played (preroll/ad2, midroll-2/ad2, midroll-2/ad3), impression, start, firstQuartile, midpoint,
thirdQuartile and complete exactly once, and nothing else; the page's trace lists the same beacons
(BEACON), and the player's VAST requests carry its own session ID.

What each page recorded is saved in E2E/.cache/traces/beacons-PLAYER.json.

Usage: python3 E2E/page_beacons.py --hlsi PATH --hls E2E/.cache/hls.mjs
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse

from support import check, chromium, demo_server, failures, start_ad_server, stop

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = os.path.join(HERE, ".cache", "traces")
TOKEN = "e2e-token"
PLAYED = ["preroll/ad2", "midroll-2/ad2", "midroll-2/ad3"]
TYPES = ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]
EXPECTED = sorted(f"{ad}/{kind}" for ad in PLAYED for kind in TYPES)
PLAY_DEADLINE = 180  # the demo VOD plays 66 s
BEACON_DEADLINE = 10


def requests_since(log, mark):
    """The request lines the ad server logged after the first `mark` ones."""
    with open(log) as source:
        return source.read().splitlines()[mark:]


def poll(condition, timeout, step=0.25):
    """Calls `condition` until it returns something true or `timeout` s pass; returns its last value."""
    deadline = time.time() + timeout
    while True:
        value = condition()
        if value or time.time() >= deadline:
            return value
        time.sleep(step)


def play(browser, base, player, log):
    """Plays the demo VOD to its end with `player`; returns (the page's trace, the ad server's requests
    during the run)."""
    with open(log) as source:
        mark = len(source.read().splitlines())
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{base}/?src=/demo/vod/master.m3u8&player={player}")
        kind = poll(lambda: page.evaluate("window.playerKind"), 15)
        check(kind == player, f"{player}: the page plays with {kind!r}")
        ended = poll(lambda: page.evaluate("window.trace.some(e => e.event === 'PLAYBACK_ENDED')"), PLAY_DEADLINE, 0.5)
        check(bool(ended), f"{player}: the VOD plays to its end (PLAYBACK_ENDED within {PLAY_DEADLINE} s)")
        trace = page.evaluate("window.trace")
        sent = len([e for e in trace if e["event"] == "BEACON"])
        # Every beacon the page sent has reached the ad server (or the deadline passed).
        poll(lambda: len([r for r in requests_since(log, mark) if r.startswith("/t/")]) >= sent, BEACON_DEADLINE)
    finally:
        context.close()
    os.makedirs(TRACES, exist_ok=True)
    with open(os.path.join(TRACES, f"beacons-{player}.json"), "w") as out:
        json.dump(trace, out)
    return trace, requests_since(log, mark)


def verify(player, trace, requests, others):
    """The checks of one run; `others` holds the session IDs of the runs before it. Returns its sid."""
    vast = [urllib.parse.parse_qs(urllib.parse.urlparse(r).query) for r in requests if r.startswith("/vast?")]
    breaks = sorted(q.get("brk", [""])[0] for q in vast)
    sids = {q.get("sid", [""])[0] for q in vast}
    check(breaks == ["midroll-2", "preroll"], f"{player}: one VAST request per break the ad server fills: {breaks}")
    sid = next(iter(sids)) if len(sids) == 1 else None
    check(sid not in (None, "", "-1") and sid not in others, f"{player}: the VAST requests carry this session's own ID: {sids}")
    received = sorted(r[len("/t/"):] for r in requests if r.startswith("/t/"))
    missing = [b for b in EXPECTED if b not in received]
    extra = [b for b in set(received) if received.count(b) > EXPECTED.count(b)]
    check(received == EXPECTED, f"{player}: the ad server received impression, start, the quartiles and complete once "
                                f"for each of {PLAYED} ({len(received)} beacons; missing {missing}, "
                                f"duplicated or unexpected {extra})")
    beacons = [e for e in trace if e["event"] == "BEACON"]
    traced = sorted(urllib.parse.urlparse(e["url"]).path[len("/t/"):] for e in beacons)
    check(traced == received, f"{player}: the page's trace shows the same {len(beacons)} BEACONs")
    check(all(e["id"] == e["url"].split("/")[-3] and isinstance(e["index"], int) for e in beacons),
          f"{player}: each BEACON names its interstitial and asset")
    problems = [e for e in trace if e["event"] in ("ERROR", "PLAY_FAILED") or e["event"].endswith("_ERROR")]
    check(not problems, f"{player}: no ERROR or PLAY_FAILED: {problems[:3]}")
    return sid


def run(args, base, origin, log):
    """Points vod/demo at the ad server at `origin`, then plays it with each player and checks."""
    schedule = json.dumps({"target": "vod/demo", "adServer": {
        "vast": origin + "/vast?brk=[BREAKID]&dur=[BREAKDURATION]&sid=[SESSIONID]&cb=[CACHEBUSTING]"}})
    created = subprocess.run([args.hlsi, "admin", "create", "schedule", "--json", schedule,
                              "--server", base, "--token", TOKEN], capture_output=True, text=True, timeout=30)
    check(created.returncode == 0, f"vod/demo takes its ads from the ad server: {created.stderr.strip()[:200]}")
    with chromium(autoplay=True) as browser:
        sids = []
        for player in ("hlsjs", "native"):
            trace, requests = play(browser, base, player, log)
            sids.append(verify(player, trace, requests, sids))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hlsi", required=True)
    parser.add_argument("--hls", required=True, help="hls.js ES module")
    args = parser.parse_args()
    began = time.time()
    handle, log = tempfile.mkstemp(prefix="hlsi-ads-", suffix=".log")
    os.close(handle)
    server = demo_server(args.hlsi, "--admin-token", TOKEN, "--hlsjs", os.path.abspath(args.hls))
    base = server.base
    ads = None
    try:
        check(server.wait(), "hlsi serve --demo serves")
        ads, origin = start_ad_server(base, log)
        check(origin is not None, f"the ad server starts ({origin})")
        if origin is not None:
            run(args, base, origin, log)
    finally:
        if ads is not None:
            stop(ads, None)
        output = server.stop("the server")
        if failures:
            print("server log (last 15 lines):\n  " + "\n  ".join(output.splitlines()[-15:]))
        os.remove(log)
    print(f"\n({time.time() - began:.0f} s)")
    if failures:
        print(f"FAIL: {len(failures)} check(s) failed:\n- " + "\n- ".join(failures))
        sys.exit(1)
    print("PASS: both players fired every ad's beacons once (hls.js and the built-in controller)")


if __name__ == "__main__":
    main()
