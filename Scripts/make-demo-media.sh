#!/usr/bin/env bash
# Makes the demo media that `hlsi serve --demo` serves (committed under
# Sources/InterstitialServer/Resources/demo; run once, again only to change it).
# Primary: 40 s of H.264 video with two AAC audio renditions (English, French), fMP4 HLS, 2 s segments.
# Ads: three distinct 4-6 s H.264/AAC fMP4 HLS presentations with the same audio renditions.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=Sources/InterstitialServer/Resources/demo
rm -rf "$OUT/primary" "$OUT/ads"
mkdir -p "$OUT/primary" "$OUT/ads"

FONT=/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf
# No B-frames: the first video frame is presented at 0, not one reorder delay later.
VIDEO=(-c:v libx264 -profile:v main -bf 0 -preset veryfast -pix_fmt yuv420p -b:v 180k -maxrate 220k -bufsize 440k
       -g 50 -keyint_min 50 -sc_threshold 0)
# The AAC encoder's priming frame (1024 samples) would start audio at -21 ms, and the muxer would then
# shift video to +21 ms (or audio to +58 ms behind B-frames): feeding audio 1024 samples late puts the
# priming frame at 0, so audio and video both start at exactly 0 (no "buffer holes" at an ad's start).
AUDIO=(-c:a aac -b:a 48k -ac 1 -ar 48000 -filter:a "asetpts=PTS+1024/(SR*TB)")
HLS=(-f hls -hls_time 2 -hls_playlist_type vod -hls_segment_type fmp4 -hls_flags independent_segments
     -master_pl_name master.m3u8 -hls_fmp4_init_filename init.mp4
     -var_stream_map "v:0,agroup:audio,name:video a:0,agroup:audio,language:en,name:audio-en,default:yes a:1,agroup:audio,language:fr,name:audio-fr")

# encode DIR SECONDS VIDEO_SOURCE LABEL TONE_EN TONE_FR
encode() {
    local dir=$1 seconds=$2 source=$3 label=$4 tone_en=$5 tone_fr=$6
    mkdir -p "$dir"
    ffmpeg -loglevel error -y \
        -f lavfi -i "${source}size=320x180:rate=25,drawtext=fontfile=$FONT:text='$label':fontsize=28:fontcolor=white:box=1:boxcolor=black@0.6:x=12:y=12" \
        -f lavfi -i "sine=frequency=$tone_en:sample_rate=48000:beep_factor=4" \
        -f lavfi -i "sine=frequency=$tone_fr:sample_rate=48000:beep_factor=2" \
        -t "$seconds" -map 0:v -map 1:a -map 2:a "${VIDEO[@]}" "${AUDIO[@]}" \
        -metadata:s:a:0 language=eng -metadata:s:a:1 language=fre "${HLS[@]}" \
        -hls_segment_filename "$dir/%v/seg%03d.m4s" "$dir/%v/main.m3u8"
    # ffmpeg writes the variant playlists as %v/main.m3u8 and the master at the top.
}

encode "$OUT/primary" 40 testsrc2= "PRIMARY %{pts\\:hms}" 440 550
encode "$OUT/ads/ad1" 6 smptebars= "AD 1 - %{pts\\:hms}" 660 770
encode "$OUT/ads/ad2" 4 rgbtestsrc= "AD 2 - %{pts\\:hms}" 880 990
encode "$OUT/ads/ad3" 6 "color=c=0x7030a0:" "AD 3 - %{pts\\:hms}" 330 360
# Check: every rendition of every presentation starts at 0.
for init in "$OUT"/*/init_*.mp4 "$OUT"/*/*/init_*.mp4 "$OUT"/*/*/*/init_*.mp4; do
    [ -f "$init" ] || continue
    dir=$(dirname "$init")
    start=$(cat "$init" "$dir/seg000.m4s" | ffprobe -v error -show_entries packet=pts_time -of csv=p=0 - | sort -g | head -1)
    [ "$start" = "0.000000" ] || { echo "error: $dir starts at $start s, not 0" >&2; exit 1; }
done
du -sh "$OUT"
