#!/usr/bin/env bash
# Builds the package and runs its tests with Debian 13's own Swift 6.0.3 (`swiftlang`), as a
# Raspberry Pi OS / Debian 13 user would: a minimal trixie chroot made with debootstrap, the
# working tree copied into it, `swift build --build-tests` and `swift test` run there as root.
# Proves the package needs nothing newer than `swift-tools-version:6.0`.
#
# Usage: bash Tests/toolchain/build-with-swift-6.0.sh [--libgpiod=1|2] [--clean]
#   --libgpiod=1  build against Debian 12's libgpiod 1.6.3 headers, installed into the chroot
#   --libgpiod=2  build against Debian 13's own libgpiod-dev (2.x)
#                 default: 2 when the version-neutral shim (Sources/CGPIODShim) exists, else 1
#   --clean       drop the cached build folder first (the chroot itself stays)
# Needs root (or sudo) for debootstrap, mount and chroot. The chroot (trixie-chroot.sh, shared with
# cross-build-arm64.sh), downloads and build folder are cached in ~/.cache/tiltboard/ (TILTBOARD_CACHE
# moves it); delete it to start fresh.
# Timeouts in seconds: SWIFT60_SETUP_TIMEOUT (debootstrap, apt; 1200), SWIFT60_BUILD_TIMEOUT
# (2400), SWIFT60_TEST_TIMEOUT (1200).
# Output: progress on stderr as `swift-6.0:` lines; the summary on stdout, either
# `swift-6.0: build ok, N tests passed` or the first errors. Exit status 0 only when both passed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build_timeout=${SWIFT60_BUILD_TIMEOUT:-2400}
test_timeout=${SWIFT60_TEST_TIMEOUT:-1200}
started=$(date +%s)

say() { echo "swift-6.0: $*" >&2; }
elapsed() { echo "$(( $(date +%s) - started )) s"; }
# Everything that stops the run goes through here so stdout always ends with a verdict.
die() { say "$*"; echo "swift-6.0: FAILED: $*"; exit 1; }

libgpiod=""
clean=0
for arg in "$@"; do
    case $arg in
        --libgpiod=1|--libgpiod=2) libgpiod=${arg#--libgpiod=} ;;
        --clean) clean=1 ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$arg' (see --help)" ;;
    esac
done
if [ -z "$libgpiod" ]; then
    if [ -d "$root/Sources/CGPIODShim" ]; then libgpiod=2; else libgpiod=1; fi
fi

if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || die "needs root for debootstrap, mount and chroot; run it as root"
    exec sudo -E bash "$0" "$@"
fi
. "$here/trixie-chroot.sh"
cache=$tiltboard_cache/swift-6.0
mkdir -p "$cache/debs"
trap 'echo "swift-6.0: FAILED: interrupted"; exit 130' INT
trap 'echo "swift-6.0: FAILED: terminated"; exit 143' TERM

# --- 1. the trixie chroot (once), mounted ------------------------------------------------------
chroot_enter

# --- 2. Swift 6.0.3, libi2c and libgpiod in the chroot -----------------------------------------
# libc6-dev is only a Recommends of gcc, which --no-install-recommends leaves out, yet Swift's
# Glibc module and every C target need its headers.
wanted=(swiftlang libi2c-dev libc6-dev git ca-certificates)
[ "$libgpiod" = 2 ] && wanted+=(libgpiod-dev)
gpiod_now=$("${in_chroot[@]}" dpkg-query -W -f='${Version}' libgpiod-dev 2>/dev/null || true)
missing=0
"${in_chroot[@]}" dpkg -s "${wanted[@]}" >/dev/null 2>&1 || missing=1
case $libgpiod:$gpiod_now in
    1:1.6*) ;;
    2:2.*) ;;
    *) missing=1 ;;
esac
if [ "$missing" = 1 ]; then
    chroot_install "${wanted[@]}"
    if [ "$libgpiod" = 1 ]; then
        # Debian 13 only has libgpiod 2.x; the 1.6.3 headers and library come from Debian 12's
        # archive (this host's), fetched with the host's apt and installed over the chroot's.
        if ! ls "$cache"/debs/libgpiod-dev_1.6*.deb "$cache"/debs/libgpiod2_1.6*.deb >/dev/null 2>&1; then
            say "apt-get download libgpiod-dev libgpiod2 (Debian 12, libgpiod 1.6)"
            rm -f "$cache"/debs/libgpiod*.deb
            (cd "$cache/debs" && limited "$setup_timeout" apt-get download -q libgpiod-dev libgpiod2 >/dev/null 2>&1) \
                || die "apt-get download libgpiod-dev libgpiod2 on the host failed (is this host Debian 12 with 'apt-get update' done?)"
            ls "$cache"/debs/libgpiod-dev_1.6*.deb >/dev/null 2>&1 \
                || die "the host's libgpiod-dev is not 1.6.x ($(ls "$cache"/debs)); run this on Debian 12 or pass --libgpiod=2"
        fi
        rm -rf "$chroot_dir/tmp/debs"; mkdir -p "$chroot_dir/tmp/debs"
        cp "$cache"/debs/libgpiod-dev_1.6*.deb "$cache"/debs/libgpiod2_1.6*.deb "$chroot_dir/tmp/debs/"
        "${in_chroot[@]}" sh -c 'dpkg -i --force-all /tmp/debs/*.deb' >> "$cache/apt.log" 2>&1 \
            || { tail -n 20 "$cache/apt.log" >&2; die "dpkg -i of libgpiod 1.6 in the chroot failed"; }
        rm -rf "$chroot_dir/tmp/debs"
    fi
    say "packages ready ($(elapsed))"
