"""End-to-end: the operations console at /console in headless Chromium (issue 36, item 1).

`hlsi serve --demo --admin-token TOKEN`; the console is driven as an operator would:
- without a token and with a wrong one it shows nothing but a clear message (401 from the API);
- with the token it lists the targets, keeps the token in sessionStorage only (no localStorage, no
  cookie), and loads nothing from another origin, with no Content-Security-Policy violation;
- a break with an invalid field shows the API's message and marks the field; fixed, it is created
  and appears in the served VOD playlist; edited, the playlist follows; deleted, it is gone;
- on the live channel, "Break now" starts a break that the live playlist carries and the timeline
  shows; "Return now" adds X-PLAYOUT-LIMIT to it in the playlist and the timeline says "returned";
- the metrics show the fill rate of the asset lists asked for.
Screenshots go to $ARTIFACTS_DIR (default .build/artifacts/console/).

Usage: python3 E2E/console.py --hlsi PATH
"""

import argparse
import os
import re
import time
import urllib.request

from support import check, chromium, demo_server, finish

TOKEN = "e2e-console-token"
ARTIFACTS = os.environ.get("ARTIFACTS_DIR") or os.path.join(".build", "artifacts", "console")


def fetch(base, path):
    with urllib.request.urlopen(base + path, timeout=10) as response:
        return response.read().decode()


def lines_with(text, ident):
    return [line for line in text.splitlines() if line.startswith("#EXT-X-DATERANGE:") and f'ID="{ident}"' in line]


def shot(page, name):
    os.makedirs(ARTIFACTS, exist_ok=True)
    path = os.path.join(ARTIFACTS, name + ".png")
    page.screenshot(path=path, full_page=True)
    print(f"  screenshot {path}", flush=True)


def wait(page, predicate, timeout, step=200):
    """Polls `predicate()` until it holds or `timeout` s pass; returns its last value."""
    deadline = time.time() + timeout
    value = predicate()
    while not value and time.time() < deadline:
        page.wait_for_timeout(step)
        value = predicate()
    return value


def sign_in(page, base, origins, violations):
    print("== The token: none, a wrong one, the right one", flush=True)
    response = page.goto(base + "/console")
    policy = response.headers.get("content-security-policy", "")
    check(policy.startswith("default-src 'self';"), f"the console is served with its content policy ({policy})")
    check(page.locator("#console").is_hidden(), "without a token the console shows nothing")
    check("admin token" in page.inner_text("#auth-message"), "it asks for the admin token")
    page.fill("#token", "wrong-token")
    page.click("#token-use")
    page.wait_for_selector('#auth-message[data-state="refused"]', timeout=10000)
    message = page.inner_text("#auth-message")
    check("admin token is missing or wrong" in message, f"a wrong token gets a clear message: {message!r}")
    check(page.locator("#console").is_hidden(), "a wrong token shows nothing")
    check(page.evaluate("sessionStorage.length") == 0, "a wrong token is not kept")
    shot(page, "1-wrong-token")
    page.fill("#token", "")
    page.click("#token-use")
    page.wait_for_timeout(300)
    check("Enter the admin token" in page.inner_text("#auth-message"), "a missing token gets a message too")
    page.fill("#token", TOKEN)
    page.click("#token-use")
    page.wait_for_selector("#console:not([hidden])", timeout=10000)
    page.wait_for_selector('#targets-body tr[data-target="live/demo"]', timeout=10000)
    targets = page.eval_on_selector_all("#targets-body tr", "rows => rows.map(r => r.dataset.target)")
    check(targets[0] == "vod/demo" and "live/demo" in targets, f"the targets are listed: {targets}")
    check(page.evaluate("sessionStorage.getItem('hlsi-admin-token')") == TOKEN, "the token is kept for the tab")
    check(page.evaluate("localStorage.length") == 0, "nothing in localStorage")
    check(page.context.cookies() == [], "no cookie")
    page.reload()
    page.wait_for_selector("#console:not([hidden])", timeout=10000)
    check(True, "a reload of the tab keeps the session")


