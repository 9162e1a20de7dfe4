#!/usr/bin/env python3
"""Checks that every module a target imports is declared in its Package.swift dependencies.

Reads `swift package dump-package` (run from the package root) and each target's sources, and
prints every `import X` whose module is neither a declared dependency (a target or a product), the
target itself, nor a system module (Foundation, Dispatch, Glibc...). Exits 1 when any is found.
Also lists declared dependencies a target never imports (a warning: they may be needed only for
linking, as CHeapUsage is).

    python3 Scripts/check-imports.py
"""

import json
import pathlib
import re
import subprocess
import sys

SYSTEM = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "Dispatch", "Glibc", "Darwin",
    "FoundationXML", "Musl", "Android", "WinSDK", "Synchronization", "Testing", "XCTest", "os", "Observation",
    "_Concurrency", "Swift", "CoreFoundation", "AVFoundation", "CoreMedia", "UIKit", "AppKit",
    "PackageDescription",
}
IMPORT = re.compile(r"^\s*(?:@\S+\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)


def declared(target):
    names = set()
    for dependency in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                names.add(dependency[kind][0])
    return names


def main():
    package = json.loads(subprocess.run(
        ["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout)
    failures = 0
    for target in package["targets"]:
        name = target["name"]
        root = pathlib.Path(target.get("path") or ("Tests" if target["type"] == "test" else "Sources")) / (
            "" if target.get("path") else name)
        imported = set()
        for source in root.rglob("*.swift"):
            imported.update(IMPORT.findall(source.read_text(encoding="utf-8")))
        allowed = declared(target)
        for module in sorted(imported - allowed - SYSTEM - {name}):
            print(f"error: {name} imports {module}, which is not among its dependencies in Package.swift")
            failures += 1
        for module in sorted(allowed - imported):
            print(f"note: {name} declares {module} but never imports it")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
