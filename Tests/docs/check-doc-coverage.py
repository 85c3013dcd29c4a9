#!/usr/bin/env python3
"""Lists every public declaration of the library targets that has no doc comment.

Builds the symbol graphs of the library targets (`swift package dump-symbol-graph
--minimum-access-level public`), reads every public symbol whose declaration is in this
checkout's Sources/ folder (symbols declared elsewhere — the standard library's, or synthesized
conformances such as `hashValue` — have no location there and are skipped), and fails listing
those without a `///` comment. A member that implements a documented requirement of one of
this package's protocols shows that requirement's comment in DocC, and counts as documented.

    Tests/docs/check-doc-coverage.py                   # build the graphs, check every library folder
    Tests/docs/check-doc-coverage.py --graphs DIR      # read graphs built already
    Tests/docs/check-doc-coverage.py --report-only Sources/Tiltboard/Runtime ...
                                                       # count those folders, do not fail on them

Exit status: 0 when every checked symbol is documented, 1 when some are not, 2 on a usage or
build problem.
"""
import argparse
import json
import os
import subprocess
import sys
from collections import Counter

LIBRARY_TARGETS = ["Tiltboard", "TiltboardCore", "TiltboardDrivers", "TiltboardSimulator", "TiltboardLinux"]


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def build_graphs(root):
    """Runs dump-symbol-graph and returns the folder it wrote to."""
    result = subprocess.run(
        ["swift", "package", "dump-symbol-graph", "--minimum-access-level", "public"],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout)
        sys.exit(2)
    for line in result.stdout.splitlines():
        if line.startswith("Files written to "):
            return line[len("Files written to "):].strip()
    sys.stderr.write(result.stdout + "\ncheck-doc-coverage: dump-symbol-graph named no output folder\n")
    sys.exit(2)


def graph_files(folder):
    """The graphs of the library targets, their extensions of other modules' types included."""
    if not os.path.isdir(folder):
        sys.stderr.write(f"check-doc-coverage: no folder {folder}\n")
        sys.exit(2)
    names = sorted(os.listdir(folder))
    for name in names:
        if not name.endswith(".symbols.json"):
            continue
        module = name[: -len(".symbols.json")].split("@")[0]
        if module in LIBRARY_TARGETS:
            yield os.path.join(folder, name)


def documented(symbol):
    doc = symbol.get("docComment")
    return bool(doc and any(line.get("text", "").strip() for line in doc.get("lines", [])))


def folder_of(path):
    """Sources/<Target>/<first folder> (or the target for a file at its top)."""
    parts = path.split("/")
    return "/".join(parts[:3]) if len(parts) > 3 else "/".join(parts[:2])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", help="folder of symbol graphs already built")
    parser.add_argument("--report-only", nargs="*", default=[], metavar="FOLDER",
                        help="folders (relative to the checkout) counted but not failed on")
    args = parser.parse_args()

    root = repo_root()
    sources = "file://" + os.path.join(root, "Sources") + "/"
    folder = args.graphs or build_graphs(root)

    seen = set()
    missing = []   # (relative path, line, kind, name)
    total = 0
    paths = list(graph_files(folder))
    if not paths:
        sys.stderr.write(f"check-doc-coverage: no symbol graph of {', '.join(LIBRARY_TARGETS)} in {folder}\n")
        sys.exit(2)
    for path in paths:
        with open(path) as f:
            graph = json.load(f)
        for symbol in graph.get("symbols", []):
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            kind = symbol["kind"]["identifier"]
            if kind == "swift.extension":
                continue
            location = symbol.get("location")
            if not location or not location["uri"].startswith(sources):
                continue
            key = (location["uri"], location["position"]["line"], location["position"]["character"])
            if key in seen:
                continue
            seen.add(key)
            total += 1
            if not documented(symbol):
                relative = "Sources/" + location["uri"][len(sources):]
                missing.append((relative, location["position"]["line"] + 1, kind.replace("swift.", ""),
                                ".".join(symbol["pathComponents"])))

    report_only = tuple(p.rstrip("/") + "/" for p in args.report_only)
    failing = [m for m in missing if not m[0].startswith(report_only)]
    reported = [m for m in missing if m[0].startswith(report_only)]

    for relative, line, kind, name in sorted(failing):
        print(f"{relative}:{line}: undocumented public {kind} {name}")
    by_folder = Counter(folder_of(m[0]) for m in missing)
    print(f"check-doc-coverage: {total} public declarations in Sources/, {len(missing)} without a doc comment")
    for name, count in sorted(by_folder.items()):
        note = " (reported only)" if name.rstrip("/") + "/" in report_only or name.startswith(report_only) else ""
        print(f"  {name}: {count}{note}")
    if reported:
        print(f"check-doc-coverage: {len(reported)} in folders reported only")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
