#!/usr/bin/env bash
# Hardware-in-the-loop test against the real Linux I²C and GPIO subsystems, without a Pi:
# Debian's own kernel under QEMU (TCG), i2c-stub standing in for an MPU-6050 (0x68), an
# ADXL345 (0x53) and an LIS3DH (0x18) (also bound once to the kernel's st_accel_i2c), and gpio-sim (built here as an out-of-tree module) for a
# chip labelled like a Pi 4's; at the end two MPU-6050s (0x68, 0x69) as two players' gamepads,
# read through SDL2. The guest runs the real `tiltboard` binary and prints one PASS:/FAIL: line
# per check.
#
# Usage: bash Tests/hil/run-hil.sh        (needs root or sudo for apt-get; no KVM needed)
# Downloads and builds are cached in ~/.cache/tiltboard/hil/ (TILTBOARD_CACHE moves it; delete it to
# start fresh), outside the clone, so a new clone of the project starts warm.
# Exit status: 0 when every check passed, 1 otherwise (also when the guest never reported).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${TILTBOARD_CACHE:-${HOME:-/root}/.cache/tiltboard}/hil
qemu_timeout=${HIL_QEMU_TIMEOUT:-420}
started=$(date +%s)

# Progress goes to stderr with its own prefix; stdout carries only PASS:/FAIL: lines and the summary.
say() { echo "run-hil: $*" >&2; }
elapsed() { echo "$(( $(date +%s) - started )) s"; }

host_fail=()
# Results of the host-side steps join the guest's in the summary.
fail_step() { host_fail+=("$1"); say "step failed: $1"; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# One run at a time per cache: two would share its guest image and serial log.
mkdir -p "$cache"
exec 8>"$cache/run.lock"
flock -n 8 || { say "waiting for another run that uses $cache"; flock 8; }

# --- host tools --------------------------------------------------------------------------------
# qemu, a static busybox for the guest, cpio, kmod (depmod/modprobe -d), and the compiler Debian's
# kernel headers name (gcc-12) for the gpio-sim module, and SDL2's development files for the
# two players' client.
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
dpkg -s busybox-static >/dev/null 2>&1 || need+=(busybox-static)
command -v cpio >/dev/null || need+=(cpio)
command -v depmod >/dev/null || [ -x /sbin/depmod ] || need+=(kmod)
command -v gcc-12 >/dev/null || need+=(gcc-12)
command -v make >/dev/null || need+=(make)
[ -e /usr/include/stdio.h ] || need+=(libc6-dev)
dpkg -s libgpiod-dev >/dev/null 2>&1 || need+=(libgpiod-dev)
dpkg -s libi2c-dev >/dev/null 2>&1 || need+=(libi2c-dev)
dpkg -s libsdl2-dev >/dev/null 2>&1 || need+=(libsdl2-dev)
if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
export PATH="$PATH:/sbin:/usr/sbin"

# --- downloads: Debian's current kernel, its headers and source, the guest's tools ------------
mkdir -p "$cache/debs"
resolve_kernel() { apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }'; }
kpkg=$(resolve_kernel)
if [ -z "$kpkg" ]; then
    as_root apt-get update -qq
    kpkg=$(resolve_kernel)
fi
kver=${kpkg#linux-image-}                                    # 6.1.0-56-amd64
pkgver=$(apt-cache policy "$kpkg" | awk '/Candidate:/ { print $2 }')  # 6.1.192-2
kseries=$(echo "$kver" | cut -d. -f1,2)                      # 6.1
hdr_common=$(apt-cache depends "linux-headers-$kver" | awk '/Depends: linux-headers-.*-common/ { print $2; exit }')
[ -n "$kpkg" ] && [ -n "$pkgver" ] && [ -n "$hdr_common" ] || { say "cannot resolve linux-image-amd64 (run apt-get update)"; exit 1; }
say "kernel $kver ($pkgver)"

# fetch NAME [VERSION]: apt-get download into the cache unless a matching .deb is there already.
fetch() {
    local name=$1 version=${2:-}
    if [ -n "$version" ]; then
        ls "$cache/debs/${name}_${version}_"*.deb >/dev/null 2>&1 && return 0
        (cd "$cache/debs" && apt-get download -q "$name=$version" >/dev/null 2>&1)
    else
        ls "$cache/debs/${name}_"*.deb >/dev/null 2>&1 && return 0
        (cd "$cache/debs" && apt-get download -q "$name" >/dev/null 2>&1)
    fi
}
deb() { ls "$cache/debs/${1}_"*.deb | tail -n 1; }
for p in "$kpkg" "linux-headers-$kver" "$hdr_common" "linux-kbuild-$kseries" "linux-source-$kseries"; do
    fetch "$p" "$pkgver" || { say "apt-get download $p=$pkgver failed"; exit 1; }
done
for p in i2c-tools gpiod libgpiod2 libi2c0; do
    fetch "$p" || { say "apt-get download $p failed"; exit 1; }
done
# Keep one kernel in the cache: drop what an older Debian kernel left behind.
for old in "$cache"/debs/linux-*.deb; do
    case $old in *"_${pkgver}_"*) ;; *) rm -f "$old" ;; esac
