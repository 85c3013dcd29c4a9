"""Every kind of JSON tiltboard emits, from the real binary, validated against docs/schema/ with
the jsonschema package (JSON Schema draft 2020-12): run --json lines, --udp datagrams, shake
--json events, read --json, probe --json, doctor --json, the four bench --json reports, profile
show --json, the profile file, and a running serve's /api/ answers (errors too) and WebSocket
messages. Then the boundary documents the Swift tests wrote through the same encoders (0, 1,
true, false, negative zero, each field's largest and smallest value), and documents that must
fail (a number written as a boolean), so the schemas are known to bite.

Usage: python3 schema_test.py BINARY SCHEMA_DIR [SAMPLES_DIR]
Last line: `schema: N passed, M failed`; exit 1 on any failure.
"""

import atexit
import base64
import glob
import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

TIMEOUT = 60
binary, schema_dir = sys.argv[1], sys.argv[2]
samples_dir = sys.argv[3] if len(sys.argv) > 3 else None

passed, failed = 0, 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"  ok    {name}")
    else:
        failed += 1
        print(f"  FAIL  {name}: {detail}")


# MARK: the schemas

schemas = {}
for path in sorted(glob.glob(os.path.join(schema_dir, "*.schema.json"))):
    with open(path) as f:
        schema = json.load(f)
    Draft202012Validator.check_schema(schema)
    schemas[os.path.basename(path)[: -len(".schema.json")]] = schema
registry = Registry().with_resources(
    (schema["$id"], Resource.from_contents(schema)) for schema in schemas.values())


def validator(ref):
    """A validator for `ref`: a schema's name (`run-line`) or name#/$defs/… (`serve#/$defs/apiShake`)."""
    name, _, pointer = ref.partition("#")
    base = schemas[name]["$id"]
    return Draft202012Validator({"$ref": base + ("#" + pointer if pointer else "")}, registry=registry)


def problems(ref, document):
    errors = sorted(validator(ref).iter_errors(document), key=lambda e: list(e.absolute_path))
    return "; ".join(f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:200]}" for e in errors[:3])


def strict_loads(text):
    """json.loads refusing NaN/Infinity and a key twice, as RFC 8259 readers may."""
    def pairs(items):
        keys = [k for k, _ in items]
        if len(keys) != len(set(keys)):
            raise ValueError(f"a key twice: {keys}")
        return dict(items)

    def constant(name):
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, object_pairs_hook=pairs, parse_constant=constant)


def validate(name, ref, text):
    try:
        document = strict_loads(text)
    except ValueError as error:
        check(name, False, f"not JSON: {error}: {text[:200]!r}")
        return None
    detail = problems(ref, document)
    check(name, not detail, f"{detail} in {text[:300]!r}")
    return document


def validate_lines(name, ref, text, at_least=1):
    lines = [line for line in text.split("\n") if line]
    check(f"{name}: at least {at_least} lines", len(lines) >= at_least, f"{len(lines)} lines")
    bad = []
    for line in lines:
        try:
            detail = problems(ref, strict_loads(line))
        except ValueError as error:
            detail = f"not JSON: {error}"
        if detail:
            bad.append(f"{detail} in {line[:200]!r}")
    check(f"{name}: {len(lines)} lines valid", not bad, "; ".join(bad[:3]))
    return [json.loads(line) for line in lines]


def has_number_where(document, path):
    """The value at `path` is a number (int or float), not a boolean."""
    value = document
    for key in path:
        value = value[key]
    return isinstance(value, (int, float)) and not isinstance(value, bool)


scratch = tempfile.mkdtemp(prefix="tiltboard-schema-")
atexit.register(shutil.rmtree, scratch, ignore_errors=True)
env = dict(os.environ, TILTBOARD_CLOCK="virtual", XDG_CONFIG_HOME=os.path.join(scratch, "config"),
           HOME=scratch, NO_COLOR="1")
env.pop("STATE_DIRECTORY", None)
real_time = {k: v for k, v in env.items() if k != "TILTBOARD_CLOCK"}


