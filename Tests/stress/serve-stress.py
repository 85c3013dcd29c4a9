#!/usr/bin/env python3
"""A bounded local stress test of `tiltboard serve` (Python's standard library only).

Starts serve on a simulated board on 127.0.0.1 (a free port, --max-clients 32), then makes 1000
connection attempts in waves of 100: good requests, malformed ones, oversized heads and bodies,
slow heads that never finish, half-open connections (the client shuts its side, or resets),
WebSocket clients that never read. Meanwhile and afterwards a fresh client must always get an
answer (200, or 503 while the limit is reached); once the abusers are gone, 200 again. Then
SIGTERM: exit 0, the motor off, no crash or backtrace on stderr. Stops by itself (a few seconds
of real time, at most about a minute on a loaded machine).

Usage: python3 Tests/stress/serve-stress.py [path/to/tiltboard]   (default .build/debug/tiltboard)
"""
import json, os, random, signal, socket, struct, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/debug/tiltboard")
ATTEMPTS, WAVE = 1000, 100
random.seed(17)


def fail(message):
    print("serve-stress: FAILED: " + message)
    sys.exit(1)


def answer(port, request=b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", timeout=30):
    """The status code of one request on a fresh connection; 0 when the server closed it unanswered."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        data = b""
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                return 0
            data += chunk
        return int(data.split(b" ")[1])


def abuse(kind, port):
    """Opens one connection and misbehaves; returns the socket if it is to be kept open."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(("127.0.0.1", port))
    if kind == "good":
        s.sendall(b"GET /api/state HTTP/1.1\r\nHost: localhost\r\n\r\n")
    elif kind == "garbage":
        s.sendall(bytes(random.getrandbits(8) for _ in range(random.randint(1, 3000))) + b"\r\n\r\n")
    elif kind == "big-head":
        s.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nX: " + b"a" * 20000 + b"\r\n\r\n")
    elif kind == "big-body":
        s.sendall(b"POST /api/haptics HTTP/1.1\r\nHost: localhost\r\nContent-Length: 99999999\r\n\r\n" + b"{" * 5000)
    elif kind == "slow-head":
        s.sendall(b"GET /api/state HTTP/1.1\r\nHo")
    elif kind == "half-close":
        s.sendall(b"GET /api/st")
        s.shutdown(socket.SHUT_WR)
    elif kind == "reset":
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.sendall(b"POST /api/zero HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n")
        s.close()
        return None
    elif kind == "ws-stalled":
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(b"GET /api/stream HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    elif kind == "ws-bad-frame":
        s.sendall(b"GET /api/stream HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
                  b"\x82\xff\x7f\xff\xff\xff\xff\xff\xff\xff\x01\x02\x03\x04")
    return s


def main():
    if not os.access(BINARY, os.X_OK):
        fail(f"no tiltboard at {BINARY}: build it first (swift build)")
    home = tempfile.mkdtemp(prefix="tiltboard-stress-")
    board = os.path.join(home, "board.json")
    motor_log = os.path.join(home, "motor.log")
    with open(board, "w") as f:
        json.dump({"name": "stress board", "sensor": {"chip": "mpu6050", "bus": "simulated", "address": "0x68", "rateHz": 100},
                   "motor": {"chip": "simulated", "line": 17},
                   "simulation": {"script": "demo", "noise": True, "motorLog": motor_log}}, f)
    env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=home)
    env.pop("TILTBOARD_CLOCK", None)
    out, err = open(os.path.join(home, "stdout"), "w+"), open(os.path.join(home, "stderr"), "w+")
    serve = subprocess.Popen([BINARY, "serve", "--board", board, "--port", "0", "--max-clients", "32"],
                             stdout=out, stderr=err, env=env)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            out.seek(0)
            line = out.readline()
            if line.endswith("\n"):
                break
            if serve.poll() is not None:
                fail("serve ended at start: " + open(err.name).read())
            time.sleep(0.05)
        port = int(line.strip().rsplit(":", 1)[1].split("/")[0])
        if answer(port) != 200:
            fail("no 200 before the stress")

        kinds = ["good", "garbage", "big-head", "big-body", "slow-head", "half-close", "reset", "ws-stalled", "ws-bad-frame"]
        counts, statuses, kept = {}, {}, []
        made = 0
        while made < ATTEMPTS:
            for _ in range(WAVE):
                kind = random.choice(kinds)
                counts[kind] = counts.get(kind, 0) + 1
                try:
                    s = abuse(kind, port)
                    if s is not None:
                        kept.append(s)
                except OSError:
                    counts["refused-or-reset"] = counts.get("refused-or-reset", 0) + 1
                made += 1
            # The server must still answer someone new: 200, or 503 at the limit.
            code = answer(port)
            statuses[code] = statuses.get(code, 0) + 1
            if code not in (200, 503):
                fail(f"a fresh client got {code} after {made} attempts")
            # Keep a bounded number of abusers open, as a real attack would be limited too.
            while len(kept) > 300:
                kept.pop(0).close()
        for s in kept:
            s.close()
        # Once they are gone the limit frees up: 200 again, within a generous wait.
        deadline = time.time() + 60
        while answer(port) != 200:
            if time.time() > deadline:
                fail("no 200 after the abusers left")
            time.sleep(0.05)
        serve.send_signal(signal.SIGTERM)
        code = serve.wait(timeout=60)
        stderr = open(err.name).read()
        if code != 0:
            fail(f"exit {code} after SIGTERM:\n{stderr}")
        for word in ("Fatal error", "Backtrace", "Segmentation", "panic"):
            if word in stderr:
                fail(f"{word} on stderr:\n{stderr}")
        log = open(motor_log).read().split()
        if log and log[-1] != "0":
            fail("the motor was left on: " + " ".join(log[-4:]))
        print(f"serve-stress: ok: {made} connection attempts {dict(sorted(counts.items()))}; "
              f"fresh clients answered {dict(sorted(statuses.items()))}; exit 0, motor off")
    finally:
        if serve.poll() is None:
            serve.kill()


main()
