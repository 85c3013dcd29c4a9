#!/usr/bin/env bash
# The .deb under a real systemd: boots Debian 12's systemd as PID 1 in a container
# (systemd-nspawn -b, private network), installs the package there offline with apt, and runs the
# packaged units on a simulated board: postinst, start, the journal and its priorities, the
# service's user and state directory, `calibrate --service`, stop / SIGKILL / SIGSEGV leaving the
# motor off, 20 restarts in a row, a bad and a missing board file failing the unit at once, the
# serve variant, real-time scheduling, two players as two instances of the template units
# (tiltboard@.service), upgrade, remove, purge and reinstall.
#
# Usage: bash Tests/systemd/run-systemd.sh DEB      (as root, or through sudo)
# Output: one PASS:/FAIL: line per check on stdout, then `systemd: N passed, M failed`; progress
# and the figures measured on stderr as `systemd:` lines. Exit status 0 when every check passed.
# The root file system (debootstrap bookworm, systemd, dbus, curl, the package's dependencies
# downloaded) is made once in ~/.cache/tiltboard/systemd/ ($TILTBOARD_CACHE); each run boots a
# fresh overlay of it. The container's console goes to ~/.cache/tiltboard/systemd/console.log.
# Time limits in seconds: SYSTEMD_SETUP_TIMEOUT (debootstrap, apt; 900), SYSTEMD_BOOT_TIMEOUT
# (120), SYSTEMD_RUN_TIMEOUT (the whole run; 1500).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
started=$SECONDS

say() { echo "systemd: $*" >&2; }
die() { echo "systemd: error: $*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: Tests/systemd/run-systemd.sh DEB"
deb=$1
[ -f "$deb" ] || die "no such file: $deb"
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
if [ "$(id -u)" != 0 ]; then
    exec sudo --preserve-env=TILTBOARD_CACHE,SYSTEMD_SETUP_TIMEOUT,SYSTEMD_BOOT_TIMEOUT,SYSTEMD_RUN_TIMEOUT,HOME bash "$0" "$deb"
fi
[ "$(dpkg-deb -f "$deb" Architecture)" = "$(dpkg --print-architecture)" ] \
    || die "$deb is for $(dpkg-deb -f "$deb" Architecture); this machine runs $(dpkg --print-architecture)"

cache=${TILTBOARD_CACHE:-${HOME:-/root}/.cache/tiltboard}/systemd
rootfs=$cache/bookworm
mirror=http://deb.debian.org/debian
setup_timeout=${SYSTEMD_SETUP_TIMEOUT:-900}
boot_timeout=${SYSTEMD_BOOT_TIMEOUT:-120}
run_timeout=${SYSTEMD_RUN_TIMEOUT:-1500}
export PATH="$PATH:/usr/sbin:/sbin"
export DEBIAN_FRONTEND=noninteractive
# What the container's root file system holds besides debootstrap's minbase.
include=systemd,systemd-sysv,dbus,curl,procps
machine=tiltboard-systemd

# --- clean-up on every exit path -----------------------------------------------------------------
run_dir="" nspawn_pid="" watchdog_pid="" step_pid=""
cleanup() {
    local rc=$? i
    trap - EXIT INT TERM
    [ -z "$step_pid" ] || kill -TERM "$step_pid" 2>/dev/null || true
    if [ -n "$nspawn_pid" ] && kill -0 "$nspawn_pid" 2>/dev/null; then
        # A clean poweroff first, then nspawn's own (SIGTERM: the container is told to power off), then SIGKILL.
        [ -z "${leader:-}" ] || timeout 10 nsenter --target "$leader" --mount --pid -- /usr/bin/systemctl poweroff --no-block >/dev/null 2>&1 || true
        for i in $(seq 60); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.5; done
        kill -TERM "$nspawn_pid" 2>/dev/null || true
        for i in $(seq 20); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.5; done
        kill -KILL "$nspawn_pid" 2>/dev/null || true
        wait "$nspawn_pid" 2>/dev/null || true
    fi
    if [ -n "$run_dir" ]; then
        mountpoint -q "$run_dir/merged" && { umount "$run_dir/merged" 2>/dev/null || umount -l "$run_dir/merged"; }
        mountpoint -q "$run_dir/merged" || rm -rf "$run_dir"
    fi
    [ -z "$watchdog_pid" ] || kill "$watchdog_pid" 2>/dev/null || true
    exit "$rc"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "stopped (SIGTERM: the run limit of ${run_timeout} s, or asked to)"; exit 143' TERM
# The whole run under a limit: a hung boot or check cannot eat CI's time.
# (Its output closed: a pipe reading this script's output must not wait for it; its sleep ended
# with it.)
( exec </dev/null >/dev/null 2>&1; sleep "$run_timeout" & s=$!; trap 'kill "$s"; exit 0' TERM; wait "$s" && kill -TERM $$ ) &
watchdog_pid=$!
# limited SECONDS CMD...: CMD under `timeout`, waited for in the background so that INT and TERM
# are handled at once rather than after the step ends.
limited() {
    local limit=$1 rc=0; shift
    timeout --kill-after=20 "$limit" "$@" &
    step_pid=$!
    wait "$step_pid" || rc=$?
    step_pid=""
    return "$rc"
}

# --- the host's tools ------------------------------------------------------------------------------
need=()
command -v systemd-nspawn >/dev/null || need+=(systemd-container)
command -v debootstrap >/dev/null || need+=(debootstrap)
if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]} on this machine"
    limited "$setup_timeout" apt-get update -qq || die "apt-get update failed"
    limited "$setup_timeout" apt-get install -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends "${need[@]}" >/dev/null \
        || die "apt-get install ${need[*]} failed"
fi

