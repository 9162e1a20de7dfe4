#!/usr/bin/env bash
# Makes E2E/.cache/hls.mjs: hls.js 1.6.15 as an ES module, taken from the gradio==6.31.0 wheel on PyPI
# (gradio/templates/frontend/assets/hls-*.js, whose Hls class is bound to Cu), with `export{Cu as Hls};`
# appended. Used by the end-to-end tests (a real client) and by Benchmarks/compare-python.sh (a peer
# parser); the toolkit never depends on it at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="E2E/.cache"
mkdir -p "$CACHE"
[ -f "$CACHE/hls.mjs" ] && exit 0
pip download -q --no-deps gradio==6.31.0 -d "$CACHE/wheel"
python3 - "$CACHE" <<'PY'
import glob, sys, zipfile
cache = sys.argv[1]
wheel = glob.glob(f"{cache}/wheel/gradio-6.31.0-*.whl")[0]
with zipfile.ZipFile(wheel) as archive:
    names = [n for n in archive.namelist() if n.startswith("gradio/templates/frontend/assets/hls-") and n.endswith(".js")]
    source = archive.read(names[0]).decode("utf-8")
with open(f"{cache}/hls.mjs", "w", encoding="utf-8") as out:
    out.write(source + "\nexport{Cu as Hls};\n")
PY
