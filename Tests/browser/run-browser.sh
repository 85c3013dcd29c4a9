#!/usr/bin/env bash
# The page of `tiltboard serve` in a real browser: Debian's chromium and chromium-driver, driven
# by Selenium (from PyPI, in a virtual environment cached in ~/.cache/tiltboard/browser/, so a
# warm run needs no network), against a simulated board touring its poses in real time.
#
# Usage: bash Tests/browser/run-browser.sh [--screenshots DIR]      (root or sudo for apt-get)
#        bash Tests/browser/run-browser.sh --latency [--frames N]   (docs/performance.md's latency figure)
# TILTBOARD_BIN picks the binary (default: a debug build of this tree).
# Last line: `browser: N passed, M failed` (or the latency figures); exit 1 on any failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${TILTBOARD_CACHE:-${HOME:-/root}/.cache/tiltboard}/browser
selenium_version=4.51.0

say() { echo "run-browser: $*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -x /usr/bin/chromedriver ] || need+=(chromium-driver)
command -v ip >/dev/null || [ -x /sbin/ip ] || need+=(iproute2)
/usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

venv=$cache/venv-selenium-$selenium_version
if ! "$venv/bin/python" -c 'import selenium' 2>/dev/null; then
    say "making the Selenium $selenium_version environment in $venv"
    rm -rf "$venv"
    /usr/bin/python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "selenium==$selenium_version"
fi

binary=${TILTBOARD_BIN:-}
if [ -z "$binary" ]; then
    command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"
    (cd "$root" && swift build --product tiltboard >&2)
    binary=$(cd "$root" && swift build --show-bin-path)/tiltboard
fi

# Chromium, the servers and their files get a HOME and TMPDIR of their own, gone afterwards;
# Selenium's own driver manager stays offline.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export SE_OFFLINE=true PYTHONDONTWRITEBYTECODE=1 PATH="$PATH:/sbin:/usr/sbin"

# The browser, the driver and the servers run in a network namespace with only a loopback
# interface: nothing can reach beyond this machine, and `serve --host 0.0.0.0` (the token's
# case) binds to that loopback alone.
isolated() { as_root unshare --net sh -c 'ip link set lo up && exec "$@"' sh env HOME="$scratch" TMPDIR="$scratch" "$@"; }
if [ "${1:-}" = "--latency" ]; then
    shift
    isolated "$venv/bin/python" "$here/latency.py" "$binary" "$@"
else
    isolated "$venv/bin/python" "$here/page_test.py" "$binary" "$@"
fi
