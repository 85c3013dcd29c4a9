#!/usr/bin/env bash
# Every kind of JSON tiltboard emits, validated against its schema in docs/schema/ by a validator
# that is not ours: the jsonschema package from PyPI (JSON Schema draft 2020-12), installed once
# into a virtual environment cached in ~/.cache/tiltboard/schema/, so a warm run needs no network.
# The real binary runs every command with JSON output (run, --udp, shake, read, probe, doctor,
# bench, profile show, the profile file) and a real `serve` is asked every /api/ route and
# watched on its WebSocket; then the boundary documents the Swift tests make through the same
# encoders (0, 1, true, false, negative zero, each field's extremes) are checked, and documents
# that must fail.
#
# Usage: bash Tests/schema/run-schema.sh [BINARY]
#   BINARY  the tiltboard to test (default: the debug build of this tree, built with its tests)
# Env: TILTBOARD_CACHE (default ~/.cache/tiltboard).
# Last line: `schema: N passed, M failed`. Exit 0 all passed, 1 a check failed, 2 cannot run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${TILTBOARD_CACHE:-${HOME:-/root}/.cache/tiltboard}/schema
jsonschema_version=4.26.0
say() { echo "run-schema: $*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"
(cd "$root" && swift build --build-tests >&2)
binary=${1:-$(cd "$root" && swift build --show-bin-path)/tiltboard}
if [ ! -x "$binary" ]; then
    say "no tiltboard binary at $binary"
    echo "schema: 0 passed, 1 failed"
    exit 2
fi

if ! /usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null; then
    say "installing python3-venv"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
fi
venv=$cache/venv-jsonschema-$jsonschema_version
if ! "$venv/bin/python" -c 'import jsonschema, referencing' 2>/dev/null; then
    say "making the jsonschema $jsonschema_version environment in $venv"
    rm -rf "$venv"
    mkdir -p "$cache"
    /usr/bin/python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "jsonschema==$jsonschema_version"
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
say "writing the boundary documents (swift test --filter SchemaBoundaryTests)"
(cd "$root" && TILTBOARD_SCHEMA_SAMPLES="$scratch/samples" swift test --skip-build --filter SchemaBoundaryTests >"$scratch/swift-test.log" 2>&1) || {
    tail -n 30 "$scratch/swift-test.log" >&2
    say "the boundary tests failed"
    echo "schema: 0 passed, 1 failed"
    exit 1
}
PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" "$here/schema_test.py" "$binary" "$root/docs/schema" "$scratch/samples"