# --- the root file system, made once ---------------------------------------------------------------
mkdir -p "$cache"
exec 9>"$cache/lock"
flock -n 9 || { say "waiting for another run that uses $cache"; flock 9; }
# Left over from a killed run: its overlay and working copy.
for m in $(awk -v d="$cache/run." 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m"
done
rm -rf "$cache"/run.*

in_rootfs() { env -i HOME=/root LANG=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive chroot "$rootfs" "$@"; }
setup_started=$SECONDS
if [ ! -e "$rootfs/.tiltboard-rootfs-done" ] || [ "$(cat "$rootfs/.tiltboard-rootfs-done")" != "$include" ]; then
    say "debootstrap --variant=minbase --include=$include bookworm into $rootfs (once; limit ${setup_timeout} s)"
    rm -rf "$rootfs.partial"
    limited "$setup_timeout" debootstrap --variant=minbase --include="$include" bookworm "$rootfs.partial" "$mirror" \
        > "$cache/debootstrap.log" 2>&1 || { tail -n 20 "$cache/debootstrap.log" >&2; die "debootstrap failed (log: $cache/debootstrap.log)"; }
    echo "$machine" > "$rootfs.partial/etc/hostname"
    # No getty on a console nothing reads; the journal kept in memory only.
    ln -sf /dev/null "$rootfs.partial/etc/systemd/system/console-getty.service"
    rm -rf "$rootfs"
    mv "$rootfs.partial" "$rootfs"
    echo "$include" > "$rootfs/.tiltboard-rootfs-done"
fi
# The package's dependencies, downloaded into apt's cache of the root file system, so that
# `apt install ./tiltboard_*.deb` works in the container without a network. Done again when the
# Depends field changes.
depends=$(dpkg-deb -f "$deb" Depends)
deps_stamp=$rootfs/.tiltboard-deps
if [ "$(cat "$deps_stamp" 2>/dev/null)" != "$depends" ]; then
    say "downloading the package's dependencies into the root file system: $depends"
    cp -L /etc/resolv.conf "$rootfs/etc/resolv.conf"
    cp "$deb" "$rootfs/root/deps-probe.deb"
    mount -t proc proc "$rootfs/proc"
    rc=0
    { limited "$setup_timeout" chroot "$rootfs" apt-get update -q \
        && limited "$setup_timeout" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
            chroot "$rootfs" apt-get install -y -q --download-only --no-install-recommends /root/deps-probe.deb; } \
        > "$cache/apt.log" 2>&1 || rc=$?
    umount "$rootfs/proc"
    rm -f "$rootfs/root/deps-probe.deb" "$rootfs/etc/resolv.conf"
    [ "$rc" = 0 ] || { tail -n 20 "$cache/apt.log" >&2; die "downloading the dependencies failed (log: $cache/apt.log)"; }
    echo "$depends" > "$deps_stamp"
fi
setup_seconds=$((SECONDS - setup_started))
say "root file system ready (${setup_seconds} s): $(du -sh "$rootfs" | cut -f1)"

# --- a fresh working copy: an overlay on the cached root file system ---------------------------------
run_dir=$(mktemp -d "$cache/run.XXXXXX")
mkdir -p "$run_dir/upper" "$run_dir/work" "$run_dir/merged"
mount -t overlay tiltboard-systemd -o "lowerdir=$rootfs,upperdir=$run_dir/upper,workdir=$run_dir/work" "$run_dir/merged" \
    || die "could not mount an overlay on $rootfs"
ct=$run_dir/merged
version=$(dpkg-deb -f "$deb" Version)
mkdir -p "$ct/root/debs"
cp "$deb" "$ct/root/debs/"
pkg=/root/debs/$(basename "$deb")
# The same package with a higher version, for the upgrade.
up_version=$version+systemd1
dpkg-deb -R "$deb" "$run_dir/repack"
sed -i "s/^Version: .*/Version: $up_version/" "$run_dir/repack/DEBIAN/control"
dpkg-deb --root-owner-group -Zgzip --build "$run_dir/repack" "$ct/root/debs/tiltboard_${up_version}_$(dpkg --print-architecture).deb" >/dev/null
rm -rf "$run_dir/repack"
up_pkg=/root/debs/tiltboard_${up_version}_$(dpkg --print-architecture).deb

# The simulated boards: the packaged simulated MPU-6050 with every motor change logged to a file
# in the state directory (the one place the service may write); the same board (the same name, so
# the same profile) shaken at 0.5 s with a 30 s pulse as its shake effect, so that the motor is on
# when the service is stopped or killed; and a clone whose WHO_AM_I (0x72) makes tiltboard warn.
test_dir=/usr/local/share/tiltboard-test
mkdir -p "$ct$test_dir"
motor_log=/var/lib/tiltboard/motor.log
board=$test_dir/simulated.json
shake_board=$test_dir/shaken.json
clone_board=$test_dir/clone.json
sed "s|\"seed\": 42 }|\"seed\": 42, \"motorLog\": \"$motor_log\" }|" "$root/Boards/simulated-mpu6050.json" > "$ct$board"
sed -e 's|"script": "flat"|"script": "shake-once.json"|' -e 's|"pulse:150", "maxOnMs": 2000|"pulse:30000", "maxOnMs": 60000|' \
    "$ct$board" > "$ct$shake_board"
cat > "$ct$test_dir/shake-once.json" <<'JSON'
{
  "segments": [
    {"hold": {"pitchDeg": 0, "rollDeg": 0, "seconds": 0.5}},
    {"shake": {"axis": [1, 0, 0], "frequencyHz": 4, "peakG": 2, "seconds": 1}},
    {"hold": {"seconds": 3600}}
  ]
}
JSON
grep -q shake-once "$ct$shake_board" && grep -q pulse:30000 "$ct$shake_board" || die "could not make the shaken board"
sed -e "s|\"seed\": 42 }|\"seed\": 42, \"whoAmI\": \"0x72\", \"motorLog\": \"$motor_log\" }|" \
    -e 's|"name": "[^"]*"|"name": "simulated clone board"|' "$root/Boards/simulated-mpu6050.json" > "$ct$clone_board"
grep -q motorLog "$ct$board" && grep -q 0x72 "$ct$clone_board" || die "could not add motorLog to the simulated board"
echo '{ "name": "broken board", "sensor": ' > "$ct/usr/local/share/tiltboard-test/bad.json"
profile=/var/lib/tiltboard/profiles/simulated-mpu-6050-board.json
# Two players for the template units: the shaken board under two names (so two profiles), each
# with its own motor log; the settings of each instance are the packaged examples with the board
# set (their UDP and page ports as shipped).
for n in 1 2; do
    sed -e "s|\"name\": \"[^\"]*\"|\"name\": \"simulated player $n\"|" -e "s|$motor_log|/var/lib/tiltboard/motor-player$n.log|" \
        "$ct$shake_board" > "$ct$test_dir/player$n.json"
    grep -q "simulated player $n" "$ct$test_dir/player$n.json" && grep -q "motor-player$n.log" "$ct$test_dir/player$n.json" \
        || die "could not make player $n's board"
done

# --- boot ------------------------------------------------------------------------------------------
boot_started=$SECONDS
say "booting Debian 12's systemd in the container (limit ${boot_timeout} s)"
: > "$cache/console.log"
systemd-nspawn --quiet --directory="$ct" --boot --register=no --keep-unit --private-network \
    --machine="$machine" --console=read-only --capability=CAP_IPC_LOCK > "$cache/console.log" 2>&1 < /dev/null &
nspawn_pid=$!
# The container's PID 1: nspawn's child whose PID in its own namespace is 1.
leader=""
for _ in $(seq $((boot_timeout * 10))); do
    for p in $(pgrep -P "$nspawn_pid" 2>/dev/null); do
        [ "$(awk '/^NSpid:/ { print $NF }' "/proc/$p/status" 2>/dev/null)" = 1 ] && leader=$p
    done
    [ -n "$leader" ] && break
    kill -0 "$nspawn_pid" 2>/dev/null || { tail -n 30 "$cache/console.log" >&2; die "systemd-nspawn exited"; }
    sleep 0.1
done
[ -n "$leader" ] || { tail -n 30 "$cache/console.log" >&2; die "no container PID 1 after ${boot_timeout} s"; }
# in_ct CMD...: CMD inside the container (its namespaces and root), a clean environment, 120 s at most.
in_ct() {
    timeout --kill-after=10 120 nsenter --target "$leader" --mount --uts --ipc --net --pid --cgroup --root --wd \
        -- /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
        SYSTEMD_PAGER= SYSTEMD_COLORS=0 SYSTEMD_LESS= TERM=dumb DEBIAN_FRONTEND=noninteractive "$@" < /dev/null
}
sh_ct() { in_ct /bin/sh -c "$1"; }
state=""
for _ in $(seq "$boot_timeout"); do
    state=$(in_ct systemctl is-system-running 2>/dev/null) || true
    case $state in running|degraded) break ;; esac
    kill -0 "$nspawn_pid" 2>/dev/null || { tail -n 30 "$cache/console.log" >&2; die "the container stopped while booting"; }
    sleep 1
