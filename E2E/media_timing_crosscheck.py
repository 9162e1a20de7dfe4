"""Cross-checks our media timing (MediaTiming, through a decoder command) with ffprobe -show_packets.

For every fixture of Tests/Fixtures/media/manifest.json, ffprobe's packets give each track's start
(earliest PTS), duration (last PTS + duration - start), bytes, packet count and whether the first
packet is a key frame; the decoder's JSON (a SegmentTiming, docs/media-timing.md) must agree.

    python3 E2E/media_timing_crosscheck.py --decoder "hlsi media-timing --json"
        # runs: hlsi media-timing --json [--init INIT] FILE   for each fixture
    python3 E2E/media_timing_crosscheck.py --write-expected Tests/Fixtures/media/expected.json
        # (Scripts/make-media-fixtures.sh) writes ffprobe's values for the Swift tests

fMP4 media segments are probed as init + segment concatenated (ffprobe needs the moov); ffprobe
applies edit lists, so our start is presentationStart + editListOffset. Packed audio: ffprobe does not
read the ID3 timestamp, so the expected start is the manifest's id3Timestamp / 90000 + ffprobe's start.
Prints `N passed, N failed` and exits 1 on any mismatch.
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile

KINDS = {"video": "video", "audio": "audio"}
# profile_idc of ffprobe's H.264 profile names, and the MPEG-4 audio object type of its AAC profiles.
AVC_PROFILES = {"Baseline": 66, "Constrained Baseline": 66, "Main": 77, "Extended": 88, "High": 100}
AAC_PROFILES = {"LC": 2, "HE-AAC": 5, "HE-AACv2": 29, "Main": 1}
HEVC_PROFILES = {"Main": 1, "Main 10": 2, "Main Still Picture": 3, "Rext": 4}
# HLS CODECS of codecs without profiles.
CODECS = {"mp3": "mp4a.40.34", "ac3": "ac-3", "eac3": "ec-3"}


def probe(path, init=None, id3_timestamp=None):
    """ffprobe's view of each video and audio track of `path` (after `init`, when given)."""
    target = path
    temporary = None
    if init:
        temporary = tempfile.NamedTemporaryFile(suffix=".mp4", delete=False)
        with open(init, "rb") as head, open(path, "rb") as body:
            temporary.write(head.read() + body.read())
        temporary.close()
        target = temporary.name
    try:
        output = subprocess.run(
            ["ffprobe", "-v", "error", "-show_streams", "-show_packets", "-of", "json", target],
            check=True, capture_output=True, text=True).stdout
    finally:
        if temporary:
            os.unlink(temporary.name)
    data = json.loads(output)
    shift = (id3_timestamp or 0) / 90000
    tracks = []
    for stream in data.get("streams", []):
        kind = KINDS.get(stream.get("codec_type"))
        packets = [p for p in data.get("packets", []) if p["stream_index"] == stream["index"] and "pts" in p]
        if not kind or not packets:
            continue
        num, den = (int(x) for x in stream["time_base"].split("/"))
        first = min(int(p["pts"]) for p in packets)
        end = max(int(p["pts"]) + int(p.get("duration", 0)) for p in packets)
        tracks.append({
            "kind": kind,
            "codecName": stream.get("codec_name"),
            "start": round(first * num / den + shift, 6),
            "decodeStart": round(int(packets[0].get("dts", packets[0]["pts"])) * num / den + shift, 6),
            "duration": round((end - first) * num / den, 6),
            "bytes": sum(int(p["size"]) for p in packets),
            "packets": len(packets),
            "keyFirst": "K" in packets[0]["flags"],
            "profile": stream.get("profile"),
            "level": stream.get("level") if kind == "video" else None,
            "sampleRate": int(stream["sample_rate"]) if "sample_rate" in stream else None,
            "channels": stream.get("channels"),
        })
    return tracks


def cases(fixtures):
    with open(os.path.join(fixtures, "manifest.json"), encoding="utf-8") as f:
        return json.load(f)


def write_expected(path, fixtures):
    result = []
    for case in cases(fixtures):
        init = os.path.join(fixtures, case["init"]) if case.get("init") else None
        tracks = probe(os.path.join(fixtures, case["file"]), init, case.get("id3Timestamp"))
        result.append({**case, "tracks": tracks})
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"generator": "ffprobe -show_streams -show_packets -of json", "cases": result}, f, indent=2)
        f.write("\n")
    print(f"wrote {path}: {len(result)} cases")