fi
say "libgpiod-dev $("${in_chroot[@]}" dpkg-query -W -f='${Version}' libgpiod-dev) (mode --libgpiod=$libgpiod)"

# --- 3. the working tree, the package mirrors, and the build -----------------------------------
src=/src/tiltboard
copy_tree_into "$root" "$src"
scratch=/build/tiltboard
if [ "$clean" = 1 ]; then build_folder "$scratch" --clean; else build_folder "$scratch"; fi

version_text=$("${in_chroot[@]}" swift --version 2>&1) || die "swift --version failed in the chroot: $version_text"
echo "$version_text" | sed 's/^/swift-6.0: /' >&2
swift_version=$(echo "$version_text" | grep -m1 'Swift version' || true)

build_log=$cache/build.log
test_log=$cache/test.log
say "swift build --build-tests (limit ${build_timeout} s)"
set +e
limited "$build_timeout" "${in_chroot[@]}" sh -c "cd $src && swift build --build-tests --scratch-path $scratch" > "$build_log" 2>&1
build_rc=$?
set -e
if [ "$build_rc" != 0 ]; then
    [ "$build_rc" = 124 ] && say "build timed out after ${build_timeout} s"
    say "build failed ($(elapsed)); log: $cache/build.log"
    echo "swift-6.0: build FAILED ($swift_version, libgpiod $libgpiod, exit $build_rc); first errors:"
    # Each diagnostic is repeated per compile job and drawn again under its source line: keep the
    # "file:line:col: error:" lines, once each.
    if grep -qE '^[^ ].*: error: ' "$build_log"; then
        grep -E '^[^ ].*: error: ' "$build_log" | awk '!seen[$0]++' | head -n 25
    else
        tail -n 25 "$build_log"
    fi
    exit 1
fi
say "build ok ($(elapsed))"

say "swift test (limit ${test_timeout} s)"
set +e
limited "$test_timeout" "${in_chroot[@]}" sh -c "cd $src && swift test --skip-build --scratch-path $scratch" > "$test_log" 2>&1
test_rc=$?
set -e
# XCTest ends with the run-wide suite: "Test Suite 'All tests' passed/failed …" then "Executed N tests, …".
totals=$(grep -A1 "^Test Suite 'All tests'" "$test_log" | grep -E '^[[:space:]]*Executed [0-9]+ tests?' | tail -n 1 || true)
executed=$(echo "$totals" | sed -nE 's/^[[:space:]]*Executed ([0-9]+) tests?.*/\1/p')
failures=$(echo "$totals" | sed -nE 's/.* ([0-9]+) failures? \(.*/\1/p')
skipped=$(echo "$totals" | sed -nE 's/.*with ([0-9]+) tests? skipped.*/\1/p')
executed=${executed:-0}; failures=${failures:-0}; skipped=${skipped:-0}
if [ "$test_rc" = 0 ] && [ -n "$totals" ] && [ "$failures" = 0 ] && [ "$executed" -gt 0 ]; then
    passed=$((executed - skipped))
    say "tests ok ($(elapsed)); log: $cache/test.log"
    echo "swift-6.0: $swift_version, libgpiod $libgpiod"
    if [ "$skipped" -gt 0 ]; then
        echo "swift-6.0: build ok, $passed tests passed, $skipped skipped"
    else
        echo "swift-6.0: build ok, $passed tests passed"
    fi
    exit 0
fi
[ "$test_rc" = 124 ] && say "tests timed out after ${test_timeout} s"
say "tests failed ($(elapsed)); log: $cache/test.log"
echo "swift-6.0: build ok, tests FAILED ($swift_version, exit $test_rc, $executed executed, $failures failures); first failures:"
grep -E ': error: |Fatal error|Crash|signal [0-9]+' "$test_log" | head -n 25 || true
[ -n "$totals" ] || tail -n 25 "$test_log"
exit 1
