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
9. (Issue 37, item 3) A hostile VAST ad server answers a 1 MB document with 149,000 attributes on one
   element: the reader refuses it at its 65th attribute, the asset lists are answered and a playlist
   requested meanwhile is served.
"""

import argparse
import http.client
import http.server
import json
import os
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

    def __init__(self, hlsi, config, workdir, name="server"):
        self.port = config["port"]
        self.base = f"http://127.0.0.1:{self.port}"
        self.path = os.path.join(workdir, f"{name}.json")
        with open(self.path, "w") as out:
            json.dump(config, out)
        self.log = open(os.path.join(workdir, f"{name}.log"), "w")
        self.process = subprocess.Popen([hlsi, "serve", "--config", self.path], stdout=self.log,
                                        stderr=subprocess.STDOUT)
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


class Upstream(http.server.ThreadingHTTPServer):
    """A hostile upstream origin: junk bodies, huge bodies, headers then silence."""

    daemon_threads = True

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

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

        def answer(self, body, content_type):
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the server stops reading past its size cap


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


def attribute_flood():
    """The issue's VAST document: 149,000 attributes (3-byte names) on one <Ad>, 1,043,032 bytes."""
    first = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    rest = first + "0123456789_-"
    names = (a + b + c for a in first for b in rest for c in rest)
    attributes = "".join(f' {next(names)}=""' for _ in range(149_000))
    return ('<VAST version="4.2"><Ad' + attributes + "/></VAST>").encode()


class HostileAdServer(http.server.ThreadingHTTPServer):
    """A VAST ad server whose every answer is the attribute flood; counts the requests."""

    daemon_threads = True
    body = attribute_flood()
    requests = 0

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            type(self.server).requests += 1
            self.send_response(200)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(HostileAdServer.body)))
            self.end_headers()
            try:
                self.wfile.write(HostileAdServer.body)
            except (BrokenPipeError, ConnectionResetError):
                pass


# Issue 37, item 3: quadratic VAST parsing. Before the fix each document cost libxml2 seconds of CPU
# (its duplicate-attribute check is quadratic) that the 1 s asset-list deadline could not stop.
def vast_attribute_flood(hlsi, workdir):
    print("9. a VAST document with 149,000 attributes on one element", flush=True)
    ads = HostileAdServer(("127.0.0.1", 0), HostileAdServer.Handler)
    threading.Thread(target=ads.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{ads.server_address[1]}"
    port = free_port()
    config = base_config(port, os.path.join(workdir, "flood.sqlite"), LIMITS)
    config["vod"][0]["adServer"] = {"vast": origin + "/vast?brk=[BREAKID]"}
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hlsi", required=True)
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="hlsi-attacks-")
    try:
        attacks(os.path.abspath(args.hlsi), workdir)
        upstream_attacks(os.path.abspath(args.hlsi), workdir)
        vast_attribute_flood(os.path.abspath(args.hlsi), workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"attacks: {len(failures)} failed", flush=True)
    if failures:
        for failure in failures:
            print("  - " + failure)
        sys.exit(1)


if __name__ == "__main__":
    main()