done
boot_seconds=$((SECONDS - boot_started))
case $state in
    running) say "booted: systemd $(in_ct systemctl --version | head -n 1 | awk '{ print $2 }') as PID 1, $state (${boot_seconds} s)" ;;
    degraded) say "booted (${boot_seconds} s), degraded: $(in_ct systemctl --failed --plain --no-legend | awk '{ print $1 }' | tr '\n' ' ')" ;;
    *) tail -n 30 "$cache/console.log" >&2; die "the container did not finish booting in ${boot_timeout} s (state: '$state')" ;;
esac
[ "$(in_ct cat /proc/1/comm)" = systemd ] || die "the container's PID 1 is not systemd"

# --- checks ----------------------------------------------------------------------------------------
passed=0 failed=0
# Progress and figures go to the script's stderr also from inside a check (whose output is captured).
exec 3>&2
# check NAME FUNCTION: the function prints why it failed and returns non-zero.
check() {
    local name=$1 out rc=0 t0=$SECONDS
    shift
    out=$("$@" 2>&1) || rc=$?
    if [ "$rc" = 0 ]; then
        echo "PASS: $name ($((SECONDS - t0)) s)"; passed=$((passed + 1))
    else
        echo "FAIL: $name"; echo "$out" | tail -n 30 | sed 's/^/    /'; failed=$((failed + 1))
    fi
}
figure() { echo "$*" >> "$run_dir/figures"; echo "systemd: figure: $*" >&3; }

# show UNIT PROPERTY: one property's value.
show() { in_ct systemctl show -P "$2" "$1"; }
# wait_for SECONDS CONDITION...: polls CONDITION (a command) every 0.2 s until it holds.
wait_for() {
    local limit=$1 i; shift
    for i in $(seq $((limit * 5))); do "$@" && return 0; sleep 0.2; done
    return 1
}
is_state() { [ "$(show "$1" ActiveState)" = "$2" ]; }
in_journal() { in_ct journalctl -u "$1" --no-pager -o cat "${@:3}" | grep -qF -- "$2"; }
# set_conf KEY VALUE: one line of /etc/tiltboard/tiltboard.conf.
set_conf() { sh_ct "sed -i 's|^$1=.*|$1=$2|' /etc/tiltboard/tiltboard.conf"; }
# motor_lines [LOG], motor_on [LOG]: the board's motor log (default: $motor_log).
motor_lines() { sh_ct "wc -l < ${1:-$motor_log} 2>/dev/null || echo 0"; }
motor_on() { [[ "$(sh_ct "tail -n 1 ${1:-$motor_log} 2>/dev/null")" =~ ^[0-9.]+\ 1$ ]]; }
# motor_off_after LINES [LOG]: the motor log gained lines since it had LINES and its last one is `<t> 0`.
motor_off_after() {
    local now last
    now=$(motor_lines "${2:-}"); last=$(sh_ct "tail -n 1 ${2:-$motor_log}")
    echo "motor log: $now lines (was $1), last '$last'"
    [ "$now" -gt "$1" ] && [[ "$last" =~ ^[0-9.]+\ 0$ ]]
}
# The journal's lines of UNIT since the cursor taken by mark.
# (A file: checks run in subshells, and one check reads the journal since another's mark.)
mark() { in_ct journalctl --no-pager -n 0 --show-cursor | sed -n 's/^-- cursor: //p' > "$run_dir/cursor"; }
since_mark() { in_ct journalctl --no-pager -o cat --after-cursor="$(cat "$run_dir/cursor")" "$@"; }
# since_mark_at FROM TO [ARGS…]: those at priorities FROM…TO (3 err, 4 warning, 6 info). Not
# journalctl's -p: systemd 252's journalctl shows nothing for -p with --after-cursor.
since_mark_at() {
    local from=$1 to=$2; shift 2
    since_mark "$@" -o export --output-fields=PRIORITY,MESSAGE | awk -v from="$from" -v to="$to" '
        function out() { if (p != "" && p + 0 >= from && p + 0 <= to) print m; p = ""; m = "" }
        /^PRIORITY=/ { p = substr($0, 10) } /^MESSAGE=/ { m = substr($0, 9) } /^$/ { out() } END { out() }'
}
fifo_threads() { # fifo_threads PID: "TID:NAME" of each thread under SCHED_FIFO (policy 1) at priority 50
    sh_ct "for t in /proc/$1/task/*; do s=\$(cat \$t/stat); s=\${s##*) }; set -- \$s; \
        [ \"\${39}\" = 1 ] && [ \"\${38}\" = 50 ] && echo \"\${t##*/}:\$(cat \$t/comm)\"; done; true"
}

