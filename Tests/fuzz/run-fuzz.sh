#!/usr/bin/env bash
# Builds tiltboard as a libFuzzer binary and fuzzes the board-file parser,
# the profile decoder, the haptic effect parsers, the command-line parsing, and serve's request
# parser (with the Host/Origin/token rules and the WebSocket handshake), JSON bodies and WebSocket
# client frames for SECONDS (300).
# Usage: bash Tests/fuzz/run-fuzz.sh [SECONDS]
# Swift's own checks (bounds, overflow, force-unwraps) turn bugs into traps libFuzzer reports.
# (AddressSanitizer is left out: the Swift runtime trips its malloc_usable_size check.)
# The build and the corpus are kept under ~/.cache/tiltboard/; findings (crash-*) land in the current folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${TILTBOARD_FUZZ_BUILD:-$HOME/.cache/tiltboard/fuzz-build}
seconds=${1:-300}

swift build --package-path "$root" -c release --product tiltboard --build-path "$build" \
    -Xswiftc -sanitize=fuzzer -Xswiftc -DTILTBOARD_FUZZ -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld

# The corpus grows from run to run.
corpus=${TILTBOARD_FUZZ_CORPUS:-$HOME/.cache/tiltboard/fuzz-corpus}
mkdir -p "$corpus"
# Seeds: the first byte picks the target (0 board file, 1 profile, 2 effect, 3 command line,
# 4 HTTP request, 5 JSON body or WebSocket frame).
n=0
for f in "$root"/Boards/*.json "$root"/Tests/hil/boards/*.json; do
    { printf '\000'; cat "$f"; } > "$corpus/board-$((n++))"
done
printf '\001{"schemaVersion":1,"board":{"name":"x","chip":"mpu6050","bus":"simulated","address":104,"chipID":104},"createdAt":"2026-01-01T00:00:00Z","temperatureC":25,"sampleCount":10,"noiseMg":{"x":1,"y":1,"z":1},"neutral":{"rotation":{"w":1,"x":0,"y":0,"z":0},"meanRawG":{"x":0,"y":0,"z":1},"tiltDeg":0,"clamped":false}}' > "$corpus/profile"
printf '\002pulse:150' > "$corpus/effect"
printf '\002200,100,200' > "$corpus/pattern"
printf '\003run\000--duration\0001e11\000--rate\000-5' > "$corpus/args-run"
printf '\003haptics\000--repeat\0009223372036854775807\000--effect\000alarm' > "$corpus/args-haptics"
printf '\003shake\000--threshold\000nan\000--min-reversals\000-1' > "$corpus/args-shake"
printf '\003help\000nonexistent' > "$corpus/args-help"
printf '\004GET /api/stream?token=0123456789abcdef0123456789abcdef HTTP/1.1\r\nHost: pi.local:8080\r\nOrigin: http://pi.local:8080\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nCookie: a=b; tiltboard-token=x\r\n\r\n' > "$corpus/http-upgrade"
printf '\004POST /api/haptics HTTP/1.1\r\nHost: [::1]:8080\r\nAuthorization: Bearer 0123456789abcdef0123456789abcdef\r\nContent-Length: 17\r\n\r\n{"effect":"buzz"}' > "$corpus/http-post"
printf '\005{"effect": "pulse:150"}' > "$corpus/body-effect"
printf '\005{}' > "$corpus/body-empty"
printf '\005\201\205\067\372\041\075\177\237\115\121\130' > "$corpus/ws-frame"

"$build/release/tiltboard" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 "$corpus"
