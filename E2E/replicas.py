"""End-to-end test of three `hlsi serve` replicas on one PostgreSQL database behind nginx (issue 20).

1. Starts a PostgreSQL cluster in a temporary directory (Debian's postgresql package; as `nobody`
   when run as root; a Unix socket in that directory, no TCP port) and creates a database.
2. Starts three replicas, `hlsi serve --demo --database postgres://…` (the demo's VOD asset, live
   channel, ads and seed), on free ports, all with one admin token and the nginx address as
   --public-url, and nginx with deploy/nginx-replicas.conf, its ports replaced by the test's.
3. Admin writes through replica A (a VOD break, a live break now, an early return) are served by B
   and C within 1 s; VOD and live playlists from A, B, C and nginx are byte-identical (live: the
   same window, fetched at the same moment); concurrent first serves of a new break from all three
   replicas at once give byte-identical EXT-X-DATERANGE lines.
4. Asset lists for one viewer through different replicas: its requests are counted in the database,
   so a viewer moving from A to B to C is rebound at each and a ONCE pre-roll is not filled again
   on another replica; the SCTE-35 channel converts its markers into the same date ranges on every
   replica and in both renditions.
5. PostgreSQL stopped for 10 s: replicas keep serving playlists with the date ranges already served,
   asset lists answer within the deadline, an admin write answers 503 store-unavailable; PostgreSQL
   started again: an admin write succeeds without restarting the replicas and reaches the others
   within 5.5 s (a poll begun during the outage may wait out the store's 5 s deadline).
6. Replica C is killed (SIGKILL) the moment it acknowledges an admin write: A and B serve it.

Prints one line per check, "PASS …" or "FAIL …", and exits 1 on any failure.
Installs nginx and postgresql with apt-get when they are missing and it runs as root; without
PostgreSQL it prints "SKIP …" and exits 0.
Usage: python3 E2E/replicas.py [--hlsi path/to/hlsi]   (default: $HLSI, else .build/debug/hlsi)
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from support import failures, free_port, wait_until_serving

TOKEN = "e2e-replicas"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VOD = "/demo/vod/video/main.m3u8"
VOD_MASTER = "/demo/vod/master.m3u8"
LIVE = "/demo/live/video/main.m3u8"
LIVE_MASTER = "/demo/live/master.m3u8"
# The demo channel whose breaks come from the SCTE-35 markers written into its own loop (issue 19):
# a 10 s break 30 s into every minute of wall-clock time.
SCTE35_RENDITIONS = ["/demo/live-scte35/video/main.m3u8", "/demo/live-scte35/audio-en/main.m3u8"]
SCTE35_BREAK_SECOND = 30
# How long a change made through one replica may take to be served by the others (issue 20).
PROPAGATION = 1.0
# Right after an outage a poll that began while the database was down may still be waiting on the
# store's 5 s deadline: following resumes within that deadline and one poll.
RECOVERY_PROPAGATION = 5.5
# The asset-list deadline (1 s) and some room for a loaded machine.
ASSET_LIST_BOUND = 1.5


def report(ok, message):
    print(("PASS " if ok else "FAIL ") + message, flush=True)
    if not ok:
        failures.append(message)
    return ok


# --- HTTP ---------------------------------------------------------------------------------------


def fetch(url, method="GET", body=None, token=None, timeout=10):
    """(status, headers, body bytes, seconds); status None when the connection failed."""
    request = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode())
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read(), time.monotonic() - started
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read(), time.monotonic() - started
    except OSError as error:
        return None, {}, str(error).encode(), time.monotonic() - started


def admin(base, method, path, body=None):
    status, _, data, seconds = fetch(base + "/admin/v1/" + path, method, body if body is not None else (
        {} if method == "POST" else None), token=TOKEN)
    try:
        answer = json.loads(data) if data else None
    except ValueError:
        answer = data.decode("utf-8", "replace")
    print(f"  + {method} {base}/admin/v1/{path} -> {status} in {seconds:.2f} s: {str(answer)[:200]}", flush=True)
    return status, answer


def at_once(urls, repeat=1):
    """Fetches every URL (each `repeat` times) from its own thread, all released together."""
    jobs = [url for url in urls for _ in range(repeat)]
    barrier = threading.Barrier(len(jobs))
    results = [None] * len(jobs)

    def run(index, url):
        barrier.wait()
        results[index] = fetch(url)

    threads = [threading.Thread(target=run, args=(i, url)) for i, url in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def dateranges(body):
    """The EXT-X-DATERANGE lines of a playlist, by ID."""
    lines = {}
    for line in body.decode("utf-8", "replace").splitlines():
        if line.startswith("#EXT-X-DATERANGE:"):
            found = re.search(r'ID="([^"]*)"', line)
            if found:
                lines[found.group(1)] = line
    return lines


def media_sequence(body):
    found = re.search(rb"#EXT-X-MEDIA-SEQUENCE:(\d+)", body)
    return int(found.group(1)) if found else None


def wait_for_daterange(bases, path, ident, predicate=lambda line: True, limit=5.0):
    """Seconds until every base serves a date range `ident` that satisfies `predicate` (None: never)."""
    started = time.monotonic()
    remaining = set(bases)
    while remaining and time.monotonic() - started < limit:
        for base in list(remaining):
            status, _, body, _ = fetch(base + path, timeout=3)
            line = dateranges(body).get(ident) if status == 200 else None
            if line is not None and predicate(line):
                remaining.discard(base)
        if remaining:
            time.sleep(0.02)
    return None if remaining else time.monotonic() - started


def same_live_window(sources, path, attempts=6):
    """Fetches a live playlist from every source at once until all show the same window.

    Returns (bodies, attempts used); bodies is None when no attempt gave one window everywhere (a
    segment boundary falls between the fetches at most once per target duration).
    """
    for attempt in range(1, attempts + 1):
        results = at_once([base + path for base in sources])
        if any(status != 200 for status, *_ in results):
            return [r[2] for r in results], attempt
        if len({media_sequence(body) for _, _, body, _ in results}) == 1:
            return [body for _, _, body, _ in results], attempt
        time.sleep(0.3)
    return None, attempts


# --- PostgreSQL ---------------------------------------------------------------------------------


class Postgres:
    """A throwaway cluster in `directory`, as `nobody` when this runs as root, on a Unix socket only."""

    user = "hlsi"
    port = 5432

    def __init__(self, binaries, directory):
        self.binaries = binaries
        self.directory = directory
        self.data = os.path.join(directory, "data")
        self.log = os.path.join(directory, "postgres.log")
        self.running = False
        os.makedirs(directory)
        if os.getuid() == 0:
            shutil.chown(directory, "nobody")

    def run(self, tool, *arguments):
        command = [os.path.join(self.binaries, tool), *arguments]
        if os.getuid() == 0:
            command = ["/usr/sbin/runuser", "-u", "nobody", "--", *command]
        with open(os.path.join(os.path.dirname(self.directory), "postgres-tools.log"), "a") as log:
            result = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"{tool} {' '.join(arguments)} failed ({result.returncode}); see postgres-tools.log")

    def initialise(self):
        self.run("initdb", "-D", self.data, "-U", self.user, "-A", "trust", "-E", "UTF8", "--no-sync")

    def start(self):
        self.run("pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "60", "-o",
                 f"-k {self.directory} -p {self.port} -c listen_addresses='' -c fsync=off -c max_connections=200",
                 "start")
        self.running = True

    def stop(self):
        """Stops at once, as a crash or a lost network would look to the replicas."""
        self.run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        self.running = False

    def create_database(self, name):
        self.run("createdb", "-h", self.directory, "-p", str(self.port), "-U", self.user, name)
        return f"postgres://{self.user}@localhost:{self.port}/{name}?host={self.directory}"


def postgres_binaries():
    def found():
        versions = sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                          key=lambda path: int(re.sub(r"\D", "", path.split("/")[-2]) or 0), reverse=True)
        for directory in versions + ["/usr/local/bin", "/usr/bin"]:
            if all(os.access(os.path.join(directory, tool), os.X_OK) for tool in ("initdb", "pg_ctl", "createdb")):
                return directory
        return None

    return found() or (install("postgresql") and found())


def nginx_binary():
    def found():
        return shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)

    return found() or (install("nginx") and found())


def install(package):
    if os.getuid() != 0 or not shutil.which("apt-get"):
        return False
    print(f"  installing {package}", flush=True)
    environment = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], env=environment, stdout=subprocess.DEVNULL)
    return subprocess.run(["apt-get", "install", "-y", "-qq", package], env=environment,
                          stdout=subprocess.DEVNULL).returncode == 0


# --- nginx --------------------------------------------------------------------------------------


def nginx_configuration(template, listen, upstreams):
    """deploy/nginx-replicas.conf with the test's ports: its listen address and its three replicas."""
    text = template.replace("listen 127.0.0.1:8080;", f"listen 127.0.0.1:{listen};")
    for sample, port in zip((8081, 8082, 8083), upstreams):
        text = text.replace(f"server 127.0.0.1:{sample} ", f"server 127.0.0.1:{port} ")
    return text


