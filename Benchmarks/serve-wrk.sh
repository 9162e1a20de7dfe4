#!/usr/bin/env bash
# Throughput and p99 latency of `hlsi serve` against nginx serving byte-identical copies of what it
# answers, in the same run, with wrk on loopback (100 connections), for the four HTTP cases of
# issue 17:
#   1. a live media playlist with interstitials inserted (the demo channel, a break in progress),
#   2. a VOD media playlist with interstitials inserted,
#   3. an asset list with a new _HLS_primary_id per request (a per-viewer decision from the
#      server's own inventory; nginx serves one copy of the answer),
#   4. media segments: a 51 KB one (the demo's) and a 2 MB one (random bytes);
# and for issue 20, replicas: two `hlsi serve --demo` on one PostgreSQL database behind nginx, each
# replica's live playlist measured directly against one replica on SQLite in the same run (goal: no
# more than 20 % lower), and through nginx; the database's transactions during the runs show that a
# playlist request whose state did not change does not touch it (only the replicas' polls do).
# PostgreSQL (Debian's postgresql) runs in a temporary directory, as `nobody` when run as root;
# REPLICAS=0 skips that part.
# And for issue 45, the stitched form: the stitched VOD and live media playlists of one session
# against nginx serving byte-identical copies, a new stitched viewer per request, and the resident
# set per stitched viewer (RSS growth over VIEWERS new sessions, default 2000, after a warm-up);
# STITCHED=0 skips it, STITCHED=only measures it alone (no issue 17 cases, no replicas).
# Goals (issue 17): playlists and segments at least 0.8 of nginx's requests per second, asset lists
# at least 0.6; p99 under 10 ms.
# Usage: Benchmarks/serve-wrk.sh [SECONDS per run, default 10]
# HLSI=path/to/hlsi measures that binary instead of building .build/release/hlsi.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_RUN="${1:-10}"
need=()
command -v wrk >/dev/null || need+=(wrk)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx)
if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
if [ -z "${HLSI:-}" ]; then
    swift build -c release --product hlsi >/dev/null
    HLSI=.build/release/hlsi
