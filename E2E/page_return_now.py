"""End-to-end: `hlsi admin return-now` cuts a live ad short on the demo page's built-in controller
(issue 34, item 4).

`hlsi serve --demo` without --hlsjs: the page plays /demo/live/master.m3u8 in headless Chromium with
its own controller (player.mjs over controller.mjs, on the browser's native HLS). `hlsi admin
break-now` starts a 30 s break; once the page plays it, `hlsi admin return-now` ends it early: the live
playlist and timeline.json carry its X-PLAYOUT-LIMIT, the controller ends the interstitial at the limit
(INTERSTITIAL_PLAYOUT_LIMIT_REACHED) well before 30 s, and primary resumes.

What the page recorded is saved in E2E/.cache/traces/return-now.json.

Usage: python3 E2E/page_return_now.py --hlsi PATH
"""

import argparse
import json
import os
import subprocess
import time
import urllib.request

from support import check, chromium, demo_server, finish

TOKEN = "e2e-token"
TRACES = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".cache", "traces")
BREAK = "e2e-return-now"


def wait_for(page, predicate, timeout, step=250):
    """Polls the page's trace until `predicate` holds or `timeout` s pass; returns the trace."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        trace = page.evaluate("window.trace")
        if predicate(trace):
            return trace
        page.wait_for_timeout(step)
    return page.evaluate("window.trace")


def events(trace, name, ident=None):
    return [e for e in trace if e["event"] == name and (ident is None or e.get("id") == ident)]


def admin(hlsi, base, *words):
    result = subprocess.run([hlsi, "admin", *words, "--server", base, "--token", TOKEN],
                            capture_output=True, text=True, timeout=30)
    print(f"+ hlsi admin {' '.join(words)} -> {result.returncode} {result.stdout.strip()} {result.stderr.strip()}",
          flush=True)
    return result


def mode(page):
    return page.evaluate("() => window.player && window.player.state ? window.player.state.mode : null")


def return_now(page, hlsi, base):
    print("== Live on the built-in controller: break-now, then return-now", flush=True)
    page.goto(f"{base}/?src=/demo/live/master.m3u8&player=native")
    trace = wait_for(page, lambda t: events(t, "PLAYER"), timeout=20)
    kinds = [e.get("kind") for e in events(trace, "PLAYER")]
    check(kinds == ["native"], f"the page plays with its built-in controller ({kinds})")
    # Primary plays (a scheduled break the join landed in plays first: wait for its end).
    deadline = time.time() + 60
    while time.time() < deadline and mode(page) != "primary":
        page.wait_for_timeout(250)
    check(mode(page) == "primary", f"live primary plays (mode {mode(page)})")
    # The demo's live breaks take 10 s from 30 s into each minute: the 30 s break starts after one
    # ends and ends before the next, so that the schedule groups none with it.
    deadline = time.time() + 70
    while time.time() < deadline and not (43 <= time.gmtime().tm_sec <= 50 and mode(page) == "primary"):
        page.wait_for_timeout(250)
    result = admin(hlsi, base, "break-now", "demo", "--duration", "30", "--id", BREAK)
    check(result.returncode == 0, "hlsi admin break-now starts a 30 s break")
    trace = wait_for(page, lambda t: events(t, "INTERSTITIAL_STARTED", BREAK), timeout=45)
    started = events(trace, "INTERSTITIAL_STARTED", BREAK)
    check(bool(started), "the controller starts the new break")
    page.wait_for_timeout(3000)
    result = admin(hlsi, base, "return-now", "demo")
    check(result.returncode == 0 and f'"id":"{BREAK}"' in result.stdout, "hlsi admin return-now ends it early")
    timeline = json.loads(urllib.request.urlopen(base + "/demo/live/timeline.json").read())
    event = next((e for e in timeline["events"] if e["id"] == BREAK), {})
    group = next((g for g in timeline.get("groups", []) if BREAK in g["members"]), {})
    check(event.get("playoutLimit") is not None and group.get("members") == [BREAK]
          and group.get("resumeTime") == event.get("resumeTime"),
          f"timeline.json carries the limit, and the group where primary resumes: {event.get('playoutLimit')}, {group}")
    trace = wait_for(page, lambda t: events(t, "INTERSTITIAL_ENDED", BREAK), timeout=40)
    ended = events(trace, "INTERSTITIAL_ENDED", BREAK)
    length = (ended[0]["at"] - started[0]["at"]) / 1000 if ended and started else None
    check(length is not None and length < 24, f"the early return shortens the 30 s break to {length} s")
    check(bool(events(trace, "INTERSTITIAL_PLAYOUT_LIMIT_REACHED", BREAK)),
          "the controller ends it at its playout limit (INTERSTITIAL_PLAYOUT_LIMIT_REACHED)")
    trace = wait_for(page, lambda t: [e for e in events(t, "INTERSTITIALS_PRIMARY_RESUMED")
                                      if ended and e["at"] >= ended[0]["at"]], timeout=10)
    check(any(ended and e["at"] >= ended[0]["at"] for e in events(trace, "INTERSTITIALS_PRIMARY_RESUMED")),
          "primary resumes after the shortened break")
    errors = [e for e in trace if e["event"] in ("ERROR", "PLAY_FAILED") and e.get("fatal", True)]
    check(not errors, f"no error: {errors[:3]}")
    os.makedirs(TRACES, exist_ok=True)
    with open(os.path.join(TRACES, "return-now.json"), "w") as file:
        json.dump(trace, file, indent=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hlsi", required=True)
    args = parser.parse_args()
    server = demo_server(args.hlsi, "--admin-token", TOKEN)
    try:
        check(server.wait(), "the demo server answers")
        with chromium(autoplay=True) as browser:
            return_now(browser.new_page(), args.hlsi, server.base)
    finally:
        output = server.stop("the server (SIGTERM)")
        lines = output.splitlines()
        print("server log (last 15 lines):\n  " + "\n  ".join(lines[-15:]))
    finish("return-now")


if __name__ == "__main__":
    main()