# --- the checks ---------------------------------------------------------------------------------


def check_identical_playlists(names, sources, label):
    for path in (VOD_MASTER, VOD):
        results = at_once([base + path for base in sources])
        bodies = [body for _, _, body, _ in results]
        statuses = [status for status, *_ in results]
        tags = {headers.get("ETag") for _, headers, _, _ in results}
        report(all(s == 200 for s in statuses) and len(set(bodies)) == 1 and len(tags) == 1,
               f"{label}: VOD {path} is byte-identical from {', '.join(names)} "
               f"(statuses {statuses}, {len(set(bodies))} distinct bodies, ETags {sorted(map(str, tags))})")
    master = at_once([base + LIVE_MASTER for base in sources])
    report(len({body for _, _, body, _ in master}) == 1 and all(s == 200 for s, *_ in master),
           f"{label}: live {LIVE_MASTER} is byte-identical from {', '.join(names)}")
    bodies, attempts = same_live_window(sources, LIVE)
    if bodies is None:
        report(False, f"{label}: live {LIVE} never showed one window on {', '.join(names)} in {attempts} tries")
        return {}
    distinct = len(set(bodies))
    report(distinct == 1, f"{label}: live {LIVE} is byte-identical from {', '.join(names)} at one moment "
                          f"(media sequence {media_sequence(bodies[0])}, try {attempts}, {distinct} distinct bodies)")
    if distinct != 1:
        for name, body in zip(names, bodies):
            print(f"  --- {name}\n{body.decode('utf-8', 'replace')}", flush=True)
    return dateranges(bodies[0])


