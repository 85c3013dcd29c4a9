#!/usr/bin/env bash
# Builds tiltboard_<version>_<arch>.deb with Debian's own dpkg-deb: a release build of `tiltboard`
# with the Swift standard library linked in (so it depends only on libc, libi2c and the libgpiod
# it was built against), the udev rules, the systemd units (and templates) and their settings files, the board files,
# a man page from the argument parser (swift-argument-parser's generate-manual plugin) and
# bash/zsh/fish completions (its --generate-completion-script).
#
# Usage: bash packaging/build-deb.sh [--arch amd64|arm64]
#   --arch  default: this machine's (dpkg --print-architecture), built here with `swift build`;
#           arm64 on another machine: Tests/toolchain/cross-build-arm64.sh (Debian 13's Swift)
# Output: progress on stderr as `build-deb:` lines; the .deb's path is the last line on stdout.
# Builds go to .build-deb/ (gitignored); the .deb to .build-deb/deb/.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
scratch=$root/.build-deb
started=$(date +%s)

say() { echo "build-deb: $*" >&2; }
die() { echo "build-deb: error: $*" >&2; exit 1; }
elapsed() { echo "$(( $(date +%s) - started )) s"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

host_arch=$(dpkg --print-architecture)
arch=$host_arch
while [ $# -gt 0 ]; do
    case $1 in
        --arch) [ $# -ge 2 ] || die "--arch needs a value: amd64 or arm64"; arch=$2; shift 2 ;;
        --arch=*) arch=${1#--arch=}; shift ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1' (usage: packaging/build-deb.sh [--arch amd64|arm64])" ;;
    esac
done
case $arch in amd64|arm64) ;; *) die "--arch $arch is not supported: use amd64 or arm64" ;; esac
cross=$root/Tests/toolchain/cross-build-arm64.sh
if [ "$arch" != "$host_arch" ]; then
    [ "$arch" = arm64 ] || die "--arch $arch cannot be built on $host_arch"
    [ -f "$cross" ] || die "--arch arm64 on $host_arch needs the arm64 cross-build, Tests/toolchain/cross-build-arm64.sh, which this tree does not have; build on a Raspberry Pi (64-bit) instead"
fi

# The one place the version is written.
version=$(sed -n 's/^ *static let string = "\([^"]*\)"$/\1/p' "$root/Sources/TiltboardCLI/Version.swift")
[ -n "$version" ] || die "no version found in Sources/TiltboardCLI/Version.swift"

need=()
command -v readelf >/dev/null || need+=(binutils)
dpkg -s libi2c-dev >/dev/null 2>&1 || need+=(libi2c-dev)
dpkg -s libgpiod-dev >/dev/null 2>&1 || need+=(libgpiod-dev)
if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
command -v swift >/dev/null || export PATH="$PATH:/opt/swift/usr/bin"
command -v swift >/dev/null || die "swift is not on the PATH (Debian 13: apt install swiftlang)"
mkdir -p "$scratch"
cd "$root"

# --- the man page and the completions, from a debug build for this machine --------------------
# swift-argument-parser's generate-manual plugin builds its tool and the package. The tool drops
# every non-ASCII character (I²C, °/s, 0…1), so it documents a wrapper that spells them as
# placeholders, turned into groff's \[uXXXX] afterwards; mdoc wants .Pp rather than blank lines.
# The date is the last commit's, so the same source gives the same page.
say "man page and completions (generate-manual plugin, debug build for $host_arch)"
swift package plugin generate-manual --configuration debug > "$scratch/manual.log" 2>&1 \
    || { tail -n 30 "$scratch/manual.log" >&2; die "the generate-manual plugin failed (log: .build-deb/manual.log)"; }
host_bin=$(swift build --show-bin-path)
manual_tool=$(find "$host_bin/" -maxdepth 1 -type f -perm -u+x -name 'generate-manual*' | head -n 1)
[ -n "$manual_tool" ] || die "the generate-manual plugin left no tool in $host_bin"
docs=$scratch/docs
rm -rf "$docs"; mkdir -p "$docs"
cat > "$docs/tiltboard" <<EOF
#!/bin/sh
"$host_bin/tiltboard" "\$@" | perl -CS -pe 's/([^\\x00-\\x7f])/sprintf("UNICODE%04XEDOCINU", ord(\$1))/ge'
EOF
chmod 0755 "$docs/tiltboard"
doc_date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
"$manual_tool" "$docs/tiltboard" --date "$doc_date" --output-directory "$docs" >> "$scratch/manual.log" 2>&1 \
    || { tail -n 30 "$scratch/manual.log" >&2; die "generate-manual failed (log: .build-deb/manual.log)"; }
