#!/usr/bin/env bash
# Makes the media fixtures of the MediaTiming tests (committed under Tests/Fixtures/media; run once,
# again only to change them) and their expected values, read with ffprobe -show_packets.
# - fmp4-muxed/: H.264 + AAC in one fMP4 rendition (init.mp4 + 2 segments of 2 s), the audio
#   starting 80 ms after the video (-itsoffset 0.08);
# - fmp4-separate/video, fmp4-separate/audio: the same as two renditions;
# - ts/: H.264 + AAC MPEG-TS segments (2 of 2 s);
# - ts-cut/seg.ts: a TS cut 1 s into a 2 s GOP, so it starts without a key frame;
# - packed/audio.aac: ADTS AAC preceded by an ID3 tag with the HLS transportStreamTimestamp PRIV frame;
# - packed/audio.mp3: MP3 (MPEG-1 layer III) with the same kind of ID3 tag;
# - fmp4-hevc/: HEVC (hvc1) + E-AC-3 fMP4 (init.mp4 + 1 segment); ts-hevc/seg.ts: HEVC + AC-3 MPEG-TS;
# - packed/audio.ac3: AC-3 with the ID3 tag;
# - mp4/whole.mp4: a self-contained (not fragmented) H.264 + AAC MP4 of 1 s, read from its sample tables.
# expected.json: per fixture and track, ffprobe's start, duration, bytes, packets and first key flag
# (written by E2E/media_timing_crosscheck.py --write-expected).
# Needs ffmpeg (apt-get install -y ffmpeg) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=Tests/Fixtures/media
rm -rf "$OUT"
mkdir -p "$OUT"/{fmp4-muxed,fmp4-separate,fmp4-hevc,ts,ts-cut,ts-hevc,packed,mp4}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

VIDEO_SOURCE=(-f lavfi -i "testsrc2=size=160x90:rate=25")
TONE=(-f lavfi -i "sine=frequency=440:sample_rate=48000")
VIDEO=(-c:v libx264 -profile:v main -preset veryfast -pix_fmt yuv420p -b:v 60k -g 50 -keyint_min 50 -sc_threshold 0)
AUDIO=(-c:a aac -b:a 24k -ac 1)
FMP4=(-f hls -hls_time 2 -hls_playlist_type vod -hls_segment_type fmp4 -hls_fmp4_init_filename init.mp4)
FF=(ffmpeg -loglevel error -y -fflags +bitexact)

# fMP4, muxed: audio delayed by 80 ms.
"${FF[@]}" "${VIDEO_SOURCE[@]}" -itsoffset 0.08 "${TONE[@]}" -t 4 -map 0:v -map 1:a "${VIDEO[@]}" "${AUDIO[@]}" \
    "${FMP4[@]}" -hls_segment_filename "$OUT/fmp4-muxed/seg%d.m4s" "$TMP/muxed.m3u8"
mv "$TMP/init.mp4" "$OUT/fmp4-muxed/init.mp4"

# fMP4, separate renditions: the same, one rendition per track.
"${FF[@]}" "${VIDEO_SOURCE[@]}" -itsoffset 0.08 "${TONE[@]}" -t 4 -map 0:v -map 1:a "${VIDEO[@]}" "${AUDIO[@]}" \
    "${FMP4[@]}" -var_stream_map "v:0,name:video a:0,name:audio" \
    -hls_segment_filename "$OUT/fmp4-separate/%v/seg%d.m4s" "$OUT/fmp4-separate/%v/main.m3u8"

# MPEG-TS, H.264 + AAC.
"${FF[@]}" "${VIDEO_SOURCE[@]}" "${TONE[@]}" -t 4 -map 0:v -map 1:a "${VIDEO[@]}" "${AUDIO[@]}" \
    -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_filename "$OUT/ts/seg%d.ts" "$TMP/ts.m3u8"

# MPEG-TS cut 1 s into its first GOP, keeping the non-key frames there (-copyinkf).
"${FF[@]}" "${VIDEO_SOURCE[@]}" "${TONE[@]}" -t 4 -map 0:v -map 1:a "${VIDEO[@]}" "${AUDIO[@]}" -f mpegts "$TMP/long.ts"
"${FF[@]}" -i "$TMP/long.ts" -ss 1.0 -t 1.0 -c copy -copyinkf -f mpegts "$OUT/ts-cut/seg.ts"

# HEVC with Dolby audio: E-AC-3 in fMP4, AC-3 in MPEG-TS (2 s, one segment each).
HEVC=(-c:v libx265 -tag:v hvc1 -preset veryfast -pix_fmt yuv420p -b:v 40k
      -x265-params "log-level=error:keyint=50:min-keyint=50:scenecut=0")
