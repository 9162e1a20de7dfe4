#!/usr/bin/env python3
"""A local VAST/VMAP ad decision server for the tests: answers VAST and VMAP and records every request.

Usage: ad_server.py MEDIA_BASE LOG_FILE [DELAY_MS [PORT]]

- GET /vast?brk=ID&dur=SECONDS...: a VAST 4.2 pod of the demo's three ads (ad2 4 s, ad3 6 s,
  ad1 6 s, in that sequence) whose HLS media files are MEDIA_BASE/ads/adN/master.m3u8, and whose
  tracking URLs name the break and the ad: /t/BREAK/AD/EVENT.
- GET /wrapper?...: a VAST wrapper (allowMultipleAds) leading to /vast with the same query.
- GET /vmap?mid=SECONDS: an IAB VMAP 1.0 document with two linear breaks, breakId "preroll"
  (timeOffset "start") and "midroll" (at SECONDS, default 20), each with an AdTagURI to /vast whose
  query asks for the server's macros (brk=[BREAKID], dur=[BREAKDURATION], sid=[SESSIONID],
  cb=[CACHEBUSTING]), and breakStart/breakEnd tracking at /t/BREAK/pod/EVENT.
- GET /broken: malformed XML (a <VAST> never closed); GET /empty: an empty <VAST version="4.2"/>.
- GET /slow: never answers (the caller's deadline applies).
- /vast, /wrapper and /vmap wait DELAY_MS first (default 0), as a real ad server's decision takes time.
- anything else (the beacons): 204.

Every request line is appended to LOG_FILE as it arrives. The first line on standard output is
"port N".
"""
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

MEDIA_BASE = sys.argv[1].rstrip("/")
LOG = sys.argv[2]
DELAY = float(sys.argv[3]) / 1000 if len(sys.argv) > 3 else 0.0
LOCK = threading.Lock()
ADS = [("ad2", 4), ("ad3", 6), ("ad1", 6)]
EVENTS = ["start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]


def vast(origin, brk):
    ads = []
    for sequence, (ad, seconds) in enumerate(ADS, start=1):
        track = "".join(
            f'<Tracking event="{event}">{origin}/t/{brk}/{ad}/{event}</Tracking>' for event in EVENTS
        )
        ads.append(
            f"""<Ad id="{ad}" sequence="{sequence}"><InLine>
<AdSystem>e2e</AdSystem><AdTitle>{ad}</AdTitle>
<Impression>{origin}/t/{brk}/{ad}/impression</Impression>
<Error>{origin}/t/{brk}/{ad}/error?code=[ERRORCODE]</Error>
<Creatives><Creative id="c-{ad}"><UniversalAdId idRegistry="e2e">{ad}</UniversalAdId><Linear>
<Duration>00:00:0{seconds}</Duration><TrackingEvents>{track}</TrackingEvents>
<MediaFiles><MediaFile delivery="streaming" type="application/x-mpegURL" width="320" height="180">{MEDIA_BASE}/ads/{ad}/master.m3u8</MediaFile></MediaFiles>
</Linear></Creative></Creatives></InLine></Ad>"""
        )
    return '<VAST version="4.2">' + "".join(ads) + "</VAST>"


def vmap(origin, midroll):
    """The VMAP answer: a pre-roll and a mid-roll at `midroll` seconds, both asking /vast."""
    clock = f"{int(midroll) // 3600:02d}:{int(midroll) // 60 % 60:02d}:{midroll % 60:06.3f}"
    tag = f"{origin}/vast?brk=[BREAKID]&dur=[BREAKDURATION]&sid=[SESSIONID]&cb=[CACHEBUSTING]"
    breaks = []
    for ident, offset in (("preroll", "start"), ("midroll", clock)):
        track = "".join(
            f'<vmap:Tracking event="{event}"><![CDATA[{origin}/t/{ident}/pod/{event}]]></vmap:Tracking>'
            for event in ("breakStart", "breakEnd")
        )
        breaks.append(
            f'<vmap:AdBreak timeOffset="{offset}" breakType="linear" breakId="{ident}">'
            f'<vmap:AdSource id="{ident}-source" allowMultipleAds="true" followRedirects="true">'
            f'<vmap:AdTagURI templateType="vast4"><![CDATA[{tag}]]></vmap:AdTagURI></vmap:AdSource>'
            f"<vmap:TrackingEvents>{track}</vmap:TrackingEvents></vmap:AdBreak>"
        )
    return '<vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">' + "".join(breaks) + "</vmap:VMAP>"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        with LOCK:
            with open(LOG, "a") as log:
                log.write(self.path + "\n")
        url = urlparse(self.path)
        origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        query = parse_qs(url.query)
        if DELAY and url.path in ("/vast", "/wrapper", "/vmap"):
            time.sleep(DELAY)
        if url.path == "/wrapper":
            target = f"{origin}/vast?{url.query}".replace("&", "&amp;")
            self.answer(
                '<VAST version="4.2"><Ad id="w"><Wrapper allowMultipleAds="true"><AdSystem>e2e</AdSystem>'
                f"<VASTAdTagURI>{target}</VASTAdTagURI></Wrapper></Ad></VAST>"
            )
        elif url.path == "/vast":
            self.answer(vast(origin, query.get("brk", ["none"])[0]))
        elif url.path == "/vmap":
            try:
                midroll = max(0.0, float(query.get("mid", ["20"])[0]))
            except ValueError:
                midroll = 20.0
            self.answer(vmap(origin, midroll))
        elif url.path == "/broken":
            self.answer('<VAST version="4.2"><Ad id="x"><InLine><AdSystem>e2e</AdSystem>')
        elif url.path == "/empty":
            self.answer('<VAST version="4.2"/>')
        elif url.path == "/slow":
            time.sleep(30)
        else:
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

    def answer(self, text):
        """A 200 with `text` as XML."""
        body = text.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


ThreadingHTTPServer.request_queue_size = 1024
server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[4]) if len(sys.argv) > 4 else 0), Handler)
print(f"port {server.server_address[1]}", flush=True)
server.serve_forever()