fi
WORK=$(mktemp -d)
SERVER=
BIG_SERVER=
MEMORY_SERVER=
REPLICA_SERVERS=()
PG_CTL=
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi; }
cleanup() {
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true
    [ -n "$BIG_SERVER" ] && kill "$BIG_SERVER" 2>/dev/null || true
    [ -n "$MEMORY_SERVER" ] && kill "$MEMORY_SERVER" 2>/dev/null || true
    for pid in "${REPLICA_SERVERS[@]}"; do kill "$pid" 2>/dev/null || true; done
    "$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -s stop 2>/dev/null || true
    "$NGINX" -p "$WORK" -c "$WORK/nginx-replicas.conf" -s stop 2>/dev/null || true
    [ -n "$PG_CTL" ] && as_postgres "$PG_CTL" -D "$WORK/pg/data" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT
HLSI_URL=http://127.0.0.1:18080
BIG_URL=http://127.0.0.1:18082
NGINX_URL=http://127.0.0.1:18081
"$HLSI" serve --demo --port 18080 --admin-token bench >"$WORK/serve.log" 2>&1 &
SERVER=$!
# A second server for the 2 MB segment: a VOD directory with a playlist and the segment.
mkdir -p "$WORK/big" "$WORK/root/bench" "$WORK/logs"
head -c 2097152 /dev/urandom >"$WORK/big/big.m4s"
printf '#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\nbig.m4s\n#EXT-X-ENDLIST\n' >"$WORK/big/main.m3u8"
cat >"$WORK/big.json" <<CONF
{"vod": [{"id": "bench", "path": "/bench", "directory": "$WORK/big", "entry": "main.m3u8"}]}
CONF
"$HLSI" serve --config "$WORK/big.json" --port 18082 --database "$WORK/big.sqlite" --admin-token bench \
    >"$WORK/big.log" 2>&1 &
BIG_SERVER=$!
for _ in $(seq 100); do curl -sf "$HLSI_URL/" >/dev/null && curl -sf "$BIG_URL/bench/main.m3u8" >/dev/null && break; sleep 0.2; done
# A long break from now on, so that every live playlist measured carries interstitial date ranges.
"$HLSI" admin break-now demo --duration 600 --id bench --server "$HLSI_URL" --token bench >/dev/null
LIVE=/demo/live/video/main.m3u8
VOD=/demo/vod/video/main.m3u8
ASSETS="/demo/live/asset-list.json?_HLS_interstitial_id=bench"
SEGMENT=/demo/vod/video/seg001.m4s
BIG=/bench/big.m4s
for path in $LIVE $VOD $SEGMENT; do
    mkdir -p "$(dirname "$WORK/root$path")"
    curl -sf "$HLSI_URL$path" >"$WORK/root$path"
done
# The stitched form of one session (issue 45), copied for nginx under a path without the query.
STITCHED_QUERY="ads=stitched&session=bench-viewer"
mkdir -p "$WORK/root/stitched-copy"
curl -sf "$HLSI_URL$VOD?$STITCHED_QUERY" >"$WORK/root/stitched-copy/vod.m3u8"
# The break starts at the live edge: its first ad segment is listed a segment later.
for _ in $(seq 50); do
    curl -sf "$HLSI_URL$LIVE?$STITCHED_QUERY" >"$WORK/root/stitched-copy/live.m3u8"
    grep -q /stitched/ "$WORK/root/stitched-copy/live.m3u8" && break
    sleep 0.2
done
grep -q /stitched/ "$WORK/root/stitched-copy/vod.m3u8" || { echo "no ad in the stitched VOD playlist"; exit 1; }
grep -q /stitched/ "$WORK/root/stitched-copy/live.m3u8" || { echo "no ad in the stitched live playlist"; exit 1; }
mkdir -p "$WORK/root/demo/live"
curl -sf "$HLSI_URL$ASSETS&_HLS_primary_id=copy" >"$WORK/root/demo/live/asset-list.json"
cp "$WORK/big/big.m4s" "$WORK/root/bench/big.m4s"
grep -q EXT-X-DATERANGE "$WORK/root$LIVE" || { echo "no date range in the live playlist"; exit 1; }
grep -q EXT-X-DATERANGE "$WORK/root$VOD" || { echo "no date range in the VOD playlist"; exit 1; }
grep -q '"ASSETS"' "$WORK/root/demo/live/asset-list.json" || { echo "no asset list"; exit 1; }
cat >"$WORK/nginx.conf" <<CONF
worker_processes auto;
error_log $WORK/logs/error.log;
pid $WORK/nginx.pid;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    types { application/vnd.apple.mpegurl m3u8; application/json json; video/iso.segment m4s; }
    server { listen 127.0.0.1:18081; root $WORK/root; }
}
CONF
chmod -R a+rX "$WORK"
"$NGINX" -p "$WORK" -c "$WORK/nginx.conf"
sleep 0.5
# nginx answers with the bytes hlsi served; hlsi answers 200 with its date ranges.
for path in $LIVE $VOD $SEGMENT /bench/big.m4s; do
    cmp <(curl -sf "$NGINX_URL$path") "$WORK/root$path" || { echo "nginx does not serve $path"; exit 1; }
done
cmp <(curl -sf "$BIG_URL$BIG") "$WORK/big/big.m4s" || { echo "hlsi does not serve $BIG"; exit 1; }
echo "stitched VOD playlist $(wc -c <"$WORK/root/stitched-copy/vod.m3u8") B," \
    "stitched live playlist $(wc -c <"$WORK/root/stitched-copy/live.m3u8") B"
echo "live playlist $(wc -c <"$WORK/root$LIVE") B, VOD playlist $(wc -c <"$WORK/root$VOD") B," \
    "asset list $(wc -c <"$WORK/root/demo/live/asset-list.json") B, segments $(wc -c <"$WORK/root$SEGMENT") B" \
    "and $(wc -c <"$WORK/root$BIG") B; $SECONDS_PER_RUN s per run"
