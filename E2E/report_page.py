"""End-to-end: the page of `hlsi report` renders in headless Chromium on its own (issue 36, item 2).

`hlsi serve --demo` serves its VOD; `hlsi report URL -o FILE --play --media --sample 1 --no-beacons`
writes the page (findings, the integrated timeline, each break, the media timing and the play trace).
The file is opened from file:// in headless Chromium: it must render (its sections and their drawings
are laid out with a size), log no console error or page error, and make no request other than the
file itself. A screenshot is kept in E2E/.cache/screenshots/report.png.

Usage: python3 E2E/report_page.py --hlsi PATH
"""

import argparse
import os
import subprocess
import tempfile

from support import check, chromium, demo_server, finish

SCREENSHOTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".cache", "screenshots")


def open_report(browser, path):
    print(f"== {path} in Chromium", flush=True)
    page = browser.new_page()
    console = []
    requests = []
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: console.append(f"pageerror: {error}"))
    page.on("request", lambda request: requests.append(request.url))
    url = "file://" + os.path.abspath(path)
    page.goto(url)
    page.wait_for_load_state("load")
    sections = page.evaluate("[...document.querySelectorAll('section')].map(s => s.id)")
    check(sections[:4] == ["summary", "findings", "checked", "timeline"], f"the sections are there: {sections}")
    check("media" in sections and "playback" in sections, "--media and --play add their sections")
    sizes = page.evaluate(
        "[...document.querySelectorAll('svg')].map(s => { const r = s.getBoundingClientRect(); "
        "return [r.width, r.height]; })")
    check(len(sizes) >= 3 and all(w > 100 and h > 20 for w, h in sizes),
          f"every drawing is laid out with a size ({len(sizes)} SVG)")
    # Issue 47, item 7: nothing runs off the page (the media table was a <pre> wider than the body),
    # and the media transitions are stamped with the player's clock, not all at 0 s.
    spilling = page.evaluate(
        "[...document.querySelectorAll('pre, table')].filter(e => e.scrollWidth > e.clientWidth + 1 && "
        "!['auto', 'scroll'].includes(getComputedStyle(e).overflowX)).map(e => e.tagName + '.' + e.className)")
    check(not spilling, f"no table or text block runs off the page: it fits or scrolls ({spilling[:3]})")
    times = page.evaluate(
        "[...document.querySelectorAll('table.transitions tbody tr')].map(r => parseFloat(r.cells[0].textContent))")
    check(len(times) >= 2 and max(times) > 0, f"media transitions are placed in time, not all at 0 s ({times[:6]})")
    breaks = page.evaluate("document.querySelectorAll('div.break').length")
    check(breaks >= 1, f"each break has its box ({breaks})")
    check(page.evaluate("document.querySelectorAll('script').length") == 0, "no script in the page")
    errors = [line for line in console if line.startswith(("error", "pageerror"))]
    check(not errors, f"no console error ({errors[:3]})")
    others = [u for u in requests if u != url]
    check(not others, f"no request but the file itself ({others[:3]})")
    os.makedirs(SCREENSHOTS, exist_ok=True)
    page.screenshot(path=os.path.join(SCREENSHOTS, "report.png"), full_page=True)
    page.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hlsi", required=True)
    args = parser.parse_args()
    server = demo_server(args.hlsi)
    base = server.base
    directory = tempfile.mkdtemp(prefix="hlsi-report-")
    path = os.path.join(directory, "report.html")
    try:
        check(server.wait(), "the demo server answers")
        result = subprocess.run(
            [args.hlsi, "report", base + "/demo/vod/master.m3u8", "-o", path, "--play", "--media", "--sample", "1",
             "--no-beacons"], capture_output=True, text=True, timeout=300)
        print(f"+ hlsi report -> {result.returncode} {result.stderr.strip()}", flush=True)
        check(result.returncode in (0, 1) and os.path.exists(path), "hlsi report writes the page")
        if os.path.exists(path):
            with chromium() as browser:
                open_report(browser, path)
    finally:
        server.stop()
        if os.path.exists(path):
            os.remove(path)
        os.rmdir(directory)
    finish("report page")


if __name__ == "__main__":
    main()