def interstitials(body):
    """The interstitial date ranges converted from SCTE-35 markers (IDs scte35-…), by ID."""
    return {ident: line for ident, line in dateranges(body).items()
            if ident.startswith("scte35-") and 'CLASS="com.apple.hls.interstitial"' in line}


def check_scte35_channel(names, sources, label):
    """Every replica converts the SCTE-35 channel's markers into the same date ranges, in every rendition.

    Waits (at most a minute) until the window holds the start of a break, so that there is
    something to compare: a converted date range is served once a rendition's window shows it.
    """
    deadline = time.monotonic() + 75
    while time.monotonic() < deadline:
        second = time.time() % 60
        if SCTE35_BREAK_SECOND + 2 <= second <= SCTE35_BREAK_SECOND + 9:
            break
        time.sleep(0.25)
    converted = {}
    for path in SCTE35_RENDITIONS:
        bodies, tries = same_live_window(sources, path)
        if bodies is None:
            report(False, f"{label}: SCTE-35 {path} never showed one window on {', '.join(names)} in {tries} tries")
            return
        found = interstitials(bodies[0])
        converted[path] = found
        report(len(set(bodies)) == 1 and bool(found) and all(body.startswith(b"#EXTM3U") for body in bodies),
               f"{label}: SCTE-35 channel {path} is byte-identical from {', '.join(names)} "
               f"with {len(found)} interstitial(s) converted from its markers ({sorted(found)})")
    video, audio = (converted[path] for path in SCTE35_RENDITIONS)
    shared = sorted(set(video) & set(audio))
    report(bool(shared) and all(video[ident] == audio[ident] for ident in shared),
           f"{label}: the SCTE-35 channel's renditions carry the same line for each converted break ({shared})")


