#!/usr/bin/env bash
# Parses the same 100,000-segment playlist with HLSPlaylist and Python's m3u8 (m3u8.loads), side by side.
set -euo pipefail
cd "$(dirname "$0")"
python3 -c "import m3u8" 2>/dev/null || python3 -m pip install -q "m3u8==6.0.0"
swift run -c release compare-python "${1:-100000}"
