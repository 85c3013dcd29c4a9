#!/usr/bin/env bash
# Builds `tiltboard` for a 64-bit Raspberry Pi OS / Debian 13 (arm64) with Debian 13's own Swift
# 6.0.3: `swiftlang` (amd64) in the trixie chroot of trixie-chroot.sh cross-compiles against a
# sysroot of extracted Debian 13 arm64 packages, links with lld, release, static Swift stdlib (a
# dynamic build would carry a RUNPATH into the sysroot, which no Pi has). Then builds the unit
# tests for arm64 and runs them under qemu-user (qemu-aarch64 -L SYSROOT).
#
# Usage: bash Tests/toolchain/cross-build-arm64.sh [--skip-tests]
# Needs root (or sudo) for the chroot. Cached in ~/.cache/tiltboard/ (TILTBOARD_CACHE moves it):
# the chroot, the sysroot (trixie/sysroot-arm64) and the build folders.
# Timeouts in seconds: SWIFT60_SETUP_TIMEOUT (1200), SWIFT60_BUILD_TIMEOUT (2400),
# ARM64_TEST_TIMEOUT (2400).
# Output: progress on stderr as `arm64:` lines; the LAST LINE of stdout is the built binary's path
# (`.build-arm64/release/tiltboard` in the working tree, absolute). Exit status 0 only when the
# build (and the tests, unless skipped) passed; a failure ends with `arm64: FAILED: …`.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build_timeout=${SWIFT60_BUILD_TIMEOUT:-2400}
test_timeout=${ARM64_TEST_TIMEOUT:-2400}
started=$(date +%s)

say() { echo "arm64: $*" >&2; }
elapsed() { echo "$(( $(date +%s) - started )) s"; }
die() { say "$*"; echo "arm64: FAILED: $*"; exit 1; }

run_tests=1
for arg in "$@"; do
    case $arg in
        --skip-tests) run_tests=0 ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$arg' (see --help)" ;;
    esac
done

if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || die "needs root for debootstrap, mount and chroot; run it as root"
    exec sudo -E bash "$0" "$@"
fi
. "$here/trixie-chroot.sh"
cache=$tiltboard_cache/arm64
mkdir -p "$cache"
trap 'echo "arm64: FAILED: interrupted"; exit 130' INT
trap 'echo "arm64: FAILED: terminated"; exit 143' TERM

chroot_enter
tools=(swiftlang lld libc6-dev git ca-certificates qemu-user)
chroot_has "${tools[@]}" || chroot_install "${tools[@]}"
say "toolchain ready ($(elapsed))"

# --- the arm64 sysroot: Debian 13's arm64 packages, extracted (never installed) ----------------
# linux-libc-dev is `all` in trixie; everything else is the arm64 build.
sysroot_pkgs=(libc6 libc6-dev libgcc-s1 libgcc-14-dev libstdc++6 libstdc++-14-dev libcrypt1 libcrypt-dev
    libi2c0 libi2c-dev libgpiod3 libgpiod-dev libswiftlang swiftlang)