def tiltboard(*args, expect=(0,), environment=None, timeout=TIMEOUT):
    result = subprocess.run([binary, *args], capture_output=True, text=True, env=environment or env,
                            timeout=timeout, stdin=subprocess.DEVNULL)
    if result.returncode not in expect:
        check(f"tiltboard {' '.join(args)} exits {expect}", False,
              f"exit {result.returncode}: {result.stderr.strip()[-400:]}")
    return result


def board(name, chip, script, extra_sensor=None, motor=True, faults=None):
    sensor = {"chip": chip, "bus": "simulated", "rateHz": 100}
    sensor.update(extra_sensor or {})
    document = {"name": name, "sensor": sensor, "simulation": {"script": script, "noise": True, "seed": 3}}
    if faults:
        document["simulation"]["faults"] = faults
    if motor:
        document["motor"] = {"chip": "simulated", "line": 17, "maxOnSeconds": 2,
                             "shakeEffect": "pulse:150"}
    path = os.path.join(scratch, f"{name}.json")
    with open(path, "w") as f:
        json.dump(document, f)
    return path


print("schema: the schemas themselves")
check(f"{len(schemas)} schemas are valid draft 2020-12", len(schemas) >= 10, sorted(schemas))

# MARK: documents that must fail: the schemas reject a number written as a boolean

print("schema: documents that must fail")
run_line = {"t": 0, "tilt": {"pitchDeg": 0, "rollDeg": -0.5, "trusted": True},
            "control": {"x": 0, "y": 1, "vx": 0, "vy": 0, "headingDeg": 0}, "shake": False, "haptic": False}
check("a valid run line passes", not problems("run-line", run_line), problems("run-line", run_line))
for path, value in ((("control", "vx"), False), (("t",), True), (("shake",), 0), (("tilt", "trusted"), 1),
                    (("dropped",), True), (("dropped",), 0), (("extra",), 1)):
    bad = json.loads(json.dumps(run_line))
    target = bad
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    check(f"run line with {'.'.join(path)} = {json.dumps(value)} fails", bool(problems("run-line", bad)))
bad_state = {"type": "shake", "t": 1.5, "shakes": False}
check("a shake event with shakes = false fails", bool(problems("serve", bad_state)))
bad_shake = {"shake": {"level": "custom", "thresholdG": True, "levels": [], "description": "custom (1.0 g)"},
             "thresholdG": True, "profile": {"path": "/p", "calibrated": False}}
check("POST /api/shake's answer with thresholdG = true fails", bool(problems("serve#/$defs/apiShake", bad_shake)))

# MARK: the real binary

print("schema: the real binary's output")
mpu = board("schema-mpu", "mpu6050", "demo")
adxl = board("schema-adxl", "adxl345", "demo", motor=False)
lis = board("schema-lis", "lis3dh", "demo", motor=False)
shaker = board("schema-shake", "mpu6050", "shake")
profile = os.path.join(scratch, "profile.json")

out = tiltboard("run", "--board", mpu, "--profile", profile, "--json", "--duration", "3", "--fast").stdout
validate_lines("run --json (MPU-6050, demo)", "run-line", out, at_least=300)
out = tiltboard("run", "--board", adxl, "--json", "--duration", "1", "--fast").stdout
validate_lines("run --json (ADXL345)", "run-line", out, at_least=100)
out = tiltboard("run", "--board", shaker, "--board", adxl, "--json", "--duration", "1", "--fast").stdout
lines = validate_lines("run --json (two boards)", "run-line", out, at_least=200)
check("run --json (two boards) names both players", {l.get("player") for l in lines} == {1, 2})

out = tiltboard("read", "--board", mpu, "--json", "--count", "50", "--fast").stdout
lines = validate_lines("read --json (MPU-6050)", "read-line", out, at_least=50)
check("read --json (MPU-6050) has gyro and tempC", all("gyro" in l and "tempC" in l for l in lines))
out = tiltboard("read", "--board", adxl, "--json", "--count", "20", "--fast").stdout
validate_lines("read --json (ADXL345)", "read-line", out, at_least=20)
out = tiltboard("read", "--board", lis, "--json", "--count", "20", "--fast").stdout
validate_lines("read --json (LIS3DH)", "read-line", out, at_least=20)