"${FF[@]}" "${VIDEO_SOURCE[@]}" "${TONE[@]}" -t 2 -map 0:v -map 1:a "${HEVC[@]}" -c:a eac3 -b:a 64k -ac 1 \
    "${FMP4[@]}" -hls_segment_filename "$OUT/fmp4-hevc/seg%d.m4s" "$TMP/hevc.m3u8"
mv "$TMP/init.mp4" "$OUT/fmp4-hevc/init.mp4"
"${FF[@]}" "${VIDEO_SOURCE[@]}" "${TONE[@]}" -t 2 -map 0:v -map 1:a "${HEVC[@]}" -c:a ac3 -b:a 64k -ac 1 \
    -f mpegts "$OUT/ts-hevc/seg.ts"

# A self-contained MP4.
"${FF[@]}" "${VIDEO_SOURCE[@]}" "${TONE[@]}" -t 1 -map 0:v -map 1:a "${VIDEO[@]}" "${AUDIO[@]}" -f mp4 \
    "$OUT/mp4/whole.mp4"

# Packed audio: ADTS AAC and MP3, each after an ID3v2.4 tag whose PRIV frame
# com.apple.streaming.transportStreamTimestamp holds the 33-bit PTS 10 s (900000 at 90 kHz).
"${FF[@]}" -f lavfi -i "sine=frequency=440:sample_rate=44100" -t 2 -c:a aac -b:a 24k -ac 1 -f adts "$TMP/audio.aac"
"${FF[@]}" -f lavfi -i "sine=frequency=440:sample_rate=44100" -t 2 -c:a libmp3lame -b:a 32k -ac 1 \
    -write_xing 0 -id3v2_version 0 -f mp3 "$TMP/audio.mp3"
"${FF[@]}" -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 1 -c:a ac3 -b:a 64k -ac 1 -f ac3 "$TMP/audio.ac3"
python3 - "$TMP" "$OUT/packed" 900000 <<'PY'
import struct, sys
tmp, out, pts = sys.argv[1], sys.argv[2], int(sys.argv[3])
def syncsafe(n):
    return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])
body = b"com.apple.streaming.transportStreamTimestamp\x00" + struct.pack(">Q", pts & ((1 << 33) - 1))
frame = b"PRIV" + syncsafe(len(body)) + b"\x00\x00" + body
tag = b"ID3\x04\x00\x00" + syncsafe(len(frame)) + frame
for name in ("audio.aac", "audio.mp3", "audio.ac3"):
    with open(f"{tmp}/{name}", "rb") as source, open(f"{out}/{name}", "wb") as target:
        target.write(tag + source.read())
PY

cat > "$OUT/manifest.json" <<'JSON'
[
  {"name": "fmp4-muxed-seg0", "file": "fmp4-muxed/seg0.m4s", "init": "fmp4-muxed/init.mp4"},
  {"name": "fmp4-muxed-seg1", "file": "fmp4-muxed/seg1.m4s", "init": "fmp4-muxed/init.mp4"},
  {"name": "fmp4-video-seg0", "file": "fmp4-separate/video/seg0.m4s", "init": "fmp4-separate/video/init.mp4"},
  {"name": "fmp4-video-seg1", "file": "fmp4-separate/video/seg1.m4s", "init": "fmp4-separate/video/init.mp4"},
  {"name": "fmp4-audio-seg0", "file": "fmp4-separate/audio/seg0.m4s", "init": "fmp4-separate/audio/init.mp4"},
  {"name": "fmp4-audio-seg1", "file": "fmp4-separate/audio/seg1.m4s", "init": "fmp4-separate/audio/init.mp4"},
  {"name": "ts-seg0", "file": "ts/seg0.ts"},
  {"name": "ts-seg1", "file": "ts/seg1.ts"},
  {"name": "ts-cut", "file": "ts-cut/seg.ts"},
  {"name": "packed-aac", "file": "packed/audio.aac", "id3Timestamp": 900000},
  {"name": "packed-mp3", "file": "packed/audio.mp3", "id3Timestamp": 900000},
  {"name": "packed-ac3", "file": "packed/audio.ac3", "id3Timestamp": 900000},
  {"name": "fmp4-hevc-seg0", "file": "fmp4-hevc/seg0.m4s", "init": "fmp4-hevc/init.mp4"},
  {"name": "ts-hevc", "file": "ts-hevc/seg.ts"},
  {"name": "mp4-whole", "file": "mp4/whole.mp4"}
]
JSON
rm -f "$OUT"/fmp4-separate/*/main.m3u8
# With a variant map ffmpeg names the initialization segments init_0.mp4, init_1.mp4.
mv "$OUT/fmp4-separate/video/init_0.mp4" "$OUT/fmp4-separate/video/init.mp4"
mv "$OUT/fmp4-separate/audio/init_1.mp4" "$OUT/fmp4-separate/audio/init.mp4"
python3 E2E/media_timing_crosscheck.py --write-expected "$OUT/expected.json" --fixtures "$OUT"
du -sh "$OUT"