def breaks(page, base):
    print("== Breaks: a refused one, created, edited, deleted", flush=True)
    page.fill("#bf-id", "e2e-console")
    page.select_option("#bf-target", "vod/demo")
    page.fill("#bf-at", "-5")
    page.fill("#bf-duration", "10")
    page.click("#break-save")
    page.wait_for_selector("#break-error:not([hidden])", timeout=10000)
    error = page.inner_text("#break-error")
    check(re.fullmatch(r"at: .+ \[[a-z-]+\]", error) is not None, f"the API's message, field and code: {error!r}")
    check(page.get_attribute("#bf-at", "aria-invalid") == "true", "the field at fault is marked")
    shot(page, "2-break-refused")
    page.fill("#bf-at", "20")
    page.click("#break-save")
    page.wait_for_selector('#breaks-body tr[data-break="e2e-console"]', timeout=10000)
    check(page.locator("#break-error").is_hidden(), "the message goes once the break is valid")
    check(page.get_attribute("#bf-at", "aria-invalid") is None, "the field is no longer marked")
    check("Created break e2e-console" in page.inner_text("#break-done"), "the console says it is created")
    # Edited before it is served.
    page.click('#breaks-body tr[data-break="e2e-console"] button.edit')
    check(page.input_value("#bf-at") == "20" and page.input_value("#bf-duration") == "10",
          "the editor holds the break")
    page.fill("#bf-duration", "12")
    page.click("#break-save")
    # (Not wait_for_function: it evaluates a string, which the console's policy forbids, as it should.)
    saved = wait(page, lambda: "Saved break e2e-console" in (page.text_content("#break-done") or ""), 10)
    check(saved, f"the edit is saved: {page.text_content('#break-done')!r} {page.text_content('#break-error')!r}")
    served = lines_with(fetch(base, "/demo/vod/video/main.m3u8"), "e2e-console")
    check(len(served) == 1 and "DURATION=12" in served[0], f"the break is in the served playlist: {served}")
    shot(page, "3-break-created")
    # Served, it may not change (§6.2.1): the console shows the API's refusal.
    page.fill("#bf-duration", "14")
    page.click("#break-save")
    page.wait_for_selector("#break-error:not([hidden])", timeout=10000)
    error = page.inner_text("#break-error")
    check(error.endswith("[served-break]"), f"a served break is not changed: {error!r}")
    check("DURATION=12" in lines_with(fetch(base, "/demo/vod/video/main.m3u8"), "e2e-console")[0], "still served")
    asked = fetch(base, "/demo/vod/asset-list.json?_HLS_interstitial_id=e2e-console")
    check('"ASSETS"' in asked, "its asset list answers (counted by the metrics)")
    page.click('#breaks-body tr[data-break="e2e-console"] button.delete')
    page.wait_for_selector('#breaks-body tr[data-break="e2e-console"]', state="detached", timeout=10000)
    check(not lines_with(fetch(base, "/demo/vod/video/main.m3u8"), "e2e-console"), "deleted, it is not served")