out = tiltboard("shake", "--board", shaker, "--json", "--duration", "8", "--fast", "--mute").stdout
events = validate_lines("shake --json", "shake-event", out, at_least=2)
check("shake --json has a start and an end", {"start", "end"} <= {e["event"] for e in events}, out[:300])

out = tiltboard("probe", "--bus", "simulated", "--all", "--json").stdout
validate_lines("probe --json --bus simulated --all", "probe-line", out, at_least=1)

result = tiltboard("doctor", "--board", mpu, "--profile", profile, "--json", expect=(0, 69, 77))
document = validate("doctor --json", "doctor", result.stdout)
if document is not None:
    check("doctor --json's exitCode is the exit status", document["exitCode"] == result.returncode,
          f"{document['exitCode']} vs {result.returncode}")
result = tiltboard("doctor", "--board", mpu, "--board", adxl, "--json", expect=(0, 69, 77))
players = validate_lines("doctor --json with two boards", "doctor", result.stdout, at_least=2)
check("doctor --json with two boards: one object a player, in order", [p.get("player") for p in players] == [1, 2],
      result.stdout[:300])

out = tiltboard("profile", "show", "--board", mpu, "--profile", profile, "--json").stdout
document = validate("profile show --json before a calibration", "profile-show", out)
check("profile show --json: profile null before a calibration", document is not None and document["profile"] is None)

tiltboard("calibrate", "--board", mpu, "--profile", profile, "--yes")
tiltboard("profile", "shake", "firm", "--board", mpu, "--profile", profile)
with open(profile) as f:
    validate("the profile file after calibrate and profile shake", "profile", f.read())
tiltboard("profile", "shake", "--threshold", "1", "--board", mpu, "--profile", profile)
with open(profile) as f:
    document = validate("the profile file with shake --threshold 1", "profile", f.read())
check("the profile's shake.thresholdG 1 is a number", document is not None and has_number_where(document, ("shake", "thresholdG")))
out = tiltboard("profile", "show", "--board", mpu, "--profile", profile, "--json").stdout
validate("profile show --json after a calibration", "profile-show", out)
tiltboard("calibrate", "--zero", "--board", mpu, "--profile", profile)
with open(profile) as f:
    validate("the profile file after calibrate --zero", "profile", f.read())

out = tiltboard("bench", "--board", mpu, "--json", "--seconds", "0.2", environment=real_time).stdout
validate("bench --json", "bench#/$defs/loops", out)
out = tiltboard("bench", "--hold-still", "--parts", "1", "--json").stdout
validate("bench --hold-still --json", "bench#/$defs/holdStill", out)
out = tiltboard("bench", "--serve", "--board", mpu, "--seconds", "0.2", "--json",
                environment=real_time).stdout
validate("bench --serve --json", "bench#/$defs/serve", out)
out = tiltboard("bench", "--kernel-limit", "--board", mpu, "--seconds", "0.1", "--json", environment=real_time).stdout
validate("bench --kernel-limit --json", "bench#/$defs/kernelLimit", out)
out = tiltboard("bench", "--players", "2", "--board", mpu, "--seconds", "0.2", "--json", environment=real_time).stdout
validate("bench --players 2 --json", "bench#/$defs/players", out)

# --udp: each datagram is a run line without its newline.
receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
receiver.bind(("127.0.0.1", 0))
receiver.settimeout(0.2)
port = receiver.getsockname()[1]
datagrams = []


def receive():
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline and len(datagrams) < 50:
        try:
            datagrams.append(receiver.recv(65536))
        except socket.timeout:
            pass


listener = threading.Thread(target=receive, daemon=True)
listener.start()
tiltboard("run", "--board", mpu, "--profile", profile, "--udp", f"127.0.0.1:{port}", "--output-rate", "50",
          "--duration", "2", environment=real_time)
listener.join(timeout=TIMEOUT)
check("--udp: datagrams arrived", len(datagrams) >= 20, f"{len(datagrams)}")
bad = [d for d in datagrams if d.endswith(b"\n") or problems("run-line", strict_loads(d.decode()))]
check(f"--udp: {len(datagrams)} datagrams are run lines without a newline", not bad, repr(bad[:2]))

