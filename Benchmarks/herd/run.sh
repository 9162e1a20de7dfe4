#!/usr/bin/env bash
# The live-break herd benchmark (issue 32, item 6): virtual viewers poll the demo's live channel
# with their own X-PLAYBACK-SESSION-ID and load each break's asset list as players do (App. F
# preload hints honoured when the server writes them), while a VAST ad server limited in rate and
# latency decides the ads. It measures whatever the hlsi binary does.
# Scenarios (each bounded to about 4 minutes; everything on 127.0.0.1, killed on exit):
#   1500      1,500 viewers, one replica, ad server 100/s, 150 ms (goal: >= 99 % filled, p99 < 250 ms)
#   10000     10,000 viewers, one replica, ad server 500/s, 150 ms (same goals)
#   replicas  1,500 viewers on two replicas sharing PostgreSQL behind nginx, then on one replica:
#             the ad server's decisions for the break compared (goal: within 5 %)
#   learning  1,500 viewers, ad server 100/s, the schedule's ad server at the defaults twice: the
#             rate fixed at the old default (maxPerSecond 200, maxConcurrent 64), then learned
#             (neither set); the two fill figures side by side, as a ratio
#   cue [--replicas 2]
#             the cue case (issue 43): a looped channel whose breaks show only as they start
#             (EXT-X-CUE-OUT at the break's first segment, `signalInserter` form cue-out), 2,000
#             viewers (CUE_VIEWERS) 6 to 8 s behind the live edge from 64 loopback addresses,
#             a VAST ad server of 50/s (CUE_RATE) with maxPerSecond 50; with --replicas 2 on two
#             replicas sharing PostgreSQL behind nginx. Reports the share filled by the ad server,
#             failed asset lists, p50/p99 and the ad server's requests per viewer.
#   all       1500, 10000 and replicas in turn
# The viewers first poll WARMUP seconds without their session IDs (connections open, no session on
# the server), then with them. The live channel `demo` gets a standing schedule whose first break
# starts LEAD seconds after the warm-up (so that the server sees the sessions first, and the
# break's windows come after the warm-up), its ad server the herd's, with maxPerSecond set to the
# ad server's rate and maxConcurrent to max(64, rate x latency x 2). Each replica's RSS is printed
# before the viewers, at the end of the warm-up and at the break: (break - warm-up) / viewers is the
# memory of an active session, printed beside the server's own gauges, with its /metrics lines on
# viewer sessions, prefetch and ad decisions, if it has them. Replicas behind nginx get
# --max-connections-per-peer 4096 (every request comes from nginx's address).
# Usage: Benchmarks/herd/run.sh [1500|10000|replicas|learning|cue [--replicas 2]|all|N]
#   (N viewers on one replica: a short check)
# Environment: HLSI=path (else builds .build/release/hlsi), HERD=path (else builds the herd tool
# in release), WARMUP (seconds, default 20; 0: none), LEAD (seconds from the warm-up's end to the
# first break), BREAKS (breaks measured, 1 or 2), BREAK_DURATION (seconds, default 20),
# LATENCY (ad server, default 0.15), SEED, LIMITS (the schedule's ad-server limits: documented, the
# default: maxPerSecond the ad server's rate and maxConcurrent max(64, 2 x rate x latency); fixed200:
# maxPerSecond 200 and maxConcurrent 64, the defaults before the rate was learned; learned: neither
# set, the gate learns the rate), CUE_VIEWERS (2000), CUE_RATE (50), CUE_LEAD (seconds from the
# warm-up's end to the cue's break, 60), STANDING (cue: both, the baseline then standing decisions,
# side by side; off; on), CUE_EXPECTED (cue: prefetch.expectedBreak of the standing run, 10).
set -euo pipefail
cd "$(dirname "$0")/../.."
SCENARIO="${1:-1500}"
REPLICAS=1
if [ "${2:-}" = "--replicas" ]; then REPLICAS="${3:-2}"; fi
LIMITS="${LIMITS:-documented}"
BREAK_DURATION="${BREAK_DURATION:-20}"
LATENCY="${LATENCY:-0.15}"
SEED="${SEED:-1}"
WARMUP="${WARMUP:-20}"
TOKEN=herd-benchmark-admin-token-0123456789
EPOCH=1767225600 # the live channels' default epoch, 2026-01-01T00:00:00Z
LIVE=/demo/live/video/main.m3u8
if [ -z "${HLSI:-}" ]; then
    swift build -c release --product hlsi >/dev/null
    HLSI=.build/release/hlsi
