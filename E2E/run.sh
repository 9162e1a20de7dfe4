#!/usr/bin/env bash
# End-to-end, with hls.js (1.6.15, from the gradio==6.31.0 wheel) in headless Chromium, driven by
# Playwright: the output of `hlsi insert` on an ffmpeg-made stream plays its interstitial, and
# `hlsi serve --demo` plays its VOD and live interstitials (including an early return via the admin API);
# the demo page plays offline with its own controller, its controls work, and live joins around a
# break are clean with both players, on a loaded machine too (E2E/page_playback.py); the page fires
# every ad's tracking beacons once with both players, heard by a local ad server (E2E/page_beacons.py);
# `hlsi admin return-now` cuts a live ad short on the page's built-in controller (E2E/page_return_now.py);
# the operations console creates breaks that are served and returns a live break early (E2E/console.py,
# screenshots in $ARTIFACTS_DIR, default .build/artifacts/console/).
# hls.js plays a live break marked only at its first segment (EXT-X-CUE-OUT) whose ads the server
# decided before the cue (a standing decision, issue 43; E2E/standing_playback.py).
# The page of `hlsi report` renders offline in Chromium with no console error or request (E2E/report_page.py).
# First, the security issue's reproductions are run against the real server (E2E/server_attacks.py).
# Three `hlsi serve` replicas on one PostgreSQL behind nginx (deploy/nginx-replicas.conf) serve identical
# playlists, follow each other's admin writes within 1 s and survive a 10 s database outage (E2E/replicas.py).
# Installs what it needs (Debian: ffmpeg, chromium; PyPI: playwright) when missing.
# Usage: E2E/run.sh [path/to/hlsi]   (default: .build/debug/hlsi, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
HLSI="${1:-.build/debug/hlsi}"
CACHE="E2E/.cache"
mkdir -p "$CACHE"

need_apt=()
command -v ffmpeg >/dev/null || need_apt+=(ffmpeg)
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "e2e: installing ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
python3 -c "import playwright" 2>/dev/null || pip install -q playwright
bash E2E/hlsjs.sh
[ -x "$HLSI" ] || swift build --product hlsi
# Each script's elapsed seconds, printed after it and all together at the end.
timings=()
timed() {
    local began=$SECONDS
    "$@"
    timings+=("$(printf '%5d s  %s' $((SECONDS - began)) "$2")")
    echo "e2e: $2: $((SECONDS - began)) s"
}
timed python3 E2E/server_attacks.py --hlsi "$HLSI"
timed python3 E2E/interstitial_playback.py --hlsi "$HLSI" --hls "$CACHE/hls.mjs"
timed python3 E2E/server_playback.py --hlsi "$HLSI" --hls "$CACHE/hls.mjs"
timed python3 E2E/stitched_playback.py --hlsi "$HLSI" --hls "$CACHE/hls.mjs"
timed python3 E2E/page_playback.py --hlsi "$HLSI" --hls "$CACHE/hls.mjs"
timed python3 E2E/page_beacons.py --hlsi "$HLSI" --hls "$CACHE/hls.mjs"
timed python3 E2E/page_return_now.py --hlsi "$HLSI"
timed python3 E2E/standing_playback.py --hlsi "$HLSI" --hls "$CACHE/hls.mjs"
timed python3 E2E/console.py --hlsi "$HLSI"
timed python3 E2E/report_page.py --hlsi "$HLSI"
timed python3 E2E/cross_origin.py --hlsi "$HLSI" --hls "$CACHE/hls.mjs"
replicas() { python3 E2E/replicas.py --hlsi "$HLSI" 2>&1 | tee "$CACHE/replicas.log"; }
timed replicas E2E/replicas.py
printf 'e2e: elapsed per script\n'
printf '%s\n' "${timings[@]}"
