#!/usr/bin/env python3
"""Cross-checks our SCTE 35 decoder against threefive (PyPI), an independent decoder.

Every section of the corpus (Tests/Fixtures/scte35/ours/*.hex, made by our encoder, and
Tests/Fixtures/scte35/threefive/*.b64, made by threefive's encoder) is decoded by threefive and by our
decoder; the fields that matter (header, command, descriptors, segmentation fields, UPID bytes and text)
are compared after normalising both to one shape (times in 90 kHz ticks, UPIDs as bytes).

Usage:
  E2E/scte35_crosscheck.py --decoder "CMD ARGS"   # CMD ARGS SECTION must print our JSON (docs/scte35.md)
  E2E/scte35_crosscheck.py --write-threefive-corpus   # (re)writes Tests/Fixtures/scte35/threefive/
Prints one line per mismatch and "N passed, N failed"; exits non-zero on any failure.
Installs threefive with pip when it is missing.
"""
import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "Tests" / "Fixtures" / "scte35"

try:
    import threefive
except ImportError:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "threefive"], check=True)
    import threefive

from threefive import (  # noqa: E402
    BandwidthReservation,
    Cue,
    DtmfDescriptor,
    PrivateCommand,
    SegmentationDescriptor,
    SpliceInsert,
    SpliceNull,
    TimeDescriptor,
    TimeSignal,
    AvailDescriptor,
)
from threefive.segmentation import table20  # noqa: E402

TEXT_UPIDS = {0x01, 0x02, 0x03, 0x07, 0x09, 0x0E, 0x0F, 0x11}


def ticks(seconds):
    return None if seconds is None else round(float(seconds) * 90000)


def number(value):
    """threefive writes some integers as hex strings ('0xfc')."""
    if isinstance(value, str):
        return int(value, 16)
    return value


# ---- threefive's encoder: the threefive/ half of the corpus ----------------------------------------


def segmentation(event_id, type_id, duration=None, upid_type=0, upid_length=0, upid="", restrictions=None,
                 segment_num=0, segments_expected=0, sub=None, cancel=False):
    d = SegmentationDescriptor()
    d.segmentation_event_id = hex(event_id)
    d.segmentation_event_cancel_indicator = cancel
    d.segmentation_event_id_compliance_indicator = True
    if cancel:
        return d
    d.program_segmentation_flag = True
    d.segmentation_duration_flag = duration is not None
    d.segmentation_duration = duration
    d.delivery_not_restricted_flag = restrictions is None
    if restrictions is not None:
        d.web_delivery_allowed_flag, d.no_regional_blackout_flag, d.archive_allowed_flag, device = restrictions
        d.device_restrictions = table20[device]
    d.segmentation_upid_type = upid_type
    d.segmentation_upid_length = upid_length
    d.segmentation_upid = upid
    d.segmentation_type_id = type_id
    d.segment_num = segment_num
    d.segments_expected = segments_expected
    if sub is not None:
        d.sub_segment_num, d.sub_segments_expected = sub
    return d


def time_signal(pts=None):
    command = TimeSignal()
    command.time_specified_flag = pts is not None
    command.pts_time = pts
    return command


def splice_insert(event_id, out=True, pts=None, duration=None, auto_return=True, cancel=False, program_id=0,
                  avail=(0, 0)):
    command = SpliceInsert()
    command.splice_event_id = event_id
    command.splice_event_cancel_indicator = cancel
    command.event_id_compliance_flag = True
    if not cancel:
        command.out_of_network_indicator = out
        command.program_splice_flag = True
        command.duration_flag = duration is not None
        command.splice_immediate_flag = pts is None
        command.time_specified_flag = pts is not None
        command.pts_time = pts
        command.break_auto_return = auto_return
        command.break_duration = duration
        command.unique_program_id = program_id
        command.avail_num, command.avails_expected = avail
    return command


