# Shared by the scripts that use Debian 13's own Swift: one minimal trixie chroot (debootstrap),
# cached in $TILTBOARD_CACHE (default ~/.cache/tiltboard) and used by one script at a time.
# Source it after setting `say` and `die`; then call chroot_enter, chroot_install PACKAGES…
# and run commands with "${in_chroot[@]}". Everything is unmounted on exit.
# Needs root (or sudo) for debootstrap, mount and chroot.
# Timeouts in seconds: SWIFT60_SETUP_TIMEOUT (debootstrap, apt; 1200).

tiltboard_cache=${TILTBOARD_CACHE:-${HOME:-/root}/.cache/tiltboard}
chroot_dir=$tiltboard_cache/trixie
mirror=http://deb.debian.org/debian
setup_timeout=${SWIFT60_SETUP_TIMEOUT:-1200}
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
chroot_cleanup() {
    local i
    [ -z "$step_pid" ] || kill -TERM "$step_pid" 2>/dev/null || true
    stop_chroot_processes
    for (( i=${#mounted[@]}-1; i>=0; i-- )); do
        umount -R "${mounted[$i]}" 2>/dev/null || umount -R -l "${mounted[$i]}" 2>/dev/null || say "could not unmount ${mounted[$i]}"
    done
}
# mounts_under DIR: mount points below DIR, deepest first (a killed run may have left some).
mounts_under() { awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r; }
# Never delete through a mount: /dev and /opt/swift-packages are the host's own.
safe_rm() { [ -z "$(mounts_under "$1")" ] || die "$1 still has mounts below it; unmount them first"; rm -rf "$1"; }

# A clean environment: nothing of the host's (its Swift on PATH above all) leaks in.
in_chroot=(env -i HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin chroot "$chroot_dir")

# chroot_enter: waits for any other user of the chroot, makes it once, mounts what it needs.
chroot_enter() {
    mkdir -p "$tiltboard_cache"
    exec 9>"$tiltboard_cache/trixie.lock"
    flock -n 9 || { say "waiting for another run that uses $chroot_dir"; flock 9; }
    trap chroot_cleanup EXIT
    if ! command -v debootstrap >/dev/null; then
        say "installing debootstrap"
        timeout "$setup_timeout" apt-get update -qq
        DEBIAN_FRONTEND=noninteractive timeout "$setup_timeout" apt-get install "${apt_opts[@]}" \
            --no-install-recommends debootstrap >/dev/null || die "apt-get install debootstrap failed"
    fi
    local m
    for m in $(mounts_under "$chroot_dir") $(mounts_under "$chroot_dir.partial"); do
        say "unmounting $m, left over from an earlier run"
        umount -R "$m" 2>/dev/null || umount -R -l "$m"
    done
    if [ ! -e "$chroot_dir/.debootstrap-done" ]; then
        # Into a side folder first: an interrupted debootstrap must not look like a finished one.
        say "debootstrap --variant=minbase trixie into $chroot_dir (once; limit ${setup_timeout} s)"
        safe_rm "$chroot_dir.partial"
        limited "$setup_timeout" debootstrap --variant=minbase trixie "$chroot_dir.partial" "$mirror" \
            > "$tiltboard_cache/debootstrap.log" 2>&1 || { tail -n 20 "$tiltboard_cache/debootstrap.log" >&2; die "debootstrap failed (log: $tiltboard_cache/debootstrap.log)"; }
        safe_rm "$chroot_dir"
        mv "$chroot_dir.partial" "$chroot_dir"
        touch "$chroot_dir/.debootstrap-done"
        say "chroot ready"
    fi
    mount_at /proc -t proc proc
    # libgpiod 2 tells a GPIO chip from any other character device through /sys/dev/char.
    mount_at /sys -t sysfs -o ro sysfs
    mount_at /dev --rbind /dev
    mount --make-rslave "$chroot_dir/dev"
    # Read-only: the chroot's git only clones from the mirrors.
    mount_at /opt/swift-packages --bind -o ro /opt/swift-packages
    mount -o remount,bind,ro "$chroot_dir/opt/swift-packages"
    cp -L /etc/resolv.conf "$chroot_dir/etc/resolv.conf" 2>/dev/null || true
    # The host's url.*.insteadOf rules (system or global) send the chroot's git to the same mirrors.
    local gitconfig=$chroot_dir/root/.gitconfig key value
    : > "$gitconfig"
    (cd / && git config --get-regexp '^url\..*\.insteadof$' || true) | while read -r key value; do
        git config --file "$gitconfig" --add "$key" "$value"
    done
    git config --file "$gitconfig" --add safe.directory '*'
}

mount_at() { # mount_at TARGET MOUNT-ARGS...
    local target=$chroot_dir$1; shift
    mkdir -p "$target"
    mount "$@" "$target"
    mounted+=("$target")
}

# chroot_has PACKAGES…: all of them are installed in the chroot.
chroot_has() { "${in_chroot[@]}" dpkg -s "$@" >/dev/null 2>&1; }
# chroot_install PACKAGES…: apt-get update, then apt-get install them (upgrading any older one).
chroot_install() {
    chroot_apt_update
    say "apt-get install $* in the chroot (limit ${setup_timeout} s)"
    limited "$setup_timeout" "${in_chroot[@]}" apt-get install "${apt_opts[@]}" --no-install-recommends "$@" >> "$tiltboard_cache/apt.log" 2>&1 \
        || { tail -n 20 "$tiltboard_cache/apt.log" >&2; die "apt-get install in the chroot failed (log: $tiltboard_cache/apt.log)"; }
    "${in_chroot[@]}" apt-get clean   # the downloaded .debs alone are ≈ 650 MB
}
chroot_apt_updated=0
chroot_apt_update() {
    [ "$chroot_apt_updated" = 1 ] && return 0
    limited "$setup_timeout" "${in_chroot[@]}" apt-get update -q > "$tiltboard_cache/apt.log" 2>&1 \
        || { tail -n 20 "$tiltboard_cache/apt.log" >&2; die "apt-get update in the chroot failed (log: $tiltboard_cache/apt.log)"; }
    chroot_apt_updated=1
}

# chroot_add_arm64: lets the chroot's apt download Debian 13's arm64 packages.
chroot_add_arm64() {
    "${in_chroot[@]}" dpkg --print-foreign-architectures | grep -qx arm64 && return 0
    "${in_chroot[@]}" dpkg --add-architecture arm64
    chroot_apt_updated=0
}

# chroot_download DEST PACKAGES…: apt-get download into DEST (a folder inside the chroot).
chroot_download() {
    local dest=$1; shift
    chroot_apt_update
    rm -rf "$chroot_dir$dest"; mkdir -p "$chroot_dir$dest"
    limited "$setup_timeout" "${in_chroot[@]}" sh -c "cd $dest && apt-get download -q $*" >> "$tiltboard_cache/apt.log" 2>&1 \
        || { tail -n 20 "$tiltboard_cache/apt.log" >&2; die "apt-get download $* failed (log: $tiltboard_cache/apt.log)"; }
}

# build_folder DIR [--clean]: makes the chroot's build folder DIR (a path inside the chroot). It is
# emptied first with --clean, and always under CI (CI=true): incremental builds across unrelated
# trees have been seen to keep a dependent module compiled against a changed type's old memory
# layout (crashes in malloc), so CI builds from nothing; a developer's reruns stay incremental.
build_folder() {
    if [ "${2:-}" = --clean ] || [ "${CI:-}" = true ]; then safe_rm "$chroot_dir$1"; fi
    mkdir -p "$chroot_dir$1"
}

# copy_tree_into ROOT DEST: the working tree's tracked and untracked-but-not-ignored files (no host
# .build) at DEST inside the chroot. A copy rather than a bind mount: SwiftPM writes Package.resolved
# next to Package.swift. Unchanged files are left as they are (same inode and time), so SwiftPM's
# next build there only recompiles what changed.
copy_tree_into() {
    local root=$1 dest=$chroot_dir$2 stage=$chroot_dir$2.new f
    rm -rf "$stage"; mkdir -p "$stage" "$dest"
    if git -c safe.directory='*' -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        (cd "$root" && git -c safe.directory='*' ls-files -z --cached --others --exclude-standard \
            | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
            | tar --null -T - -cf -) | tar -xf - -C "$stage"
    else
        # An unpacked source archive: everything but build folders and caches.
        (cd "$root" && tar --exclude='./.build*' --exclude='./.swiftpm' --exclude='./Tests/*/cache' \
            --exclude='./Package.resolved' -cf - .) | tar -xf - -C "$stage"
    fi
    (cd "$stage" && find . -type f -print0) | while IFS= read -r -d '' f; do
        cmp -s "$stage/$f" "$dest/$f" || { mkdir -p "$(dirname "$dest/$f")"; cp -p "$stage/$f" "$dest/$f"; }
    done
    (cd "$dest" && find . -type f -print0) | while IFS= read -r -d '' f; do
        [ -e "$stage/$f" ] || rm -f "$dest/$f"
    done
    rm -rf "$stage"
}
