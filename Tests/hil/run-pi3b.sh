#!/usr/bin/env bash
# The Raspberry Pi's own stack without a Pi: a Raspberry Pi 3B under QEMU 10 (`-M raspi3b`, Debian
# 13's qemu-system-arm, run in the trixie chroot of Tests/toolchain/trixie-chroot.sh) booting Debian
# 13's arm64 kernel with its bcm2837-rpi-3-b.dtb, and the arm64 `tiltboard` from
# Tests/toolchain/cross-build-arm64.sh (Debian 13's Swift 6.0.3, libgpiod 2.x) on the Pi's own
# i2c-bcm2835 and pinctrl-bcm2835 drivers. Sensors: QEMU at24c-eeprom register files at 0x68,
# 0x53 and 0x6a on the Pi's I²C bus 1. The checks are in pi3b-init.sh (the guest's /init).
#
# Usage: bash Tests/hil/run-pi3b.sh [ARM64-BINARY]
#   without ARM64-BINARY it runs Tests/toolchain/cross-build-arm64.sh --skip-tests for one.
# Needs root (or sudo) for the chroot. Cached in ~/.cache/tiltboard/pi3b (TILTBOARD_CACHE moves it).
# PI3B_TIMEOUT (seconds, default 1200) bounds the guest; QEMU is ended as soon as the guest's
# summary line appears (poweroff does not end QEMU on raspi3b).
# Output: PASS:/FAIL: lines and `pi3b: N passed, M failed` on stdout, progress as `pi3b:` lines on
# stderr, the console in ~/.cache/tiltboard/pi3b/serial.log. Exit 0 only when every check passed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
guest_timeout=${PI3B_TIMEOUT:-1200}
started=$(date +%s)

say() { echo "pi3b: $*" >&2; }
elapsed() { echo "$(( $(date +%s) - started )) s"; }
die() { say "$*"; echo "FAIL: $*"; echo "pi3b: 0 passed, 1 failed"; exit 1; }

if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || die "needs root for the chroot; run it as root"
    exec sudo -E bash "$0" "$@"
fi

# readelf walks the guest binaries' libraries.
if ! command -v readelf >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends binutils >/dev/null \
        || die "apt-get install binutils (for readelf) failed"
fi

binary=${1:-}
if [ -z "$binary" ]; then
    say "building the arm64 binary (Tests/toolchain/cross-build-arm64.sh --skip-tests)"
    binary=$(bash "$root/Tests/toolchain/cross-build-arm64.sh" --skip-tests | tail -n 1)
fi
[ -x "$binary" ] || die "no arm64 binary at '$binary'"
say "binary $binary ($(elapsed))"

. "$root/Tests/toolchain/trixie-chroot.sh"
cache=$tiltboard_cache/pi3b
mkdir -p "$cache"
chroot_enter
# The arm64 runtime libraries come from the sysroot cross-build-arm64.sh made.
sysroot=$chroot_dir/sysroot-arm64
[ -e "$sysroot/.done" ] || die "no arm64 sysroot at $sysroot: run Tests/toolchain/cross-build-arm64.sh first"

