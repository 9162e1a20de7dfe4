#!/usr/bin/env bash
# Throughput of `hlsi serve` for live media playlists with interstitials inserted, against nginx
# serving the same playlist bytes as a static file, in the same run, with wrk on loopback.
# Goal: at least 50% of nginx's requests per second, and p99 latency under 10 ms at 100 connections.
# Usage: Benchmarks/serve-wrk.sh [SECONDS per run, default 15]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_RUN="${1:-15}"
need=()
command -v wrk >/dev/null || need+=(wrk)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx)
if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
swift build -c release --product hlsi >/dev/null
HLSI=.build/release/hlsi
WORK=$(mktemp -d)
trap 'kill $SERVER 2>/dev/null || true; "$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -s stop 2>/dev/null || true; rm -rf "$WORK"' EXIT
"$HLSI" serve --demo --port 18080 --admin-token bench >"$WORK/serve.log" 2>&1 &
SERVER=$!
for _ in $(seq 50); do curl -sf http://127.0.0.1:18080/ >/dev/null && break; sleep 0.2; done
URL_PATH=/demo/live/video/main.m3u8
# A long break from now on, so that every playlist measured carries interstitial date ranges.
"$HLSI" admin break-now demo --duration 600 --id bench --server http://127.0.0.1:18080 --token bench >/dev/null
mkdir -p "$WORK/root/demo/live/video" "$WORK/logs"
curl -sf "http://127.0.0.1:18080$URL_PATH" >"$WORK/root$URL_PATH"
grep -c EXT-X-DATERANGE "$WORK/root$URL_PATH" >/dev/null || { echo "no date range in the live playlist"; exit 1; }
cat >"$WORK/nginx.conf" <<CONF
worker_processes auto;
error_log $WORK/logs/error.log;
pid $WORK/nginx.pid;
events { worker_connections 1024; }
http {
    access_log off;
    types { application/vnd.apple.mpegurl m3u8; }
    server { listen 127.0.0.1:18081; root $WORK/root; }
}
CONF
chmod -R a+rX "$WORK"
"$NGINX" -p "$WORK" -c "$WORK/nginx.conf"
sleep 0.5
# nginx must answer 200 with the bytes hlsi served, and hlsi 200 with date ranges.
cmp <(curl -sf "http://127.0.0.1:18081$URL_PATH") "$WORK/root$URL_PATH" || { echo "nginx does not serve the playlist"; exit 1; }
curl -sf "http://127.0.0.1:18080$URL_PATH" | grep -q EXT-X-DATERANGE || { echo "hlsi serves no date range"; exit 1; }
echo "playlist: $(wc -c <"$WORK/root$URL_PATH") bytes, $(grep -c EXT-X-DATERANGE "$WORK/root$URL_PATH") date range(s)"
run() { wrk -t2 -c100 -d"${SECONDS_PER_RUN}s" --latency "$1"; }
summary() {
    local rps p99
    rps=$(awk '/Requests\/sec/ {print $2}' "$1")
    p99=$(awk '$1 == "99%" {print $2}' "$1")
    echo "$2: $rps requests/s, p99 $p99"
}
run "http://127.0.0.1:18080$URL_PATH" >"$WORK/hlsi.txt"
run "http://127.0.0.1:18081$URL_PATH" >"$WORK/nginx.txt"
cat "$WORK/hlsi.txt" "$WORK/nginx.txt"
if grep -q "Non-2xx" "$WORK/hlsi.txt" "$WORK/nginx.txt"; then echo "some responses were errors"; exit 1; fi
summary "$WORK/hlsi.txt" "hlsi serve (live playlist, interstitials inserted)"
summary "$WORK/nginx.txt" "nginx (the same bytes, static file)"
awk -v a="$(awk '/Requests\/sec/ {print $2}' "$WORK/hlsi.txt")" -v b="$(awk '/Requests\/sec/ {print $2}' "$WORK/nginx.txt")" \
    'BEGIN { printf "ratio: %.2f of nginx'"'"'s throughput (goal: at least 0.50)\n", a / b }'
