# Shell helpers both HIL guests' /init scripts source (busybox sh): the check runner and the
# readers of tiltboard's output. `check` counts into $pass and $fail.

pass=0
fail=0
why=""
# check NAME FUNCTION ARGS...: FUNCTION returns 0 to pass and may set $why to explain a failure.
check() {
    name=$1; shift
    why=""
    read -r t0 _ < /proc/uptime
    "$@"; ok=$?
    read -r t1 _ < /proc/uptime
    echo "guest: [$t0 → $t1 s] $name"
    if [ $ok = 0 ]; then
        echo "PASS: $name"; pass=$((pass + 1))
    else
        echo "FAIL: $name${why:+ — $why}"; fail=$((fail + 1))
    fi
}

# The first error line tiltboard printed (stderr in /tmp/err), cut to 300 characters.
first_err() { { grep -i -m 1 'error' /tmp/err || head -n 1 /tmp/err; } | cut -c 1-300; }

# near "a,b,c" "x,y,z" TOL: every element within TOL.
near() {
    awk -v g="$1" -v w="$2" -v t="$3" 'BEGIN {
        n = split(g, a, ","); m = split(w, b, ",")
        if (n != m) exit 1
        for (i = 1; i <= n; i++) { d = a[i] - b[i]; if (d < 0) d = -d; if (d > t) exit 1 }
        exit 0 }'
}
# json_array KEY FILE / json_number KEY FILE: a value from the first JSON line of FILE.
json_array() { tr -d ' ' < "$2" | head -n 1 | sed -n "s/.*\"$1\":\[\([^]]*\)\].*/\1/p"; }
json_number() { tr -d ' ' < "$2" | head -n 1 | sed -n "s/.*\"$1\":\([-0-9.eE+]*\).*/\1/p"; }
