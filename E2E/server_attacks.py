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
9. Ad servers (issue 37, items 4 and 5): VAST wrappers and redirects pointing at the server's own
   admin API, another loopback port or a decimal-IP form of 127.0.0.1 are refused (only the ad
   server's own host:port is allowed); a wrapper tree that fans out makes at most the decision's
   request budget of requests.
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

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

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
            body = f'<VAST version="4.2">{ads}</VAST>'.encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)


class Spy(http.server.ThreadingHTTPServer):
    """A loopback listener the origin must never reach; counts what it gets."""

    daemon_threads = True
    hits = 0

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            type(self.server).hits += 1
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()


def ad_server_attacks(hlsi, workdir):
    print("9. ad servers: SSRF and wrapper fan-out", flush=True)
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hlsi", required=True)
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="hlsi-attacks-")
    try:
        attacks(os.path.abspath(args.hlsi), workdir)
        upstream_attacks(os.path.abspath(args.hlsi), workdir)
        ad_server_attacks(os.path.abspath(args.hlsi), workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"attacks: {len(failures)} failed", flush=True)
    if failures:
        for failure in failures:
            print("  - " + failure)
        sys.exit(1)


if __name__ == "__main__":
    main()