def check_killed_replica(server, replicas, stamp):
    """A replica killed (SIGKILL) the moment it acknowledged an admin write loses nothing: the others serve it."""
    victim, others = replicas[-1], replicas[:-1]
    ident = f"e2e-killed-{stamp}"
    status, _ = admin(victim, "POST", "breaks",
                      {"id": ident, "target": "vod/demo", "at": 50, "duration": 4, "resumeOffset": 0})
    server.kill()
    server.wait()
    report(status == 201, f"admin: a VOD break created through C answers 201, and C is killed at once (got {status})")
    seconds = wait_for_daterange(others, VOD, ident)
    report(seconds is not None and seconds <= PROPAGATION,
           f"killed mid-write: the break {ident} that C acknowledged is served by A and B after "
           f"{'never' if seconds is None else f'{seconds:.2f} s'}")


def check_propagation(replicas, names, stamp):
    a, others = replicas[0], replicas[1:]
    # A VOD break created through A.
    ident = f"e2e-mid-{stamp}"
    status, _ = admin(a, "POST", "breaks",
                      {"id": ident, "target": "vod/demo", "at": 40, "duration": 6, "resumeOffset": 0})
    report(status == 201, f"admin: a VOD break created through A answers 201 (got {status})")
    seconds = wait_for_daterange(others, VOD, ident)
    report(seconds is not None and seconds <= PROPAGATION,
           f"propagation: VOD break {ident} created through A is served by B and C after "
           f"{'never' if seconds is None else f'{seconds:.2f} s'} (at most {PROPAGATION} s)")
    # A live break started now through A.
    live_id = f"e2e-now-{stamp}"
    status, _ = admin(a, "POST", "channels/demo/breaks", {"duration": 30, "id": live_id})
    report(status == 201, f"admin: break-now on live/demo through A answers 201 (got {status})")
    seconds = wait_for_daterange(others, LIVE, live_id)
    report(seconds is not None and seconds <= PROPAGATION,
           f"propagation: live break-now {live_id} through A is served by B and C after "
           f"{'never' if seconds is None else f'{seconds:.2f} s'} (at most {PROPAGATION} s)")
    # Its early return through A.
    status, _ = admin(a, "POST", "channels/demo/return", {"break": live_id})
    report(status == 200, f"admin: return-now of {live_id} through A answers 200 (got {status})")
    seconds = wait_for_daterange(others, LIVE, live_id, lambda line: "X-PLAYOUT-LIMIT=" in line)
    report(seconds is not None and seconds <= PROPAGATION,
           f"propagation: the early return of {live_id} (X-PLAYOUT-LIMIT) is served by B and C after "
           f"{'never' if seconds is None else f'{seconds:.2f} s'} (at most {PROPAGATION} s)")
    results = at_once([base + LIVE for base in replicas])
    lines = {dateranges(body).get(live_id) for _, _, body, _ in results}
    report(len(lines) == 1 and None not in lines,
           f"propagation: {live_id}'s date range with its early return is byte-identical on {', '.join(names)}")
    return ident, live_id