def ours(decoder, path, init):
    command = shlex.split(decoder) + (["--init", init] if init else []) + [path]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {run.returncode}: {run.stderr.strip()}")
    return json.loads(run.stdout)


def crosscheck(decoder, fixtures, tolerance):
    passed = failed = 0

    def check(ok, message):
        nonlocal passed, failed
        print(("  ok   " if ok else "  FAIL ") + message, flush=True)
        if ok:
            passed += 1
        else:
            failed += 1

    for case in cases(fixtures):
        init = os.path.join(fixtures, case["init"]) if case.get("init") else None
        path = os.path.join(fixtures, case["file"])
        expected = probe(path, init, case.get("id3Timestamp"))
        try:
            timing = ours(decoder, path, init)
        except (RuntimeError, json.JSONDecodeError) as error:
            check(False, f"{case['name']}: {error}")
            continue
        for kind in ("video", "audio"):
            theirs = [t for t in expected if t["kind"] == kind]
            mine = [t for t in timing["tracks"] if t["kind"] == kind]
            check(len(theirs) == len(mine), f"{case['name']}: {len(mine)} {kind} tracks (ffprobe {len(theirs)})")
            for index, (want, got) in enumerate(zip(theirs, mine)):
                label = f"{case['name']} {kind}[{index}]"
                start = got["presentationStart"]["seconds"] + (got.get("editListOffset") or {}).get("seconds", 0)
                duration = got["duration"]["seconds"]
                check(abs(start - want["start"]) <= tolerance,
                      f"{label} start {start:.6f} (ffprobe {want['start']:.6f})")
                check(abs(duration - want["duration"]) <= tolerance,
                      f"{label} duration {duration:.6f} (ffprobe {want['duration']:.6f})")
                check(got["byteCount"] == want["bytes"], f"{label} bytes {got['byteCount']} (ffprobe {want['bytes']})")
                check(got["sampleCount"] == want["packets"],
                      f"{label} samples {got['sampleCount']} (ffprobe packets {want['packets']})")
                check(got.get("startsWithKeyFrame") == want["keyFirst"],
                      f"{label} starts with a key frame: {got.get('startsWithKeyFrame')} (ffprobe {want['keyFirst']})")
                codec = got.get("codec") or ""
                if want["codecName"] == "h264":
                    profile = AVC_PROFILES.get(want["profile"])
                    check(codec == f"avc1.{profile:02x}" + codec[7:9] + f"{want['level']:02x}" if profile else False,
                          f"{label} codec {codec} (ffprobe {want['profile']} level {want['level']})")
                elif want["codecName"] == "aac":
                    check(codec == "mp4a.40." + str(AAC_PROFILES.get(want["profile"])),
                          f"{label} codec {codec} (ffprobe {want['profile']})")
                elif want["codecName"] == "hevc":
                    parts = codec.split(".")
                    profile = HEVC_PROFILES.get(want["profile"])
                    check(len(parts) >= 4 and parts[0] in ("hvc1", "hev1") and parts[1].lstrip("ABC") == str(profile)
                          and parts[3][1:] == str(want["level"]),
                          f"{label} codec {codec} (ffprobe {want['profile']} level {want['level']})")
                elif want["codecName"] in CODECS:
                    check(codec == CODECS[want["codecName"]], f"{label} codec {codec} (ffprobe {want['codecName']})")
                if want["sampleRate"]:
                    check(got.get("sampleRate") == want["sampleRate"],
                          f"{label} sample rate {got.get('sampleRate')} (ffprobe {want['sampleRate']})")
    print(f"{passed} passed, {failed} failed")
    return failed == 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--decoder", help="command printing our SegmentTiming JSON for [--init INIT] FILE")
    parser.add_argument("--fixtures", default="Tests/Fixtures/media")
    parser.add_argument("--tolerance-ms", type=float, default=1.0)
    parser.add_argument("--write-expected", metavar="PATH")
    args = parser.parse_args()
    if args.write_expected:
        write_expected(args.write_expected, args.fixtures)
        return 0
    if not args.decoder:
        parser.error("--decoder or --write-expected is required")
    return 0 if crosscheck(args.decoder, args.fixtures, args.tolerance_ms / 1000) else 1


if __name__ == "__main__":
    sys.exit(main())