def cue(command, descriptors=(), pts_adjustment=0.0):
    section = Cue()
    section.command = command
    section.info_section.pts_adjustment = pts_adjustment
    for descriptor in descriptors:
        section.descriptors.append(descriptor)
    return section.encode()


def threefive_corpus():
    avail = AvailDescriptor()
    avail.provider_avail_id = 309
    dtmf = DtmfDescriptor()
    dtmf.preroll = 177
    dtmf.dtmf_count = 4
    dtmf.dtmf_chars = list("1210")
    tai = TimeDescriptor()
    tai.tai_seconds = 1_700_000_000
    tai.tai_ns = 123456
    tai.utc_offset = 37
    private = PrivateCommand()
    private.identifier = 0x43554549
    private.private_bytes = b"\x01\x02\x03"
    mid = [
        {"upid_type": 3, "upid_length": 12, "segmentation_upid": "ABCD0123456H"},
        {"upid_type": 0x0F, "upid_length": 21, "segmentation_upid": "https://example.com/1"},
    ]
    atsc = {"TSID": 241, "reserved": 3, "end_of_day": 23, "unique_for": 511, "content_id": "human012"}
    mpu = {"format_identifier": "RTLN", "private_data": "0x3148010000000031333736"}
    return {
        "splice-null": cue(SpliceNull()),
        "time-signal-no-time": cue(time_signal()),
        "insert-out-avail": cue(splice_insert(0x4800008F, pts=21514.559089, duration=60.293567), [avail]),
        "insert-in-immediate": cue(splice_insert(7, out=False)),
        "insert-cancel": cue(splice_insert(8, cancel=True)),
        "insert-out-adjusted": cue(splice_insert(9, pts=100.0, duration=30.0, program_id=12, avail=(1, 2)),
                                   pts_adjustment=1.5),
        "break-start": cue(time_signal(1000.0), [segmentation(1, 0x22, duration=30.0)]),
        "break-end": cue(time_signal(1030.0), [segmentation(1, 0x23)]),
        "ppo-start-adid": cue(time_signal(12.5), [segmentation(0x4800008E, 0x34, 30.0, 3, 12, "ABCD0123456H",
                                                                segment_num=1, segments_expected=1, sub=(1, 2))]),
        "ppo-end-uri": cue(time_signal(42.5), [segmentation(0x4800008E, 0x35, None, 0x0F, 24,
                                                             "urn:example:placement:01")]),
        # threefive reads a UMID's first 28 bytes only (3.1.5), so its encoder cannot make one: ISAN here.
        "ad-start-isan-restricted": cue(time_signal(7.0), [segmentation(3, 0x30, 15.0, 6, 12, "0x0000000036a50000000000aa",
                                                                        restrictions=(False, True, True, 2))]),
        "program-start-airing-id": cue(time_signal(1.0), [segmentation(4, 0x10, None, 8, 8, "0x2cb2d79d")]),
        "chapter-start-eidr": cue(time_signal(2.0), [segmentation(5, 0x20, 600.0, 0x0A, 12,
                                                                  "14780e4f0b72a4d917a70d4c", segment_num=1,
                                                                  segments_expected=3)]),
        "distributor-ad-end-mid": cue(time_signal(3.0), [segmentation(6, 0x33, None, 0x0D, 37, mid)]),
        "program-end-atsc": cue(time_signal(4.0), [segmentation(7, 0x11, None, 0x0B, 12, atsc)]),
        "break-start-mpu": cue(time_signal(5.0), [segmentation(8, 0x22, 60.0, 0x0C, 16, mpu)]),
        "segmentation-cancel": cue(time_signal(6.0), [segmentation(9, 0x22, cancel=True)]),
        "null-dtmf-time": cue(SpliceNull(), [dtmf, tai]),
        "private-command": cue(private),
        "bandwidth-reservation": cue(BandwidthReservation()),
    }