def wait_for_break(replicas, ident, limit=5.0):
    """Waits until every replica has break `ident` in its state (the admin API reads it; serving
    nothing)."""
    started = time.monotonic()
    remaining = set(replicas)
    while remaining and time.monotonic() - started < limit:
        for base in list(remaining):
            status, _, _, _ = fetch(base + "/admin/v1/breaks/" + ident, token=TOKEN, timeout=3)
            if status == 200:
                remaining.discard(base)
        time.sleep(0.02)
    return not remaining


def check_concurrent_first_serve(replicas, names, stamp):
    for kind, path, body in (
        ("VOD", VOD, {"target": "vod/demo", "at": 50, "duration": 4, "resumeOffset": 0}),
        ("live", LIVE, {"target": "live/demo", "duration": 4,
                        "date": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 6))}),
    ):
        ident = f"e2e-race-{kind.lower()}-{stamp}"
        status, _ = admin(replicas[0], "POST", "breaks", dict(body, id=ident))
        if not report(status == 201, f"race: the new {kind} break {ident} is created through A (got {status})"):
            continue
        if not report(wait_for_break(replicas, ident),
                      f"race: every replica has {ident} in its state, none has served it yet"):
            continue
        # Three requests per replica, all released at once: the first serves of the new date range.
        results = at_once([base + path for base in replicas], repeat=3)
        lines = [dateranges(body).get(ident) for _, _, body, _ in results]
        distinct = set(lines)
        report(len(distinct) == 1 and None not in distinct,
               f"race: 9 concurrent first serves of {kind} break {ident} (3 per replica) give one "
               f"EXT-X-DATERANGE line ({len(distinct)} distinct{', some without it' if None in distinct else ''})")
        if len(distinct) != 1:
            for name, line in zip([n for n in names for _ in range(3)], lines):
                print(f"  {name}: {line}", flush=True)
        # Once recorded, every replica keeps serving those bytes.
        time.sleep(0.6)
        later = {dateranges(body).get(ident) for _, _, body, _ in at_once([base + path for base in replicas])}
        report(later == distinct and len(later) == 1,
               f"race: after the next poll every replica still serves the first-served line of {ident}")


def asset_list(base, break_id, viewer):
    status, _, body, seconds = fetch(
        f"{base}/demo/vod/asset-list.json?_HLS_interstitial_id={break_id}&_HLS_primary_id={viewer}", timeout=5)
    return status, body, seconds


def uris(body):
    try:
        return [asset["URI"] for asset in json.loads(body)["ASSETS"]]
    except (ValueError, KeyError, TypeError):
        return None


def check_asset_lists(replicas, nginx, stamp):
    # Asking again on one replica rebinds (other ads).
    viewer = f"viewer-{stamp}-1"
    first, again = (asset_list(replicas[0], "midroll-2", viewer) for _ in range(2))
    report(first[0] == 200 and again[0] == 200 and again[1] != first[1],
           f"asset lists: {viewer} asking A again is rebound to other ads ({uris(first[1])}, then {uris(again[1])})")
    # A viewer moving between replicas: every replica knows the requests made on the others, since
    # the counts live in the database (issue 20 item 3).
    viewer = f"viewer-{stamp}-2"
    moving = [asset_list(base, "midroll-2", viewer) for base in replicas]
    report(all(status == 200 for status, _, _ in moving)
           and all(moving[index][1] != moving[index - 1][1] for index in (1, 2)),
           f"asset lists: {viewer} asking A, then B, then C is rebound at each, as on one replica "
           f"({[uris(body) for _, body, _ in moving]})")
    viewer = f"viewer-{stamp}-3"
    once_a = [asset_list(replicas[0], "preroll", viewer) for _ in range(2)]
    once_b = asset_list(replicas[1], "preroll", viewer)
    report(uris(once_a[0][1]) and uris(once_a[1][1]) == [],
           f"asset lists: the ONCE pre-roll is filled once for {viewer} on A "
           f"({uris(once_a[0][1])}, then {uris(once_a[1][1])})")
    report(uris(once_b[1]) == [],
           f"asset lists: the ONCE pre-roll is not filled again for {viewer} on B after A (B gives {uris(once_b[1])})")
    # Through nginx, a viewer stays on one replica (hash of _HLS_primary_id): ONCE holds.
    viewer = f"viewer-{stamp}-4"
    through = [asset_list(nginx, "preroll", viewer) for _ in range(3)]
    report(uris(through[0][1]) and all(uris(body) == [] for _, body, _ in through[1:]),
           f"asset lists through nginx: the ONCE pre-roll is filled once for {viewer} "
           f"({[uris(body) for _, body, _ in through]}), the viewer staying on one replica")