# --- QEMU 10 and the guest's Debian 13 arm64 packages -----------------------------------------
chroot_has qemu-system-arm || chroot_install qemu-system-arm
chroot_add_arm64
chroot_apt_update
kpkg=$("${in_chroot[@]}" apt-cache depends linux-image-arm64:arm64 | awk '/Depends: linux-image-/ { print $2; exit }')
kpkg=${kpkg%:arm64}
kver=${kpkg#linux-image-}
[ -n "$kver" ] || die "cannot resolve linux-image-arm64 in the chroot"
guest=$cache/guest-$kver
guest_pkgs=("$kpkg:arm64" busybox-static:arm64 i2c-tools:arm64 gpiod:arm64)
if [ ! -e "$guest/.done" ]; then
    say "downloading ${guest_pkgs[*]}"
    chroot_download /var/cache/tiltboard-pi3b-debs "${guest_pkgs[@]}"
    rm -rf "$cache"/guest-*; mkdir -p "$guest"
    for d in "$chroot_dir"/var/cache/tiltboard-pi3b-debs/*.deb; do dpkg-deb -x "$d" "$guest"; done
    rm -rf "$chroot_dir/var/cache/tiltboard-pi3b-debs"
    [ -e "$guest/lib" ] || ln -s usr/lib "$guest/lib"   # merged /usr: the modules are in usr/lib/modules
    depmod -b "$guest" "$kver"
    touch "$guest/.done"
fi
say "QEMU $("${in_chroot[@]}" qemu-system-aarch64 --version | head -n 1 | awk '{ print $4 }'), kernel $kver ($(elapsed))"

# --- initramfs ---------------------------------------------------------------------------------
ird=$cache/initramfs
rm -rf "$ird"
mkdir -p "$ird"/{bin,sbin,etc,usr/bin,usr/sbin,usr/lib/aarch64-linux-gnu,proc,sys,dev,tmp,boards}
ln -s usr/lib "$ird/lib"
cp "$guest/usr/bin/busybox" "$ird/bin/busybox"
cp "$here/pi3b-init.sh" "$ird/init"; chmod 755 "$ird/init"
cp "$here/guest-lib.sh" "$ird/etc/"
cp "$binary" "$ird/usr/bin/tiltboard"
for t in i2ctransfer i2cdetect; do cp "$guest/usr/sbin/$t" "$ird/usr/sbin/"; done
for t in gpioset gpioinfo gpiodetect; do cp "$guest/usr/bin/$t" "$ird/usr/bin/"; done
# Runtime libraries from the sysroot: every DT_NEEDED entry of the binaries, and of those
# libraries in turn (glibc, libstdc++, libi2c, libgpiod 2.x).
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
todo=$(for b in "$ird"/usr/bin/* "$ird"/usr/sbin/*; do needed "$b"; done | sort -u)
while [ -n "$todo" ]; do
    next=""
    for l in $todo; do
        [ -e "$ird/usr/lib/aarch64-linux-gnu/$l" ] && continue
        src=$sysroot/usr/lib/aarch64-linux-gnu/$l
        [ -e "$src" ] || die "$l, needed by the guest's binaries, is not in the sysroot"
        cp -L "$src" "$ird/usr/lib/aarch64-linux-gnu/"
        next+=" $(needed "$src")"
    done
    todo=$next
done
[ -e "$ird/usr/lib/ld-linux-aarch64.so.1" ] || ln -s aarch64-linux-gnu/ld-linux-aarch64.so.1 "$ird/usr/lib/ld-linux-aarch64.so.1"
# Modules, decompressed, each with its dependencies, in load order.
: > "$ird/etc/pi3b-modules"
for m in i2c-bcm2835 i2c-dev; do
    modprobe -d "$guest" -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }' | while read -r ko; do
        rel=${ko#"$guest"}; rel=${rel%.xz}; rel=${rel%.zst}
        grep -qx "$rel" "$ird/etc/pi3b-modules" && continue
        mkdir -p "$ird$(dirname "$rel")"
        case $ko in
            *.xz) xz -dc "$ko" > "$ird$rel" ;;
            *.zst) zstd -qdc "$ko" > "$ird$rel" ;;
            *) cp "$ko" "$ird$rel" ;;
        esac
        echo "$rel" >> "$ird/etc/pi3b-modules"
    done
done
# The x86 run's boards, moved to the Pi's bus and GPIO chip: one set of board settings for both.
for b in "$here"/boards/*.json; do
    sed 's|/dev/i2c-0|/dev/i2c-1|; s|pinctrl-bcm2711|pinctrl-bcm2835|' "$b" > "$ird/boards/$(basename "$b")"
done
echo 'root:x:0:0:root:/:/bin/sh' > "$ird/etc/passwd"
echo 'root:x:0:' > "$ird/etc/group"
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) > "$cache/initramfs.cpio.gz"
say "initramfs ready: $(du -h "$cache/initramfs.cpio.gz" | cut -f1) ($(elapsed))"

# --- boot --------------------------------------------------------------------------------------
mount_at /pi3b --bind "$cache"
serial=$cache/serial.log
kimage=$(ls "$guest"/boot/vmlinuz-"$kver")
dtb=$(find "$guest/usr/lib" -name bcm2837-rpi-3-b.dtb | head -n 1)
[ -n "$dtb" ] || die "no bcm2837-rpi-3-b.dtb in $kpkg"
# One at24c-eeprom register file per chip at its address (a LIS3DH would add one at 0x18): the
# MPU-6050 at 0x68 (where an ICM-20948 is staged too), the ADXL345 at 0x53, the Sense HAT's LSM9DS1 at 0x6a.
say "booting raspi3b (TCG; ends on the guest's summary, limit ${guest_timeout} s)"
"${in_chroot[@]}" qemu-system-aarch64 -M raspi3b \
    -kernel "/pi3b/${kimage#"$cache/"}" -dtb "/pi3b/${dtb#"$cache/"}" -initrd /pi3b/initramfs.cpio.gz \
    -append "console=ttyAMA0 rdinit=/init panic=-1 loglevel=3" \
    -display none -monitor none -serial stdio -no-reboot \
    -device at24c-eeprom,bus=i2c-bus.1,address=0x68,address-size=1,rom-size=256 \
    -device at24c-eeprom,bus=i2c-bus.1,address=0x53,address-size=1,rom-size=256 \
    -device at24c-eeprom,bus=i2c-bus.1,address=0x6a,address-size=1,rom-size=256 \
    < /dev/null > "$serial" 2>&1 &
qemu_pid=$!
summary=""
deadline=$(( $(date +%s) + guest_timeout ))
while kill -0 "$qemu_pid" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do
    summary=$(tr -d '\r' < "$serial" | grep -E '^pi3b: [0-9]+ passed, [0-9]+ failed$' | tail -n 1 || true)
    [ -n "$summary" ] && break
    sleep 2
done
kill "$qemu_pid" 2>/dev/null || true
wait "$qemu_pid" 2>/dev/null || true
tr -d '\r' < "$serial" > "$serial.txt"
say "QEMU ended ($(elapsed)); console: $serial"

# --- verdict -----------------------------------------------------------------------------------
grep '^guest: ' "$serial.txt" >&2 || true
grep -E '^(PASS|FAIL): ' "$serial.txt" || true
guest_pass=$(grep -c '^PASS: ' "$serial.txt" || true)
guest_fail=$(grep -c '^FAIL: ' "$serial.txt" || true)
host_fail=0
if [ -z "$summary" ]; then
    tail -n 20 "$serial.txt" >&2
    echo "FAIL: guest summary line missing (timeout after ${guest_timeout} s, panic or /init crash; see $serial)"
    host_fail=1
elif [ "$summary" != "pi3b: $guest_pass passed, $guest_fail failed" ]; then
    echo "FAIL: guest summary '$summary' disagrees with its PASS/FAIL lines"
    host_fail=1
fi
total_fail=$((guest_fail + host_fail))
echo "pi3b: $guest_pass passed, $total_fail failed"
say "done in $(elapsed)"
[ "$total_fail" = 0 ]
