#!/usr/bin/env bash
# Builds the libFuzzer targets below with AddressSanitizer and fuzzes each for an equal share of a bounded time:
# - playlist-fuzzer (Fuzz/PlaylistFuzzer.swift): the playlist parser, the validators, the schedule,
#   the integrated timeline and the SCTE-35 signal recognizer, over the test fixtures and Fuzz/seeds;
# - admin-fuzzer (Fuzz/AdminFuzzer.swift): the admin API's JSON bodies (Break, BreakSchedule, Ad,
#   InsertionRequest, with the ad server settings that AdDecisioning's tag templates read) and asset-list
#   query parameters, over Fuzz/admin-seeds;
# - scte35-fuzzer (Fuzz/SCTE35Fuzzer.swift): the SCTE-35 decoder and encoder, over Fuzz/scte35-seeds;
# - media-fuzzer (Fuzz/MediaTimingFuzzer.swift): the media timing reader (fMP4, MPEG-TS, packed
#   audio), over Fuzz/media-seeds;
# - http-fuzzer (Fuzz/HTTPHeadFuzzer.swift): the server's HTTP request head reader (RequestHeadReader,
#   Sources/InterstitialServer/HTTP/RequestHead:
#   request line, fields, body framing, chunked framing and trailers), read whole and in parts, over
#   Fuzz/http-seeds;
# - vast-fuzzer (Fuzz/VASTFuzzer.swift): the XML pre-scan, Foundation's XMLParser (libxml2) and the VAST
#   and VMAP readers, over Tests/Fixtures/vast and Fuzz/vast-seeds;
# - schedule-fuzzer (Fuzz/ScheduleFuzzer.swift): Date Range Schedule documents (the bounded JSON
#   reader, both entry-failure policies) and their resolution against a playlist, over
#   Fuzz/schedule-seeds.
# Usage: Fuzz/run.sh [SECONDS]   (default 60, shared equally by the targets). Exits non-zero on a crash;
# each target is limited to 2 GB of RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
# One entry per target: the time is shared by as many as there are.
targets=(playlist admin scte35 media http vast schedule)
part=$(((seconds + ${#targets[@]} - 1) / ${#targets[@]}))
out=.build/fuzz
mkdir -p "$out" Fuzz/corpus-run Fuzz/corpus-admin Fuzz/corpus-scte35 Fuzz/corpus-media Fuzz/corpus-http Fuzz/corpus-vast \
    Fuzz/corpus-schedule
# The package's pure modules are compiled once, with the fuzzers' instrumentation, into one static
# library (FuzzCore: HLSPlaylist, SCTE35, HLSInterstitials, AdDecisioning and the server's model, their
# imports of each other removed, built with -enable-testing so that the fuzzers reach what is internal);
# the playlist, admin, SCTE-35, VAST and schedule fuzzers link it. The media timing reader and the HTTP
# head reader are small modules of their own, compiled beside it. Independent compiles run two at a time.
strip() {
    local directory="$1"
    shift
    rm -rf "$directory" && mkdir -p "$directory"
    for file in "$@"; do
        sed -e '/^import HLSPlaylist$/d' -e '/^import HLSInterstitials$/d' -e '/^import SCTE35$/d' \
            -e '/^import AdDecisioning$/d' "$file" \
            > "$directory/$(echo "$file" | tr / _)"
    done
}
strip "$out/interstitials" $(find Sources/HLSInterstitials -name '*.swift')
strip "$out/ads" $(find Sources/AdDecisioning -name '*.swift')
strip "$out/model" $(find Sources/InterstitialServer/Model -name '*.swift') Sources/InterstitialServer/Planning/BreakWindows.swift
# A fuzzer's source, importing FuzzCore (its own declarations shadow Foundation's of the same name).
driver() {
    mkdir -p "$out/drivers"
    { echo '@testable import FuzzCore'; cat "$1"; } > "$out/drivers/$(basename "$1")"
    echo "$out/drivers/$(basename "$1")"
}
flags=(-sanitize=fuzzer,address -parse-as-library -O -g -package-name hls_interstitials)
# Runs the commands given (one a line, on standard input) two at a time; fails if any fails.
two_at_a_time() {
    local pids=() line status=0
    while IFS= read -r line; do
        bash -c "$line" &
        pids+=($!)
        if [ ${#pids[@]} -eq 2 ]; then
            wait "${pids[0]}" || status=1
            pids=("${pids[1]}")
        fi
    done
    for pid in "${pids[@]}"; do wait "$pid" || status=1; done
    return $status
}
core=($(find Sources/HLSPlaylist Sources/SCTE35 -name '*.swift') "$out"/interstitials/*.swift "$out"/ads/*.swift
    "$out"/model/*.swift)
two_at_a_time <<COMPILES
swiftc ${flags[*]} -enable-testing -emit-library -static -emit-module -module-name FuzzCore \
    -emit-module-path $out/FuzzCore.swiftmodule ${core[*]} -o $out/libFuzzCore.a
swiftc ${flags[*]} -module-name MediaTimingFuzz $(find Sources/MediaTiming -name '*.swift' | tr '\n' ' ') \
    Fuzz/MediaTimingFuzzer.swift -o $out/media-fuzzer
swiftc ${flags[*]} -module-name HTTPHeadFuzz $(find Sources/InterstitialServer/HTTP/RequestHead -name '*.swift' | tr '\n' ' ') \
    Fuzz/HTTPHeadFuzzer.swift -o $out/http-fuzzer
COMPILES
link=(-I "$out" -L "$out" -lFuzzCore)
two_at_a_time <<LINKS
swiftc ${flags[*]} -module-name PlaylistFuzz ${link[*]} $(driver Fuzz/PlaylistFuzzer.swift) -o $out/playlist-fuzzer
swiftc ${flags[*]} -module-name AdminFuzz ${link[*]} $(driver Fuzz/AdminFuzzer.swift) -o $out/admin-fuzzer
swiftc ${flags[*]} -module-name SCTE35Fuzz ${link[*]} $(driver Fuzz/SCTE35Fuzzer.swift) -o $out/scte35-fuzzer
swiftc ${flags[*]} -module-name VASTFuzz ${link[*]} $(driver Fuzz/VASTFuzzer.swift) -o $out/vast-fuzzer
swiftc ${flags[*]} -module-name ScheduleFuzz ${link[*]} $(driver Fuzz/ScheduleFuzzer.swift) -o $out/schedule-fuzzer
LINKS
cp Tests/Fixtures/playlists/*.m3u8 Tests/Fixtures/invalid/*.m3u8 Tests/Fixtures/scte35-playlists/literal/*.m3u8 \
    Fuzz/seeds/* Fuzz/corpus-run/
cp Fuzz/admin-seeds/* Fuzz/corpus-admin/
cp Fuzz/schedule-seeds/* Fuzz/corpus-schedule/
cp Fuzz/scte35-seeds/* Fuzz/corpus-scte35/
cp Fuzz/media-seeds/* Fuzz/corpus-media/
cp Fuzz/http-seeds/* Fuzz/corpus-http/
cp Tests/Fixtures/vast/*.xml Tests/Fixtures/vast/follow/*.xml Fuzz/vast-seeds/* Fuzz/corpus-vast/
"$out/playlist-fuzzer" Fuzz/corpus-run -max_total_time="$part" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=Fuzz/
"$out/admin-fuzzer" Fuzz/corpus-admin -max_total_time="$part" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=Fuzz/admin-
"$out/scte35-fuzzer" Fuzz/corpus-scte35 -max_total_time="$part" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=Fuzz/scte35-
"$out/media-fuzzer" Fuzz/corpus-media -max_total_time="$part" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=Fuzz/media-
"$out/http-fuzzer" Fuzz/corpus-http -max_total_time="$part" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=Fuzz/http-
# Leaks are not checked here: swift-corelibs-foundation's XMLParser leaks a string for each error it
# reports (XMLTreeBuilder stops at the first, so one per unreadable document).
ASAN_OPTIONS=detect_leaks=0 "$out/vast-fuzzer" Fuzz/corpus-vast -max_total_time="$part" -max_len=65536 -timeout=10 \
    -rss_limit_mb=2048 -detect_leaks=0 -print_final_stats=1 -artifact_prefix=Fuzz/vast-
"$out/schedule-fuzzer" Fuzz/corpus-schedule -max_total_time="$part" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=Fuzz/schedule-
