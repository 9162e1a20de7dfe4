#!/usr/bin/env bash
# Builds the playlist parser and the interstitial validator with libFuzzer and AddressSanitizer and
# fuzzes them for a bounded time.
# Usage: Fuzz/run.sh [SECONDS]   (default 60). Seeds: the test fixture corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
out=.build/fuzz
mkdir -p "$out" Fuzz/corpus-run
# One module: the HLSInterstitials sources lose their `import HLSPlaylist`.
rm -rf "$out/interstitials" && mkdir -p "$out/interstitials"
for file in $(find Sources/HLSInterstitials -name '*.swift'); do
    sed '/^import HLSPlaylist$/d' "$file" > "$out/interstitials/$(echo "$file" | tr / _)"
done
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name PlaylistFuzz -package-name hls_interstitials \
    $(find Sources/HLSPlaylist -name '*.swift') "$out"/interstitials/*.swift Fuzz/PlaylistFuzzer.swift \
    -o "$out/playlist-fuzzer"
cp Tests/Fixtures/playlists/*.m3u8 Tests/Fixtures/invalid/*.m3u8 Fuzz/seeds/* Fuzz/corpus-run/
"$out/playlist-fuzzer" Fuzz/corpus-run -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=Fuzz/
