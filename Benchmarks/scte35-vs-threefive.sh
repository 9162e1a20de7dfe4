#!/usr/bin/env bash
# Decodes a typical ~50-byte SCTE-35 section and the committed corpus (Tests/Fixtures/scte35) with
# our SCTE35 library and with threefive, both in-process (a timed loop; Python's timeit), in one
# run, and prints the ratios. Then the in-process benchmark target, unless --no-benchmark.
set -euo pipefail
cd "$(dirname "$0")"
python3 -c "import threefive" 2>/dev/null || python3 -m pip install -q threefive
THREEFIVE_VERSION="$(python3 -c 'import importlib.metadata as m; print(m.version("threefive"))')" \
    swift run -c release compare-threefive ../Tests/Fixtures/scte35
if [ "${1:-}" != "--no-benchmark" ]; then
    swift package --allow-writing-to-package-directory benchmark --target SCTE35Benchmarks
fi