perl -pe 's/UNICODE([0-9A-F]{4,6})EDOCINU/\\[u$1]/g; s/^$/.Pp/' "$docs/tiltboard.1" > "$docs/tiltboard.1.mdoc"
for shell in bash zsh fish; do
    "$host_bin/tiltboard" --generate-completion-script "$shell" > "$docs/completion.$shell"
done
say "man page and completions ready ($(elapsed))"

# --- the binary --------------------------------------------------------------------------------
if [ "$arch" = "$host_arch" ]; then
    say "swift build -c release --static-swift-stdlib ($arch)"
    swift build -c release --static-swift-stdlib --product tiltboard --scratch-path "$scratch" \
        > "$scratch/build.log" 2>&1 || { tail -n 30 "$scratch/build.log" >&2; die "swift build failed (log: .build-deb/build.log)"; }
    bin=$(swift build -c release --static-swift-stdlib --scratch-path "$scratch" --show-bin-path)/tiltboard
else
    say "cross-building for arm64 (Tests/toolchain/cross-build-arm64.sh)"
    # Its own unit tests (under qemu-user) are a CI step of their own; here only the binary counts.
    bin=$(bash "$cross" --skip-tests | tail -n 1) || die "the arm64 cross-build failed"
    [ -f "$bin" ] || die "the arm64 cross-build printed '$bin', which is not a file"
fi
machine=$(readelf -h "$bin" | awk -F: '/Machine:/ { gsub(/^ +/, "", $2); print $2 }')
case $arch:$machine in
    amd64:*X86-64*|arm64:AArch64) ;;
    *) die "$bin is built for '$machine', not $arch" ;;
esac
say "binary ready ($(elapsed))"

# --- Depends, from the libraries the binary needs ----------------------------------------------
# Each soname maps to its Debian package; libc6 gets the newest glibc symbol version used.
depends=()
for lib in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    case $lib in
        libc.so.6|libm.so.6|libdl.so.2|libpthread.so.0|librt.so.1|libutil.so.1|ld-linux-*) pkg=libc6 ;;
        libstdc++.so.6) pkg=libstdc++6 ;;
        libgcc_s.so.1) pkg=libgcc-s1 ;;
        libi2c.so.0) pkg=libi2c0 ;;
        libgpiod.so.2) pkg=libgpiod2 ;;
        libgpiod.so.3) pkg=libgpiod3 ;;
        libz.so.1) pkg=zlib1g ;;
        *) die "$bin needs $lib, which this script does not map to a Debian package (is the Swift runtime linked in?)" ;;
    esac
    [[ " ${depends[*]:-} " == *" $pkg "* ]] || depends+=("$pkg")
done
glibc=$(readelf -V "$bin" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n 1)
depends_field=""
for pkg in "${depends[@]}"; do
    [ "$pkg" = libc6 ] && [ -n "$glibc" ] && pkg="libc6 (>= $glibc)"
    depends_field+="${depends_field:+, }$pkg"
done
depends_field+=", passwd"

# --- the package tree --------------------------------------------------------------------------
name=tiltboard_${version}_${arch}
stage=$scratch/deb/$name
rm -rf "$stage"
install -d "$stage/DEBIAN"
install -D -m 0755 "$bin" "$stage/usr/bin/tiltboard"
# Debug symbols are a quarter of the binary. Cross-built: the toolchain's llvm-objcopy knows arm64.
if [ "$arch" = "$host_arch" ]; then
    strip --strip-unneeded "$stage/usr/bin/tiltboard"
else
    llvm-objcopy --strip-unneeded "$stage/usr/bin/tiltboard"