# viewer_script FILE PARAMETER PREFIX: a wrk script giving every request a new viewer, the query
# parameter PARAMETER made of PREFIX, the thread, a counter.
viewer_script() {
    cat >"$1" <<LUA
local counter = 0
local thread_id = 0
function setup(thread) thread:set("id", tostring(math.random(1, 1000000000))) end
function init(args) thread_id = id or "0" end
function request()
    counter = counter + 1
    return wrk.format(nil, wrk.path .. "&$2=$3" .. thread_id .. "-" .. counter)
end
LUA
}
# A new viewer for every request: _HLS_primary_id made of the thread, a counter and a random number.
viewer_script "$WORK/viewers.lua" _HLS_primary_id v
# A new stitched viewer for every request: its own session.
viewer_script "$WORK/stitched-viewers.lua" session s
# ticks PID...: the CPU time (user and system, every thread) the processes used so far, in clock ticks.
ticks() { for pid in "$@"; do awk '{ print $14 + $15 }' "/proc/$pid/stat"; done | awk '{ t += $1 } END { print t + 0 }'; }
# server_pids URL: the processes answering URL: the hlsi server on its port, or nginx's workers.
server_pids() {
    case "$1" in
    "$NGINX_URL"*) pgrep -P "$(cat "$WORK/nginx.pid")" ;;
    "$BIG_URL"*) echo "$BIG_SERVER" ;;
    *) echo "$SERVER" ;;
    esac
}
run() { # URL OUTPUT [LUA]
    local pids before
    pids=$(server_pids "$1")
    # shellcheck disable=SC2086 # one PID per word
    before=$(ticks $pids)
    if [ -n "${3:-}" ]; then
        wrk -t2 -c100 -d"${SECONDS_PER_RUN}s" --timeout 10s --latency -s "$3" "$1" >"$2"
    else
        wrk -t2 -c100 -d"${SECONDS_PER_RUN}s" --timeout 10s --latency "$1" >"$2"
    fi
    # shellcheck disable=SC2086
    echo "cpu-ticks $(($(ticks $pids) - before))" >>"$2"
    if grep -q "Non-2xx\|Socket errors" "$2"; then
        echo "errors measuring $1:"
        cat "$2"
        exit 1
    fi
}
rps() { awk '/Requests\/sec/ {print $2}' "$1"; }
p99() { awk '$1 == "99%" {print $2}' "$1"; }
# cpu OUTPUT: the server's CPU time per request answered in that run, in microseconds.
cpu() {
    awk -v hz="$(getconf CLK_TCK)" '/requests in/ { n = $1 } $1 == "cpu-ticks" { t = $2 }
        END { printf "%.1f", (n > 0 ? t / hz * 1e6 / n : 0) }' "$1"
}
printf '%-34s %12s %10s %12s %10s %7s %8s %8s %7s\n' case "hlsi req/s" "hlsi p99" "nginx req/s" "nginx p99" ratio \
    "hlsi µs" "nginx µs" "CPU"
measure() { # NAME HLSI-URL NGINX-URL GOAL [LUA]
    run "$2" "$WORK/hlsi.txt" "${5:-}"
    run "$3" "$WORK/nginx.txt" "${5:-}"
    printf '%-34s %12s %10s %12s %10s %7s %8s %8s %7s\n' "$1" "$(rps "$WORK/hlsi.txt")" "$(p99 "$WORK/hlsi.txt")" \
        "$(rps "$WORK/nginx.txt")" "$(p99 "$WORK/nginx.txt")" \
        "$(awk -v a="$(rps "$WORK/hlsi.txt")" -v b="$(rps "$WORK/nginx.txt")" -v g="$4" \
            'BEGIN { printf "%.2f%s", a / b, (a / b >= g ? "" : "*") }')" \
        "$(cpu "$WORK/hlsi.txt")" "$(cpu "$WORK/nginx.txt")" \
        "$(awk -v a="$(cpu "$WORK/hlsi.txt")" -v b="$(cpu "$WORK/nginx.txt")" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')"
}
if [ "${STITCHED:-1}" != only ]; then
    measure "live playlist (goal 0.8)" "$HLSI_URL$LIVE" "$NGINX_URL$LIVE" 0.8
    measure "VOD playlist (goal 0.8)" "$HLSI_URL$VOD" "$NGINX_URL$VOD" 0.8
    measure "asset list, new viewer (goal 0.6)" "$HLSI_URL$ASSETS" "$NGINX_URL/demo/live/asset-list.json?x=1" 0.6 \
        "$WORK/viewers.lua"
    measure "51 KB segment (goal 0.8)" "$HLSI_URL$SEGMENT" "$NGINX_URL$SEGMENT" 0.8
    measure "2 MB segment (goal 0.8)" "$BIG_URL$BIG" "$NGINX_URL$BIG" 0.8
