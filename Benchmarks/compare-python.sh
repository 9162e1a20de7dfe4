#!/usr/bin/env bash
# Parses the same 100,000-segment playlist with HLSPlaylist, Python's m3u8 (m3u8.loads) and hls.js's
# parser (M3U8Parser.parseLevelPlaylist, in Node, from the gradio==6.31.0 wheel: E2E/hlsjs.sh), side by
# side in one run, in process; then whole processes: `hlsi inspect FILE` against a Python process that
# loads the file with m3u8. The `hlsi` measured is the installable release build, with the Swift runtime
# and Foundation linked in (`--static-swift-stdlib`, in .build-static so that .build is left alone).
# Usage: Benchmarks/compare-python.sh [SEGMENTS]
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c "import m3u8" 2>/dev/null || python3 -m pip install -q "m3u8==6.0.0"
bash E2E/hlsjs.sh
swift build -c release --product hlsi --static-swift-stdlib --scratch-path .build-static >/dev/null
HLSJS="$PWD/E2E/.cache/hls.mjs" HLSI="$PWD/.build-static/release/hlsi" \
    swift run --package-path Benchmarks -c release compare-python "${1:-100000}"