sysroot=/sysroot-arm64
stamp="${sysroot_pkgs[*]} linux-libc-dev"
if [ "$(cat "$chroot_dir$sysroot/.done" 2>/dev/null)" != "$stamp" ]; then
    say "downloading Debian 13 arm64 packages for the sysroot"
    chroot_add_arm64
    debs=/var/cache/tiltboard-arm64-debs
    chroot_download $debs $(printf '%s:arm64 ' "${sysroot_pkgs[@]}") linux-libc-dev
    rm -rf "${chroot_dir:?}$sysroot"; mkdir -p "$chroot_dir$sysroot"
    for d in "$chroot_dir$debs"/*.deb; do dpkg-deb -x "$d" "$chroot_dir$sysroot"; done
    ln -sfn usr/lib "$chroot_dir$sysroot/lib"
    rm -rf "${chroot_dir:?}$debs"
    echo "$stamp" > "$chroot_dir$sysroot/.done"
    say "sysroot ready ($(elapsed))"
fi

# --- build -------------------------------------------------------------------------------------
src=/src/tiltboard
copy_tree_into "$root" "$src"
# SwiftPM's --sdk reaches clang only: swiftc needs -sdk too. The resource directory decides the
# Swift runtime: swift_static for the binary, swift (shared) for the test bundle.
cross=(--triple aarch64-unknown-linux-gnu --sdk $sysroot -Xswiftc -sdk -Xswiftc $sysroot -Xswiftc -use-ld=lld)
version_text=$("${in_chroot[@]}" swift --version 2>&1) || die "swift --version failed in the chroot: $version_text"
swift_version=$(echo "$version_text" | grep -m1 'Swift version' || true)
build_folder /build/arm64-release
say "$swift_version; swift build -c release --static-swift-stdlib for aarch64 (limit ${build_timeout} s)"
build_log=$cache/build.log
limited "$build_timeout" "${in_chroot[@]}" sh -c "cd $src && swift build -c release --product tiltboard \
    --static-swift-stdlib ${cross[*]} -Xswiftc -resource-dir -Xswiftc $sysroot/usr/libexec/swift/lib/swift_static \
    --scratch-path /build/arm64-release" > "$build_log" 2>&1 || {
    grep -E '^[^ ].*: error: ' "$build_log" | awk '!seen[$0]++' | head -n 25 >&2 || tail -n 25 "$build_log" >&2
    die "release build failed (log: $build_log)"
}
out=$root/.build-arm64/release
mkdir -p "$out"
cp "$chroot_dir/build/arm64-release/aarch64-unknown-linux-gnu/release/tiltboard" "$out/tiltboard.new"
mv "$out/tiltboard.new" "$out/tiltboard"
say "built $(du -h "$out/tiltboard" | cut -f1) $(file -b "$out/tiltboard" 2>/dev/null | cut -d, -f1-2) ($(elapsed))"

# --- unit tests under qemu-user ----------------------------------------------------------------
# The CLI tests start the tiltboard executable as a child, which qemu-user cannot follow without a
# binfmt entry: they run natively and in the VMs instead.
if [ "$run_tests" = 1 ]; then
    test_log=$cache/test.log
    build_folder /build/arm64-debug
    say "swift build --build-tests for aarch64 (limit ${build_timeout} s)"
    limited "$build_timeout" "${in_chroot[@]}" sh -c "cd $src && swift build --build-tests ${cross[*]} \
        -Xswiftc -resource-dir -Xswiftc $sysroot/usr/libexec/swift/lib/swift --scratch-path /build/arm64-debug" \
        > "$test_log" 2>&1 || {
        grep -E '^[^ ].*: error: ' "$test_log" | awk '!seen[$0]++' | head -n 25 >&2 || tail -n 25 "$test_log" >&2
        die "test build failed (log: $test_log)"
    }
    xctest="qemu-aarch64 -L $sysroot /build/arm64-debug/aarch64-unknown-linux-gnu/debug/TiltboardPackageTests.xctest"
    # Every test class but the CLI's, as Module.Class selectors.
    suites=$("${in_chroot[@]}" sh -c "$xctest --list-tests" 2>>"$test_log" \
        | sed -nE 's|^([A-Za-z]+Tests\.[A-Za-z0-9_]+)/.*|\1|p' | grep -v '^TiltboardCLITests\.' | sort -u | paste -sd, -)
    [ -n "$suites" ] || die "no tests listed by the arm64 test bundle (log: $test_log)"
    say "running $(echo "$suites" | tr , '\n' | wc -l) test classes (all but the CLI's) under qemu-aarch64 (limit ${test_timeout} s)"
    set +e
    limited "$test_timeout" "${in_chroot[@]}" sh -c "cd $src && $xctest $suites" >> "$test_log" 2>&1
    test_rc=$?
    set -e
    totals=$(grep -E '^[[:space:]]*Executed [0-9]+ tests?' "$test_log" | tail -n 1 || true)
    executed=$(echo "$totals" | sed -nE 's/^[[:space:]]*Executed ([0-9]+) tests?.*/\1/p')
    failures=$(echo "$totals" | sed -nE 's/.* ([0-9]+) failures? \(.*/\1/p')
    if [ "$test_rc" != 0 ] || [ "${executed:-0}" = 0 ] || [ "${failures:-1}" != 0 ]; then
        grep -E ': error: |Fatal error|Crash|signal [0-9]+' "$test_log" | head -n 25 >&2 || tail -n 25 "$test_log" >&2
        die "arm64 tests failed under qemu-user (exit $test_rc; log: $test_log)"
    fi
    echo "arm64: tests under qemu-aarch64: $(echo "$totals" | sed 's/^[[:space:]]*//')"
fi
say "done ($(elapsed))"
echo "$out/tiltboard"
