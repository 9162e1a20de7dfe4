#!/usr/bin/env bash
# Builds the DocC documentation of every library module, with docc's warnings as errors: a broken
# symbol link, an undocumented parameter or a bad article fails the build.
#
# The symbol graphs come from `swift package dump-symbol-graph` on the debug build. Given the same
# compiler flags as `.ci/run`'s build (-warnings-as-errors, passed here too), SwiftPM reuses that
# build: none of this package's modules is compiled again (Hummingbird may be, as after any new
# SwiftPM run: SwiftPM 6.3 writes its trait defines in a different order from run to run).
# `docc` (part of the Swift toolchain) then converts each catalog Sources/<Module>/<Module>.docc.
# No network and no extra package: swift-docc-plugin would add two dependencies (itself and
# swift-docc-symbolkit) to every user's package graph, and took about twice as long here.
#
# Output: one archive per module in $DOCS_OUTPUT (default .build/docs), each ready for static
# hosting: `python3 -m http.server -d .build/docs/HLSPlaylist.doccarchive` and open
# http://127.0.0.1:8000/documentation/hlsplaylist. Or preview one module while editing:
# `docc preview Sources/HLSPlaylist/HLSPlaylist.docc --additional-symbol-graph-dir <its graphs>`.
#
# Usage: Scripts/build-docs.sh [Module...]   (default: every library module)
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(
    HLSPlaylist HLSInterstitials HLSLoading MediaTiming MediaValidation SCTE35 AdDecisioning
    PlaybackCoordination PlaybackEngine InterstitialPlayback InterstitialServer
)
[ $# -gt 0 ] && modules=("$@")
output="${DOCS_OUTPUT:-.build/docs}"

command -v docc >/dev/null || { echo "build-docs: docc is not on PATH (it comes with the Swift toolchain)"; exit 1; }
# (Not `swift build --show-bin-path` to find them: with these flags it makes the next build recompile
# some dependencies.)
graphs=$(swift package -Xswiftc -warnings-as-errors dump-symbol-graph --minimum-access-level public \
    --emit-extension-block-symbols |
    sed -n 's/^Files written to //p')
[ -d "$graphs" ] || { echo "build-docs: no symbol graphs (dump-symbol-graph printed no directory)"; exit 1; }

mkdir -p "$output"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=()
for module in "${modules[@]}"; do
    catalog="Sources/$module/$module.docc"
    [ -d "$catalog" ] || { echo "build-docs: $catalog is missing"; failed+=("$module"); continue; }
    # Only this module's graphs: its own symbols and its extensions of other modules' types.
    mkdir -p "$work/$module"
    cp "$graphs/$module.symbols.json" "$work/$module/"
    cp "$graphs/$module"@*.symbols.json "$work/$module/" 2>/dev/null || true
    echo "--- $module"
    if ! docc convert "$catalog" --additional-symbol-graph-dir "$work/$module" \
        --output-path "$output/$module.doccarchive" --warnings-as-errors \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.hls-interstitials.$module" \
        --transform-for-static-hosting >"$work/$module.log" 2>&1; then
        cat "$work/$module.log"
        failed+=("$module")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "build-docs: documentation failed for: ${failed[*]}"
    exit 1
fi
echo "build-docs: ${#modules[@]} modules documented in $output"