# ---- normalising both decoders' output to one shape ------------------------------------------------


def upid_bytes_threefive(upid_type, length, value):
    if upid_type == 0 or length == 0:
        return b""
    if upid_type in TEXT_UPIDS or upid_type == 0x10:
        return value.encode("latin-1") if isinstance(value, str) else bytes(value)
    if upid_type == 0x04:
        return bytes.fromhex(value.replace(".", ""))
    if upid_type in (0x05, 0x06, 0x08):
        return int(value, 16).to_bytes(length, "big")
    if upid_type == 0x0A:
        return int(value[:6], 16).to_bytes(2, "big") + bytes.fromhex(value[6:])
    if upid_type == 0x0B:
        packed = (value["reserved"] << 14) | (value["end_of_day"] << 9) | value["unique_for"]
        return value["TSID"].to_bytes(2, "big") + packed.to_bytes(2, "big") + value["content_id"].encode("latin-1")
    if upid_type == 0x0C:
        return value["format_identifier"].encode() + int(value["private_data"], 16).to_bytes(length - 4, "big")
    if upid_type == 0x0D:
        out = b""
        for entry in value:
            inner = upid_bytes_threefive(entry["upid_type"], entry["upid_length"], entry["segmentation_upid"])
            out += bytes([entry["upid_type"], entry["upid_length"]]) + inner
        return out
    return value.encode("latin-1") if isinstance(value, str) else bytes(value)


def from_threefive(text):
    section = Cue(text)
    if section.decode() is False:
        raise ValueError("threefive could not decode it")
    data = section.get()
    info = data["info_section"]
    result = {
        "table_id": number(info["table_id"]),
        "section_syntax_indicator": info["section_syntax_indicator"],
        "private_indicator": info["private"],
        "sap_type": number(info["sap_type"]),
        "section_length": info["section_length"],
        "protocol_version": info["protocol_version"],
        "encrypted_packet": info["encrypted_packet"],
        "encryption_algorithm": info["encryption_algorithm"],
        "pts_adjustment": ticks(info["pts_adjustment"]),
        "cw_index": number(info["cw_index"]),
        "tier": number(info["tier"]),
        "splice_command_length": info["splice_command_length"],
        "splice_command_type": info["splice_command_type"],
        "descriptor_loop_length": info["descriptor_loop_length"],
        "crc_32": number(info["crc"]),
    }
    command = data["command"]
    kind = info["splice_command_type"]
    fields = {}
    if kind == 6:
        fields = {"time_specified_flag": command["time_specified_flag"], "pts_time": ticks(command.get("pts_time"))}
    elif kind == 5:
        fields = {"splice_event_id": command["splice_event_id"],
                  "splice_event_cancel_indicator": command["splice_event_cancel_indicator"]}
        if not command["splice_event_cancel_indicator"]:
            fields.update({key: command[key] for key in (
                "out_of_network_indicator", "program_splice_flag", "duration_flag", "splice_immediate_flag",
                "event_id_compliance_flag", "unique_program_id", "avail_num", "avails_expected")})
            if command["program_splice_flag"] and not command["splice_immediate_flag"]:
                fields["time_specified_flag"] = command["time_specified_flag"]
                fields["pts_time"] = ticks(command.get("pts_time"))
            if command["duration_flag"]:
                fields["auto_return"] = command["break_auto_return"]
                fields["duration"] = ticks(command["break_duration"])
    elif kind == 255:
        fields = {"identifier": command["identifier"]}
    result["command"] = fields
    result["descriptors"] = [descriptor_threefive(d) for d in data.get("descriptors", [])]
    return result


