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
# Needs root (or sudo) for debootstrap, mount and chroot. The chroot, downloads and build folder
# are cached in Tests/toolchain/cache/ (gitignored; SWIFT60_CACHE moves it); delete it to start fresh.
# Timeouts in seconds: SWIFT60_SETUP_TIMEOUT (debootstrap, apt; 1200), SWIFT60_BUILD_TIMEOUT
# (2400), SWIFT60_TEST_TIMEOUT (1200).
# Output: progress on stderr as `swift-6.0:` lines; the summary on stdout, either
# `swift-6.0: build ok, N tests passed` or the first errors. Exit status 0 only when both passed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${SWIFT60_CACHE:-$here/cache}
chroot_dir=$cache/trixie
mirror=http://deb.debian.org/debian
setup_timeout=${SWIFT60_SETUP_TIMEOUT:-1200}
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
export PATH="$PATH:/usr/sbin:/sbin"
# Another apt-get on the host (or in the chroot) may hold the lock for a while.
apt_opts=(-y -q -o DPkg::Lock::Timeout=300)

# --- clean-up on every exit path: stop what runs in the chroot, then unmount -------------------
# limited SECONDS CMD...: CMD under `timeout`, waited for in the background so that INT and TERM
# are handled at once rather than after the step ends.
step_pid=""
limited() {
    local limit=$1 rc=0; shift
    timeout --kill-after=30 "$limit" "$@" &
    step_pid=$!
    wait "$step_pid" || rc=$?
    step_pid=""
    return "$rc"
}
# chroot_pids: processes whose root is the chroot. `swift test` starts the test bundle in a
# process group of its own, so `timeout` alone would leave it running after the limit.
chroot_pids() {
    local real p
    [ -d "$chroot_dir" ] || return 0
    real=$(realpath "$chroot_dir")
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" = "$real" ] && echo "${p#/proc/}"
    done
    return 0
}
stop_chroot_processes() {
    local pids n
    pids=$(chroot_pids)
    [ -n "$pids" ] || return 0
    say "stopping what is still running in the chroot: $(echo $pids)"
    kill -TERM $pids 2>/dev/null || true
    for n in 1 2 3 4 5 6 7 8 9 10; do
        [ -n "$(chroot_pids)" ] || return 0
        sleep 0.5
    done
    pids=$(chroot_pids)
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
}
mounted=()
cleanup() {
    local i
    [ -z "$step_pid" ] || kill -TERM "$step_pid" 2>/dev/null || true
    stop_chroot_processes
    for (( i=${#mounted[@]}-1; i>=0; i-- )); do
        umount -R "${mounted[$i]}" 2>/dev/null || umount -R -l "${mounted[$i]}" 2>/dev/null || say "could not unmount ${mounted[$i]}"
    done
}
trap cleanup EXIT
trap 'echo "swift-6.0: FAILED: interrupted"; exit 130' INT
trap 'echo "swift-6.0: FAILED: terminated"; exit 143' TERM

# --- 1. the trixie chroot (once) ---------------------------------------------------------------
if ! command -v debootstrap >/dev/null; then
    say "installing debootstrap"
    timeout "$setup_timeout" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive timeout "$setup_timeout" apt-get install "${apt_opts[@]}" \
        --no-install-recommends debootstrap >/dev/null || die "apt-get install debootstrap failed"
fi
# mounts_under DIR: mount points below DIR, deepest first (a killed run may have left some).
mounts_under() { awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r; }
for m in $(mounts_under "$chroot_dir") $(mounts_under "$chroot_dir.partial"); do
    say "unmounting $m, left over from an earlier run"
    umount -R "$m" 2>/dev/null || umount -R -l "$m"
done
# Never delete through a mount: /dev and /opt/swift-packages are the host's own.
safe_rm() { [ -z "$(mounts_under "$1")" ] || die "$1 still has mounts below it; unmount them first"; rm -rf "$1"; }

mkdir -p "$cache/debs"
if [ ! -e "$chroot_dir/.debootstrap-done" ]; then
    # Into a side folder first: an interrupted debootstrap must not look like a finished one.
    say "debootstrap --variant=minbase trixie (once; limit ${setup_timeout} s)"
    safe_rm "$chroot_dir.partial"
    limited "$setup_timeout" debootstrap --variant=minbase trixie "$chroot_dir.partial" "$mirror" \
        > "$cache/debootstrap.log" 2>&1 || { tail -n 20 "$cache/debootstrap.log" >&2; die "debootstrap failed (log: Tests/toolchain/cache/debootstrap.log)"; }
    safe_rm "$chroot_dir"
    mv "$chroot_dir.partial" "$chroot_dir"
    touch "$chroot_dir/.debootstrap-done"
    say "chroot ready ($(elapsed))"
fi

# --- mounts ----------------------------------------------------------------------------------
mount_at() { # mount_at TARGET MOUNT-ARGS...
    local target=$chroot_dir$1; shift
    mkdir -p "$target"
    mount "$@" "$target"
    mounted+=("$target")
}
mount_at /proc -t proc proc
# libgpiod 2 tells a GPIO chip from any other character device through /sys/dev/char.
mount_at /sys -t sysfs -o ro sysfs
mount_at /dev --rbind /dev
mount --make-rslave "$chroot_dir/dev"
# Read-only: the chroot's git only clones from the mirrors.
mount_at /opt/swift-packages --bind -o ro /opt/swift-packages
mount -o remount,bind,ro "$chroot_dir/opt/swift-packages"
cp -L /etc/resolv.conf "$chroot_dir/etc/resolv.conf" 2>/dev/null || true

# A clean environment: nothing of the host's (its Swift on PATH above all) leaks in.
in_chroot=(env -i HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin chroot "$chroot_dir")

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
    say "apt-get install ${wanted[*]} in the chroot (limit ${setup_timeout} s)"
    limited "$setup_timeout" "${in_chroot[@]}" apt-get update -q > "$cache/apt.log" 2>&1 \
        || { tail -n 20 "$cache/apt.log" >&2; die "apt-get update in the chroot failed (log: Tests/toolchain/cache/apt.log)"; }
    limited "$setup_timeout" "${in_chroot[@]}" apt-get install "${apt_opts[@]}" --no-install-recommends "${wanted[@]}" >> "$cache/apt.log" 2>&1 \
        || { tail -n 20 "$cache/apt.log" >&2; die "apt-get install in the chroot failed (log: Tests/toolchain/cache/apt.log)"; }
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
    "${in_chroot[@]}" apt-get clean   # the downloaded .debs alone are ≈ 650 MB
    say "packages ready ($(elapsed))"
fi
say "libgpiod-dev $("${in_chroot[@]}" dpkg-query -W -f='${Version}' libgpiod-dev) (mode --libgpiod=$libgpiod)"

# --- 3. the working tree, the package mirrors, and the build -----------------------------------
# The host's url.*.insteadOf rules (system or global) send the chroot's git to the same mirrors.
gitconfig=$chroot_dir/root/.gitconfig
: > "$gitconfig"
(cd / && git config --get-regexp '^url\..*\.insteadof$' || true) | while read -r key value; do
    git config --file "$gitconfig" --add "$key" "$value"
done
git config --file "$gitconfig" --add safe.directory '*'

# A copy rather than a bind mount: SwiftPM writes Package.resolved next to Package.swift, and the
# copy holds exactly the tracked and untracked-but-not-ignored files (no host .build).
src=/src/tiltboard
rm -rf "$chroot_dir$src"; mkdir -p "$chroot_dir$src"
if git -c safe.directory='*' -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$root" && git -c safe.directory='*' ls-files -z --cached --others --exclude-standard \
        | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
        | tar --null -T - -cf -) | tar -xf - -C "$chroot_dir$src"
else
    # An unpacked source archive: everything but build folders and caches.
    (cd "$root" && tar --exclude='./.build*' --exclude='./.swiftpm' --exclude='./Tests/*/cache' \
        --exclude='./Package.resolved' -cf - .) | tar -xf - -C "$chroot_dir$src"
fi
scratch=/build/tiltboard
[ "$clean" = 1 ] && rm -rf "${chroot_dir:?}$scratch"
mkdir -p "$chroot_dir$scratch"

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
    say "build failed ($(elapsed)); log: Tests/toolchain/cache/build.log"
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
    say "tests ok ($(elapsed)); log: Tests/toolchain/cache/test.log"
    echo "swift-6.0: $swift_version, libgpiod $libgpiod"
    if [ "$skipped" -gt 0 ]; then
        echo "swift-6.0: build ok, $passed tests passed, $skipped skipped"
    else
        echo "swift-6.0: build ok, $passed tests passed"
    fi
    exit 0
fi
[ "$test_rc" = 124 ] && say "tests timed out after ${test_timeout} s"
say "tests failed ($(elapsed)); log: Tests/toolchain/cache/test.log"
echo "swift-6.0: build ok, tests FAILED ($swift_version, exit $test_rc, $executed executed, $failures failures); first failures:"
grep -E ': error: |Fatal error|Crash|signal [0-9]+' "$test_log" | head -n 25 || true
[ -n "$totals" ] || tail -n 25 "$test_log"
exit 1