fi
if [ -z "${HERD:-}" ]; then
    swift build -c release --package-path Benchmarks --product herd >/dev/null
    HERD=Benchmarks/.build/release/herd
fi
WORK=$(mktemp -d)
PIDS=()
NGINX=
PG_CTL=
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi; }
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ -n "$NGINX" ] && "$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -s stop 2>/dev/null || true
    [ -n "$PG_CTL" ] && as_postgres "$PG_CTL" -D "$WORK/pg/data" -m fast stop >/dev/null 2>&1 || true
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() { # URL
    for _ in $(seq 150); do curl -sf -o /dev/null "$1" && return 0; sleep 0.2; done
    echo "no answer from $1"
    exit 1
}
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

# start_ad_server RATE MEDIA_BASE: sets AD_URL.
start_ad_server() {
    local port
    port=$(free_port)
    "$HERD" ad-server --port "$port" --rate "$1" --latency "$LATENCY" --media-base "$2" >"$WORK/ad-$port.log" 2>&1 &
    PIDS+=($!)
    AD_URL="http://127.0.0.1:$port"
    wait_for "$AD_URL/stats"
}

# start_hlsi PORT NAME [ARGS...]: a `hlsi serve --demo`; sets HLSI_PID.
start_hlsi() {
    local port=$1 name=$2
    shift 2
    "$HLSI" serve --demo --port "$port" --admin-token "$TOKEN" "$@" >"$WORK/$name.log" 2>&1 &
    HLSI_PID=$!
    PIDS+=("$HLSI_PID")
    wait_for "http://127.0.0.1:$port/demo/live/master.m3u8"
}

# schedule SERVER FIRST EVERY RATE: the live channel's cadence, its first break at Unix time FIRST,
# filled by the herd ad server at AD_URL within RATE decisions a second. The in-flight limit
# (maxConcurrent) caps the decisions a second at maxConcurrent / latency: it covers rate x latency
# twice over (at least the default 64), as operators must set it too.
schedule() {
    local offset=$(( ($2 - EPOCH) % $3 ))
    local vast="$AD_URL/vast?brk=[BREAKID]&dur=[BREAKDURATION]&sid=[SESSIONID]&cb=[CACHEBUSTING]"
    curl -sf -X PUT "$1/admin/v1/schedules/live/demo" -H "Authorization: Bearer $TOKEN" \
        -H 'Content-Type: application/json' -o /dev/null \
        -d "{\"cadence\": {\"every\": $3, \"duration\": $BREAK_DURATION, \"offset\": $offset},
             \"adServer\": {\"vast\": \"$vast\"$(limits "$4")}}" ||
        { echo "the schedule was refused by $1"; exit 1; }
}

# limits RATE: the ad server's limits as JSON members (with a leading comma), by LIMITS.
limits() {
    case "$LIMITS" in
        documented)
            local concurrent
            concurrent=$(awk -v r="$1" -v l="$LATENCY" \
                'BEGIN { c = r * l * 2; c = (c == int(c)) ? c : int(c) + 1; c = c > 64 ? c : 64; print (c < 10000 ? c : 10000) }')
            echo ", \"maxPerSecond\": $1, \"maxConcurrent\": $concurrent" ;;
        fixed200) echo ", \"maxPerSecond\": 200, \"maxConcurrent\": 64" ;;
        learned) echo "" ;;
        *) echo "LIMITS must be documented, fixed200 or learned" >&2; exit 2 ;;
    esac
}

metrics() { # SERVER NAME
    local lines
    lines=$(curl -sf "$1/metrics" -H "Authorization: Bearer $TOKEN" |
        grep -E '^hlsi_(viewer_session|prefetch|standing|expected_break|ad_decisions_total|ad_server_shed|ad_server_breaker|ad_server_rate|asset_list_filled)' || true)
    [ -n "$lines" ] && { echo "  $2 /metrics:"; echo "$lines" | sed 's/^/    /'; }
    return 0
}

