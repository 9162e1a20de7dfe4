"""End-to-end test: hls.js in headless Chromium plays an interstitial that `hlsi insert` scheduled.

1. ffmpeg makes a 16 s H.264/AAC fMP4 primary and a 4 s ad (VOD HLS).
2. `hlsi insert` adds an interstitial at 4 s pointing at the ad; `hlsi validate --recursive` passes.
3. A local HTTP server serves both and a page that plays the primary with hls.js 1.6.15.
4. The test waits for hls.js to start the interstitial, play the ad asset, end it and resume
   primary, and checks the requests the player made.
"""

import argparse
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from support import chromium, free_port

PAGE = """<!doctype html>
<html><body>
<video id="v" muted playsinline width="320" height="180"></video>
<script type="module">
import { Hls } from "/hls.mjs";
window.trace = [];
const video = document.getElementById("v");
const hls = new Hls();
for (const [key, name] of Object.entries(Hls.Events)) {
  if (key.startsWith("INTERSTITIAL")) {
    hls.on(name, (_, data) => window.trace.push({
      event: key, time: video.currentTime, at: performance.now(),
      id: data && data.event ? data.event.identifier : undefined,
      asset: data && data.asset ? data.asset.uri : undefined }));
  }
}
hls.on(Hls.Events.ERROR, (_, data) => window.trace.push({ event: "ERROR", details: data.details, fatal: data.fatal }));
hls.loadSource("/primary/with-ad.m3u8");
hls.attachMedia(video);
video.play().catch((error) => window.trace.push({ event: "PLAY_FAILED", details: String(error) }));
window.currentTime = () => video.currentTime;
</script>
</body></html>
"""


def run(command, **kwargs):
    print("+ " + " ".join(command), flush=True)
    return subprocess.run(command, check=True, **kwargs)


def make_media(root):
    common = ["-c:v", "libx264", "-profile:v", "main", "-pix_fmt", "yuv420p", "-g", "50", "-keyint_min", "50",
              "-sc_threshold", "0", "-c:a", "aac", "-b:a", "64k", "-ac", "2", "-f", "hls", "-hls_time", "2",
              "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4"]
    for name, video, tone, seconds in [("primary", "testsrc2", 440, 16), ("ad", "smptebars", 880, 4)]:
        os.makedirs(os.path.join(root, name))
        run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", f"{video}=size=320x180:rate=25",
             "-f", "lavfi", "-i", f"sine=frequency={tone}:sample_rate=48000", "-t", str(seconds), *common,
             "-hls_segment_filename", os.path.join(root, name, "seg%03d.m4s"), os.path.join(root, name, "main.m3u8")])


class Handler(http.server.SimpleHTTPRequestHandler):
    requests = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        Handler.requests.append(self.path)
        super().do_GET()

    def guess_type(self, path):
        if path.endswith(".m3u8"):
            return "application/vnd.apple.mpegurl"
        if path.endswith(".mjs") or path.endswith(".js"):
            return "text/javascript"
        if path.endswith(".m4s") or path.endswith(".mp4"):
            return "video/mp4"
        return super().guess_type(path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hlsi", required=True)
    parser.add_argument("--hls", required=True)
    parser.add_argument("--timeout", type=float, default=90)
    arguments = parser.parse_args()
    hlsi = os.path.abspath(arguments.hlsi)
    root = tempfile.mkdtemp(prefix="hlsi-e2e-")
    try:
        make_media(root)
        shutil.copy(arguments.hls, os.path.join(root, "hls.mjs"))
        with open(os.path.join(root, "index.html"), "w") as page:
            page.write(PAGE)

        port = free_port()
        server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", port), lambda *a, **k: Handler(*a, directory=root, **k))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{port}"

        playlist = os.path.join(root, "primary", "main.m3u8")
        output = os.path.join(root, "primary", "with-ad.m3u8")
        run([hlsi, "insert", playlist, "--id", "ad1", "--at", "4", "--asset-uri", f"{base}/ad/main.m3u8",
             "--duration", "4", "--resume-offset", "0", "--output", output])
        with open(playlist, "rb") as before, open(output, "rb") as after:
            original, inserted = before.read(), after.read()
        added = [line for line in inserted.splitlines() if line not in original.splitlines()]
        assert len(added) == 2 and added[0].startswith(b"#EXT-X-PROGRAM-DATE-TIME:"), added
        print(added[1].decode())
        run([hlsi, "validate", "--recursive", f"{base}/primary/with-ad.m3u8"])

        with chromium(autoplay=True, arguments=["--no-sandbox"]) as browser:
            page = browser.new_page()
            page.on("console", lambda message: print("browser:", message.text) if message.type == "error" else None)
            page.goto(f"{base}/index.html")
            deadline = time.time() + arguments.timeout
            trace = []
            while time.time() < deadline:
                trace = page.evaluate("window.trace || []")
                if any(entry["event"] == "INTERSTITIALS_PRIMARY_RESUMED" for entry in trace) \
                        and page.evaluate("window.currentTime()") > 9:
                    break
                if any(entry["event"] == "ERROR" and entry.get("fatal") for entry in trace):
                    break
                time.sleep(0.25)
            position = page.evaluate("window.currentTime()")
        server.shutdown()

        print(json.dumps(trace, indent=1))
        events = [entry["event"] for entry in trace]
        failures = []
        for expected in ["INTERSTITIAL_STARTED", "INTERSTITIAL_ASSET_STARTED", "INTERSTITIAL_ASSET_ENDED",
                         "INTERSTITIAL_ENDED", "INTERSTITIALS_PRIMARY_RESUMED"]:
            if expected not in events:
                failures.append(f"hls.js never sent {expected}")
        started = [entry for entry in trace if entry["event"] == "INTERSTITIAL_STARTED"]
        if started and started[0].get("id") != "ad1":
            failures.append(f"the interstitial that started is {started[0].get('id')}, not ad1")
        if any(entry["event"] == "ERROR" and entry.get("fatal") for entry in trace):
            failures.append("hls.js reported a fatal error")
        asset_started = [entry["at"] for entry in trace if entry["event"] == "INTERSTITIAL_ASSET_STARTED"]
        asset_ended = [entry["at"] for entry in trace if entry["event"] == "INTERSTITIAL_ASSET_ENDED"]
        if asset_started and asset_ended and asset_ended[0] - asset_started[0] < 3000:
            failures.append(f"the 4 s ad played for only {asset_ended[0] - asset_started[0]:.0f} ms")
        ad_requests = [path for path in Handler.requests if path.startswith("/ad/")]
        if not any(path.startswith("/ad/main.m3u8") and "_HLS_interstitial_id=ad1" in path for path in ad_requests):
            failures.append(f"the ad playlist was not requested with _HLS_interstitial_id=ad1: {ad_requests}")
        if not any(path.startswith("/ad/seg") for path in ad_requests):
            failures.append("no ad segment was requested")
        if position <= 9:
            failures.append(f"primary did not play on after the break (position {position:.1f} s)")
        if failures:
            print("E2E FAILED:\n  " + "\n  ".join(failures))
            return 1
        print(f"E2E passed: hls.js played interstitial ad1 and resumed primary (position {position:.1f} s)")
        return 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
