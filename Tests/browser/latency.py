"""Board tilt → frame in the browser: how old each state frame is when the page receives it, and
when the browser next paints, in milliseconds, as a distribution.

Each state frame carries `monotonicNs`, the CLOCK_MONOTONIC time of the loop tick that read its
sample (on a simulated board, the moment the tilt is read). A hook installed before the page's
own script notes, for every frame, the browser's clock (performance.timeOrigin + now, which
Chromium keeps on the system's real-time clock) when the message arrives and at the next
animation frame. The two clocks are tied by CLOCK_REALTIME − CLOCK_MONOTONIC read here, on the
same machine; the browser's clock is checked against CLOCK_REALTIME within a round trip.

Usage: latency.py TILTBOARD_BINARY [--frames N] [--ui-rate HZ] [--runs R]
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

import harness
from harness import text, wait_until

HOOK = """
(() => {
  const Native = window.WebSocket;
  window.__latency = { message: [], paint: [] };
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        const arrived = performance.timeOrigin + performance.now();
        let frame;
        try { frame = JSON.parse(event.data); } catch (_) { return; }
        if (frame.type !== "state" || typeof frame.monotonicNs !== "number") return;
        window.__latency.message.push([frame.monotonicNs, arrived]);
        requestAnimationFrame(() => window.__latency.paint.push([frame.monotonicNs, performance.timeOrigin + performance.now()]));
      });
    }
  };
})();
"""


def percentile(values, p):
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def browser_clock_error_ms(driver):
    """The browser's clock minus CLOCK_REALTIME, with the round trip that bounds it (both ms)."""
    best = None
    for _ in range(20):
        before = time.time_ns()
        browser = driver.execute_script("return performance.timeOrigin + performance.now()")
        after = time.time_ns()
        trip = (after - before) / 1e6
        error = browser - (before + after) / 2e6
        if best is None or trip < best[1]:
            best = (error, trip)
    return best


def realtime_minus_monotonic_ms():
    """CLOCK_REALTIME − CLOCK_MONOTONIC, the narrowest of several paired reads."""
    best = None
    for _ in range(50):
        m0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        r = time.clock_gettime_ns(time.CLOCK_REALTIME)
        m1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        if best is None or m1 - m0 < best[1]:
            best = (r - (m0 + m1) / 2, m1 - m0)
    return best[0] / 1e6


def measure(args, run):
    tmp = tempfile.mkdtemp(prefix="tiltboard-latency-")
    board = harness.write_board(tmp, "demo", os.path.join(tmp, "motor.log"))
    env = dict(os.environ, HOME=tmp, XDG_CONFIG_HOME=os.path.join(tmp, "config"))
    extra = ["--ui-rate", str(args.ui_rate)] if args.ui_rate else []
    server = harness.Server(args.binary, board, os.path.join(tmp, "profile.json"), env,
                            os.path.join(tmp, "serve.log"), extra)
    driver = harness.browser(os.path.join(tmp, "chromium"), harness.DESKTOP)
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK})
        driver.get(server.start())
        wait_until(driver, "#status reads live", lambda: text(driver, "status") == "live")
        wait_until(driver, f"{args.frames} frames", lambda: driver.execute_script(
            "return window.__latency.paint.length") >= args.frames, timeout=args.frames / 10 + harness.TIMEOUT)
        samples = driver.execute_script("return window.__latency")
        clock_error, trip = browser_clock_error_ms(driver)
        offset = realtime_minus_monotonic_ms()
    finally:
        driver.quit()
        server.kill()
    if abs(clock_error) > trip / 2 + 1:
        raise SystemExit(f"latency: the browser's clock is {clock_error:.2f} ms off CLOCK_REALTIME "
                         f"(round trip {trip:.2f} ms): the figures would be off by as much")
    def ages(pairs):
        return [arrived - (ns / 1e6 + offset) for ns, arrived in pairs[-args.frames:]]
    message, paint = ages(samples["message"]), ages(samples["paint"])
    span = (samples["message"][-1][0] - samples["message"][-args.frames][0]) / 1e9
    print(f"run {run}: {len(message)} frames over {span:.1f} s ({len(message) / span:.1f} per s); "
          f"browser clock within {abs(clock_error):.2f} ms (round trip {trip:.2f} ms)", flush=True)
    return message, paint


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--frames", type=int, default=1200, help="frames per run (default 1200: 20 s at 60 Hz)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ui-rate", type=float, help="passed to serve --ui-rate")
    args = parser.parse_args()
    results = [measure(args, run + 1) for run in range(args.runs)]
    for label, index in (("tilt → message handled", 0), ("tilt → next paint", 1)):
        print(f"{label}, ms:")
        for run, values in enumerate(r[index] for r in results):
            print(f"  run {run + 1}: min {min(values):.1f}  p50 {statistics.median(values):.1f}  "
                  f"p90 {percentile(values, 90):.1f}  p99 {percentile(values, 99):.1f}  max {max(values):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