done
for old in "$cache"/kroot-* "$cache"/gpio-sim-*; do
    case $old in *"-$kver") ;; *) [ -e "$old" ] && rm -rf "$old" ;; esac
done
say "downloads ready ($(elapsed))"

# --- unpack the kernel and headers (not installed: that would run boot hooks on the host) ------
kroot=$cache/kroot-$kver
if [ ! -e "$kroot/.done" ]; then
    rm -rf "$kroot"; mkdir -p "$kroot"
    for p in "$kpkg" "linux-headers-$kver" "$hdr_common" "linux-kbuild-$kseries"; do
        dpkg-deb -x "$(deb "$p")" "$kroot"
    done
    # The headers' Makefile includes the common tree by absolute /usr/src path.
    sed -i "s|^include /usr/src/|include $kroot/usr/src/|" "$kroot/usr/src/linux-headers-$kver/Makefile"
    depmod -b "$kroot" "$kver"
    touch "$kroot/.done"
fi
guestpkgs=$cache/guestpkgs
if [ ! -e "$guestpkgs/.done" ]; then
    rm -rf "$guestpkgs"; mkdir -p "$guestpkgs"
    for p in i2c-tools gpiod libgpiod2 libi2c0; do dpkg-deb -x "$(deb "$p")" "$guestpkgs"; done
    touch "$guestpkgs/.done"
fi

# --- gpio-sim as an out-of-tree module ---------------------------------------------------------
# Debian builds neither gpio-sim nor irq_sim; both come from the matching linux-source.
simdir=$cache/gpio-sim-$kver
if [ ! -e "$simdir/gpio-sim.ko" ]; then
    rm -rf "$simdir"; mkdir -p "$simdir/src"
    src=linux-source-$kseries
    dpkg-deb --fsys-tarfile "$(deb "$src")" | tar -xO "./usr/src/$src.tar.xz" \
        | tar -xJ -C "$simdir/src" "$src/drivers/gpio/gpio-sim.c" "$src/drivers/gpio/gpiolib.h" "$src/kernel/irq/irq_sim.c"
    cp "$simdir/src/$src/drivers/gpio/gpio-sim.c" "$simdir/gpio-sim-main.c"
    cp "$simdir/src/$src/drivers/gpio/gpiolib.h" "$simdir/"
    # irq_to_desc is not exported to modules; generic_handle_irq does the same lookup.
    sed 's/handle_simple_irq(irq_to_desc(irqnum))/generic_handle_irq(irqnum)/' \
        "$simdir/src/$src/kernel/irq/irq_sim.c" > "$simdir/irq_sim.c"
    grep -q 'generic_handle_irq(irqnum)' "$simdir/irq_sim.c" || { say "irq_sim.c patch did not apply"; exit 1; }
    printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n' > "$simdir/Kbuild"
    make -s -C "$kroot/usr/src/linux-headers-$kver" M="$simdir" modules >"$simdir/build.log" 2>&1 \
        || { cat "$simdir/build.log" >&2; say "gpio-sim build failed"; exit 1; }
fi
say "gpio-sim module ready ($(elapsed))"

