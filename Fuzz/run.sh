#!/usr/bin/env bash
# Builds the playlist parser with libFuzzer and AddressSanitizer and fuzzes it for a bounded time.
# Usage: Fuzz/run.sh [SECONDS]   (default 60). Seeds: the test fixture corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
out=.build/fuzz
mkdir -p "$out" Fuzz/corpus-run
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name PlaylistFuzz -package-name hls_interstitials \
    $(find Sources/HLSPlaylist -name '*.swift') Fuzz/PlaylistFuzzer.swift -o "$out/playlist-fuzzer"
cp Tests/Fixtures/playlists/*.m3u8 Tests/Fixtures/invalid/*.m3u8 Fuzz/corpus-run/
"$out/playlist-fuzzer" Fuzz/corpus-run -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=Fuzz/