def descriptor_threefive(d):
    out = {"tag": d["tag"], "descriptor_length": d["descriptor_length"], "identifier": d["identifier"]}
    tag = d["tag"]
    if tag == 0:
        out["provider_avail_id"] = d["provider_avail_id"]
    elif tag == 1:
        out.update(preroll=d["preroll"], dtmf_count=d["dtmf_count"], dtmf_chars="".join(d["dtmf_chars"]))
    elif tag == 3:
        out.update(tai_seconds=d["tai_seconds"], tai_ns=d["tai_ns"], utc_offset=d["utc_offset"])
    elif tag == 2:
        out.update(segmentation_event_id=number(d["segmentation_event_id"]),
                   cancel=d["segmentation_event_cancel_indicator"],
                   compliance=d["segmentation_event_id_compliance_indicator"])
        if not d["segmentation_event_cancel_indicator"]:
            out.update(program_segmentation_flag=d["program_segmentation_flag"],
                       segmentation_duration_flag=d["segmentation_duration_flag"],
                       delivery_not_restricted_flag=d["delivery_not_restricted_flag"],
                       segmentation_duration=ticks(d.get("segmentation_duration")),
                       upid_type=d["segmentation_upid_type"], upid_length=d["segmentation_upid_length"],
                       upid=upid_bytes_threefive(d["segmentation_upid_type"], d["segmentation_upid_length"],
                                                 d["segmentation_upid"]).hex(),
                       segmentation_type_id=d["segmentation_type_id"], segment_num=d["segment_num"],
                       segments_expected=d["segments_expected"], sub_segment_num=d.get("sub_segment_num"),
                       sub_segments_expected=d.get("sub_segments_expected"))
            if d["segmentation_upid_type"] in TEXT_UPIDS:
                out["upid_text"] = d["segmentation_upid"]
            if not d["delivery_not_restricted_flag"]:
                device = {v: k for k, v in table20.items()}[d["device_restrictions"]]
                out.update(web_delivery_allowed_flag=d["web_delivery_allowed_flag"],
                           no_regional_blackout_flag=d["no_regional_blackout_flag"],
                           archive_allowed_flag=d["archive_allowed_flag"], device_restrictions=device)
    return out


def from_ours(data):
    result = {key: data[key] for key in (
        "table_id", "section_syntax_indicator", "private_indicator", "sap_type", "section_length",
        "protocol_version", "encrypted_packet", "encryption_algorithm", "pts_adjustment", "cw_index", "tier",
        "splice_command_length", "splice_command_type", "descriptor_loop_length")}
    result["crc_32"] = data["CRC_32"]
    command = data["splice_command"]
    kind = data["splice_command_type"]
    fields = {}
    if kind == 6:
        fields = {"time_specified_flag": command["time_specified_flag"], "pts_time": command.get("pts_time")}
    elif kind == 5:
        fields = {"splice_event_id": command["splice_event_id"],
                  "splice_event_cancel_indicator": command["splice_event_cancel_indicator"]}
        if not command["splice_event_cancel_indicator"]:
            fields.update({key: command[key] for key in (
                "out_of_network_indicator", "program_splice_flag", "duration_flag", "splice_immediate_flag",
                "event_id_compliance_flag", "unique_program_id", "avail_num", "avails_expected")})
            if "splice_time" in command:
                fields["time_specified_flag"] = command["splice_time"]["time_specified_flag"]
                fields["pts_time"] = command["splice_time"].get("pts_time")
            if "break_duration" in command:
                fields["auto_return"] = command["break_duration"]["auto_return"]
                fields["duration"] = command["break_duration"]["duration"]
    elif kind == 255:
        fields = {"identifier": command["identifier"]}
    result["command"] = fields
    result["descriptors"] = [descriptor_ours(d) for d in data["splice_descriptors"]]
    return result