# --- tiltboard, statically linked against the Swift runtime ------------------------------------
tb_rel=""
if (cd "$root" && swift build -c release --static-swift-stdlib --product tiltboard --scratch-path .build-hil) \
        > "$cache/swift-build.log" 2>&1; then
    bin=$(cd "$root" && swift build -c release --static-swift-stdlib --scratch-path .build-hil --show-bin-path)
    tb_rel=${bin#"$root/"}/tiltboard
    say "tiltboard built ($(elapsed))"
else
    tail -n 30 "$cache/swift-build.log" >&2
    fail_step "swift build of tiltboard (see $cache/swift-build.log)"
fi

# --- the same source against libgpiod 2.x: Debian 13's Swift in the trixie chroot ---------------
# Runs in the guest through its own loader and libraries (this guest's userland has libgpiod 1.6).
gpiod2_rel=""
if gpiod2_dir=$(bash "$root/Tests/toolchain/build-amd64-gpiod2.sh" 2> "$cache/gpiod2-build.log" | tail -n 1) \
        && [ -x "$gpiod2_dir/tiltboard" ]; then
    gpiod2_rel=${gpiod2_dir#"$root/"}
    say "tiltboard against libgpiod 2.x built ($(elapsed))"
else
    tail -n 30 "$cache/gpiod2-build.log" >&2
    fail_step "build against libgpiod 2.x (see $cache/gpiod2-build.log)"
fi

# --- the GPIO backend's own tests, run in the guest against gpio-sim ----------------------------
# Same build as `swift test` (default scratch path), so after the unit tests this costs nothing.
xctest_rel=""
if (cd "$root" && swift build --build-tests) > "$cache/swift-build-tests.log" 2>&1; then
    xctest_rel=$(cd "$root" && swift build --show-bin-path)/TiltboardPackageTests.xctest
    xctest_rel=${xctest_rel#"$root/"}
    say "test bundle built ($(elapsed))"
else
    tail -n 30 "$cache/swift-build-tests.log" >&2
    fail_step "swift build --build-tests (see $cache/swift-build-tests.log)"
fi
# The Swift runtime the test bundle links is shared into the guest at the same path (its RUNPATH).
swiftlib=$(cd "$(dirname "$(readlink -f "$(command -v swift)")")/../lib/swift/linux" && pwd)

# --- initramfs ---------------------------------------------------------------------------------
ird=$cache/initramfs
rm -rf "$ird"
mkdir -p "$ird"/{bin,sbin,etc,usr/bin,usr/sbin,lib/x86_64-linux-gnu,lib64,proc,sys,dev,tmp,mnt}
cp /bin/busybox "$ird/bin/busybox"
cp "$here/guest-init.sh" "$ird/init"
chmod 755 "$ird/init"
cp "$here/guest-lib.sh" "$ird/etc/"
: > "$ird/etc/hil-modules"
# add_module NAME [PARAMS]: the module and its dependencies, in load order, once each.
add_module() {
    local name=$1; shift
    modprobe -d "$kroot" -S "$kver" --show-depends "$name" | awk '$1 == "insmod" { print $2 }' | while read -r ko; do
        local rel=${ko#"$kroot"}
        grep -q "^$rel" "$ird/etc/hil-modules" && continue
        mkdir -p "$ird$(dirname "$rel")"
        cp "$ko" "$ird$rel"
        if [ "$(basename "$ko" .ko)" = "$(echo "$name" | tr - _)" ] || [ "$(basename "$ko" .ko)" = "$name" ]; then
            echo "$rel $*" >> "$ird/etc/hil-modules"
        else
            echo "$rel" >> "$ird/etc/hil-modules"
        fi
    done
}
for m in virtio_pci 9pnet_virtio 9p i2c-dev configfs; do add_module "$m"; done
add_module i2c-stub chip_addr=0x68,0x53,0x18,0x6a
# The kernel's own LIS3DH driver (IIO), bound to 0x18 by the guest to stage a sensor a kernel
# driver owns, as a device-tree overlay would on a Pi.
add_module st_accel_i2c
for m in uinput evdev; do add_module "$m"; done
mkdir -p "$ird/lib/modules/$kver/extra"
cp "$simdir/gpio-sim.ko" "$ird/lib/modules/$kver/extra/"
echo "/lib/modules/$kver/extra/gpio-sim.ko" >> "$ird/etc/hil-modules"

# The gamepad check's client: a game's side, written against <linux/input.h> only.
gcc -static -O2 -o "$ird/usr/bin/gamepad-client" "$here/gamepad-client.c" || fail_step "gcc gamepad-client.c"
# The two players' client: a game's side through Debian's SDL2 (its libraries join the guest's below).
gcc -O2 -o "$ird/usr/bin/sdl-pads" "$here/sdl-pads.c" $(sdl2-config --cflags --libs) || fail_step "gcc sdl-pads.c"
for t in i2cget i2cset i2cdetect; do cp "$guestpkgs/usr/sbin/$t" "$ird/usr/sbin/"; done
for t in gpioinfo gpioset gpioget gpiodetect; do cp "$guestpkgs/usr/bin/$t" "$ird/usr/bin/"; done
# Libraries of every dynamic binary the guest runs: the guest packages' own first, then the host's.
libs=$(for b in "$ird"/usr/sbin/* "$ird"/usr/bin/* ${tb_rel:+"$root/$tb_rel"} ${xctest_rel:+"$root/$xctest_rel"}; do
    LD_LIBRARY_PATH=$guestpkgs/usr/lib/x86_64-linux-gnu ldd "$b" | awk '/=> \// { print $3 } /^\t\/lib64/ { print $1 }'
done | grep -v "^$swiftlib/" | sort -u)
for l in $libs; do
    case $l in
        /lib64/*) cp -L "$l" "$ird/lib64/" ;;
        *) cp -L "$l" "$ird/lib/x86_64-linux-gnu/" ;;
    esac
done
printf 'KVER=%s\nTB=%s\nXCTEST=%s\nSWIFTLIB=%s\nGPIOD2=%s\n' "$kver" "${tb_rel:-.build-hil/release/tiltboard}" \
    "${xctest_rel:-.build/debug/TiltboardPackageTests.xctest}" "$swiftlib" "$gpiod2_rel" > "$ird/etc/hil.conf"
echo 'root:x:0:0:root:/:/bin/sh' > "$ird/etc/passwd"
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) > "$cache/initramfs.cpio.gz"
say "initramfs ready ($(elapsed))"

# --- boot ------------------------------------------------------------------------------------
# TCG only: KVM aborts or hangs on these machines. The repository is shared read-only over 9p.
serial=$cache/serial.log
say "booting $kver under QEMU (TCG, limit ${qemu_timeout} s)"
set +e
timeout "$qemu_timeout" qemu-system-x86_64 \
    -accel tcg -cpu max -smp 2 -m 512M \
    -display none -monitor none -serial stdio -no-reboot \
    -kernel "$kroot/boot/vmlinuz-$kver" -initrd "$cache/initramfs.cpio.gz" \
    -append "console=ttyS0 panic=-1 quiet loglevel=3" \
    -virtfs "local,path=$root,mount_tag=host,security_model=none,readonly=on" \
    -virtfs "local,path=$swiftlib,mount_tag=swiftlib,security_model=none,readonly=on" \
    < /dev/null > "$serial" 2>&1
qemu_rc=$?
set -e
tr -d '\r' < "$serial" > "$serial.txt"
say "QEMU finished with status $qemu_rc ($(elapsed)); serial log: $serial"

# --- verdict -----------------------------------------------------------------------------------
grep '^guest: ' "$serial.txt" >&2 || true
grep -E '^(PASS|FAIL): ' "$serial.txt" || true
guest_pass=$(grep -c '^PASS: ' "$serial.txt" || true)
guest_fail=$(grep -c '^FAIL: ' "$serial.txt" || true)
summary=$(grep -E '^hil: [0-9]+ passed, [0-9]+ failed$' "$serial.txt" | tail -n 1 || true)
if [ -z "$summary" ]; then
    tail -n 20 "$serial.txt" >&2
    fail_step "guest summary line missing (timeout, kernel panic or /init crash; see the serial log)"
elif [ "$summary" != "hil: $guest_pass passed, $guest_fail failed" ]; then
    fail_step "guest summary '$summary' disagrees with its PASS/FAIL lines"
fi
for f in "${host_fail[@]}"; do echo "FAIL: $f"; done
total_fail=$((guest_fail + ${#host_fail[@]}))
echo "hil: $guest_pass passed, $total_fail failed"
say "done in $(elapsed)"
[ "$total_fail" = 0 ]