# MARK: serve


class Serve:
    def __init__(self, board_path, profile_path, more=()):
        args = [binary, "serve", "--board", board_path, "--profile", profile_path, "--host", "127.0.0.1",
                "--port", "0", "--ui-rate", "20"]
        for other_board, other_profile in more:
            args += ["--board", other_board, "--profile", other_profile]
        self.log = open(os.path.join(scratch, "serve.log"), "a")
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log, stdin=subprocess.DEVNULL,
                                        env=real_time, text=True)
        lines = queue.Queue()
        threading.Thread(target=lambda: [lines.put(l) for l in self.process.stdout] + [lines.put(None)],
                         daemon=True).start()
        while True:
            line = lines.get(timeout=TIMEOUT)
            if line is None:
                raise AssertionError(f"serve exited {self.process.wait()} before printing a URL")
            match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if match:
                self.port = int(match.group(1))
                return

    def request(self, method, path, body=None):
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"} if data is not None else {})
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=TIMEOUT)


class Stream:
    """A minimal RFC 6455 client: the handshake, then the server's (unmasked) text frames."""

    def __init__(self, port, path="/api/stream"):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.sock.recv(4096)
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise AssertionError(f"no upgrade: {head[:200]!r}")
        self.messages = []
        self.closed = False
        threading.Thread(target=self.read, daemon=True).start()

    def take(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def read(self):
        try:
            while True:
                b0, b1 = self.take(2)
                length = b1 & 0x7F
                if length == 126:
                    length = int.from_bytes(self.take(2), "big")
                elif length == 127:
                    length = int.from_bytes(self.take(8), "big")
                payload = self.take(length)
                if b0 & 0x0F == 0x1:
                    self.messages.append(payload.decode())
                elif b0 & 0x0F == 0x8:
                    break
        except (EOFError, OSError):
            pass
        self.closed = True

    def wait_for(self, predicate, seconds=TIMEOUT):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if any(predicate(json.loads(m)) for m in list(self.messages)):
                return True
            if self.closed:
                return False
            time.sleep(0.02)
        return False


serve_board = board("schema-serve", "mpu6050", "flat")
serve_profile = os.path.join(scratch, "serve-profile.json")
server = Serve(serve_board, serve_profile)
try:
    stream = Stream(server.port)
    status, body = server.request("GET", "/api/profile")
    document = validate("GET /api/profile without a profile", "serve#/$defs/apiProfile", body)
    check("GET /api/profile: profile null", status == 200 and document is not None and document["profile"] is None, body)
    status, body = server.request("GET", "/api/state")
    document = validate("GET /api/state", "serve#/$defs/apiState", body)
    if document is not None:
        check("GET /api/state: shakes, loop.missedTicks and control.vx are numbers",
              all(has_number_where(document, p) for p in (("shakes",), ("loop", "missedTicks"), ("control", "vx"))), body[:300])
    status, body = server.request("POST", "/api/shake", {"thresholdG": 1})
    document = validate("POST /api/shake {thresholdG: 1}", "serve#/$defs/apiShake", body)
    check("POST /api/shake {thresholdG: 1}: thresholdG is the number 1",
          document is not None and has_number_where(document, ("thresholdG",)) and document["thresholdG"] == 1, body)
    status, body = server.request("GET", "/api/state")
    document = validate("GET /api/state after the threshold", "serve#/$defs/apiState", body)
    check("GET /api/state: sensitivity.thresholdG is the number 1",
          document is not None and has_number_where(document, ("sensitivity", "thresholdG")), body[-300:])
    for level in ("firm", "default"):
        status, body = server.request("POST", "/api/shake", {"level": level})
        validate(f"POST /api/shake {{level: {level}}}", "serve#/$defs/apiShake", body)
    status, body = server.request("POST", "/api/haptics", {"effect": "pulse:300"})
    validate("POST /api/haptics", "serve#/$defs/apiHaptics", body)
    check("the stream tells of the motor", stream.wait_for(lambda m: m.get("type") == "motor"))
    status, body = server.request("POST", "/api/calibrate", b"")
    check("POST /api/calibrate: 202", status == 202, f"{status} {body}")
    validate("POST /api/calibrate", "serve#/$defs/apiCalibrate", body)
    status, body = server.request("POST", "/api/calibrate", b"")
    check("POST /api/calibrate while one runs: 409", status == 409, f"{status} {body}")
    validate("POST /api/calibrate while one runs (409)", "serve#/$defs/error", body)
    check("the stream tells the capture is done",
          stream.wait_for(lambda m: m.get("type") == "calibration" and m.get("state") in ("done", "failed")))
    status, body = server.request("GET", "/api/profile")
    document = validate("GET /api/profile after Calibrate", "serve#/$defs/apiProfile", body)
    check("GET /api/profile: a profile after Calibrate", document is not None and document["profile"] is not None, body[:200])
    status, body = server.request("POST", "/api/zero", b"{}")
    validate("POST /api/zero", "serve#/$defs/apiZero", body)
    for method, path, payload, code in (("GET", "/nowhere", None, 404), ("GET", "/api/zero", None, 405),
                                        ("POST", "/api/shake", b"{\"level\": 1}", 400),
                                        ("POST", "/api/haptics", b"{\"effect\": \"nothing\"}", 400)):
        status, body = server.request(method, path, payload)
        check(f"{method} {path}: {code}", status == code, f"{status} {body}")
        validate(f"{method} {path} ({code})", "serve#/$defs/error", body)
    stream.wait_for(lambda m: m.get("type") == "state" and m.get("loop", {}).get("samples", 0) > 50)
    code = server.stop()
    check("serve: exit 0 on SIGTERM", code == 0, f"exit {code}")
    stream.wait_for(lambda m: m.get("type") == "stopping", seconds=5)
    kinds = {}
    bad = []
    for message in stream.messages:
        document = strict_loads(message)
        kind = document.get("type")
        kinds[kind] = kinds.get(kind, 0) + 1
        detail = problems("serve", document)
        if detail:
            bad.append(f"{detail} in {message[:200]!r}")
    check(f"WebSocket: {len(stream.messages)} messages valid ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))})",
          not bad, "; ".join(bad[:3]))
    check("WebSocket: snapshot, state, motor, calibration and stopping messages seen",
          {"snapshot", "state", "motor", "calibration", "stopping"} <= set(kinds), sorted(kinds))
finally:
    if server.process.poll() is None:
        server.process.kill()

# Two boards in one serve: GET /api/boards, and every board route under /api/boards/N/ (and by name).
left_board = board("schema-left", "mpu6050", "flat")
right_board = board("schema-right", "mpu6050", "flat")
server = Serve(left_board, os.path.join(scratch, "left-profile.json"),
               more=[(right_board, os.path.join(scratch, "right-profile.json"))])
try:
    status, body = server.request("GET", "/api/boards")
    document = validate("GET /api/boards (two boards)", "serve#/$defs/apiBoards", body)
    check("GET /api/boards: players 1 and 2 in order",
          document is not None and [(b["player"], b["board"]["name"]) for b in document["boards"]]
          == [(1, "schema-left"), (2, "schema-right")], body[:300])
    stream = Stream(server.port, "/api/boards/2/stream")
    for prefix in ("/api/boards/2", "/api/boards/schema-right"):
        status, body = server.request("GET", prefix + "/state")
        document = validate(f"GET {prefix}/state", "serve#/$defs/apiState", body)
        check(f"GET {prefix}/state: player 2's board", document is not None and document["board"]["name"] == "schema-right", body[-300:])
    status, body = server.request("GET", "/api/state")
    document = validate("GET /api/state (two boards)", "serve#/$defs/apiState", body)
    check("GET /api/state: player 1's board", document is not None and document["board"]["name"] == "schema-left", body[-300:])
    status, body = server.request("GET", "/api/boards/2/profile")
    validate("GET /api/boards/2/profile", "serve#/$defs/apiProfile", body)
    status, body = server.request("POST", "/api/boards/2/shake", {"level": "firm"})
    validate("POST /api/boards/2/shake", "serve#/$defs/apiShake", body)
    status, body = server.request("POST", "/api/boards/2/haptics", {"effect": "pulse:100"})
    validate("POST /api/boards/2/haptics", "serve#/$defs/apiHaptics", body)
    status, body = server.request("POST", "/api/boards/2/zero", b"")
    validate("POST /api/boards/2/zero", "serve#/$defs/apiZero", body)
    status, body = server.request("POST", "/api/boards/2/calibrate", b"")
    check("POST /api/boards/2/calibrate: 202", status == 202, f"{status} {body}")
    validate("POST /api/boards/2/calibrate", "serve#/$defs/apiCalibrate", body)
    for method, path, code in (("GET", "/api/boards/3/state", 404), ("GET", "/api/boards/nobody/state", 404),
                               ("GET", "/api/boards/2/nothing", 404), ("GET", "/api/boards/2/zero", 405),
                               ("POST", "/api/boards", 405)):
        status, body = server.request(method, path, b"" if method == "POST" else None)
        check(f"{method} {path}: {code}", status == code, f"{status} {body}")
        validate(f"{method} {path} ({code})", "serve#/$defs/error", body)
    check("player 2's stream tells of its motor", stream.wait_for(lambda m: m.get("type") == "motor"))
    code = server.stop()
    check("serve (two boards): exit 0 on SIGTERM", code == 0, f"exit {code}")
    stream.wait_for(lambda m: m.get("type") == "stopping", seconds=5)
    bad = [f"{problems('serve', strict_loads(m))} in {m[:200]!r}" for m in stream.messages if problems("serve", strict_loads(m))]
    check(f"WebSocket of player 2: {len(stream.messages)} messages valid", not bad, "; ".join(bad[:3]))
    check("WebSocket of player 2: its own board's snapshot first",
          bool(stream.messages) and json.loads(stream.messages[0]).get("board", {}).get("name") == "schema-right",
          stream.messages[0][:200] if stream.messages else "no message")
finally:
    if server.process.poll() is None:
        server.process.kill()

# A shake, then the sensor lost for half a second and back: the stream's other events.
fault_board = board("schema-faults", "mpu6050", "shake", faults=[{"at": 2.5, "kind": "nack", "seconds": 0.5}])
server = Serve(fault_board, os.path.join(scratch, "faults-profile.json"))
try:
    stream = Stream(server.port)
    seen = stream.wait_for(lambda m: m.get("type") == "sensor-back")
    check("the stream tells of the sensor lost and back", seen)
    code = server.stop()
    check("serve (a flaky bus): exit 0 on SIGTERM", code == 0, f"exit {code}")
    stream.wait_for(lambda m: m.get("type") == "stopping", seconds=5)
    kinds = {}
    bad = []
    for message in stream.messages:
        document = strict_loads(message)
        kinds[document.get("type")] = kinds.get(document.get("type"), 0) + 1
        detail = problems("serve", document)
        if detail:
            bad.append(f"{detail} in {message[:200]!r}")
    check(f"WebSocket (a flaky bus): {len(stream.messages)} messages valid "
          f"({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))})", not bad, "; ".join(bad[:3]))
    check("WebSocket: shake, sensor-lost and sensor-back messages seen",
          {"shake", "sensor-lost", "sensor-back"} <= set(kinds), sorted(kinds))
finally:
    if server.process.poll() is None:
        server.process.kill()

# MARK: boundary documents from the Swift tests

if samples_dir:
    print("schema: boundary documents (0, 1, true, false, -0, each field's extremes) through the real encoders")
    files = sorted(glob.glob(os.path.join(samples_dir, "*", "*")))
    check("boundary documents were written", len(files) >= 10, f"{len(files)} in {samples_dir}")
    for path in files:
        ref = os.path.basename(os.path.dirname(path)).replace("@", "#/$defs/")
        with open(path) as f:
            text = f.read()
        name = f"{os.path.basename(os.path.dirname(path))}/{os.path.basename(path)}"
        if os.path.basename(path).startswith("invalid-"):
            # What tiltboard's reader refuses, the schema must refuse too.
            check(f"{name} fails", bool(problems(ref, strict_loads(text))), "the schema accepts it")
        elif path.endswith(".jsonl"):
            validate_lines(name, ref, text)
        else:
            validate(name, ref, text)

print(f"schema: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
