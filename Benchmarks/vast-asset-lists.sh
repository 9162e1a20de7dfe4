#!/usr/bin/env bash
# Asset lists decided by a VAST ad server (issue 18): requests per second and p99 for a break whose
# VAST answer is a 3-ad pod behind one wrapper, from a local ad server (E2E/ad_server.py) that takes
# 20 ms per document, at 100 concurrent viewers (wrk, a new _HLS_primary_id per request); the
# baseline, in the same run, is the same break filled from the server's own inventory. Then the ad
# server slowed to 2 s: viewers wait the asset-list deadline (1 s), not the ad server.
# Usage: Benchmarks/vast-asset-lists.sh [SECONDS per run, default 10]
# HLSI=path/to/hlsi measures that binary instead of building .build/release/hlsi.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_RUN="${1:-10}"
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
if [ -z "${HLSI:-}" ]; then
    swift build -c release --product hlsi >/dev/null
    HLSI=.build/release/hlsi
fi
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
HLSI_URL=http://127.0.0.1:18090
"$HLSI" serve --demo --port 18090 --admin-token bench >"$WORK/serve.log" 2>&1 &
PIDS+=($!)
python3 E2E/ad_server.py "$HLSI_URL" "$WORK/fast.log" 20 18091 >/dev/null &
PIDS+=($!)
python3 E2E/ad_server.py "$HLSI_URL" "$WORK/slow.log" 2000 18092 >/dev/null &
PIDS+=($!)
for _ in $(seq 100); do curl -sf "$HLSI_URL/" >/dev/null && curl -s -o /dev/null "http://127.0.0.1:18091/x" && break; sleep 0.2; done
LIST="/demo/vod/asset-list.json?_HLS_interstitial_id=midroll-2"
cat >"$WORK/viewers.lua" <<'LUA'
local counter = 0
local thread_id = 0
function setup(thread) thread:set("id", tostring(math.random(1, 1000000000))) end
function init(args) thread_id = id or "0" end
function request()
    counter = counter + 1
    return wrk.format(nil, wrk.path .. "&_HLS_primary_id=v" .. thread_id .. "-" .. counter)
end
LUA
schedule() { # AD-SERVER-PORT (or empty: the inventory)
    "$HLSI" admin delete schedule vod/demo --server "$HLSI_URL" --token bench >/dev/null 2>&1 || true
    [ -z "$1" ] && return
    "$HLSI" admin create schedule --server "$HLSI_URL" --token bench --json \
        "{\"target\":\"vod/demo\",\"adServer\":{\"vast\":\"http://127.0.0.1:$1/wrapper?brk=[BREAKID]&sid=[SESSIONID]&cb=[CACHEBUSTING]\"}}" >/dev/null
}
measure() { # NAME
    wrk -t2 -c100 -d"${SECONDS_PER_RUN}s" --latency -s "$WORK/viewers.lua" "$HLSI_URL$LIST" >"$WORK/wrk.txt"
    local rps p99 errors
    rps=$(awk '/Requests\/sec/ {print $2}' "$WORK/wrk.txt")
    p99=$(awk '$1 == "99%" {print $2}' "$WORK/wrk.txt")
    errors=$(grep -c "Non-2xx\|Socket errors" "$WORK/wrk.txt" || true)
    printf '%-44s %12s %10s %s\n' "$1" "$rps" "$p99" "$([ "$errors" = 0 ] || echo "(errors)")"
    echo "$rps"  >"$WORK/last"
}
printf '%-44s %12s %10s\n' case "req/s" p99
schedule ""
measure "inventory (baseline)"
BASE=$(cat "$WORK/last")
schedule 18091
body=$(curl -sf "$HLSI_URL$LIST&_HLS_primary_id=check")
echo "$body" | grep -q '"X-AD-CREATIVE-SIGNALING"' || { echo "the VAST fill did not work: $body"; exit 1; }
measure "VAST, wrapper + 3-ad pod, 20 ms per document"
VAST=$(cat "$WORK/last")
schedule 18092
measure "VAST, ad server at 2 s (deadline 1 s)"
awk -v a="$VAST" -v b="$BASE" 'BEGIN { printf "VAST over inventory: %.3f of the baseline\n", a / b }'
echo "documents fetched from the 20 ms ad server: $(grep -c '^/' "$WORK/fast.log")"