def check_outage(postgres, replicas, names, nginx, known_vod, stamp):
    a, others = replicas[0], replicas[1:]
    sources = replicas + [nginx]
    source_names = names + ["nginx"]
    before_live = {}
    for _, _, body, _ in at_once([base + LIVE for base in replicas]):
        before_live.update(dateranges(body))
    # A live break every replica knows but none has served: its first serves happen in the outage.
    during = f"e2e-during-{stamp}"
    status, _ = admin(a, "POST", "breaks", {
        "id": during, "target": "live/demo", "duration": 4,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 8))})
    known = status == 201 and wait_for_break(replicas, during)
    postgres.stop()
    down_at = time.monotonic()
    print("  PostgreSQL stopped for 10 s", flush=True)
    first = at_once([base + LIVE for base in replicas])
    first_lines = {dateranges(body).get(during) for _, _, body, _ in first}
    report(known and all(status == 200 for status, *_ in first) and len(first_lines) == 1
           and None not in first_lines and max(seconds for *_, seconds in first) <= 2.5,
           f"outage: the first serves of live break {during} on A, B and C, during the outage, answer 200 "
           f"within 2.5 s (slowest {max(seconds for *_, seconds in first):.2f} s) with one line "
           f"({len(first_lines)} distinct)")
    statuses, times, slow, changed, missing = [], [], [], [], []
    waits = {}
    asset_statuses, asset_times = [], []
    admin_result = []

    def write():
        # The deadline of a database operation (5 s) runs while the playlists keep being checked.
        started = time.monotonic()
        status, answer = admin(a, "POST", "breaks",
                               {"id": f"e2e-down-{stamp}", "target": "vod/demo", "at": 60, "duration": 4})
        admin_result.append((status, answer, time.monotonic() - started))

    writer = threading.Thread(target=write)
    writer.start()
    rounds = 0
    while time.monotonic() - down_at < 9.5:
        rounds += 1
        for name, base in zip(source_names, sources):
            for path in (VOD, LIVE):
                status, _, body, seconds = fetch(base + path, timeout=8)
                statuses.append(status)
                times.append(seconds)
                waits.setdefault(f"{name}{path}", []).append(round(seconds, 2))
                if seconds > 2.5:
                    slow.append(f"{name}{path} {seconds:.1f} s")
                lines = dateranges(body) if status == 200 else {}
                expected = known_vod if path == VOD else before_live
                for ident, line in lines.items():
                    if ident in expected and expected[ident] != line:
                        changed.append(f"{name} {ident}")
                if path == VOD and status == 200:
                    missing += [f"{name} {ident}" for ident in known_vod if ident not in lines]
        for base in replicas:
            status, body, seconds = asset_list(base, "midroll-2", f"viewer-{stamp}-down-{rounds}")
            asset_statuses.append((status, uris(body) is not None))
            asset_times.append(seconds)
        time.sleep(0.5)
    writer.join()
    time.sleep(max(0.0, 10 - (time.monotonic() - down_at)))
    for source, seconds in waits.items():
        print(f"  outage: {source} answered in {seconds} s", flush=True)
    report(all(status == 200 for status in statuses) and not missing,
           f"outage: {len(statuses)} playlist requests to A, B, C and nginx over 10 s all answer 200 "
           f"with the VOD date ranges already served (statuses {sorted(set(map(str, statuses)))}, "
           f"missing {missing[:3]})")
    report(not changed, f"outage: every date range served before the outage keeps its bytes (changed: {changed[:3]})")
    report(not slow, f"outage: no playlist request took more than 2.5 s (slowest {max(times) * 1000:.0f} ms; "
                     f"slow: {slow[:5]})")
    report(all(status == 200 and parsed for status, parsed in asset_statuses)
           and max(asset_times) <= ASSET_LIST_BOUND,
           f"outage: {len(asset_statuses)} asset lists answer 200 with an ASSETS array within "
           f"{ASSET_LIST_BOUND} s (slowest {max(asset_times) * 1000:.0f} ms)")
    status, answer, seconds = admin_result[0] if admin_result else (None, None, 0.0)
    code = answer.get("error", {}).get("code") if isinstance(answer, dict) else None
    message = answer.get("error", {}).get("message") if isinstance(answer, dict) else None
    report(status == 503 and code == "store-unavailable" and bool(message),
           f"outage: an admin write through A answers {status} {code} in {seconds:.2f} s: {message!r}")
    postgres.start()
    up_at = time.monotonic()
    print(f"  PostgreSQL started again after {up_at - down_at:.1f} s", flush=True)
    # The write refused during the outage changed nothing.
    absent = [fetch(base + f"/admin/v1/breaks/e2e-down-{stamp}", token=TOKEN)[0] for base in replicas]
    report(all(status == 404 for status in absent),
           f"recovery: the break refused during the outage is on no replica (statuses {absent})")
    ident = f"e2e-after-{stamp}"
    status = None
    while time.monotonic() - up_at < 15:
        status, _ = admin(a, "POST", "breaks",
                          {"id": ident, "target": "vod/demo", "at": 70, "duration": 4, "resumeOffset": 0})
        if status == 201:
            break
        time.sleep(0.5)
    written = time.monotonic()
    report(status == 201, f"recovery: an admin write through A succeeds {written - up_at:.1f} s after PostgreSQL "
                          f"is back, without restarting the replicas (got {status})")
    seconds = wait_for_daterange(others, VOD, ident)
    report(seconds is not None and seconds <= RECOVERY_PROPAGATION,
           f"recovery: it is served by B and C after {'never' if seconds is None else f'{seconds:.2f} s'} "
           f"(at most {RECOVERY_PROPAGATION} s)")
    # The date range first served during the outage was recorded once and is served as it was.
    after = {dateranges(body).get(during) for _, _, body, _ in at_once([base + LIVE for base in replicas])}
    report(after == first_lines,
           f"recovery: {during}, first served during the outage, is served with the same line by A, B and C")