def descriptor_ours(d):
    out = {"tag": d["splice_descriptor_tag"], "descriptor_length": d["descriptor_length"],
           "identifier": d["identifier_text"]}
    tag = d["splice_descriptor_tag"]
    if tag == 0:
        out["provider_avail_id"] = d["provider_avail_id"]
    elif tag == 1:
        out.update(preroll=d["preroll"], dtmf_count=d["dtmf_count"], dtmf_chars=d["DTMF_char"])
    elif tag == 3:
        out.update(tai_seconds=d["TAI_seconds"], tai_ns=d["TAI_ns"], utc_offset=d["UTC_offset"])
    elif tag == 2:
        out.update(segmentation_event_id=d["segmentation_event_id"],
                   cancel=d["segmentation_event_cancel_indicator"],
                   compliance=d["segmentation_event_id_compliance_indicator"])
        if not d["segmentation_event_cancel_indicator"]:
            out.update(program_segmentation_flag=d["program_segmentation_flag"],
                       segmentation_duration_flag=d["segmentation_duration_flag"],
                       delivery_not_restricted_flag=d["delivery_not_restricted_flag"],
                       segmentation_duration=d.get("segmentation_duration"),
                       upid_type=d["segmentation_upid_type"], upid_length=d["segmentation_upid_length"],
                       upid=d["segmentation_upid_bytes"], segmentation_type_id=d["segmentation_type_id"],
                       segment_num=d["segment_num"], segments_expected=d["segments_expected"],
                       sub_segment_num=d.get("sub_segment_num"), sub_segments_expected=d.get("sub_segments_expected"))
            if d["segmentation_upid_type"] in TEXT_UPIDS:
                out["upid_text"] = d["segmentation_upid"]
            if not d["delivery_not_restricted_flag"]:
                out.update(web_delivery_allowed_flag=d["web_delivery_allowed_flag"],
                           no_regional_blackout_flag=d["no_regional_blackout_flag"],
                           archive_allowed_flag=d["archive_allowed_flag"],
                           device_restrictions=d["device_restrictions"])
    return out


def differences(ours, theirs, path=""):
    if isinstance(ours, dict) and isinstance(theirs, dict):
        found = []
        for key in sorted(set(ours) | set(theirs)):
            found += differences(ours.get(key), theirs.get(key), f"{path}.{key}" if path else key)
        return found
    if isinstance(ours, list) and isinstance(theirs, list):
        if len(ours) != len(theirs):
            return [f"{path}: {len(ours)} items here, {len(theirs)} in threefive"]
        found = []
        for index, (a, b) in enumerate(zip(ours, theirs)):
            found += differences(a, b, f"{path}[{index}]")
        return found
    return [] if ours == theirs else [f"{path}: ours {ours!r}, threefive {theirs!r}"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--decoder", help="command printing our JSON for the section given as its last argument")
    parser.add_argument("--corpus", default=str(CORPUS))
    parser.add_argument("--write-threefive-corpus", action="store_true")
    args = parser.parse_args()
    corpus = Path(args.corpus)
    if args.write_threefive_corpus:
        folder = corpus / "threefive"
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in threefive_corpus().items():
            (folder / f"{name}.b64").write_text(text + "\n")
        print(f"wrote {len(threefive_corpus())} sections to {folder}")
        return 0
    if not args.decoder:
        parser.error("--decoder is required")
    files = sorted(corpus.glob("ours/*.hex")) + sorted(corpus.glob("threefive/*.b64"))
    passed = failed = 0
    for path in files:
        text = path.read_text().strip()
        name = path.relative_to(corpus)
        run = subprocess.run(shlex.split(args.decoder) + [text], capture_output=True, text=True)
        try:
            ours = from_ours(json.loads(run.stdout))
            theirs = from_threefive(text)
        except Exception as error:  # a crash or an unreadable answer is a failure of this section
            print(f"FAIL {name}: {type(error).__name__}: {error} {run.stderr.strip()}")
            failed += 1
            continue
        found = differences(ours, theirs)
        if found or run.returncode != 0:
            failed += 1
            for line in found or [f"decoder exited {run.returncode}"]:
                print(f"FAIL {name}: {line}")
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not files else 0


if __name__ == "__main__":
    sys.exit(main())
