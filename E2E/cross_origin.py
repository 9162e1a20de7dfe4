"""End-to-end: a player on another origin uses the server (issue 16, item 4).

Starts `hlsi serve --demo` on 127.0.0.1:P and a plain static server on localhost:Q (another origin)
that serves a page with hls.js. In headless Chromium, with every other host blocked, the page on
localhost:Q plays http://127.0.0.1:P/demo/vod/master.m3u8: playlists, asset lists and media are read
across origins (CORS), the pre-roll's asset list is late-bound, and interstitials play. The page also
checks from its origin what a player's cache and range requests see: a `Range` request (a CORS
preflight) answered with 206, an `If-None-Match` revalidation answered with 304, and a `HEAD`.
"""

import argparse
import functools
import http.server
import os
import shutil
import tempfile
import threading
import time

from support import check, chromium, demo_server, finish, free_port

PAGE = """<!doctype html><meta charset="utf-8"><title>other origin</title>
<video id="video" muted playsinline></video>
<script type="module">
import { Hls } from "./hls.mjs";
window.trace = [];
const video = document.getElementById("video");
const hls = new Hls();
for (const [key, name] of Object.entries(Hls.Events)) {
  if (key.startsWith("INTERSTITIAL_ASSET") || key === "ERROR") {
    hls.on(name, (_, data) => window.trace.push({ event: key, details: data && data.details,
      id: data && data.event ? data.event.identifier : undefined }));
  }
}
hls.loadSource(new URLSearchParams(location.search).get("src"));
hls.attachMedia(video);
video.play().catch(() => {});
window.probe = async (base) => {
  const result = {};
  const segment = base + "/demo/vod/video/main.m3u8";
  const first = await fetch(segment, { cache: "no-store" });
  result.tag = first.headers.get("ETag");
  const again = await fetch(segment, { cache: "no-store", headers: { "If-None-Match": result.tag } });
  result.revalidated = again.status;
  const text = await first.text();
  const uri = text.split("\\n").find((line) => line && !line.startsWith("#"));
  const part = await fetch(base + "/demo/vod/video/" + uri, { headers: { Range: "bytes=0-99" } });
  result.range = [part.status, part.headers.get("Content-Range"), (await part.arrayBuffer()).byteLength];
  const head = await fetch(base + "/demo/vod/master.m3u8", { method: "HEAD" });
  result.head = [head.status, head.headers.get("Content-Length"), (await head.text()).length];
  return result;
};
</script>
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hlsi", required=True)
    parser.add_argument("--hls", required=True, help="hls.js ES module")
    args = parser.parse_args()
    other = free_port()
    site = tempfile.mkdtemp(prefix="hlsi-origin-")
    shutil.copy(args.hls, os.path.join(site, "hls.mjs"))
    with open(os.path.join(site, "index.html"), "w", encoding="utf-8") as page:
        page.write(PAGE)

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {".mjs": "text/javascript", ".html": "text/html"}

        def log_message(self, *_):
            pass

    static = http.server.ThreadingHTTPServer(("127.0.0.1", other), functools.partial(Handler, directory=site))
    threading.Thread(target=static.serve_forever, daemon=True).start()
    database = os.path.join(site, "server.sqlite")
    server = demo_server(args.hlsi, "--database", database)
    try:
        server.wait("/demo/vod/master.m3u8")
        play(server.base, f"http://localhost:{other}")
    finally:
        server.stop()
        static.shutdown()
        shutil.rmtree(site, ignore_errors=True)
    finish("cross-origin")


def play(base, origin):
    print(f"== hls.js on {origin} plays {base}/demo/vod/master.m3u8", flush=True)
    with chromium(autoplay=True) as browser:
        context = browser.new_context()
        allowed = (base, origin)
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(allowed)
                      else route.abort())
        page = context.new_page()
        console = []
        page.on("console", lambda message: console.append(message.text))
        requests = []
        page.on("request", lambda request: requests.append(request.url))
        page.goto(f"{origin}/index.html?src={base}/demo/vod/master.m3u8")
        deadline = time.time() + 60
        trace = []
        while time.time() < deadline:
            trace = page.evaluate("window.trace")
            if any(e["event"] == "INTERSTITIAL_ASSET_ENDED" and e.get("id") == "preroll" for e in trace):
                break
            if any(e["event"] == "ERROR" for e in trace):
                break
            page.wait_for_timeout(200)
        started = [e for e in trace if e["event"] == "INTERSTITIAL_ASSET_STARTED"]
        errors = [e for e in trace if e["event"] in ("ERROR", "INTERSTITIAL_ASSET_ERROR")]
        check(any(e.get("id") == "preroll" for e in started), f"the pre-roll starts across origins: {started}")
        check(not errors, f"no errors: {errors[:3]}")
        check(any("asset-list.json" in url and "_HLS_primary_id" in url for url in requests),
              "the pre-roll's asset list is requested across origins with _HLS_primary_id")
        blocked = [line for line in console if "CORS" in line or "Access-Control" in line]
        check(not blocked, f"no CORS refusals in the console: {blocked[:2]}")
        probe = page.evaluate("(base) => window.probe(base)", base)
        print(f"  probe: {probe}")
        check(probe["tag"] is not None, "the page can read a playlist's ETag")
        check(probe["revalidated"] == 304, f"If-None-Match from another origin gets 304: {probe['revalidated']}")
        check(probe["range"][0] == 206 and probe["range"][1].startswith("bytes 0-99/") and probe["range"][2] == 100,
              f"a Range request from another origin (preflighted) gets 206 with 100 bytes: {probe['range']}")
        check(probe["head"][0] == 200 and int(probe["head"][1]) > 0 and probe["head"][2] == 0,
              f"HEAD gets the length and no body: {probe['head']}")


if __name__ == "__main__":
    main()