# --- main ---------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hlsi", default=os.environ.get("HLSI", os.path.join(ROOT, ".build/debug/hlsi")))
    parser.add_argument("--nginx-conf", default=os.path.join(ROOT, "deploy/nginx-replicas.conf"))
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (logs)")
    args = parser.parse_args()
    hlsi = os.path.abspath(args.hlsi)
    if not os.access(hlsi, os.X_OK):
        print(f"FAIL no hlsi binary at {hlsi}", flush=True)
        return 1
    binaries = postgres_binaries()
    if not binaries:
        print("SKIP replicas: PostgreSQL (initdb, pg_ctl) is not installed and cannot be "
              "(install Debian's postgresql package)", flush=True)
        return 0
    nginx = nginx_binary()
    if not nginx:
        print("FAIL replicas: nginx is not installed and cannot be", flush=True)
        return 1
    work = tempfile.mkdtemp(prefix="hlsi-replicas-")
    os.chmod(work, 0o755)
    postgres = Postgres(binaries, os.path.join(work, "pg"))
    servers = []
    logs = []
    prefix = os.path.join(work, "nginx")
    configuration = os.path.join(prefix, "nginx.conf")
    nginx_started = False
    try:
        postgres.initialise()
        postgres.start()
        url = postgres.create_database("hlsi_e2e")
        report(True, f"PostgreSQL runs in {postgres.directory} (from {binaries}), database hlsi_e2e")
        ports = [free_port() for _ in range(3)]
        nginx_port = free_port()
        public = f"http://127.0.0.1:{nginx_port}"
        # The three start together: the migrations and the demo's seed run once between them.
        for index, port in enumerate(ports):
            log = open(os.path.join(work, f"replica-{'abc'[index]}.log"), "w")
            logs.append(log)
            servers.append(subprocess.Popen(
                [hlsi, "serve", "--demo", "--port", str(port), "--database", url, "--admin-token", TOKEN,
                 "--public-url", public],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
        replicas = [f"http://127.0.0.1:{port}" for port in ports]
        names = ["A", "B", "C"]
        up = [wait_until_serving(base + "/") for base in replicas]
        if not report(all(up), f"three replicas serve on ports {ports} with {url.split('?')[0]} (up: {up})"):
            return 1
        os.makedirs(os.path.join(prefix, "logs"))
        with open(args.nginx_conf) as source, open(configuration, "w") as out:
            out.write(nginx_configuration(source.read(), nginx_port, ports))
        checked = subprocess.run([nginx, "-t", "-q", "-p", prefix, "-c", configuration],
                                 capture_output=True, text=True)
        report(checked.returncode == 0, f"nginx -t accepts {os.path.relpath(args.nginx_conf, ROOT)} "
                                        f"{checked.stderr.strip()}")
        started = subprocess.run([nginx, "-p", prefix, "-c", configuration], capture_output=True, text=True)
        nginx_started = started.returncode == 0
        if not report(nginx_started and wait_until_serving(public + "/"),
                      f"nginx serves the replicas at {public} {started.stderr.strip()}"):
            return 1
        stamp = str(int(time.time()))
        sources = replicas + [public]
        source_names = names + ["nginx"]
        check_identical_playlists(source_names, sources, "start")
        vod_id, _ = check_propagation(replicas, names, stamp)
        check_concurrent_first_serve(replicas, names, stamp)
        check_identical_playlists(source_names, sources, "after the writes")
        check_scte35_channel(source_names, sources, "after the writes")
        check_asset_lists(replicas, public, stamp)
        known_vod = {}
        for _, _, body, _ in at_once([base + VOD for base in replicas]):
            known_vod.update(dateranges(body))
        report(vod_id in known_vod and "preroll" in known_vod,
               f"before the outage the VOD playlist has {len(known_vod)} date ranges, {vod_id} among them")
        check_outage(postgres, replicas, names, public, known_vod, stamp)
        check_identical_playlists(source_names, sources, "after the outage")
        exited = [server.poll() for server in servers]
        report(exited == [None, None, None], f"every replica is still running (exit codes {exited})")
        check_killed_replica(servers[-1], replicas, stamp)
    except Exception as error:  # noqa: BLE001 - any failure of the harness is a failed check
        report(False, f"the test itself failed: {error!r}")
    finally:
        if nginx_started:
            subprocess.run([nginx, "-p", prefix, "-c", configuration, "-s", "stop"], capture_output=True)
        for server in servers:
            server.terminate()
        for server in servers:
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        for log in logs:
            log.close()
        if postgres.running:
            try:
                postgres.stop()
            except Exception as error:  # noqa: BLE001
                print(f"  could not stop PostgreSQL: {error}", flush=True)
        if failures:
            for name in ("replica-a.log", "replica-b.log", "replica-c.log", "pg/postgres.log",
                         "nginx/logs/error.log"):
                path = os.path.join(work, name)
                if os.path.exists(path):
                    with open(path, errors="replace") as log:
                        tail = log.read()[-3000:]
                    print(f"  --- {name} (end)\n{tail}", flush=True)
        if args.keep:
            print(f"  kept {work}", flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"replicas: {len(failures)} failure(s)" if failures else "replicas: all checks passed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
