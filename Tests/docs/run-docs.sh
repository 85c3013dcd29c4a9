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

echo "docs: every public declaration of the library targets has a doc comment?"
python3 Tests/docs/check-doc-coverage.py