def live(page, base):
    print("== Live: break now, then return now", flush=True)
    card = '[data-channel="demo"]'
    page.wait_for_selector(f"{card} .timeline .window", timeout=15000)
    # The demo's live breaks take 10 s from 30 s into each minute: a 30 s break from 43-50 s ends
    # before the next one, so that "return now" ends this one.
    deadline = time.time() + 70
    while time.time() < deadline and not 43 <= time.gmtime().tm_sec <= 50:
        page.wait_for_timeout(250)
    page.fill(f"{card} input.duration", "30")
    page.fill(f"{card} input.break-id", "e2e-live")
    page.click(f"{card} button.break-now")
    page.wait_for_selector(f'{card} .live-message[data-state="ok"]', timeout=10000)
    check("Break e2e-live starts" in page.inner_text(f"{card} .live-message"), "break now is started")
    lines = wait(page, lambda: lines_with(fetch(base, "/demo/live/video/main.m3u8"), "e2e-live"), 10)
    check(bool(lines) and "X-PLAYOUT-LIMIT" not in lines[0], f"the live playlist carries it: {lines}")
    page.wait_for_selector(f'{card} .timeline .break[data-break="e2e-live"]', timeout=10000)
    page.wait_for_selector(f'{card} tr[data-break="e2e-live"]', timeout=10000)
    state = page.get_attribute(f'{card} tr[data-break="e2e-live"]', "data-state")
    check(state in ("on-air", "upcoming"), f"the timeline shows it ({state})")
    page.wait_for_timeout(3000)
    shot(page, "4-live-break-now")
    page.click(f"{card} button.return-now")
    page.wait_for_selector(f"{card} .live-message:has-text('X-PLAYOUT-LIMIT')", timeout=10000)
    message = page.inner_text(f"{card} .live-message")
    check("Break e2e-live returns early" in message, f"return now: {message!r}")
    lines = wait(page, lambda: [line for line in lines_with(fetch(base, "/demo/live/video/main.m3u8"), "e2e-live")
                                if "X-PLAYOUT-LIMIT=" in line], 10)
    check(bool(lines), f"the live playlist adds X-PLAYOUT-LIMIT: {lines}")
    returned = wait(page, lambda: page.get_attribute(f'{card} tr[data-break="e2e-live"]', "data-state") == "returned",
                    10)
    check(returned, "the timeline says it returned")
    check("X-PLAYOUT-LIMIT=" in page.inner_text(f'{card} tr[data-break="e2e-live"]'), "with what was served")
    page.click(f"{card} button.return-now")
    page.wait_for_selector(f'{card} .live-message[data-state="refused"]', timeout=10000)
    message = page.inner_text(f"{card} .live-message")
    check("[already-returned]" in message or "[no-break]" in message, f"a second return is refused: {message!r}")
    shot(page, "5-live-return-now")


def metrics(page):
    print("== Metrics", flush=True)
    fill = wait(page, lambda: "of 0 " not in (page.text_content('dd[data-metric="Fill rate"]') or "of 0 "), 15)
    text = page.text_content('dd[data-metric="Fill rate"]') or ""
    check(bool(fill) and "%" in text, f"the fill rate of the asset lists asked for: {text!r}")
    for name in ["Asset-list latency (VAST decisions)", "Ad-server errors (VAST codes)", "Beacons seen", "Prefetch"]:
        check(page.locator(f'dd[data-metric="{name}"]').count() == 1, f"shows {name}")
    check(page.locator("#metrics-error").is_hidden(), "metrics are read with the token")
    shot(page, "6-metrics")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hlsi", required=True)
    args = parser.parse_args()
    server = demo_server(args.hlsi, "--admin-token", TOKEN)
    port, base = server.port, server.base
    try:
        check(server.wait(), "the demo server answers")
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            origins = set()
            violations = []
            page.on("request", lambda request: origins.add(request.url.split("/")[2]))
            page.on("console", lambda message: violations.append(message.text)
                    if "Content Security Policy" in message.text or message.type == "error" else None)
            page.on("pageerror", lambda error: violations.append(str(error)))
            sign_in(page, base, origins, violations)
            breaks(page, base)
            live(page, base)
            metrics(page)
            check(page.evaluate("sessionStorage.getItem('hlsi-admin-token')") == TOKEN, "still one session")
            page.click("#token-forget")
            check(page.evaluate("sessionStorage.length") == 0 and page.locator("#console").is_hidden(),
                  "Forget drops the token and hides everything")
            check(origins == {f"127.0.0.1:{port}"}, f"nothing from another origin: {sorted(origins)}")
            # A refused request shows in the browser's console as a failed resource: those are
            # the 401s and 409s asked for above; anything else (a CSP violation, an exception) is not.
            unexpected = [v for v in violations if "status of 401" not in v and "status of 409" not in v
                          and "status of 400" not in v]
            check(not unexpected, f"no CSP violation or script error: {unexpected[:3]}")
    finally:
        output = server.stop("the server (SIGTERM)")
        lines = output.splitlines()
        print("server log (last 10 lines):\n  " + "\n  ".join(lines[-10:]))
    print(f"\nscreenshots: {ARTIFACTS}")
    finish("console")


if __name__ == "__main__":
    main()
