#!/usr/bin/env bash
# CI stage: the DocC archives of the five library products (swift-docc-plugin), then the check
# that every public declaration of them has a doc comment (check-doc-coverage.py).
#
# The archives go to .build/docs/ (ignored by git, never into the clone's tracked files); a
# DocC error fails the stage, and so does a public declaration without a doc comment.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"

out=.build/docs
rm -rf "$out"
mkdir -p "$out"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

targets=(Tiltboard TiltboardCore TiltboardDrivers TiltboardSimulator TiltboardLinux)
args=()
for t in "${targets[@]}"; do args+=(--target "$t"); done

echo "docs: DocC archives of ${targets[*]} in $out"
if ! swift package --allow-writing-to-directory "$out" generate-documentation "${args[@]}" \
        --output-path "$out" --transform-for-static-hosting >"$log" 2>&1; then
    cat "$log"
    echo "docs: generate-documentation failed" >&2
    exit 1
fi
if grep -E '(^|[^-])error:' "$log"; then
    echo "docs: DocC reported errors" >&2
    exit 1
fi
warnings=$(grep -c 'warning:' "$log" || true)
grep 'warning:' "$log" || true
echo "docs: archives built ($warnings DocC warnings)"
for t in "${targets[@]}"; do
    archive=$(find "$out" -maxdepth 2 -type d -name "$t.doccarchive" | head -n 1)
    if [ -z "$archive" ] || [ ! -d "$archive/data/documentation" ]; then
        echo "docs: no documentation archive for $t under $out" >&2
        exit 1
    fi
done

# The check itself must be able to fail: a graph with one undocumented public symbol in
# Sources/ (and one documented, and one declared outside Sources/) fails it, naming that symbol.
fake=$(mktemp -d)
trap 'rm -f "$log"; rm -rf "$fake"' EXIT
src="file://$PWD/Sources/TiltboardCore/Fake.swift"
cat >"$fake/TiltboardCore.symbols.json" <<JSON
{"symbols": [
 {"kind": {"identifier": "swift.struct"}, "accessLevel": "public", "pathComponents": ["Undocumented"],
  "location": {"uri": "$src", "position": {"line": 1, "character": 0}}},
 {"kind": {"identifier": "swift.struct"}, "accessLevel": "public", "pathComponents": ["Documented"],
  "location": {"uri": "$src", "position": {"line": 5, "character": 0}},
  "docComment": {"lines": [{"text": "A documented type."}]}},
 {"kind": {"identifier": "swift.property"}, "accessLevel": "public", "pathComponents": ["Elsewhere", "hashValue"]}
]}
JSON
if fake_out=$(python3 Tests/docs/check-doc-coverage.py --graphs "$fake"); then
    echo "$fake_out"
    echo "docs: the coverage check passed a graph with an undocumented symbol" >&2
    exit 1
fi
if ! grep -q 'Sources/TiltboardCore/Fake.swift:2: undocumented public struct Undocumented$' <<<"$fake_out" \
        || grep -q 'Documented\|Elsewhere' <<<"$(grep undocumented <<<"$fake_out" | grep -v Undocumented)"; then
    echo "$fake_out"
    echo "docs: the coverage check did not name exactly the undocumented symbol" >&2
    exit 1
fi

echo "docs: every public declaration of the library targets has a doc comment?"
python3 Tests/docs/check-doc-coverage.py