fi
install -D -m 0644 udev/60-tiltboard.rules "$stage/usr/lib/udev/rules.d/60-tiltboard.rules"
install -D -m 0644 packaging/tiltboard.service "$stage/usr/lib/systemd/system/tiltboard.service"
# tiltboard-serve.service: the same service running `serve` (the main job plus the calibration
# page) in place of `run`, with serve's own options and its stdout (the page's URLs) in the journal;
# starting one stops the other, and first (Conflicts= alone would run the stop and the start at the
# same time, and the new one would find the sensor and the motor line still held).
# tiltboard@.service and tiltboard-serve@.service: the same two as templates, one instance per
# player (or board), tiltboard@NAME with its settings in /etc/tiltboard/NAME.conf.
# All four made from tiltboard.service so that they never differ otherwise.
units=$stage/usr/lib/systemd/system
# serve_of UNIT PEER: UNIT (on stdin) running serve, in conflict with PEER and ordered after it.
serve_of() {
    echo "# Made from $1 by packaging/build-deb.sh: \`tiltboard serve\` in place of \`run\`."
    sed -e 's|^\(ExecStart=/usr/bin/tiltboard\) run \(.*\)$|\1 serve \2 $TILTBOARD_SERVE_OPTIONS|' \
        -e 's|^StandardOutput=null$|StandardOutput=journal|' \
        -e 's|^Description=.*$|& and its calibration page|' \
        -e "s|^Documentation=.*\$|&\nConflicts=$2\nAfter=$2|"
}
serve_of tiltboard.service tiltboard.service < packaging/tiltboard.service > "$units/tiltboard-serve.service"
[ "$(diff packaging/tiltboard.service "$units/tiltboard-serve.service" | grep -c '^>')" = 6 ] \
    || die "tiltboard-serve.service was not made from tiltboard.service as expected: $(diff packaging/tiltboard.service "$units/tiltboard-serve.service")"
{
    echo "# Made from tiltboard.service by packaging/build-deb.sh: one instance per player (or board),"
    echo "# tiltboard@NAME, its settings in /etc/tiltboard/NAME.conf (examples: /usr/share/tiltboard/examples/)."
    echo "# Two instances need two boards with their own names (the profile is"
    echo "# \$STATE_DIRECTORY/profiles/<the board's name>.json), UDP ports and page ports. Enabled one by one:"
    echo "# \`sudo systemctl enable --now tiltboard@player1 tiltboard@player2\`. A board on another bus:"
    echo "# \`sudo systemctl edit tiltboard@NAME\` (that instance) and add the DeviceAllow= line below."
    sed -e 's|^Description=.*$|& (%i)|' \
        -e 's|^EnvironmentFile=/etc/tiltboard/tiltboard\.conf$|EnvironmentFile=/etc/tiltboard/%i.conf|' packaging/tiltboard.service
} > "$units/tiltboard@.service"
[ "$(diff packaging/tiltboard.service "$units/tiltboard@.service" | grep -c '^>')" = 8 ] \
    || die "tiltboard@.service was not made from tiltboard.service as expected: $(diff packaging/tiltboard.service "$units/tiltboard@.service")"
serve_of tiltboard@.service 'tiltboard@%i.service' < "$units/tiltboard@.service" > "$units/tiltboard-serve@.service"
chmod 0644 "$units"/*.service
install -D -m 0644 packaging/tiltboard.conf "$stage/etc/tiltboard/tiltboard.conf"
# Settings of two template instances, to copy to /etc/tiltboard/ (not conffiles: nothing reads them there).
install -d "$stage/usr/share/tiltboard/examples"
install -m 0644 packaging/examples/player1.conf packaging/examples/player2.conf "$stage/usr/share/tiltboard/examples/"
install -d "$stage/usr/share/tiltboard/boards/scripts"
install -m 0644 Boards/*.json Boards/README.md "$stage/usr/share/tiltboard/boards/"
install -m 0644 Boards/scripts/* "$stage/usr/share/tiltboard/boards/scripts/"
install -d "$stage/usr/share/man/man1"
gzip -9n < "$docs/tiltboard.1.mdoc" > "$stage/usr/share/man/man1/tiltboard.1.gz"
install -D -m 0644 "$docs/completion.bash" "$stage/usr/share/bash-completion/completions/tiltboard"
install -D -m 0644 "$docs/completion.zsh" "$stage/usr/share/zsh/vendor-completions/_tiltboard"
install -D -m 0644 "$docs/completion.fish" "$stage/usr/share/fish/vendor_completions.d/tiltboard.fish"
install -D -m 0644 README.md "$stage/usr/share/doc/tiltboard/README.md"
# The pages the README links to, beside it, so its links hold in the installed copy too.
install -d "$stage/usr/share/doc/tiltboard/docs/schema"
install -m 0644 docs/*.md docs/*.png "$stage/usr/share/doc/tiltboard/docs/"
install -m 0644 docs/schema/*.json "$stage/usr/share/doc/tiltboard/docs/schema/"
for script in postinst prerm postrm; do
    install -m 0755 "packaging/debian/$script" "$stage/DEBIAN/$script"
done
echo /etc/tiltboard/tiltboard.conf > "$stage/DEBIAN/conffiles"
installed_kb=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<EOF
Package: tiltboard
Version: $version
Architecture: $arch
Maintainer: Tiltboard developers <tiltboard@localhost>
Installed-Size: $installed_kb
Depends: $depends_field
Section: utils
Priority: optional
Description: calibrated tilt controller with haptic feedback for a Raspberry Pi
 Turns a Raspberry Pi with an I2C motion sensor (MPU-6050 or ADXL345) and a
 vibration motor on a GPIO line into a calibrated tilt controller: calibration,
 shake detection, haptics and a fixed-rate loop streaming the control signal as
 JSON lines or UDP datagrams. Ships udev rules for the i2c and gpio groups and a
 hardened systemd service (not enabled on install).
EOF

deb=$scratch/deb/$name.deb
dpkg-deb --root-owner-group -Zgzip --build "$stage" "$deb" >/dev/null
say "$name.deb: $(du -h "$deb" | cut -f1), Depends: $depends_field ($(elapsed))"
echo "$deb"