fi
if [ "${STITCHED:-1}" != 0 ]; then
    measure "stitched VOD playlist, one viewer" "$HLSI_URL$VOD?$STITCHED_QUERY" "$NGINX_URL/stitched-copy/vod.m3u8" 0.8
    measure "stitched live playlist, one viewer" "$HLSI_URL$LIVE?$STITCHED_QUERY" \
        "$NGINX_URL/stitched-copy/live.m3u8" 0.8
    measure "stitched live playlist, new viewer" "$HLSI_URL$LIVE?ads=stitched" \
        "$NGINX_URL/stitched-copy/live.m3u8?x=1" 0.8 "$WORK/stitched-viewers.lua"
fi
echo "ratio: hlsi's requests per second over nginx's in the same run; * below the goal"
echo "µs: each server's CPU time (user and system) per request answered; CPU: nginx's over hlsi's"
echo "(above 1: hlsi spent less per request). On a machine wrk shares, the rates follow how the"
echo "cores are shared; the CPU per request does not."
if [ "${STITCHED:-1}" != 0 ]; then
    # The resident set per stitched viewer, on a server of its own: a warm-up, then VIEWERS new
    # sessions each asking for the live (a break in the window) or the VOD video playlist once.
    VIEWERS="${VIEWERS:-2000}"
    rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
    viewers() { # PORT PATH FROM TO
        seq "$3" "$4" | xargs -P 4 -I{} curl -sf -o /dev/null "http://127.0.0.1:$1$2?ads=stitched&session=m{}"
    }
    for kind in live vod; do
        "$HLSI" serve --demo --port 18087 --admin-token bench >"$WORK/memory.log" 2>&1 &
        MEMORY_SERVER=$!
        for _ in $(seq 100); do curl -sf http://127.0.0.1:18087/ >/dev/null && break; sleep 0.2; done
        "$HLSI" admin break-now demo --duration 600 --id bench --server http://127.0.0.1:18087 --token bench >/dev/null
        path=$LIVE
        [ $kind = vod ] && path=$VOD
        viewers 18087 "$path" 1 500
        before=$(rss $MEMORY_SERVER)
        viewers 18087 "$path" 501 $((500 + VIEWERS))
        after=$(rss $MEMORY_SERVER)
        echo "stitched $kind viewers: resident set $before KiB after 500 viewers, $after KiB after $VIEWERS more:" \
            "$(((after - before) * 1024 / VIEWERS)) bytes per viewer"
        kill $MEMORY_SERVER
        wait $MEMORY_SERVER 2>/dev/null || true
        MEMORY_SERVER=
    done
    [ "${STITCHED:-1}" = only ] && exit 0
fi

# --- Replicas (issue 20) ---------------------------------------------------------------------------
[ "${REPLICAS:-1}" = 0 ] && exit 0
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; }
PGBIN=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")
PG_CTL="$PGBIN/pg_ctl"
mkdir -p "$WORK/pg"
chmod a+rx "$WORK"
[ "$(id -u)" = 0 ] && chown nobody "$WORK/pg"
as_postgres "$PGBIN/initdb" -D "$WORK/pg/data" -U hlsi --auth=trust >/dev/null
as_postgres "$PG_CTL" -D "$WORK/pg/data" -l "$WORK/pg/log" -w \
    -o "-k $WORK/pg -c listen_addresses='' -c max_connections=50" start >/dev/null