gauge() { # SERVER NAME: the value of the gauge NAME in the server's /metrics, empty if absent.
    curl -sf "$1/metrics" -H "Authorization: Bearer $TOKEN" |
        awk -v name="$2" '$1 == name { printf "%d\n", $2; exit }' || true
}

# session_memory SERVER VIEWERS: the server's own gauges of the sessions' and the decisions' bytes.
session_memory() {
    local sessions decisions
    sessions=$(gauge "$1" hlsi_viewer_session_bytes)
    decisions=$(gauge "$1" hlsi_prefetch_decision_bytes)
    [ -z "$sessions$decisions" ] && return 0
    echo "    the server's gauges: hlsi_viewer_session_bytes ${sessions:--}," \
        "hlsi_prefetch_decision_bytes ${decisions:--}:" \
        "$(( (${sessions:-0} + ${decisions:-0}) / $2 )) bytes per viewer"
}

# herd NAME URL VIEWERS RATE SERVERS...: one measured run. SERVERS are "name=url=pid" (each
# replica, for its RSS and metrics). Sets BREAK_IDS (the measured breaks) and RUN_OUT.
herd() {
    local name=$1 url=$2 viewers=$3 rate=$4
    shift 4
    # The break's windows (hint and retrieval, ~50 s before it) come after the warm-up.
    local lead=$(( ${LEAD:-$(( viewers > 5000 ? 90 : 75 ))} + WARMUP ))
    local breaks=${BREAKS:-1}
    local every=$(( lead + BREAK_DURATION + 15 ))
    local join first duration
    join=$(( $(date +%s) + 2 ))
    first=$(( join + lead ))
    # Every replica reads the schedule from the store; one write is enough.
    local server=${1#*=}
    schedule "${server%%=*}" "$first" "$every" "$rate"
    duration=$(( first + (breaks - 1) * every + 10 - join ))
    echo "== $name: $viewers viewers, ad server $rate/s ${LATENCY}s, warm-up $WARMUP s," \
        "first break at +${lead} s, $breaks break(s) of $BREAK_DURATION s, $duration s"
    declare -A before warm heap quiet
    for entry in "$@"; do
        before[$entry]=$(rss_kib "${entry##*=}")
        local at=${entry#*=}
        quiet[$entry]=$(gauge "${at%%=*}" hlsi_heap_bytes)
    done
    sleep $(( join - $(date +%s) > 0 ? join - $(date +%s) : 0 ))
    RUN_OUT="$WORK/$name.txt"
    timeout $(( duration + 60 )) "$HERD" viewers --url "$url$LIVE" --viewers "$viewers" --duration "$duration" \
        --ad-server "$AD_URL" --seed "$SEED" --warmup "$WARMUP" >"$RUN_OUT" 2>"$WORK/$name.err" &
    local viewers_pid=$!
    PIDS+=("$viewers_pid")
    if [ "$WARMUP" -gt 0 ]; then
        # A second before the warm-up ends: every connection open, no session yet.
        local warm_end=$(( join + WARMUP - 1 ))
        sleep $(( warm_end - $(date +%s) > 0 ? warm_end - $(date +%s) : 0 ))
        for entry in "$@"; do
            warm[$entry]=$(rss_kib "${entry##*=}")
            local at=${entry#*=}
            heap[$entry]=$(gauge "${at%%=*}" hlsi_heap_bytes)
        done
    fi
    sleep $(( first - $(date +%s) > 0 ? first - $(date +%s) : 0 ))
    for entry in "$@"; do
        local replica=${entry%%=*} rest=${entry#*=}
        local pid=${rest##*=} base=${rest%%=*} now
        now=$(rss_kib "$pid")
        if [ "$WARMUP" -gt 0 ]; then
            echo "  $replica RSS: ${before[$entry]} KiB before the viewers, ${warm[$entry]} KiB after the warm-up," \
                "$now KiB at the break: $(( (now - before[$entry]) * 1024 / viewers )) bytes per viewer"
            echo "    per active session (RSS at the break - after the warm-up) / viewers:" \
                "$(( (now - warm[$entry]) * 1024 / viewers )) bytes"
            local heap_now
            heap_now=$(gauge "$base" hlsi_heap_bytes)
            if [ -n "$heap_now" ] && [ -n "${heap[$entry]}" ]; then
                echo "    heap in use (hlsi_heap_bytes at the break - after the warm-up) / viewers:" \
                    "$(( (heap_now - heap[$entry]) / viewers )) bytes (requests in flight included)"
            fi
        else
            echo "  $replica RSS: ${before[$entry]} KiB before the viewers, $now KiB at the break:" \
                "$(( (now - before[$entry]) * 1024 / viewers )) bytes per viewer"
        fi
        session_memory "$base" "$viewers"
        metrics "$base" "$replica"
    done
    wait "$viewers_pid" || { echo "the viewers failed:"; cat "$WORK/$name.err"; exit 1; }
    # Quiet to quiet: the heap in use once the viewers have gone (no request in flight, their
    # connections closed; their sessions and decisions still kept) against before they came.
    for entry in "$@"; do
        local rest=${entry#*=} left
        left=$(gauge "${rest%%=*}" hlsi_heap_bytes)
        if [ -n "$left" ] && [ -n "${quiet[$entry]}" ]; then
            echo "  ${entry%%=*}: per active session, heap in use (just after the viewers left - before they came)" \
                "/ viewers: $(( (left - quiet[$entry]) / viewers )) bytes (goal: <= 1024)"
        fi
    done
    sed 's/^/  /' "$RUN_OUT"
}

# The decisions the ad server made for the breaks a run counted.
decisions() { # RUN_OUT
    awk -F'ad server decisions ' '/^  break-.*ad server decisions/ {sum += $2} END {print sum + 0}' "$1"
}

scenario_one() { # VIEWERS RATE
    local port
    port=$(free_port)
    start_ad_server "$2" "http://127.0.0.1:$port"
    start_hlsi "$port" "one-$1"
    herd "one replica, $1 viewers" "http://127.0.0.1:$port" "$1" "$2" "hlsi=http://127.0.0.1:$port=$HLSI_PID"
    kill "$HLSI_PID" 2>/dev/null || true
}

# start_postgres: a PostgreSQL in WORK/pg (run as nobody when root); sets DATABASE.
start_postgres() {
    local pgbin
    pgbin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")
    PG_CTL="$pgbin/pg_ctl"
    mkdir -p "$WORK/pg" "$WORK/logs"
    chmod a+rx "$WORK"
    [ "$(id -u)" = 0 ] && chown nobody "$WORK/pg"
    as_postgres "$pgbin/initdb" -D "$WORK/pg/data" -U hlsi --auth=trust >/dev/null
    as_postgres "$PG_CTL" -D "$WORK/pg/data" -l "$WORK/pg/log" -w \
        -o "-k $WORK/pg -c listen_addresses='' -c max_connections=50" start >/dev/null
    as_postgres "$pgbin/createdb" -h "$WORK/pg" -U hlsi hlsi
    DATABASE="postgres://hlsi@localhost/hlsi?host=$WORK/pg"
}

# need_tools TOOL...: installs nginx and PostgreSQL (Debian packages) when missing.
need_tools() {
    local need=()
    for tool in "$@"; do
        case "$tool" in
            nginx) command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx) ;;
            postgresql) ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql) ;;
        esac
    done
    if [ ${#need[@]} -gt 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    fi
}

# start_nginx PUBLIC UPSTREAM_PORT...: round robin over the replicas on 127.0.0.1.
start_nginx() {
    local public=$1 servers=""
    shift
    for port in "$@"; do servers+="server 127.0.0.1:$port; "; done
    mkdir -p "$WORK/logs"
    NGINX=$(command -v nginx || echo /usr/sbin/nginx)
    cat >"$WORK/nginx.conf" <<CONF
worker_processes 1;
error_log $WORK/logs/error.log;
pid $WORK/nginx.pid;
events { worker_connections 8192; }
http {
    access_log off;
    upstream hlsi { $servers keepalive 64; }
    server {
        listen 127.0.0.1:$public;
        location / { proxy_pass http://hlsi; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
}
CONF
    "$NGINX" -p "$WORK" -c "$WORK/nginx.conf"
}

# The cue case (issue 43): a looped channel whose breaks show only as they start. The server's own
# signalInserter writes EXT-X-CUE-OUT at each break's first segment (every CUE_EVERY s, 10 s long,
# the first CUE_LEAD s after the warm-up); `signals: scte35` makes them interstitials filled by
# the herd ad server (maxPerSecond CUE_RATE / replicas, maxConcurrent 64). The viewers play 6 to 8 s
# behind the live edge and poll every 2 s, so they see the break 3 to 5 s before they reach it.
# STANDING picks the runs: `both` (the default) the baseline without standing decisions, then
# with them (`prefetch.expectedBreak` CUE_EXPECTED, 10 s: the break's length), each on new
# servers and a new ad server, and the two side by side; `off` the baseline only; `on` standing
# decisions only.
scenario_cue() {
    local standing=${STANDING:-both}
    if [ "$REPLICAS" -gt 1 ]; then
        need_tools nginx postgresql
        start_postgres
    fi
    case "$standing" in
        both)
            cue_run baseline ""
            cue_run standing "${CUE_EXPECTED:-10}"
            cue_compare "$WORK/cue-baseline.txt" "$RUN_OUT" ;;
        off) cue_run baseline "" ;;
        on) cue_run standing "${CUE_EXPECTED:-10}" ;;
        *) echo "STANDING must be both, off or on" >&2; exit 2 ;;
    esac
}

# cue_figure FILE: "filled% failed p99" of the viewers' report as they wrote it (not indented).
cue_figure() {
    awk '/^filled by the ad server:/ {f = $6} /^failed:/ {x = $2} /^asset-list requests:/ {p = $(NF-11)}
         END {print f, x, p}' "$1"
}

cue_compare() { # BASELINE STANDING: the two runs' figures side by side
    local a b
    read -r -a a <<<"$(cue_figure "$1")"
    read -r -a b <<<"$(cue_figure "$2")"
    echo "== cue case, $REPLICAS replica(s): filled by the ad server ${a[0]:--} % without standing decisions," \
        "${b[0]:--} % with them (ratio $(awk -v x="${b[0]:-0}" -v y="${a[0]:-0}" \
        'BEGIN { if (y > 0) printf "%.1f", x / y; else print "-" }')); failed ${a[1]:--} % / ${b[1]:--} %;" \
        "asset-list p99 ${a[2]:--} / ${b[2]:--} ms"
}

# cue_run NAME EXPECTED: one measured run of the cue case on new servers; EXPECTED is
# `prefetch.expectedBreak` (seconds; empty: no standing decisions). Sets RUN_OUT.
cue_run() {
    local name=$1 expected=$2
    local viewers=${CUE_VIEWERS:-2000} rate=${CUE_RATE:-50} lead=$(( ${CUE_LEAD:-60} + WARMUP ))
    local every=$(( lead + 60 )) public ports=() pids=() servers=() join first offset duration ad_pid
    local demo="$PWD/Sources/InterstitialServer/Resources/demo"
    # Each replica's gate lets maxPerSecond through: together they ask the ad server's rate.
    local per_replica=$(( rate / REPLICAS > 0 ? rate / REPLICAS : 1 ))
    public=$(free_port)
    start_ad_server "$rate" "http://127.0.0.1:$public"
    ad_pid=${PIDS[-1]}
    local vast="$AD_URL/vast?brk=[BREAKID]&dur=[BREAKDURATION]&sid=[SESSIONID]&cb=[CACHEBUSTING]"
    local prefetch=""
    [ -n "$expected" ] && prefetch=", \"prefetch\": {\"expectedBreak\": $expected}"
    # The servers take a few seconds to start: the viewers join 20 s from now.
    join=$(( $(date +%s) + 20 ))
    first=$(( join + lead ))
    offset=$(( (first - EPOCH) % every ))
    cat >"$WORK/cue-$name.json" <<JSON
{"live": [{"id": "cue", "path": "/cue/live", "loop": "$demo/primary", "windowSegments": 6, "signals": "scte35",
           "signalInserter": {"every": $every, "duration": 10, "offset": $offset, "form": "cue-out"},
           "adServer": {"vast": "$vast", "maxPerSecond": $per_replica, "maxConcurrent": 64$prefetch}}],
 "ads": "$demo/ads", "database": "$WORK/cue-$name.sqlite", "creativeCache": null,
 "adServerFetch": {"allowPrivate": true},
 "seed": {"inventory": [{"id": "ad1", "uri": "/ads/ad1/master.m3u8", "duration": 6},
                        {"id": "ad2", "uri": "/ads/ad2/master.m3u8", "duration": 4},
                        {"id": "ad3", "uri": "/ads/ad3/master.m3u8", "duration": 6}]}}
JSON
    local extra=()
    if [ "$REPLICAS" -gt 1 ]; then
        # A new database per run: no claim or decision of the other run is seen.
        as_postgres "$(dirname "$PG_CTL")/createdb" -h "$WORK/pg" -U hlsi "cue_$name"
        extra=(--database "${DATABASE%/hlsi*}/cue_$name?host=$WORK/pg" --public-url "http://127.0.0.1:$public"
            --max-connections-per-peer 4096)
        for index in $(seq "$REPLICAS"); do ports+=("$(free_port)"); done
        start_nginx "$public" "${ports[@]}"
    else
        ports=("$public")
    fi
    for index in "${!ports[@]}"; do
        "$HLSI" serve --config "$WORK/cue-$name.json" --port "${ports[$index]}" --admin-token "$TOKEN" "${extra[@]}" \
            >"$WORK/cue-$name-$index.log" 2>&1 &
        pids+=($!)
        PIDS+=($!)
        wait_for "http://127.0.0.1:${ports[$index]}/cue/live/master.m3u8"
        servers+=("replica-$index=http://127.0.0.1:${ports[$index]}=${pids[$index]}")
    done
    wait_for "http://127.0.0.1:$public/cue/live/master.m3u8"
    duration=$(( first + 25 - join ))
    echo "== cue case ($name: $( [ -n "$expected" ] && echo "standing decisions, expectedBreak $expected s" ||
        echo "no standing decisions")): $viewers viewers 6-8 s behind the live edge, $REPLICAS replica(s)," \
        "ad server $rate/s ${LATENCY}s (maxPerSecond $per_replica a replica), warm-up $WARMUP s," \
        "cue-out break at +$lead s, $duration s"
    sleep $(( join - $(date +%s) > 0 ? join - $(date +%s) : 0 ))
    RUN_OUT="$WORK/cue-$name.txt"
    timeout $(( duration + 60 )) "$HERD" viewers --url "http://127.0.0.1:$public/cue/live/video/main.m3u8" \
        --viewers "$viewers" --duration "$duration" --ad-server "$AD_URL" --seed "$SEED" --warmup "$WARMUP" \
        --behind 6-8 --poll-interval 2 --addresses 64 >"$RUN_OUT" 2>"$WORK/cue-$name.err" &
    local viewers_pid=$!
    PIDS+=("$viewers_pid")
    sleep $(( first - $(date +%s) > 0 ? first - $(date +%s) : 0 ))
    # At the break's START-DATE the cue has not shown yet (it shows with the break's first segment):
    # what the ad server was asked so far was asked before the cue.
    echo "  ad server before the cue: $(curl -sf "$AD_URL/stats" | python3 -c 'import json, sys
s = json.load(sys.stdin)
print("%s requests for %s viewers, at most %s for one, by break %s" % (s["requests"],
      s.get("viewersAsked", "-"), s.get("mostPerViewer", "-"), s["breaks"]))')"
    for entry in "${servers[@]}"; do
        local rest=${entry#*=}
        metrics "${rest%%=*}" "${entry%%=*} at the break's start"
    done
    wait "$viewers_pid" || { echo "the viewers failed:"; cat "$WORK/cue-$name.err"; exit 1; }
    for entry in "${servers[@]}"; do
        local rest=${entry#*=}
        metrics "${rest%%=*}" "${entry%%=*} after the viewers"
    done
    sed 's/^/  /' "$RUN_OUT"
    for pid in "${pids[@]}" "$ad_pid"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}" "$ad_pid"; do wait "$pid" 2>/dev/null || true; done
    if [ -n "$NGINX" ]; then
        "$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -s stop 2>/dev/null || true
        NGINX=
        sleep 1
    fi
}

# The scheduled-break herd at the ad-server defaults, without and with the learned rate, in one
# run: the old defaults (maxPerSecond 200, maxConcurrent 64), then neither set.
scenario_learning() {
    local fixed learned
    LIMITS=fixed200 scenario_one 1500 100
    fixed=$(awk '/filled by the ad server:/ {print $(NF-2)}' "$RUN_OUT" | tr -d '(')
    cp "$RUN_OUT" "$WORK/fixed200.txt"
    LIMITS=learned scenario_one 1500 100
    learned=$(awk '/filled by the ad server:/ {print $(NF-2)}' "$RUN_OUT" | tr -d '(')
    echo "== filled by the ad server at the defaults: fixed 200/s $fixed of 1500, learned $learned of 1500" \
        "(learned / fixed: $(awk -v a="$learned" -v b="$fixed" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }'))"
    grep -h 'p50' "$WORK/fixed200.txt" "$RUN_OUT" | sed 's/^/  p50\/p99 (fixed, then learned): /'
}

scenario_replicas() {
    local need=()
    command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx)
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
    if [ ${#need[@]} -gt 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    fi
    local pgbin public a b
    pgbin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")
    PG_CTL="$pgbin/pg_ctl"
    mkdir -p "$WORK/pg" "$WORK/logs"
    chmod a+rx "$WORK"
    [ "$(id -u)" = 0 ] && chown nobody "$WORK/pg"
    as_postgres "$pgbin/initdb" -D "$WORK/pg/data" -U hlsi --auth=trust >/dev/null
    as_postgres "$PG_CTL" -D "$WORK/pg/data" -l "$WORK/pg/log" -w \
        -o "-k $WORK/pg -c listen_addresses='' -c max_connections=50" start >/dev/null
    as_postgres "$pgbin/createdb" -h "$WORK/pg" -U hlsi hlsi
    local database="postgres://hlsi@localhost/hlsi?host=$WORK/pg"
    public=$(free_port)
    a=$(free_port)
    b=$(free_port)
    NGINX=$(command -v nginx || echo /usr/sbin/nginx)
    cat >"$WORK/nginx.conf" <<CONF
worker_processes 1;
error_log $WORK/logs/error.log;
pid $WORK/nginx.pid;
events { worker_connections 8192; }
http {
    access_log off;
    upstream hlsi { server 127.0.0.1:$a; server 127.0.0.1:$b; keepalive 64; }
    server {
        listen 127.0.0.1:$public;
        location / { proxy_pass http://hlsi; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
}
CONF
    "$NGINX" -p "$WORK" -c "$WORK/nginx.conf"
    start_ad_server 100 "http://127.0.0.1:$public"
    # nginx connects from one address: a replica's per-peer connection limit must cover the herd.
    local peer=(--max-connections-per-peer 4096)
    start_hlsi "$a" replica-a --database "$database" --public-url "http://127.0.0.1:$public" "${peer[@]}"
    local pid_a=$HLSI_PID
    start_hlsi "$b" replica-b --database "$database" --public-url "http://127.0.0.1:$public" "${peer[@]}"
    local pid_b=$HLSI_PID
    wait_for "http://127.0.0.1:$public/demo/live/master.m3u8"
    herd "two replicas, 1500 viewers" "http://127.0.0.1:$public" 1500 100 \
        "replica-a=http://127.0.0.1:$a=$pid_a" "replica-b=http://127.0.0.1:$b=$pid_b"
    local two
    two=$(decisions "$RUN_OUT")
    kill "$pid_a" "$pid_b" 2>/dev/null || true
    "$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -s stop 2>/dev/null || true
    NGINX=
    scenario_one 1500 100
    local one
    one=$(decisions "$RUN_OUT")
    echo "== ad server decisions for the break: two replicas $two, one replica $one" \
        "($(awk -v a="$two" -v b="$one" 'BEGIN { if (b > 0) printf "%+.1f %%", (a - b) / b * 100; else print "-" }');" \
        "goal: within 5 %)"
}

case "$SCENARIO" in
    1500) scenario_one 1500 100 ;;
    10000) scenario_one 10000 500 ;;
    replicas) scenario_replicas ;;
    learning) scenario_learning ;;
    cue) scenario_cue ;;
    all) scenario_one 1500 100; scenario_one 10000 500; scenario_replicas ;;
    [1-9]*[0-9] | [1-9]) scenario_one "$SCENARIO" $(( SCENARIO > 5000 ? 500 : 100 )) ;; # a short check
    *) echo "usage: $0 [1500|10000|replicas|learning|cue [--replicas 2]|all|N]"; exit 2 ;;
esac
