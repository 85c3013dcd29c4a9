#!/usr/bin/env bash
# Builds an x86-64 `tiltboard` against libgpiod 2.x for the x86-64 HIL guest, whose Debian 12
# userland only has libgpiod 1.6: Debian 13's own Swift 6.0.3 in the trixie chroot of
# trixie-chroot.sh (release, static Swift stdlib), linked against Debian 13's libgpiod.so.3 and
# glibc. The binary goes into one folder with the loader and the libraries it needs, taken from
# the chroot, so it runs anywhere as
#   DIR/ld-linux-x86-64.so.2 --library-path DIR DIR/tiltboard ARGS…
#
# Usage: bash Tests/toolchain/build-amd64-gpiod2.sh
# Needs root (or sudo) for the chroot. Cached in ~/.cache/tiltboard/ (TILTBOARD_CACHE moves it):
# the chroot and its build folder (trixie/build/amd64-gpiod2).
# Timeouts in seconds: SWIFT60_SETUP_TIMEOUT (1200), SWIFT60_BUILD_TIMEOUT (2400).
# Output: progress on stderr as `gpiod2:` lines; the LAST LINE of stdout is the folder
# (`.build-gpiod2` in the working tree, absolute). Exit status 0 only when the build passed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build_timeout=${SWIFT60_BUILD_TIMEOUT:-2400}
started=$(date +%s)

say() { echo "gpiod2: $*" >&2; }
elapsed() { echo "$(( $(date +%s) - started )) s"; }
die() { say "$*"; echo "gpiod2: FAILED: $*"; exit 1; }

case ${1:-} in
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    "") ;;
    *) die "unknown argument '$1' (see --help)" ;;
esac
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || die "needs root for debootstrap, mount and chroot; run it as root"
    exec sudo -E bash "$0" "$@"
fi
. "$here/trixie-chroot.sh"
cache=$tiltboard_cache/gpiod2
mkdir -p "$cache"
trap 'echo "gpiod2: FAILED: interrupted"; exit 130' INT
trap 'echo "gpiod2: FAILED: terminated"; exit 143' TERM

chroot_enter
# The static Swift stdlib links libstdc++ statically (libstdc++-14-dev). build-with-swift-6.0.sh
# --libgpiod=1 may have left Debian 12's libgpiod 1.6 in the chroot: apt puts 2.x back.
tools=(swiftlang libc6-dev libstdc++-14-dev libi2c-dev libgpiod-dev git ca-certificates)
gpiod=$("${in_chroot[@]}" dpkg-query -W -f='${Version}' libgpiod-dev 2>/dev/null || true)
case $gpiod in 2.*) chroot_has "${tools[@]}" || chroot_install "${tools[@]}" ;; *) chroot_install "${tools[@]}" libgpiod3 ;; esac
gpiod=$("${in_chroot[@]}" dpkg-query -W -f='${Version}' libgpiod-dev)
case $gpiod in 2.*) ;; *) die "the chroot's libgpiod-dev is $gpiod, not 2.x" ;; esac

src=/src/tiltboard
copy_tree_into "$root" "$src"
scratch=/build/amd64-gpiod2
build_folder "$scratch"
build_log=$cache/build.log
say "swift build -c release --static-swift-stdlib against libgpiod $gpiod (limit ${build_timeout} s)"
limited "$build_timeout" "${in_chroot[@]}" sh -c "cd $src && swift build -c release --product tiltboard \
    --static-swift-stdlib --scratch-path $scratch" > "$build_log" 2>&1 || {
    grep -E '^[^ ].*: error: ' "$build_log" | awk '!seen[$0]++' | head -n 25 >&2 || tail -n 25 "$build_log" >&2
    die "release build failed (log: $build_log)"
}

# The binary, the chroot's loader and every library ldd names, in one folder.
out=$root/.build-gpiod2
rm -rf "$out.new"; mkdir -p "$out.new"
bin=$scratch/release/tiltboard
cp "$chroot_dir$bin" "$out.new/tiltboard"
"${in_chroot[@]}" ldd "$bin" | awk '/=> \// { print $3 } /^\t\/lib64/ { print $1 }' | while read -r lib; do
    cp -L "$chroot_dir$lib" "$out.new/"
done
[ -e "$out.new/ld-linux-x86-64.so.2" ] && [ -e "$out.new/libgpiod.so.3" ] \
    || die "ldd in the chroot named no loader or no libgpiod.so.3: $(ls "$out.new" | tr '\n' ' ')"
rm -rf "$out"; mv "$out.new" "$out"
say "built $(du -sh "$out" | cut -f1): $(ls "$out" | tr '\n' ' ')($(elapsed))"
echo "$out"
