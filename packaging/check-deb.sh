#!/usr/bin/env bash
# Checks a tiltboard .deb from packaging/build-deb.sh: its control fields and file list, the
# maintainer scripts, the systemd unit (`systemd-analyze security --offline=true` score at most
# 2.0, `systemd-analyze verify` silent), the man page (`man -l`), the completions (bash runs them),
# and, when the package is for this machine, the packaged binary: no Swift runtime needed, `read`
# on a simulated board, the unit's own command lines run as an unprivileged user with the
# service's state directory, and the system calls they make all inside the unit's filter.
#
# Usage: bash packaging/check-deb.sh DEB
# Output: one PASS:/FAIL:/SKIP: line per check on stdout, then `deb: N passed, M failed`.
# Exit status: 0 when every check passed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
deb=${1:?usage: packaging/check-deb.sh DEB}
[ -f "$deb" ] || { echo "check-deb: error: no such file: $deb" >&2; exit 1; }
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")

say() { echo "check-deb: $*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

need=()
command -v systemd-analyze >/dev/null || need+=(systemd)
command -v man >/dev/null || need+=(man-db)
command -v readelf >/dev/null || need+=(binutils)
command -v setpriv >/dev/null || need+=(util-linux)
command -v strace >/dev/null || need+=(strace)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

work=$(mktemp -d /tmp/tiltboard-check-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
# Readable by the unprivileged user the service checks run as.
chmod 0755 "$work"
x=$work/root
dpkg-deb -x "$deb" "$x"
dpkg-deb -e "$deb" "$work/DEBIAN"
unit=$x/usr/lib/systemd/system/tiltboard.service
serve_unit=$x/usr/lib/systemd/system/tiltboard-serve.service
template=$x/usr/lib/systemd/system/tiltboard@.service
serve_template=$x/usr/lib/systemd/system/tiltboard-serve@.service
conf=$x/etc/tiltboard/tiltboard.conf
board=$x/usr/share/tiltboard/boards/simulated-mpu6050.json
field() { dpkg-deb -f "$deb" "$1"; }
arch=$(field Architecture)
version=$(field Version)

passed=0 failed=0
# check NAME FUNCTION: the function prints why it failed and returns non-zero.
check() {
    local name=$1 out
    shift
    if out=$("$@" 2>&1); then
        echo "PASS: $name"; passed=$((passed + 1))
    else
        echo "FAIL: $name"; echo "$out" | head -n 25 | sed 's/^/    /'; failed=$((failed + 1))
    fi
}
skip() { echo "SKIP: $1"; }

control_fields() {
    [ "$(field Package)" = tiltboard ] || { echo "Package: $(field Package)"; return 1; }
    [ "$(basename "$deb")" = "tiltboard_${version}_${arch}.deb" ] || { echo "file name $(basename "$deb") does not match Version $version, Architecture $arch"; return 1; }
    local source_version
    source_version=$(sed -n 's/^ *static let string = "\([^"]*\)"$/\1/p' "$root/Sources/TiltboardCLI/Version.swift")
    [ "$version" = "$source_version" ] || { echo "Version $version, the source says $source_version"; return 1; }
    local depends
    depends=$(field Depends)
    echo "Depends: $depends"
    [[ "$depends" =~ (^|, )libc6\ \(\>=\ 2\.[0-9]+\) ]] || return 1
    [[ "$depends" =~ (^|, )libi2c0(,|$) ]] || return 1
    [[ "$depends" =~ (^|, )libgpiod[23](,|$) ]] || return 1
    ! [[ "$depends" =~ swift ]]
}

# Every package the Depends name exists on this machine's release (several were renamed between
# Debian 12 and 13): apt resolves an install of the .deb, without installing anything.
depends_installable() {
    apt-get install --simulate --no-install-recommends -q "$deb" 2>&1 | tail -n 15
    [ "${PIPESTATUS[0]}" = 0 ]
}

file_list() {
    local expected=(
        ./etc/tiltboard/tiltboard.conf
        ./usr/bin/tiltboard
        ./usr/lib/systemd/system/tiltboard-serve.service
        ./usr/lib/systemd/system/tiltboard-serve@.service
        ./usr/lib/systemd/system/tiltboard.service
        ./usr/lib/systemd/system/tiltboard@.service
        ./usr/lib/udev/rules.d/60-tiltboard.rules
        ./usr/share/bash-completion/completions/tiltboard
        ./usr/share/doc/tiltboard/README.md
        ./usr/share/fish/vendor_completions.d/tiltboard.fish
        ./usr/share/man/man1/tiltboard.1.gz
        ./usr/share/tiltboard/boards/README.md
        ./usr/share/tiltboard/examples/player1.conf
        ./usr/share/tiltboard/examples/player2.conf
        ./usr/share/zsh/vendor-completions/_tiltboard
    )
    local f
    for f in "$root"/Boards/*.json "$root"/Boards/scripts/*; do
        expected+=("./usr/share/tiltboard/boards/${f#"$root/Boards/"}")
    done
    for f in "$root"/docs/*.md "$root"/docs/*.png "$root"/docs/schema/*.json; do
        expected+=("./usr/share/doc/tiltboard/docs/${f#"$root/docs/"}")
    done
    local listing files
    listing=$(dpkg-deb -c "$deb")
    files=$(echo "$listing" | awk '$1 !~ /^d/ { print $6 }' | sort)
    diff <(printf '%s\n' "${expected[@]}" | sort) <(echo "$files") || { echo "(< expected, > in the package)"; return 1; }
    # Everything root's; only the binary executable; the udev rules identical to the source's.
    echo "$listing" | awk '$2 != "root/root" { print "not root/root: " $0; bad = 1 } END { exit bad }' || return 1
    echo "$listing" | awk '$1 ~ /x/ && $1 !~ /^d/ && $6 != "./usr/bin/tiltboard" { print "executable: " $6; bad = 1 } END { exit bad }' || return 1
    cmp "$root/udev/60-tiltboard.rules" "$x/usr/lib/udev/rules.d/60-tiltboard.rules"
}

maintainer_scripts() {
    [ "$(cat "$work/DEBIAN/conffiles")" = /etc/tiltboard/tiltboard.conf ] || { echo "conffiles: $(cat "$work/DEBIAN/conffiles")"; return 1; }
    local s
    for s in postinst prerm postrm; do
        [ -x "$work/DEBIAN/$s" ] || { echo "$s missing or not executable"; return 1; }
        sh -n "$work/DEBIAN/$s" || return 1
    done
    grep -q 'groupadd --system "$group"' "$work/DEBIAN/postinst" || { echo "postinst creates no groups"; return 1; }
    grep -q 'udevadm control --reload' "$work/DEBIAN/postinst" || { echo "postinst does not reload udev"; return 1; }
    # Both units: restarted on upgrade when running, stopped before removal, forgotten on purge.
    grep -q 'try-restart tiltboard.service tiltboard-serve.service' "$work/DEBIAN/postinst" \
        && grep -q 'stop tiltboard.service tiltboard-serve.service' "$work/DEBIAN/prerm" \
        && grep -q 'wants/tiltboard-serve.service' "$work/DEBIAN/postrm" || { echo "a maintainer script leaves out one of the units"; return 1; }
    # …and every instance of the templates.
    grep -qF "try-restart tiltboard.service tiltboard-serve.service 'tiltboard@*.service' 'tiltboard-serve@*.service'" "$work/DEBIAN/postinst" \
        && grep -qF "stop tiltboard.service tiltboard-serve.service 'tiltboard@*.service' 'tiltboard-serve@*.service'" "$work/DEBIAN/prerm" \
        && grep -qF 'wants/tiltboard@*.service' "$work/DEBIAN/postrm" && grep -qF 'wants/tiltboard-serve@*.service' "$work/DEBIAN/postrm" \
        || { echo "a maintainer script leaves out the templates' instances"; return 1; }
    # Installing starts nothing the user did not enable (try-restart only restarts a running unit).
    ! grep -nE '^[^#]*(systemctl +(--[a-z-]+ +)*(enable|start|restart|reload-or-restart)( |$)|deb-systemd-invoke +start)' "$work"/DEBIAN/post* "$work/DEBIAN/prerm"
}

# postinst asks for the groups and the user and starts nothing (the tools it calls are stand-ins).
maintainer_scripts_run() {
    local fake=$work/fake
    mkdir -p "$fake/bin"
    # Stand-ins for the account and service tools that record what they were asked to do; getent
    # finds no group or user, as on a fresh system.
    local t
    for t in groupadd useradd usermod install udevadm systemctl; do
        printf '#!/bin/sh\necho "%s $*" >> %s/calls\n' "$t" "$fake" > "$fake/bin/$t"
        chmod 0755 "$fake/bin/$t"
    done
    printf '#!/bin/sh\nexit 2\n' > "$fake/bin/getent"; chmod 0755 "$fake/bin/getent"
    PATH="$fake/bin:$PATH" sh "$work/DEBIAN/postinst" configure || { echo "postinst configure failed"; return 1; }
    cat "$fake/calls"
    grep -qx 'groupadd --system i2c' "$fake/calls" && grep -qx 'groupadd --system gpio' "$fake/calls" \
        && grep -qx 'groupadd --system uinput' "$fake/calls" \
        && grep -q '^useradd --system --user-group .* tiltboard$' "$fake/calls" \
        && grep -qx 'usermod --append --groups i2c,gpio,uinput tiltboard' "$fake/calls" \
        && grep -qx 'install -d -o tiltboard -g tiltboard -m 0750 /var/lib/tiltboard' "$fake/calls" || return 1
    ! grep -E '^systemctl (enable|start|restart)' "$fake/calls"
}

# unit_security UNIT, unit_verify UNIT
unit_security() {
    local report score
    report=$(systemd-analyze security --offline=true "$1" 2>&1) || true
    # A template is analysed as an instance of it (tiltboard@i.service).
    score=$(echo "$report" | sed -n "s/.*Overall exposure level for $(basename "$1" | sed 's/@\./@i./'): \([0-9.]*\).*/\1/p")
    echo "exposure $score"
    [ -n "$score" ] || { echo "$report" | tail -n 5; return 1; }
    awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }' || { echo "$report" | grep '✗'; return 1; }
}

unit_verify() {
    local out rc
    # verify checks that the commands exist and that `man tiltboard(1)` finds the page: the unit
    # is checked with the packaged binary's path, and MANPATH points at the packaged page.
    mkdir -p "$work/verify"
    sed "s|/usr/bin/tiltboard|$x/usr/bin/tiltboard|g" "$1" > "$work/verify/$(basename "$1")"
    out=$(MANPATH=$x/usr/share/man systemd-analyze verify "$work/verify/$(basename "$1")" 2>&1)
    rc=$?
    [ -z "$out" ] && [ "$rc" = 0 ] || { echo "exit $rc: $out"; return 1; }
}

man_page() {
    local page=$x/usr/share/man/man1/tiltboard.1.gz text errors
    text=$(MANWIDTH=100 LC_ALL=C.UTF-8 man --warnings -l "$page" 2>"$work/man.err") || { cat "$work/man.err"; return 1; }
    errors=$(cat "$work/man.err")
    [ -z "$errors" ] || { echo "man printed: $errors"; return 1; }
    local want
    # The sections, every command, the options the systemd unit runs, and text beyond ASCII.
    for want in '^NAME$' '^SYNOPSIS$' '^DESCRIPTION$' '^ +--version$' '^ +--udp host:port$' '^ +--off ' 'I²C bus' \
        $(printf '^ +%s +[A-Z]\n' probe read calibrate profile haptics shake run monitor record bench); do
        grep -qE -- "$want" <<<"$text" || { echo "the rendered page has no line matching '$want'"; return 1; }
    done
}

bash_completion() {
    local script=$x/usr/share/bash-completion/completions/tiltboard
    # complete LINE: what the completion function offers for LINE (the cursor at its end).
    bash --norc --noprofile -c '
        set -u
        source "$1" || exit 1
        spec=$(complete -p tiltboard) || exit 1
        fn=$(sed -n "s/.* -F \([^ ]*\) tiltboard$/\1/p" <<<"$spec")
        [ -n "$fn" ] || { echo "no completion function in: $spec"; exit 1; }
        offer() {
            COMP_LINE=$1; COMP_POINT=${#COMP_LINE}
            read -ra COMP_WORDS <<<"$COMP_LINE"
            [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMPREPLY=()
            "$fn" tiltboard "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf "%s\n" "${COMPREPLY[@]}"
        }
        subs=$(offer "tiltboard ")
        for c in probe read calibrate profile haptics shake run monitor record bench; do
            grep -qx "$c" <<<"$subs" || { echo "tiltboard <Tab> lacks $c: $subs"; exit 1; }
        done
        offer "tiltboard haptics --o" | grep -qx -- "--off" || { echo "tiltboard haptics --o<Tab> lacks --off"; exit 1; }
        offer "tiltboard run --u" | grep -qx -- "--udp" || { echo "tiltboard run --u<Tab> lacks --udp"; exit 1; }
    ' bash "$script"
}

other_completions() {
    local ran=0
    if command -v zsh >/dev/null; then zsh -n "$x/usr/share/zsh/vendor-completions/_tiltboard" || return 1; ran=1; fi
    if command -v fish >/dev/null; then fish -n "$x/usr/share/fish/vendor_completions.d/tiltboard.fish" || return 1; ran=1; fi
    grep -q '^#compdef tiltboard' "$x/usr/share/zsh/vendor-completions/_tiltboard" || { echo "zsh script lacks #compdef"; return 1; }
    grep -q "complete -c 'tiltboard'\|complete -c tiltboard" "$x/usr/share/fish/vendor_completions.d/tiltboard.fish" || { echo "fish script completes nothing for tiltboard"; return 1; }
    [ "$ran" = 1 ] || echo "(zsh and fish not installed: syntax not checked)"
}

binary_arch() {
    local machine
    machine=$(readelf -h "$x/usr/bin/tiltboard" | awk -F: '/Machine:/ { gsub(/^ +/, "", $2); print $2 }')
    echo "$arch: $machine"
    case $arch:$machine in amd64:*X86-64*|arm64:AArch64) ;; *) return 1 ;; esac
    ! readelf -d "$x/usr/bin/tiltboard" | grep -i 'NEEDED.*swift'
}

binary_runs() {
    local bin=$x/usr/bin/tiltboard out
    ldd "$bin" | grep -E 'not found|libswift|libFoundation|/opt/' && { echo "needs libraries outside Debian's"; return 1; }
    out=$("$bin" --version) || return 1
    [ "$out" = "$version" ] || { echo "--version printed '$out', the package is $version"; return 1; }
    out=$(HOME=$work/home XDG_CONFIG_HOME=$work/home/.config "$bin" read --count 3 --json \
        --board "$x/usr/share/tiltboard/boards/simulated-mpu6050.json") || { echo "read failed: $out"; return 1; }
    echo "$out"
    [ "$(grep -c '^{"t":.*"accel":\[.*\],"gyro":\[.*\]' <<<"$out")" = 3 ] && [ "$(wc -l <<<"$out")" = 3 ]
}

# tiltboard-serve.service is tiltboard.service with `serve` and its options in ExecStart, its stdout
# in the journal and a Conflicts= on the other, ordered after it (the stop before the start): the
# same sandbox, nothing else changed.
serve_unit_made() {
    diff "$unit" "$serve_unit" > "$work/units.diff"
    cat "$work/units.diff"
    [ "$(grep -c '^>' "$work/units.diff")" = 6 ] && [ "$(grep -c '^<' "$work/units.diff")" = 3 ] || return 1
    grep -qx 'ExecStart=/usr/bin/tiltboard serve --board ${TILTBOARD_BOARD} $TILTBOARD_RUN_OPTIONS $TILTBOARD_SERVE_OPTIONS' "$serve_unit" \
        && grep -qx 'StandardOutput=journal' "$serve_unit" && grep -qx 'Conflicts=tiltboard.service' "$serve_unit" \
        && grep -qx 'After=tiltboard.service' "$serve_unit" \
        && grep -qx 'StandardOutput=null' "$unit"
}

# tiltboard@.service and tiltboard-serve@.service are the two units as templates: with comments
# left out, each differs from its unit in its Description= (the instance's name added) and its
# EnvironmentFile= (/etc/tiltboard/%i.conf) alone, and the serve template conflicts with the
# instance of the other: the same command lines, the same sandbox and devices, the same policy.
templates_made() {
    local d got want
    d=$(sed -n 's/^Description=//p' "$unit")
    # diff_lines A B: the lines that differ, comments left out, sorted.
    diff_lines() { diff <(grep -v '^#' "$1") <(grep -v '^#' "$2") | grep '^[<>]' | sort; }
    got=$(diff_lines "$unit" "$template")
    want=$(printf '%s\n' "< Description=$d" "< EnvironmentFile=/etc/tiltboard/tiltboard.conf" \
        "> Description=$d (%i)" "> EnvironmentFile=/etc/tiltboard/%i.conf" | sort)
    [ "$got" = "$want" ] || { printf 'tiltboard@.service differs from tiltboard.service in:\n%s\nexpected:\n%s\n' "$got" "$want"; return 1; }
    got=$(diff_lines "$serve_unit" "$serve_template")
    want=$(printf '%s\n' "< Description=$d and its calibration page" "< EnvironmentFile=/etc/tiltboard/tiltboard.conf" \
        "< Conflicts=tiltboard.service" "< After=tiltboard.service" \
        "> Description=$d (%i) and its calibration page" "> EnvironmentFile=/etc/tiltboard/%i.conf" \
        "> Conflicts=tiltboard@%i.service" "> After=tiltboard@%i.service" | sort)
    [ "$got" = "$want" ] || { printf 'tiltboard-serve@.service differs from tiltboard-serve.service in:\n%s\nexpected:\n%s\n' "$got" "$want"; return 1; }
}

# The example settings of two instances: the keys of tiltboard.conf, each set once, and the two
# apart in their board, the UDP port the signal goes to and the page's port, the rest the same.
examples_apart() {
    local one=$x/usr/share/tiltboard/examples/player1.conf two=$x/usr/share/tiltboard/examples/player2.conf key
    for key in TILTBOARD_BOARD TILTBOARD_RUN_OPTIONS TILTBOARD_SERVE_OPTIONS; do
        [ "$(grep -c "^$key=" "$one")" = 1 ] && [ "$(grep -c "^$key=" "$two")" = 1 ] || { echo "$key is not set once in each"; return 1; }
    done
    [ "$(grep -v '^#' "$one" | grep -c '=')" = 3 ] && [ "$(grep -v '^#' "$two" | grep -c '=')" = 3 ] || { echo "other settings than the three"; return 1; }
    value() { sed -n "s/^$2=//p" "$1"; }
    port() { grep -oE -- "$2 [^ ]+" <<<"$1" | sed 's/.*[ :]//'; }
    local b1 b2 u1 u2 p1 p2
    b1=$(value "$one" TILTBOARD_BOARD) b2=$(value "$two" TILTBOARD_BOARD)
    u1=$(port "$(value "$one" TILTBOARD_RUN_OPTIONS)" --udp) u2=$(port "$(value "$two" TILTBOARD_RUN_OPTIONS)" --udp)
    p1=$(port "$(value "$one" TILTBOARD_SERVE_OPTIONS)" --port) p2=$(port "$(value "$two" TILTBOARD_SERVE_OPTIONS)" --port)
    echo "boards $b1 $b2, UDP ports $u1 $u2, page ports $p1 $p2"
    [ -n "$u1" ] && [ -n "$u2" ] && [ -n "$p1" ] && [ -n "$p2" ] || return 1
    [ "$b1" != "$b2" ] && [ "$u1" != "$u2" ] && [ "$p1" != "$p2" ] || return 1
    # The run options otherwise those of tiltboard.conf.
    [ "$(value "$one" TILTBOARD_RUN_OPTIONS | sed "s/:$u1 /:PORT /")" = "$(setting TILTBOARD_RUN_OPTIONS | sed 's/:[0-9]* /:PORT /')" ] \
        && [ "$(value "$two" TILTBOARD_RUN_OPTIONS | sed "s/:$u2 /:PORT /")" = "$(setting TILTBOARD_RUN_OPTIONS | sed 's/:[0-9]* /:PORT /')" ]
}

# The unit's policy: stderr in the journal with its priority prefixes, configuration errors
# (sysexits 64 65 66 77 78) failing it at once, other failures restarted after a pause, no start
# limit, --realtime by default with the limits and system calls it needs, libdispatch's nice values.
unit_policy() {
    local want
    for want in 'StartLimitIntervalSec=0' 'Restart=on-failure' 'RestartSec=5' 'RestartPreventExitStatus=64 65 66 73 77 78' \
        'StandardOutput=null' 'StandardError=journal' 'RestrictRealtime=no' 'LimitRTPRIO=50' 'LimitMEMLOCK=infinity' \
        'LimitNICE=-4' 'SystemCallFilter=setpriority sched_setscheduler sched_setparam'; do
        grep -qx -- "$want" "$unit" || { echo "tiltboard.service has no line '$want'"; return 1; }
    done
    ! grep -q '^SyslogLevelPrefix=' "$unit" || { echo "SyslogLevelPrefix= set: tiltboard's <N> prefixes need its default, yes"; return 1; }
    # StartLimitIntervalSec= belongs to [Unit] (in [Service] systemd ignores it).
    [ "$(sed -n '/^\[Unit\]/,/^\[/p' "$unit" | grep -c '^StartLimitIntervalSec=0$')" = 1 ] || { echo "StartLimitIntervalSec=0 is not in [Unit]"; return 1; }
    [[ " $(setting TILTBOARD_RUN_OPTIONS) " == *" --realtime "* ]] || { echo "TILTBOARD_RUN_OPTIONS lacks --realtime: $(setting TILTBOARD_RUN_OPTIONS)"; return 1; }
}

# command_of UNIT KEY: the unit's KEY= line as words, the settings file's values, the simulated
# board and the packaged binary filled in.
setting() { sed -n "s/^$1=//p" "$conf"; }
command_of() {
    local line
    line=$(sed -n "s/^$2=//p" "$1")
    line=${line//\$\{TILTBOARD_BOARD\}/$board}
    line=${line//\$TILTBOARD_RUN_OPTIONS/$(setting TILTBOARD_RUN_OPTIONS)}
    line=${line//\$TILTBOARD_SERVE_OPTIONS/$(setting TILTBOARD_SERVE_OPTIONS)}
    line=${line//\/usr\/bin\/tiltboard/$x/usr/bin/tiltboard}
    echo "$line"
}
# service_user STATE-DIR: makes STATE-DIR and sets $as_user, the command prefix that runs a command
# as the service's user would: another uid, no groups, a clean environment, $STATE_DIRECTORY for the
# profile (and serve's token).
service_user() {
    mkdir -p "$1"; chown 65534:65534 "$1"; chmod 0750 "$1"
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH=/usr/bin:/bin STATE_DIRECTORY="$1")
}

# The unit's ExecStart and ExecStopPost, with the settings file's values and a simulated board, as
# the service's user would run them.
as_the_service() {
    local state=$work/state
    service_user "$state"
    [ -n "$(setting TILTBOARD_RUN_OPTIONS)" ] || { echo "tiltboard.conf sets no TILTBOARD_RUN_OPTIONS"; return 1; }
    grep -q '^TILTBOARD_BOARD=/usr/share/tiltboard/boards/[a-z0-9-]*\.json$' "$conf" || { echo "TILTBOARD_BOARD is not a packaged board"; return 1; }
    [ -f "$x$(setting TILTBOARD_BOARD)" ] || { echo "TILTBOARD_BOARD names a file the package lacks"; return 1; }
    local start stop
    start=$(command_of "$unit" ExecStart) stop=$(command_of "$unit" ExecStopPost)
    # A profile first, written by that user into the state directory.
    "${as_user[@]}" "$x/usr/bin/tiltboard" calibrate --yes --duration 0.5 --board "$board" > "$work/cal.out" 2>&1 \
        || { cat "$work/cal.out"; return 1; }
    local profile=$state/profiles/simulated-mpu-6050-board.json
    [ -s "$profile" ] || { echo "no profile at $profile:"; cat "$work/cal.out"; return 1; }
    # shellcheck disable=SC2086 # the unit splits $TILTBOARD_RUN_OPTIONS on spaces too
    "${as_user[@]}" $start --duration 1 > "$work/run.out" 2> "$work/run.err" || { echo "ExecStart failed: $start"; cat "$work/run.err"; return 1; }
    grep -q 'sending JSON datagrams to 127.0.0.1:' "$work/run.err" || { echo "run: no datagrams:"; cat "$work/run.err"; return 1; }
    grep -q 'no calibration profile' "$work/run.err" && { echo "run ignored $profile:"; cat "$work/run.err"; return 1; }
    # shellcheck disable=SC2086
    "${as_user[@]}" $stop > "$work/stop.out" 2>&1 || { echo "ExecStopPost failed: $stop"; cat "$work/stop.out"; return 1; }
    grep -q '^tiltboard: motor off: ' "$work/stop.out" || { cat "$work/stop.out"; return 1; }
}

# serve_up NAME COMMAND…: COMMAND (a `serve`) in the background, its stdout and stderr in
# $work/NAME.out and .err; waits (30 s at most) for the first URL on its stdout and sets $serve_pid
# and $serve_port from it.
serve_up() {
    local name=$1 i; shift
    "$@" > "$work/$name.out" 2> "$work/$name.err" &
    serve_pid=$!
    for i in $(seq 300); do
        serve_port=$(sed -nE 's|^https?://[^/]*:([0-9]+)/.*|\1|p' "$work/$name.out" | head -n 1)
        [ -n "$serve_port" ] && return 0
        kill -0 "$serve_pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "$name: no URL on stdout"; cat "$work/$name.out" "$work/$name.err"
    kill "$serve_pid" 2>/dev/null; wait "$serve_pid"
    return 1
}
# status_of PATH [CURL-OPTIONS…]: the HTTP status of GET http://127.0.0.1:$serve_port/PATH; the body in $work/body.
status_of() {
    local path=$1; shift
    curl -s -m 10 -o "$work/body" -w '%{http_code}' "$@" "http://127.0.0.1:$serve_port/$path"
}
# serve_down NAME PID: SIGTERM to PID; NAME (the process waited for) must then exit 0.
serve_down() {
    kill -TERM "$2" && wait "$serve_pid" || { echo "$1: exit $? after SIGTERM"; cat "$work/$1.err"; return 1; }
}

# tiltboard-serve's ExecStart as the service's user. On loopback (the settings file's default): the
# page's URL on stdout (the journal), /api/state answered without a token, exit 0 on SIGTERM, and
# ExecStopPost after it. With --host 0.0.0.0: the token kept 0600 beside the profile
# ($STATE_DIRECTORY/profiles/serve-token) and printed in the URL, a call without it refused (401),
# with it answered.
serve_as_the_service() {
    local state=$work/serve-state start code problem=""
    service_user "$state"
    # --duration: nothing outlives an interrupted check.
    start="$(command_of "$serve_unit" ExecStart) --port 0 --duration 120"
    # shellcheck disable=SC2086 # the unit splits the options on spaces too
    serve_up serve "${as_user[@]}" $start || return 1
    if ! grep -qE "^http://(127\.0\.0\.1|localhost):$serve_port/\$" "$work/serve.out"; then
        problem="no loopback URL: $(cat "$work/serve.out")"
    elif code=$(status_of api/state) && ! { [ "$code" = 200 ] && grep -q '"control"' "$work/body"; }; then
        problem="GET /api/state: $code $(head -c 300 "$work/body")"
    fi
    serve_down serve "$serve_pid" || return 1
    [ -z "$problem" ] || { echo "$problem"; return 1; }
    # shellcheck disable=SC2086
    "${as_user[@]}" $(command_of "$serve_unit" ExecStopPost) > "$work/serve-stop.out" 2>&1 \
        && grep -q '^tiltboard: motor off: ' "$work/serve-stop.out" || { echo "ExecStopPost:"; cat "$work/serve-stop.out"; return 1; }

    # shellcheck disable=SC2086
    serve_up serve-lan "${as_user[@]}" $start --host 0.0.0.0 || return 1
    local token=$state/profiles/serve-token
    if [ "$(stat -c '%a %u' "$token" 2>&1)" != "600 65534" ]; then
        problem="$token: $(stat -c '%a %u' "$token" 2>&1), not 600 owned by the service's user"
    elif ! grep -q "token=$(cat "$token")" "$work/serve-lan.out"; then
        problem="no URL with the token: $(cat "$work/serve-lan.out")"
    elif code=$(status_of api/state) && [ "$code" != 401 ]; then
        problem="GET /api/state without the token: $code, not 401"
    elif code=$(status_of api/state -H "Authorization: Bearer $(cat "$token")") && [ "$code" != 200 ]; then
        problem="GET /api/state with the token: $code, not 200"
    fi
    serve_down serve-lan "$serve_pid" || return 1
    [ -z "$problem" ] || { echo "$problem"; return 1; }
}

# The system calls the units' command lines make (strace, on the simulated board; serve answering a
# request) are all inside their SystemCallFilter= (allowed sets minus ~denied sets; serve_unit_made
# checked that the two units' sandboxes are the same), and the socket
# address families inside RestrictAddressFamilies=, or the service would fail on the first one
# (SystemCallErrorNumber=EPERM).
syscalls_allowed() {
    command -v strace >/dev/null || { echo "strace is not installed"; return 1; }
    expand() { # expand SET-OR-CALL...: the system calls, @groups resolved
        local item
        for item in "$@"; do
            case $item in
                @*) systemd-analyze syscall-filter "$item" | sed 's/^ *//' | grep -v '^#\|^$' | tail -n +2 \
                        | while read -r s; do expand "$s"; done ;;
                *) echo "$item" ;;
            esac
        done
    }
    # The lines in order, as systemd merges them: an allow list first, then each ~ line takes
    # calls away and each later plain line gives calls back.
    grep -q '^SystemCallFilter=[^~]' "$unit" || { echo "the unit has no SystemCallFilter= allow list"; return 1; }
    : > "$work/permitted"
    local line
    while read -r line; do
        # shellcheck disable=SC2086
        case $line in
            '~'*) expand ${line#'~'} | sort -u | comm -23 "$work/permitted" - > "$work/permitted.new" ;;
            *) expand $line | sort -u - "$work/permitted" > "$work/permitted.new" ;;
        esac
        mv "$work/permitted.new" "$work/permitted"
    done < <(sed -n 's/^SystemCallFilter=//p' "$unit")
    export STATE_DIRECTORY=$work/strace-state
    strace -f -qq -o "$work/trace.run" "$x/usr/bin/tiltboard" run --board "$board" \
        --udp 127.0.0.1:7700 --duration 1 --realtime >/dev/null 2>&1 || { echo "run failed under strace"; return 1; }
    strace -f -qq -o "$work/trace.off" "$x/usr/bin/tiltboard" haptics --off --board "$board" >/dev/null 2>&1 \
        || { echo "haptics --off failed under strace"; return 1; }
    serve_up serve-traced strace -f -qq -o "$work/trace.serve" "$x/usr/bin/tiltboard" serve --board "$board" --port 0 --duration 120 --realtime || return 1
    local code
    code=$(status_of api/state)
    # strace passes no SIGTERM on: the signal goes to the traced serve, its child.
    serve_down serve-traced "$(ps -o pid= --ppid "$serve_pid")" || return 1
    [ "$code" = 200 ] || { echo "GET /api/state under strace: $code"; return 1; }
    local traces=("$work/trace.run" "$work/trace.off" "$work/trace.serve")
    sed -nE 's/^[0-9]+ +([a-z_0-9]+)\(.*/\1/p' "${traces[@]}" | sort -u > "$work/used"
    echo "$(wc -l < "$work/used") system calls used, $(wc -l < "$work/permitted") permitted"
    local outside
    outside=$(comm -23 "$work/used" "$work/permitted")
    [ -z "$outside" ] || { echo "outside the filter: $outside"; return 1; }
    local families allowed
    families=$(sed -nE 's/^[0-9]+ +socket\((AF_[A-Z0-9]+),.*/\1/p' "${traces[@]}" | sort -u)
    allowed=$(sed -n 's/^RestrictAddressFamilies=//p' "$unit")
    echo "address families used: $(echo $families); allowed: $allowed"
    for f in $families; do
        [[ " $allowed " == *" $f "* ]] || { echo "$f is outside RestrictAddressFamilies="; return 1; }
    done
}

check "control fields: Package, Version from the source, Depends on libc6, libi2c0, libgpiod" control_fields
check "file list: binary, udev rules, unit, settings, boards, man page, completions, all root's" file_list
check "maintainer scripts: conffile, groups, udev reload, both units, nothing started" maintainer_scripts
check "postinst configure creates the groups and the user, enables nothing" maintainer_scripts_run
check "tiltboard-serve.service is tiltboard.service running serve, its stdout in the journal" serve_unit_made
check "tiltboard@.service and tiltboard-serve@.service are the two units as templates, settings in /etc/tiltboard/%i.conf" templates_made
check "the example settings of two instances differ in the board, the UDP port and the page port" examples_apart
check "the units' policy: stderr in the journal, configuration errors not restarted, no start limit, --realtime allowed" unit_policy
for u in "$unit" "$serve_unit" "$template" "$serve_template"; do
    check "$(basename "$u"): systemd-analyze security --offline=true: exposure at most 2.0" unit_security "$u"
    check "$(basename "$u"): systemd-analyze verify prints nothing" unit_verify "$u"
done
check "man -l renders tiltboard.1 without warnings" man_page
check "bash completion loads and completes commands and options" bash_completion
check "zsh and fish completion scripts" other_completions
check "binary is built for $arch without the Swift runtime" binary_arch
if [ "$arch" = "$(dpkg --print-architecture)" ]; then
    check "apt can install it here: every package in Depends exists on this release" depends_installable
    check "packaged binary runs: --version, read on the simulated board" binary_runs
    if [ "$(id -u)" = 0 ]; then
        check "the unit's ExecStart and ExecStopPost run as an unprivileged user with STATE_DIRECTORY" as_the_service
        check "tiltboard-serve's ExecStart as that user: the URL on stdout, loopback without a token, the LAN with one" serve_as_the_service
        check "the system calls of run, serve and haptics --off are inside the units' SystemCallFilter, their sockets inside RestrictAddressFamilies" syscalls_allowed
    else
        skip "the unit's command lines as another user (needs root for setpriv)"
    fi
else
    skip "packaged binary runs (an $arch binary does not run on $(dpkg --print-architecture))"
fi
echo "deb: $passed passed, $failed failed"
[ "$failed" = 0 ]
