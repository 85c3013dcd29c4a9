#!/usr/bin/env bash
# Real recordings through Tiltboard, side by side with VQF, x-io Fusion, Madgwick and Mahony: tilt
# accuracy, holding still, lag, shakes and false shakes on BROAD, UCI HAPT and x-io Fusion's
# sample (see README.md here). The peers come from PyPI (vqf, imufusion, ahrs, with numpy, scipy
# and h5py), installed once into a virtual environment cached in ~/.cache/tiltboard/realdata/, so
# a warm run needs no network.
#
# Usage: bash Tests/realdata/run-realdata.sh [BINARY]
#   BINARY  the tiltboard to test (default: `swift build -c release` of this tree, then its binary)
# Env: REALDATA_RUNS (replays per configuration, default 1; more are compared line for line),
#      REALDATA_QUICK=1 (four BROAD trials, two HAPT recordings), REALDATA_PYTHON (the python3 to
#      make the environment with), TILTBOARD_CACHE (default ~/.cache/tiltboard).
# Last line: `realdata: N passed, M failed`. Exit 0 all passed, 1 a check failed, 2 cannot run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${TILTBOARD_CACHE:-${HOME:-/root}/.cache/tiltboard}/realdata
say() { echo "run-realdata: $*" >&2; }

# Versions that install as wheels on CPython 3.11 (Debian 12's python3, pyenv's 3.11) and later.
pins="numpy==2.4.6 scipy==1.17.1 h5py==3.16.0 vqf==2.1.2 imufusion==1.3.3 ahrs==0.4.0"

binary=${1:-}
if [ -z "$binary" ]; then
    command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"
    (cd "$root" && swift build -c release --product tiltboard >&2)
    binary=$(cd "$root" && swift build -c release --show-bin-path)/tiltboard
fi
if [ ! -x "$binary" ]; then
    say "no tiltboard binary at $binary"
    echo "realdata: 0 passed, 1 failed"
    exit 2
fi

# A python3 that can make a virtual environment (Debian's needs python3-venv for ensurepip).
python=""
for p in ${REALDATA_PYTHON:-} /usr/bin/python3 python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import sys, ensurepip, venv; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        python=$(command -v "$p")
        break
    fi
done
if [ -z "$python" ]; then
    say "no python3 >= 3.11 with venv and ensurepip (Debian: apt-get install python3-venv)"
    echo "realdata: 0 passed, 1 failed"
    exit 2
fi
pyver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
venv=$cache/venv-py$pyver-$(echo "$pins" | cksum | cut -d' ' -f1)
if ! "$venv/bin/python" -c 'import numpy, scipy, h5py, vqf, imufusion, ahrs' 2>/dev/null; then
    say "making the environment in $venv ($pins) with $python ($pyver)"
    rm -rf "$venv"
    mkdir -p "$cache"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: $pins >&2
fi

# A private copy of the binary (a build may replace the original while this runs) and scratch.
work=$(mktemp -d "${TMPDIR:-/tmp}/tiltboard-realdata.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$binary" "$work/tiltboard"
set +e
TB="$work/tiltboard" WORK="$work" PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" "$here/bench.py"
status=$?
set -e
exit $status
