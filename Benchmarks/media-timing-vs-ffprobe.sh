#!/usr/bin/env bash
# Times MediaTiming against `ffprobe -show_packets` on the same 6 s, 5 Mbit/s segments (fMP4 with
# its init segment, and MPEG-TS) made here by ffmpeg, in one run; prints each ratio (goal: ≥ 20×).
# Ours runs in-process (the whole parse of a segment); ffprobe runs as a process, as tools run it.
# Then the in-process benchmark target (ordo-one/benchmark) on the same files, unless --no-benchmark.
set -euo pipefail
cd "$(dirname "$0")"
dir="${HLSI_MEDIA_BENCH_DIR:-${TMPDIR:-/tmp}/hlsi-media-bench}"
mkdir -p "$dir"
if [ ! -f "$dir/segment-6s-5mbps.ts" ] || [ ! -f "$dir/segment-6s-5mbps.mp4" ]; then
    source=(-f lavfi -i "testsrc2=size=1280x720:rate=30,noise=alls=12:allf=t" -f lavfi -i "sine=frequency=440:sample_rate=48000"
        -t 6 -c:v libx264 -preset veryfast -b:v 5M -minrate 5M -maxrate 5M -bufsize 5M -x264-params nal-hrd=cbr -g 60
        -c:a aac -b:a 128k)
    ffmpeg -v error -y "${source[@]}" -f mpegts "$dir/segment-6s-5mbps.ts"
    ffmpeg -v error -y "${source[@]}" -f hls -hls_time 6 -hls_segment_type fmp4 -hls_playlist_type vod \
        -hls_fmp4_init_filename init.mp4 -hls_segment_filename "$dir/fmp4-%d.m4s" "$dir/fmp4.m3u8"
    # One file holding the init segment and the 6 s media segment: both tools read the same bytes.
    cat "$dir/init.mp4" "$dir/fmp4-0.m4s" > "$dir/segment-6s-5mbps.mp4"
fi
swift run -c release compare-ffprobe "$dir/segment-6s-5mbps.mp4" "$dir/segment-6s-5mbps.ts"
if [ "${1:-}" != "--no-benchmark" ]; then
    HLSI_MEDIA_BENCH_DIR="$dir" swift package --allow-writing-to-package-directory benchmark --target MediaTimingBenchmarks
fi