installed() {
    local t0=$SECONDS
    ! sh_ct 'curl -s -m 5 -o /dev/null http://deb.debian.org/' || { echo "the container reaches the network"; return 1; }
    in_ct apt-get install -y -q --no-install-recommends "$pkg" || return 1
    figure "offline install: $((SECONDS - t0)) s"
    [ "$(in_ct dpkg-query -W -f '${Status} ${Version}' tiltboard)" = "install ok installed $version" ]
}
postinst_done() {
    local g
    for g in i2c gpio uinput; do in_ct getent group "$g" >/dev/null || { echo "no group $g"; return 1; }; done
    in_ct id tiltboard
    [ "$(in_ct id -nG tiltboard | tr ' ' '\n' | sort | tr '\n' ' ')" = "gpio i2c tiltboard uinput " ] || return 1
    [ "$(sh_ct 'stat -c "%U:%G %a" /var/lib/tiltboard')" = "tiltboard:tiltboard 750" ] || { echo "/var/lib/tiltboard: $(sh_ct 'stat -c "%U:%G %a" /var/lib/tiltboard')"; return 1; }
    local u
    for u in tiltboard tiltboard-serve; do
        echo "$u: $(show $u LoadState) $(show $u UnitFileState) $(show $u ActiveState)"
        [ "$(show $u LoadState)" = loaded ] && [ "$(show $u UnitFileState)" = disabled ] && [ "$(show $u ActiveState)" = inactive ] || return 1
    done
}
exposure() {
    local u score
    for u in tiltboard tiltboard-serve; do
        score=$(in_ct systemd-analyze security "$u.service" 2>&1 | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
        figure "exposure $u.service: $score (systemd-analyze security, systemd 252)"
        [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }' || return 1
    done
}

# The kernel lets a process raise its rtprio, nice and memlock hard limits only with
# CAP_SYS_RESOURCE. Where the host runs the container without it (a sandboxed CI machine), the
# container's systemd cannot give the units LimitRTPRIO=, LimitNICE= and LimitMEMLOCK= (it keeps the
# nearest value it may, setrlimit_closest) and the checks of real time and of libdispatch's nice
# values would test the host rather than the units. There, a drop-in in /run gives the units
# CAP_SYS_NICE and CAP_IPC_LOCK instead, which stand in for those three limits alone: the rest of
# the sandbox (RestrictRealtime=, SystemCallFilter=, NoNewPrivileges=, the user) still applies.
hard_limit() { sh_ct "awk '/^$1/ { print \$(NF - 1) }' /proc/1/limits" | sed 's/unlimited/999999999/'; }
limits_standin=0
if [ "$(hard_limit 'Max realtime priority')" -lt 50 ] || [ "$(hard_limit 'Max nice priority')" -lt 24 ] \
    || [ "$(hard_limit 'Max locked memory')" != 999999999 ]; then
    limits_standin=1
    say "the container's PID 1 has hard limits rtprio $(hard_limit 'Max realtime priority'), nice $(hard_limit 'Max nice priority'), memlock $(hard_limit 'Max locked memory') and cannot raise them (no CAP_SYS_RESOURCE here): CAP_SYS_NICE and CAP_IPC_LOCK stand in for LimitRTPRIO=, LimitNICE=, LimitMEMLOCK="
fi
standin() {
    [ "$limits_standin" = 1 ] || return 0
    local u
    for u in tiltboard tiltboard-serve; do
        sh_ct "mkdir -p /run/systemd/system/$u.service.d && printf '[Service]\nCapabilityBoundingSet=CAP_SYS_NICE CAP_IPC_LOCK\nAmbientCapabilities=CAP_SYS_NICE CAP_IPC_LOCK\n' > /run/systemd/system/$u.service.d/host-limits.conf"
    done
    in_ct systemctl daemon-reload
}

started_ok() {
    set_conf TILTBOARD_BOARD "$board"
    mark
    local t0=$SECONDS
    in_ct systemctl start tiltboard || return 1
    wait_for 20 in_journal tiltboard 'running simulated MPU-6050 board at 100 Hz until Ctrl-C' --after-cursor="$(cat "$run_dir/cursor")" \
        || { since_mark -u tiltboard; return 1; }
    figure "start to the startup line in the journal: $((SECONDS - t0)) s"
    since_mark -u tiltboard
    is_state tiltboard active
}
journal_lines() {
    # The startup note reached the journal at priority info (6), not as an error.
    in_ct journalctl -u tiltboard --no-pager -o cat -p info..info | grep -F 'running simulated MPU-6050 board' || { echo "the startup line is not at priority info"; return 1; }
    ! in_ct journalctl -u tiltboard --no-pager -o cat -p warning | grep -F 'running simulated' || { echo "the startup line is at priority warning or above"; return 1; }
}
service_user() {
    local pid uid env
    pid=$(show tiltboard MainPID)
    uid=$(sh_ct "awk '/^Uid:/ { print \$2 }' /proc/$pid/status")
    echo "MainPID $pid, uid $uid, tiltboard is $(in_ct id -u tiltboard)"
    [ "$uid" = "$(in_ct id -u tiltboard)" ] || return 1
    env=$(sh_ct "tr '\\0' '\\n' < /proc/$pid/environ")
    grep -qx 'STATE_DIRECTORY=/var/lib/tiltboard' <<<"$env" || { echo "$env"; return 1; }
    [ "$(show tiltboard StateDirectory)" = tiltboard ]
}
realtime() { # realtime UNIT: its main process has a thread under SCHED_FIFO 50 and locked memory
    local pid threads vmlck rss
    pid=$(show "$1" MainPID)
    wait_for 10 eval '[ -n "$(fifo_threads "$pid")" ]' || true
    threads=$(fifo_threads "$pid")
    vmlck=$(sh_ct "awk '/^VmLck:/ { print \$2 }' /proc/$pid/status")
    rss=$(sh_ct "awk '/^VmRSS:/ { print \$2 }' /proc/$pid/status")
    echo "$1: threads under SCHED_FIFO 50: ${threads:-none}; VmLck $vmlck kB; limits: $(sh_ct "grep -E 'realtime priority|nice priority|locked memory' /proc/$pid/limits" | tr -s ' ' | tr '\n' ';')"
    # The loop thread alone: threads it starts run normally (SCHED_RESET_ON_FORK).
    [ "$(wc -w <<<"$threads")" = 1 ] && [ "${vmlck:-0}" -gt 0 ] || return 1
    figure "$1: SCHED_FIFO 50 on thread(s) $(echo $threads); VmLck ${vmlck} kB (mappings under mlockall), VmRSS ${rss} kB"
}
priorities() {
    # The clone board's warning: at priority warning (4), so `journalctl -p warning` finds it,
    # while the notes (6) stay out.
    set_conf TILTBOARD_BOARD "$clone_board"
    mark
    in_ct systemctl restart tiltboard || return 1
    wait_for 20 in_journal tiltboard 'running simulated clone board' --after-cursor="$(cat "$run_dir/cursor")" || { since_mark -u tiltboard; return 1; }
    local warned
    warned=$(in_ct journalctl -u tiltboard -p warning -o cat --no-pager)
    echo "journalctl -u tiltboard -p warning: $warned"
    set_conf TILTBOARD_BOARD "$board"
    in_ct systemctl restart tiltboard
    grep -q 'WHO_AM_I 0x72' <<<"$warned" && ! grep -q 'running simulated' <<<"$warned" || return 1
    # This start's lines: the warning at 4 exactly, the startup note at 6.
    since_mark_at 4 4 -u tiltboard | grep -q 'warning: WHO_AM_I 0x72' && since_mark_at 6 6 -u tiltboard | grep -q 'running simulated clone board' \
        || { since_mark -u tiltboard -o export --output-fields=PRIORITY,MESSAGE | grep -aE '^(PRIORITY|MESSAGE)='; return 1; }
}
calibrate_service() { # calibrate_service active|inactive
    in_ct systemctl "$([ "$1" = active ] && echo start || echo stop)" tiltboard
    is_state tiltboard "$1" || return 1
    sh_ct "rm -f $profile"
    local before out rc=0
    before=$(show tiltboard MainPID)
    # --yes: no Enter to wait for (no terminal here).
    out=$(in_ct tiltboard calibrate --service --yes 2>&1) || rc=$?
    echo "$out" | tail -n 8
    [ "$rc" = 0 ] || { echo "calibrate --service exited $rc"; return 1; }
    [ "$(sh_ct "stat -c '%U:%G' $profile")" = tiltboard:tiltboard ] || { echo "$profile: $(sh_ct "ls -l $profile" 2>&1)"; return 1; }
    wait_for 10 is_state tiltboard "$1" || { echo "tiltboard is $(show tiltboard ActiveState), was $1"; return 1; }
    [ "$1" = inactive ] || [ "$(show tiltboard MainPID)" != "$before" ] || { echo "the service was not stopped while calibrating"; return 1; }
}
profile_used() {
    mark
    in_ct systemctl restart tiltboard
    wait_for 20 in_journal tiltboard 'running simulated MPU-6050 board' --after-cursor="$(cat "$run_dir/cursor")" || return 1
    ! since_mark -u tiltboard | grep 'no calibration profile'
}
stopped_off() { # stopped_off stop|SIGKILL|SIGSEGV: with the motor on
    set_conf TILTBOARD_BOARD "$shake_board"
    in_ct systemctl restart tiltboard
    wait_for 20 motor_on || { echo "the motor never went on: $(sh_ct "tail -n 3 $motor_log")"; return 1; }
    local lines restarts
    lines=$(motor_lines) restarts=$(show tiltboard NRestarts)
    mark
    if [ "$1" = stop ]; then
        in_ct systemctl stop tiltboard
        is_state tiltboard inactive || { echo "after stop: $(show tiltboard ActiveState)"; return 1; }
    else
        in_ct systemctl kill -s "$1" tiltboard
        # ExecStopPost done: the unit waits for its restart (auto-restart) after the pause.
        wait_for 20 eval '[ "$(show tiltboard SubState)" = auto-restart ]' || { echo "after $1: $(show tiltboard ActiveState)/$(show tiltboard SubState)"; since_mark -u tiltboard | tail -n 5; return 1; }
        echo "after $1: $(show tiltboard Result), restarting in $(show tiltboard RestartUSec)"
    fi
    motor_off_after "$lines" || return 1
    if [ "$1" != stop ]; then
        # …and comes back by itself after RestartSec=.
        wait_for 20 is_state tiltboard active || { echo "not restarted: $(show tiltboard ActiveState)"; return 1; }
        [ "$(show tiltboard NRestarts)" -gt "$restarts" ] || return 1
        in_ct systemctl stop tiltboard
    fi
    set_conf TILTBOARD_BOARD "$board"
}
restarts() {
    in_ct systemctl start tiltboard
    local i t0=$SECONDS
    for i in $(seq 20); do
        in_ct systemctl restart tiltboard || { echo "restart $i refused: $(show tiltboard ActiveState) $(show tiltboard Result)"; return 1; }
    done
    figure "20 back-to-back systemctl restart: $((SECONDS - t0)) s, then $(show tiltboard ActiveState)"
    wait_for 10 is_state tiltboard active || { echo "after 20 restarts: $(show tiltboard ActiveState) $(show tiltboard Result)"; return 1; }
    sleep 2
    is_state tiltboard active
}
fails_at_once() { # fails_at_once BOARD TEXT: the unit with that board fails for good, TEXT in the journal and status
    in_ct systemctl stop tiltboard
    in_ct systemctl reset-failed tiltboard 2>/dev/null || true
    set_conf TILTBOARD_BOARD "$1"
    mark
    local restarts t0=$SECONDS status
    restarts=$(show tiltboard NRestarts)
    in_ct systemctl start tiltboard || true
    wait_for 15 is_state tiltboard failed || { echo "$(show tiltboard ActiveState)/$(show tiltboard SubState)"; since_mark -u tiltboard; return 1; }
    figure "$(basename "$1"): failed $((SECONDS - t0)) s after start, exit status $(show tiltboard ExecMainStatus)"
    # Still failed after more than RestartSec=: no restart loop.
    sleep 7
    echo "after 7 s: $(show tiltboard ActiveState), result $(show tiltboard Result), exit $(show tiltboard ExecMainStatus), restarts $(show tiltboard NRestarts) (were $restarts)"
    is_state tiltboard failed && [ "$(show tiltboard NRestarts)" = "$restarts" ] || return 1
    local line
    line=$(since_mark_at 3 3 -u tiltboard | grep -F "$2" | head -n 1)
    echo "journal: $line"
    [ -n "$line" ] || { since_mark -u tiltboard; return 1; }
    status=$(in_ct systemctl status --no-pager -l tiltboard 2>&1 || true)
    grep -qF "$2" <<<"$status" || { echo "$status"; return 1; }
    set_conf TILTBOARD_BOARD "$board"
    in_ct systemctl reset-failed tiltboard
}
serve_runs() {
    set_conf TILTBOARD_BOARD "$board"
    in_ct systemctl start tiltboard
    mark
    local t0=$SECONDS code
    in_ct systemctl start tiltboard-serve || return 1
    wait_for 20 in_journal tiltboard-serve 'http://127.0.0.1:8080/' --after-cursor="$(cat "$run_dir/cursor")" || { since_mark -u tiltboard-serve; return 1; }
    code=$(in_ct curl -s -m 10 -o /dev/null -w '%{http_code}' http://127.0.0.1:8080/)
    figure "tiltboard-serve: start to its URL in the journal and the page answering: $((SECONDS - t0)) s"
    echo "GET /: $code; tiltboard.service: $(show tiltboard ActiveState)"
    [ "$code" = 200 ] && is_state tiltboard inactive && is_state tiltboard-serve active || return 1
    [ "$(in_ct curl -s -m 10 -o /dev/null -w '%{http_code}' http://127.0.0.1:8080/api/state)" = 200 ]
}
serve_quiet() {
    # libdispatch's "Failed to set thread priority for worker thread: pqc=… errno=13" (syslog),
    # or anything else at warning or above, since serve started.
    sleep 2
    local noisy
    noisy=$(since_mark_at 0 4)
    [ -z "$noisy" ] || { echo "at warning or above since serve started: $noisy"; return 1; }
    ! since_mark | grep -F 'errno=13' || return 1
    # The control: without LimitNICE= (and without the stand-in's CAP_SYS_NICE) the lines are there.
    sh_ct "mkdir -p /run/systemd/system/tiltboard-serve.service.d && printf '[Service]\nLimitNICE=0\nCapabilityBoundingSet=\nAmbientCapabilities=\n' > /run/systemd/system/tiltboard-serve.service.d/zz-control.conf"
    in_ct systemctl daemon-reload
    mark
    in_ct systemctl restart tiltboard-serve
    wait_for 20 in_journal tiltboard-serve 'http://127.0.0.1:8080/' --after-cursor="$(cat "$run_dir/cursor")"
    local control
    control=$(since_mark | grep -cF 'Failed to set thread priority for worker thread')
    sh_ct "rm /run/systemd/system/tiltboard-serve.service.d/zz-control.conf"
    in_ct systemctl daemon-reload
    in_ct systemctl restart tiltboard-serve
    figure "tiltboard-serve with LimitNICE=0: $control libdispatch 'Failed to set thread priority' lines; with the unit's LimitNICE=-4: none"
    [ "$control" -gt 0 ]
}
serve_stops() {
    set_conf TILTBOARD_BOARD "$shake_board"
    in_ct systemctl restart tiltboard-serve
    wait_for 20 motor_on || { echo "the motor never went on: $(sh_ct "tail -n 3 $motor_log")"; return 1; }
    local lines
    lines=$(motor_lines)
    mark
    in_ct systemctl stop tiltboard-serve
    set_conf TILTBOARD_BOARD "$board"
    is_state tiltboard-serve inactive && motor_off_after "$lines" || return 1
    since_mark -u tiltboard-serve | grep -F 'the loop ran with SCHED_FIFO priority and locked memory'
    ! since_mark -u tiltboard-serve | grep -iE 'not permitted|realtime scheduling failed|memory locking failed'
}
run_realtime_note() {
    mark
    in_ct systemctl restart tiltboard && in_ct systemctl stop tiltboard
    since_mark -u tiltboard | grep -F 'the loop ran with SCHED_FIFO priority and locked memory' || { since_mark -u tiltboard; return 1; }
    ! since_mark -u tiltboard | grep -iE 'not permitted|realtime scheduling failed|memory locking failed'
}
# --- two players: two instances of tiltboard@.service -----------------------------------------------
# set_instance NAME KEY VALUE: one line of /etc/tiltboard/NAME.conf.
set_instance() { sh_ct "sed -i 's|^$2=.*|$2=$3|' /etc/tiltboard/$1.conf"; }
player_log() { echo "/var/lib/tiltboard/motor-$1.log"; }
player_profile() { echo "/var/lib/tiltboard/profiles/simulated-player-${1#player}.json"; }
# datagram_on PORT: a datagram arrives on 127.0.0.1:PORT within 5 s (perl-base's IO::Socket, in
# the minimal root file system); prints it.
datagram_on() {
    in_ct timeout 5 perl -MIO::Socket::INET -e '
        my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1:$ARGV[0]", Proto => "udp") or die "bind: $!\n";
        defined $s->recv(my $d, 65536) or die "recv: $!\n"; print $d, "\n";' "$1"
}
instances_run() {
    in_ct systemctl stop tiltboard tiltboard-serve
    local n
    echo "tiltboard@.service: $(in_ct systemctl is-enabled tiltboard@player1.service 2>&1)"
    sh_ct "cp /usr/share/tiltboard/examples/player1.conf /usr/share/tiltboard/examples/player2.conf /etc/tiltboard/" || return 1
    for n in player1 player2; do
        set_instance "$n" TILTBOARD_BOARD "$test_dir/$n.json"
        sh_ct "rm -f $(player_profile $n)"
        # Stopped: calibrated, the profile kept for its start.
        in_ct tiltboard calibrate --service --instance "$n" --yes --duration 0.5 2>&1 | tail -n 3
        [ "$(sh_ct "stat -c '%U:%G' $(player_profile $n)")" = tiltboard:tiltboard ] || { echo "$n: no profile $(player_profile $n) of tiltboard's: $(sh_ct 'ls -l /var/lib/tiltboard/profiles/' 2>&1)"; return 1; }
    done
    mark
    local t0=$SECONDS
    in_ct systemctl start tiltboard@player1 tiltboard@player2 || return 1
    for n in 1 2; do
        wait_for 20 in_journal "tiltboard@player$n" "running simulated player $n (MPU-6050) at 100 Hz" --after-cursor="$(cat "$run_dir/cursor")" \
            || { since_mark -u "tiltboard@player$n"; return 1; }
    done
    figure "tiltboard@player1 and tiltboard@player2: started together, both startup lines in the journal after $((SECONDS - t0)) s"
    is_state tiltboard@player1 active && is_state tiltboard@player2 active || return 1
    [ "$(show tiltboard@player1 MainPID)" != "$(show tiltboard@player2 MainPID)" ] || return 1
    # Each with its own settings, profile and port, and nothing from the other's.
    since_mark -u tiltboard@player1 | grep -F 'sending JSON datagrams to 127.0.0.1:7700' || { since_mark -u tiltboard@player1; return 1; }
    since_mark -u tiltboard@player2 | grep -F 'sending JSON datagrams to 127.0.0.1:7701' || { since_mark -u tiltboard@player2; return 1; }
    ! since_mark -u tiltboard@player1 -u tiltboard@player2 | grep -E 'no calibration profile|player 2.*7700|player 1.*7701' || return 1
    ! since_mark -u tiltboard@player1 | grep -F 'simulated player 2' && ! since_mark -u tiltboard@player2 | grep -F 'simulated player 1' || return 1
    datagram_on 7700 | head -c 200 && datagram_on 7701 | head -c 200 || { echo "no datagram on 7700 or 7701"; return 1; }
    local score
    score=$(in_ct systemd-analyze security tiltboard@player1.service 2>&1 | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
    figure "exposure tiltboard@player1.service: $score (systemd-analyze security, systemd 252)"
    [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }'
}
instance_calibrated() {
    is_state tiltboard@player1 active && is_state tiltboard@player2 active || return 1
    local one two out rc=0
    one=$(show tiltboard@player1 MainPID) two=$(show tiltboard@player2 MainPID)
    sh_ct "rm -f $(player_profile player2)"
    out=$(in_ct tiltboard calibrate --service --instance player2 --yes --duration 0.5 2>&1) || rc=$?
    echo "$out" | tail -n 6
    [ "$rc" = 0 ] || { echo "calibrate --service --instance player2 exited $rc"; return 1; }
    grep -qx 'tiltboard: tiltboard@player2.service stopped for the calibration; it starts again afterwards' <<<"$out" || return 1
    [ "$(sh_ct "stat -c '%U:%G' $(player_profile player2)")" = tiltboard:tiltboard ] || return 1
    wait_for 10 is_state tiltboard@player2 active || { echo "tiltboard@player2: $(show tiltboard@player2 ActiveState)"; return 1; }
    [ "$(show tiltboard@player2 MainPID)" != "$two" ] || { echo "tiltboard@player2 was not stopped while calibrating"; return 1; }
    [ "$(show tiltboard@player1 MainPID)" = "$one" ] && is_state tiltboard@player1 active || { echo "tiltboard@player1 was touched: $(show tiltboard@player1 MainPID), was $one"; return 1; }
}
instance_killed() {
    local log1 log2 lines1 lines2 two
    log1=$(player_log player1) log2=$(player_log player2)
    wait_for 20 motor_on "$log1" && wait_for 20 motor_on "$log2" \
        || { echo "the motors never both went on: $(sh_ct "tail -n 2 $log1 $log2")"; return 1; }
    lines1=$(motor_lines "$log1") lines2=$(motor_lines "$log2") two=$(show tiltboard@player2 MainPID)
    in_ct systemctl kill -s SIGKILL tiltboard@player1
    wait_for 20 eval '[ "$(show tiltboard@player1 SubState)" = auto-restart ]' || { echo "after SIGKILL: $(show tiltboard@player1 ActiveState)/$(show tiltboard@player1 SubState)"; return 1; }
    motor_off_after "$lines1" "$log1" || return 1
    # The other player plays on, its motor still on, its log untouched.
    echo "player 2: $(show tiltboard@player2 ActiveState), MainPID $(show tiltboard@player2 MainPID) (was $two), motor log $(motor_lines "$log2") lines (was $lines2)"
    is_state tiltboard@player2 active && [ "$(show tiltboard@player2 MainPID)" = "$two" ] && motor_on "$log2" \
        && [ "$(motor_lines "$log2")" = "$lines2" ] || return 1
    in_ct systemctl stop tiltboard@player1
    is_state tiltboard@player1 inactive && is_state tiltboard@player2 active || return 1
    lines2=$(motor_lines "$log2")
    in_ct systemctl stop tiltboard@player2
    motor_off_after "$lines2" "$log2"
}
instance_serves() {
    in_ct systemctl start tiltboard@player1 tiltboard@player2 || return 1
    mark
    in_ct systemctl start tiltboard-serve@player2 || return 1
    wait_for 20 in_journal tiltboard-serve@player2 'http://127.0.0.1:8081/' --after-cursor="$(cat "$run_dir/cursor")" || { since_mark -u tiltboard-serve@player2; return 1; }
    local code other
    code=$(in_ct curl -s -m 10 -o /dev/null -w '%{http_code}' http://127.0.0.1:8081/api/state) || true
    other=$(in_ct curl -s -m 10 -o /dev/null -w '%{http_code}' http://127.0.0.1:8080/) || true
    echo "GET :8081/api/state: $code; :8080: $other; tiltboard@player2: $(show tiltboard@player2 ActiveState); tiltboard@player1: $(show tiltboard@player1 ActiveState)"
    [ "$code" = 200 ] && [ "$other" = 000 ] && is_state tiltboard@player2 inactive && is_state tiltboard@player1 active || return 1
    in_ct systemctl stop tiltboard-serve@player2 tiltboard@player1
}
# After them: every instance stopped and their settings gone (files of the user's own, which a
# purge leaves).
instances_done() {
    in_ct systemctl stop 'tiltboard@*.service' 'tiltboard-serve@*.service' || true
    sh_ct "rm -f /etc/tiltboard/player1.conf /etc/tiltboard/player2.conf"
}
upgraded() {
    set_conf TILTBOARD_BOARD "$board"
    sh_ct "echo '# kept across upgrades' >> /etc/tiltboard/tiltboard.conf"
    set_conf TILTBOARD_RUN_OPTIONS '--udp 127.0.0.1:7701 --output-rate 30 --realtime'
    in_ct systemctl start tiltboard
    # A profile to keep (as docs/install.md's service setup would, should calibrate --service have failed above).
    sh_ct "test -s $profile" || in_ct runuser -u tiltboard -- env STATE_DIRECTORY=/var/lib/tiltboard \
        tiltboard calibrate --yes --duration 0.5 --board "$board" >/dev/null 2>&1
    sh_ct "test -s $profile" || { echo "no profile at $profile"; return 1; }
    local before sum t0=$SECONDS
    before=$(show tiltboard MainPID) sum=$(sh_ct "md5sum < $profile")
    in_ct apt-get install -y -q --no-install-recommends "$up_pkg" || return 1
    figure "upgrade to $up_version: $((SECONDS - t0)) s"
    [ "$(in_ct dpkg-query -W -f '${Version}' tiltboard)" = "$up_version" ] || return 1
    sh_ct "grep -qx '# kept across upgrades' /etc/tiltboard/tiltboard.conf && grep -qx 'TILTBOARD_RUN_OPTIONS=--udp 127.0.0.1:7701 --output-rate 30 --realtime' /etc/tiltboard/tiltboard.conf" \
        || { echo "the edited tiltboard.conf was replaced"; return 1; }
    [ "$(sh_ct "md5sum < $profile")" = "$sum" ] || { echo "the profile changed"; return 1; }
    # postinst's try-restart: the running service runs the new binary.
    wait_for 10 is_state tiltboard active && [ "$(show tiltboard MainPID)" != "$before" ] || { echo "not restarted: $(show tiltboard ActiveState) $(show tiltboard MainPID)"; return 1; }
}
removed() {
    set_conf TILTBOARD_BOARD "$shake_board"
    in_ct systemctl restart tiltboard
    wait_for 20 motor_on || { echo "the motor never went on: $(sh_ct "tail -n 3 $motor_log")"; return 1; }
    local lines
    lines=$(motor_lines)
    in_ct apt-get remove -y -q tiltboard || return 1
    [ "$(show tiltboard LoadState)" = not-found ] && [ "$(show tiltboard-serve LoadState)" = not-found ] || { echo "units still known: $(show tiltboard LoadState)"; return 1; }
    motor_off_after "$lines" || return 1
    # Kept: the settings (a conffile), the profile, the user.
    sh_ct "test -f /etc/tiltboard/tiltboard.conf && test -f $profile && getent passwd tiltboard"
}
purged() {
    in_ct apt-get purge -y -q tiltboard || return 1
    ! sh_ct "test -e /etc/tiltboard || test -e /var/lib/tiltboard" || { echo "left: $(sh_ct 'ls -d /etc/tiltboard /var/lib/tiltboard' 2>&1)"; return 1; }
    # The groups and the user stay (postrm: other files may use them).
    sh_ct "getent passwd tiltboard && getent group i2c"
    [ "$(in_ct dpkg-query -W -f '${Status}' tiltboard 2>&1)" != "install ok installed" ]
}
reinstalled() {
    in_ct apt-get install -y -q --no-install-recommends "$pkg" || return 1
    postinst_done || return 1
    set_conf TILTBOARD_BOARD "$board"
    mark
    in_ct systemctl start tiltboard
    wait_for 20 in_journal tiltboard 'no calibration profile at /var/lib/tiltboard/profiles/' --after-cursor="$(cat "$run_dir/cursor")" || { since_mark -u tiltboard; return 1; }
    is_state tiltboard active && in_ct systemctl stop tiltboard
}

check "the container: Debian 12's systemd is PID 1, booted without a network" true
check "apt install ./$(basename "$deb") offline (dependencies from the cache)" installed
check "postinst: groups i2c gpio uinput, user tiltboard in them, /var/lib/tiltboard 0750, both units installed, not enabled, not started" postinst_done
check "systemd-analyze security: exposure at most 2.0 for both units" exposure
standin
check "start: active, the startup line in journalctl -u tiltboard" started_ok
check "the journal: notes at priority info" journal_lines
check "runs as user tiltboard with STATE_DIRECTORY=/var/lib/tiltboard" service_user
check "--realtime: tiltboard.service's loop thread, and it alone, under SCHED_FIFO 50, memory locked" realtime tiltboard
check "journalctl -p warning shows tiltboard's warning (WHO_AM_I 0x72 clone) and not its notes" priorities
check "tiltboard calibrate --service with the service running: profile owned by tiltboard, service running again" calibrate_service active
check "tiltboard calibrate --service with the service stopped: profile owned by tiltboard, service still stopped" calibrate_service inactive
check "the service uses the profile calibrate --service wrote" profile_used
check "systemctl stop with the motor on: the motor log ends off" stopped_off stop
check "SIGKILL with the motor on: the motor log ends off (ExecStopPost), restarted after RestartSec" stopped_off SIGKILL
check "SIGSEGV with the motor on: the motor log ends off, restarted after RestartSec" stopped_off SIGSEGV
check "20 back-to-back systemctl restart: never refused, active after each" restarts
check "--realtime under tiltboard.service: no realtime warning, the SCHED_FIFO note at stop" run_realtime_note
check "bad board file (invalid JSON): unit failed at once, no restart, its reason in the journal and systemctl status" \
    fails_at_once /usr/local/share/tiltboard-test/bad.json 'not valid JSON'
check "missing board file: unit failed at once, no restart, its reason in the journal and systemctl status" \
    fails_at_once /usr/local/share/tiltboard-test/missing.json 'no such file'
check "tiltboard-serve: stops tiltboard, its URL in the journal, the page answers on 127.0.0.1:8080" serve_runs
check "--realtime: tiltboard-serve's loop thread, and it alone, under SCHED_FIFO 50, memory locked" realtime tiltboard-serve
check "tiltboard-serve: no errno=13 (libdispatch) lines, nothing at warning or above (and the lines there with LimitNICE=0)" serve_quiet
check "tiltboard-serve stop with the motor on: the motor log ends off, the SCHED_FIFO note, no realtime warning" serve_stops
check "two instances, tiltboard@player1 and @player2 (the packaged example settings): both active, each its board, profile (calibrate --service --instance) and UDP port" instances_run
check "calibrate --service --instance player2 with both running: player2 stopped and started again, player1 untouched" instance_calibrated
check "SIGKILL of tiltboard@player1, both motors on: its motor log ends off, player2 runs on, its motor on; player2's stop leaves its motor off" instance_killed
check "tiltboard-serve@player2: stops tiltboard@player2 alone, its page on 8081" instance_serves
instances_done
check "upgrade to $up_version: the edited tiltboard.conf and the profile kept, the running service restarted" upgraded
check "apt remove with the motor on: the service stopped with the motor off, the units gone, settings and profile kept" removed
check "apt purge: /etc/tiltboard and /var/lib/tiltboard gone, the user and groups kept" purged
check "reinstall: postinst again, the service starts" reinstalled

figure "setup of the root file system: ${setup_seconds} s; boot: ${boot_seconds} s; whole run: $((SECONDS - started)) s"
say "figures:"; sed 's/^/    /' "$run_dir/figures" >&2
[ "$limits_standin" = 0 ] || say "note: CAP_SYS_NICE and CAP_IPC_LOCK stood in for the units' rtprio, nice and memlock limits (this host cannot raise hard limits)"
echo "systemd: $passed passed, $failed failed"
[ "$failed" = 0 ]