as_postgres "$PGBIN/createdb" -h "$WORK/pg" -U hlsi hlsi
DATABASE="postgres://hlsi@localhost/hlsi?host=$WORK/pg"
PUBLIC=http://127.0.0.1:18085
for port in 18083 18084; do
    "$HLSI" serve --demo --port $port --database "$DATABASE" --admin-token bench --public-url "$PUBLIC" \
        >"$WORK/replica-$port.log" 2>&1 &
    REPLICA_SERVERS+=($!)
done
# The baseline: one replica on SQLite.
"$HLSI" serve --demo --port 18086 --database "$WORK/one.sqlite" --admin-token bench >"$WORK/one.log" 2>&1 &
REPLICA_SERVERS+=($!)
cat >"$WORK/nginx-replicas.conf" <<CONF
worker_processes 1;
error_log $WORK/logs/error-replicas.log;
pid $WORK/nginx-replicas.pid;
events { worker_connections 1024; }
http {
    access_log off;
    upstream hlsi { server 127.0.0.1:18083; server 127.0.0.1:18084; keepalive 32; }
    server {
        listen 127.0.0.1:18085;
        location / { proxy_pass http://hlsi; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
}
CONF
"$NGINX" -p "$WORK" -c "$WORK/nginx-replicas.conf"
for url in http://127.0.0.1:18083 http://127.0.0.1:18084 http://127.0.0.1:18086 $PUBLIC; do
    for _ in $(seq 150); do curl -sf "$url/" >/dev/null && break; sleep 0.2; done
done
"$HLSI" admin break-now demo --duration 600 --id bench --server http://127.0.0.1:18083 --token bench >/dev/null
"$HLSI" admin break-now demo --duration 600 --id bench --server http://127.0.0.1:18086 --token bench >/dev/null
# Both replicas serve the break (B follows A's write), and the same bytes once in one window.
for _ in $(seq 50); do curl -sf "http://127.0.0.1:18084$LIVE" | grep -q 'ID="bench"' && break; sleep 0.1; done
curl -sf "http://127.0.0.1:18084$LIVE" | grep -q 'ID="bench"' || { echo "replica B does not serve the break"; exit 1; }
transactions() {
    as_postgres "$PGBIN/psql" -h "$WORK/pg" -U hlsi -d hlsi -Atc \
        "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = 'hlsi'"
}
echo
printf '%-34s %12s %10s %12s %10s %7s\n' case "hlsi req/s" "hlsi p99" "SQLite req/s" "SQLite p99" ratio
replica() { # NAME URL
    before=$(transactions)
    started=$(date +%s.%N)
    run "$2" "$WORK/replica.txt"
    elapsed=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
    sleep 1  # pg_stat_database is updated by the backends' statistics reports, at most every 0.5 s
    after=$(transactions)
    run "http://127.0.0.1:18086$LIVE" "$WORK/one.txt"
    printf '%-34s %12s %10s %12s %10s %7s\n' "$1" "$(rps "$WORK/replica.txt")" "$(p99 "$WORK/replica.txt")" \
        "$(rps "$WORK/one.txt")" "$(p99 "$WORK/one.txt")" \
        "$(awk -v a="$(rps "$WORK/replica.txt")" -v b="$(rps "$WORK/one.txt")" \
            'BEGIN { printf "%.2f%s", a / b, (a / b >= 0.8 ? "" : "*") }')"
    echo "  database transactions during the run: $((after - before)) in $(printf '%.1f' "$elapsed") s" \
        "($(awk -v r="$(rps "$WORK/replica.txt")" -v e="$elapsed" 'BEGIN { printf "%.0f", r * e }') requests)"
}
replica "live playlist, replica A (goal 0.8)" "http://127.0.0.1:18083$LIVE"
replica "live playlist, replica B (goal 0.8)" "http://127.0.0.1:18084$LIVE"
replica "live playlist, nginx over A and B" "$PUBLIC$LIVE"
echo "ratio: a PostgreSQL replica's requests per second over one replica's on SQLite, in the same run;" \
    "* below the goal. The transactions are the replicas' change-count polls (4 a second each)" \
    "and their served-value records, not the requests."
