/// The page `tiltboard serve` shows at `/`: one HTML file with its CSS and JavaScript inline,
/// compiled into the binary (no resource bundle to install, no CDN, works with no internet).
///
/// Stable element ids for tests and scripts: `area`, `marker`, `status` (text `live` or
/// `reconnecting`), `roll`, `pitch`, `calibrate`, `zero`, `test-motor`; the marker's `data-t` is
/// the loop time (`t`, seconds) of the frame it shows.
///
/// The page reads `GET /api/state` once, then follows `GET /api/stream` (a WebSocket of state
/// frames and events), drawing only the newest frame on each animation frame. A token in the
/// page's own address (`?token=`) is passed on to every API call and to the stream.
public enum WebPage {
    public static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="color-scheme" content="light dark">
<title>Tiltboard</title>
<style>
:root {
  --bg: #f4f5f7; --card: #fff; --ink: #1c2129; --muted: #5f6b7a; --line: #d5dae1;
  --accent: #1f6feb; --ok: #1a7f37; --warn: #b35900; --bad: #cf222e; --flash: #ffd33d;
  --area: #eef2f7; --grid: #d9e0ea;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --card: #161b22; --ink: #e6edf3; --muted: #8d96a0; --line: #30363d;
          --accent: #4493f8; --ok: #3fb950; --warn: #d29922; --bad: #f85149; --area: #10161e; --grid: #222b36; }
}
* { box-sizing: border-box; }
html, body { margin: 0; background: var(--bg); color: var(--ink);
  font: 15px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
  -webkit-text-size-adjust: 100%; }
header { display: flex; align-items: center; gap: .6rem; padding: .6rem max(.8rem, env(safe-area-inset-left));
  background: var(--card); border-bottom: 1px solid var(--line); position: sticky; top: 0; z-index: 2; }
header h1 { font-size: 1.05rem; margin: 0; font-weight: 650; }
header .board { color: var(--muted); font-size: .85rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; flex: 1; }
#status { font-size: .8rem; font-weight: 600; padding: .15rem .6rem; border-radius: 1rem; color: #fff; background: var(--bad); }
#status.live { background: var(--ok); }
main { display: grid; gap: .8rem; padding: .8rem; max-width: 1100px; margin: 0 auto;
  grid-template-columns: 1fr; }
@media (min-width: 760px) and (orientation: landscape), (min-width: 980px) {
  main { grid-template-columns: minmax(0, 1.15fr) minmax(300px, 1fr); align-items: start; }
  #area-card { position: sticky; top: 3.4rem; }
}
.card { background: var(--card); border: 1px solid var(--line); border-radius: .7rem; padding: .8rem; }
.card h2 { font-size: .8rem; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); margin: 0 0 .5rem; }
#area { position: relative; width: 100%; max-width: min(100%, 72vh); margin: 0 auto; aspect-ratio: 1 / 1;
  background: var(--area); border: 2px solid var(--line); border-radius: .5rem; overflow: hidden;
  touch-action: manipulation; transition: border-color .25s, box-shadow .25s; }
#area::before, #area::after { content: ""; position: absolute; background: var(--grid); }
#area::before { left: 50%; top: 0; bottom: 0; width: 1px; }
#area::after { top: 50%; left: 0; right: 0; height: 1px; }
#area .ring { position: absolute; left: 50%; top: 50%; width: 12%; aspect-ratio: 1 / 1; transform: translate(-50%, -50%);
  border: 1px dashed var(--muted); border-radius: 50%; opacity: .6; }
#area .edge { position: absolute; font-size: .7rem; color: var(--muted); }
#area .edge.up { top: .3rem; left: 50%; transform: translateX(-50%); }
#area .edge.right { right: .4rem; top: 50%; transform: translateY(-50%); }
#area.flash { border-color: var(--flash); box-shadow: 0 0 0 6px var(--flash) inset; }
#area.stale #marker { opacity: .35; }
#marker { position: absolute; left: 50%; top: 50%; width: 9%; aspect-ratio: 1 / 1; border-radius: 50%;
  transform: translate(-50%, -50%); background: var(--accent); box-shadow: 0 2px 6px rgba(0,0,0,.35);
  will-change: left, top; }
.readouts { display: grid; grid-template-columns: repeat(4, 1fr); gap: .4rem; margin-top: .7rem; text-align: center; }
.readouts div { background: var(--bg); border-radius: .4rem; padding: .3rem 0; }
.readouts .v { font-variant-numeric: tabular-nums; font-size: 1.15rem; font-weight: 600; }
.readouts .k { font-size: .72rem; color: var(--muted); }
.switch { display: flex; gap: 0; margin-top: .7rem; border: 1px solid var(--line); border-radius: .5rem; overflow: hidden; }
.switch label { flex: 1; text-align: center; padding: .45rem .2rem; cursor: pointer; font-size: .88rem; }
.switch input { position: absolute; opacity: 0; pointer-events: none; }
.switch input:checked + span { font-weight: 650; }
.switch label:has(input:checked) { background: var(--accent); color: #fff; }
.buttons { display: grid; grid-template-columns: 2fr 1fr; gap: .5rem; }
button, select { font: inherit; min-height: 2.75rem; border-radius: .5rem; border: 1px solid var(--line);
  background: var(--bg); color: var(--ink); padding: 0 .8rem; }
button { font-weight: 600; cursor: pointer; touch-action: manipulation; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button:disabled { opacity: .5; cursor: default; }
.motor-row { display: flex; gap: .5rem; grid-column: 1 / -1; }
.motor-row select { flex: 1; min-width: 0; }
#calibration { margin-top: .6rem; }
#calibration-progress { width: 100%; height: .7rem; accent-color: var(--accent); }
#calibration-message { min-height: 1.3em; font-size: .88rem; color: var(--muted); margin-top: .2rem; }
#calibration-message.bad, #message.bad { color: var(--bad); }
#calibration-message.ok, #message.ok { color: var(--ok); }
#message { min-height: 1.3em; font-size: .88rem; margin-top: .4rem; color: var(--muted); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem .8rem; margin: 0; font-size: .9rem; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; font-variant-numeric: tabular-nums; }
#motor.on { color: var(--warn); font-weight: 700; }
#motor-log { list-style: none; margin: .4rem 0 0; padding: 0; font: .8rem/1.35 ui-monospace, "SFMono-Regular", Menlo, monospace;
  max-height: 7.5rem; overflow-y: auto; color: var(--muted); }
</style>
</head>
<body>
<header>
  <h1>Tiltboard</h1>
  <span class="board" id="board-title"></span>
  <span id="status" role="status" aria-live="polite">reconnecting</span>
</header>
<main>
  <section class="card" id="area-card">
    <div id="area" aria-label="tilt area: the marker moves as the board tilts">
      <div class="ring"></div>
      <span class="edge up">forward</span><span class="edge right">right</span>
      <div id="marker"></div>
    </div>
    <div class="readouts">
      <div><div class="v" id="roll">–</div><div class="k">roll °</div></div>
      <div><div class="v" id="pitch">–</div><div class="k">pitch °</div></div>
      <div><div class="v" id="x">–</div><div class="k">x</div></div>
      <div><div class="v" id="y">–</div><div class="k">y</div></div>
    </div>
    <div class="switch" role="radiogroup" aria-label="tilt shown">
      <label><input type="radio" name="tilt-mode" id="mode-calibrated" value="calibrated" checked><span>Calibrated tilt</span></label>
      <label><input type="radio" name="tilt-mode" id="mode-raw" value="raw"><span>Raw tilt</span></label>
    </div>
  </section>
  <div style="display:grid; gap:.8rem">
    <section class="card">
      <h2>Calibration</h2>
      <div class="buttons">
        <button class="primary" id="calibrate" type="button">Calibrate</button>
        <button id="zero" type="button">Zero</button>
        <div class="motor-row">
          <select id="effect" aria-label="motor effect"></select>
          <button id="test-motor" type="button">Test motor</button>
        </div>
      </div>
      <div id="calibration" hidden>
        <progress id="calibration-progress" max="1" value="0"></progress>
        <div id="calibration-message"></div>
      </div>
      <div id="message"></div>
    </section>
    <section class="card">
      <h2>Board</h2>
      <dl>
        <dt>board</dt><dd id="board">–</dd>
        <dt>chip</dt><dd id="chip">–</dd>
        <dt>profile</dt><dd id="profile">–</dd>
        <dt>loop</dt><dd id="loop">–</dd>
        <dt>shakes</dt><dd id="shakes">0</dd>
        <dt>motor</dt><dd id="motor">off</dd>
      </dl>
      <ul id="motor-log" aria-label="motor log"></ul>
    </section>
  </div>
</main>
<script>
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  const token = params.get("token");
  const presets = ["tick", "click", "double-click", "buzz", "alarm"];
  const view = { frame: null, dirty: false, mode: "calibrated", shakes: 0, motorOn: false,
                 calibrating: false, flashUntil: 0, lastMessageAt: 0 };
  let socket = null, retryMs = 500, watchdog = 0;

  const fixed = (v, d) => (typeof v === "number" && isFinite(v)) ? v.toFixed(d) : "–";
  const setText = (id, text) => { const e = $(id); if (e.textContent !== text) e.textContent = text; };
  const clamp = (v) => Math.max(-1, Math.min(1, typeof v === "number" && isFinite(v) ? v : 0));

  function apiURL(path) {
    return token ? path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token) : path;
  }
  async function api(method, path, body) {
    const headers = { "Accept": "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers["Authorization"] = "Bearer " + token;
    const response = await fetch(path, { method, headers, credentials: "same-origin",
                                         body: body === undefined ? undefined : JSON.stringify(body) });
    let data = null;
    try { data = await response.json(); } catch (_) { data = null; }
    if (!response.ok) throw new Error((data && data.error) || (response.status + " " + response.statusText));
    return data;
  }

  function say(text, kind) {
    const e = $("message");
    e.textContent = text || "";
    e.className = kind || "";
  }

  // ---- connection ----
  function setStatus(live) {
    const s = $("status");
    s.textContent = live ? "live" : "reconnecting";
    s.classList.toggle("live", live);
    $("area").classList.toggle("stale", !live);
  }
  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    let ws;
    try { ws = new WebSocket(scheme + location.host + apiURL("/api/stream")); }
    catch (_) { return retry(); }
    socket = ws;
    ws.onmessage = (event) => {
      if (ws !== socket) return;
      if (retryMs !== 500) retryMs = 500;
      setStatus(true);
      armWatchdog();
      let message;
      try { message = JSON.parse(event.data); } catch (_) { return; }
      handle(message);
    };
    ws.onclose = () => { if (ws === socket) { socket = null; setStatus(false); retry(); } };
    ws.onerror = () => { try { ws.close(); } catch (_) {} };
  }
  function retry() {
    clearTimeout(watchdog);
    setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, 4000);
  }
  // A connection that stops delivering (a half-open TCP link after Wi-Fi drops) is given up.
  function armWatchdog() {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => { if (socket) { const s = socket; socket = null; setStatus(false); try { s.close(); } catch (_) {} retry(); } }, 5000);
  }

  // ---- messages ----
  function handle(m) {
    switch (m.type) {
      case "state": view.frame = m; view.dirty = true; absorbState(m); break;
      case "snapshot": absorbSnapshot(m); break;
      case "shake": flash(); view.shakes += 1; setText("shakes", String(m.count ?? view.shakes)); break;
      case "motor": motorEvent(m); break;
      case "calibration": calibrationEvent(m); break;
      case "sensor-lost": say("sensor lost: " + (m.message || m.error || "no samples") + "; retrying", "bad"); break;
      case "sensor-back": say("sensor back" + (m.downSeconds ? " after " + fixed(m.downSeconds, 1) + " s" : ""), "ok"); break;
      default: if (m.board || m.profile) absorbSnapshot(m);
    }
  }
  function absorbState(m) {
    if (m.board || m.profile || m.loop) absorbSnapshot(m);
    const on = !!(m.motor && typeof m.motor === "object" ? m.motor.on : m.haptic);
    if (on !== view.motorOn) { view.motorOn = on; showMotor(); }
  }
  function absorbSnapshot(s) {
    if (s.board) showBoard(s.board);
    if ("profile" in s) showProfile(s.profile);
    if (s.loop) showLoop(s.loop);
    if (s.motor && typeof s.motor === "object") {
      if (Array.isArray(s.motor.effects) && s.motor.effects.length) fillEffects(s.motor.effects);
      if ("on" in s.motor) { view.motorOn = !!s.motor.on; showMotor(); }
    }
    if (typeof s.shakes === "number") { view.shakes = s.shakes; setText("shakes", String(s.shakes)); }
    if (s.calibration && s.calibration.running) calibrationEvent(s.calibration);
    if (s.tilt && s.control) { view.frame = s; view.dirty = true; }
  }
  function showBoard(b) {
    const name = b.name || "–";
    setText("board", name);
    setText("board-title", name);
    let chip = b.chipName || b.part || b.chip || "–";
    if (b.clone && !/clone/i.test(chip)) chip += " (clone)";
    if (typeof b.chipID === "number") chip += " · ID 0x" + b.chipID.toString(16).padStart(2, "0");
    else if (typeof b.chipID === "string") chip += " · ID " + b.chipID;
    if (b.simulated) chip += " · simulated";
    setText("chip", chip);
  }
  function showProfile(p) {
    if (!p) { setText("profile", "none yet: level until you calibrate"); return; }
    const parts = [];
    const n = p.neutral || {};
    if (n.tiltDeg !== undefined) {
      parts.push(n.tiltDeg === 0 && !n.pitchDeg && !n.rollDeg ? "level"
        : "neutral " + fixed(n.tiltDeg, 1) + "° (pitch " + fixed(n.pitchDeg, 1) + "°, roll " + fixed(n.rollDeg, 1) + "°)");
    }
    if (p.createdAt) parts.push("calibrated " + new Date(p.createdAt).toLocaleString());
    if (p.path) parts.push(p.path);
    setText("profile", parts.join(" · ") || "–");
  }
  function showLoop(l) {
    const parts = [];
    if (l.rateHz !== undefined) parts.push(fixed(l.rateHz, 0) + " Hz");
    if (l.missedTicks !== undefined) parts.push(l.missedTicks + " missed");
    if (l.latenessP99Ms !== undefined) parts.push("p99 late " + fixed(l.latenessP99Ms, 2) + " ms");
    if (l.droppedFrames) parts.push(l.droppedFrames + " frames dropped");
    setText("loop", parts.join(" · ") || "–");
  }
  function showMotor() {
    const e = $("motor");
    e.textContent = view.motorOn ? "on" : "off";
    e.classList.toggle("on", view.motorOn);
  }
  function motorEvent(m) {
    if ("on" in m) { view.motorOn = !!m.on; showMotor(); }
    const li = document.createElement("li");
    const when = typeof m.t === "number" ? fixed(m.t, 2) + " s " : "";
    const what = m.on === undefined ? (m.state || "") : (m.on ? "on" : "off");
    li.textContent = when + what + (m.effect ? " " + m.effect : "") + (m.reason ? " (" + m.reason + ")" : "") + (m.message ? ": " + m.message : "");
    const log = $("motor-log");
    log.prepend(li);
    while (log.children.length > 20) log.lastChild.remove();
  }
  function fillEffects(names) {
    const select = $("effect");
    const chosen = select.value || "buzz";
    select.replaceChildren(...names.map((n) => { const o = document.createElement("option"); o.value = o.textContent = n; return o; }));
    select.value = names.includes(chosen) ? chosen : names[0];
  }
  function flash() {
    view.flashUntil = performance.now() + 300;
    $("area").classList.add("flash");
  }

  // ---- calibration ----
  function calibrationEvent(m) {
    const box = $("calibration"), bar = $("calibration-progress"), text = $("calibration-message");
    const phase = m.phase || m.state || m.result || (typeof m.progress === "number" ? "progress" : "");
    box.hidden = false;
    text.className = "";
    switch (phase) {
      case "started":
      case "progress":
      case "running":
        view.calibrating = true;
        bar.value = typeof m.progress === "number" ? m.progress : 0;
        if (phase !== "progress" || !text.textContent) text.textContent = "hold the board still…";
        if (phase === "progress" && m.progress > 0) text.textContent = "hold still… " + Math.floor(m.progress * 100) + " %";
        break;
      case "restarted":
        view.calibrating = true;
        bar.value = 0;
        text.textContent = "moved — starting again";
        if (m.message) text.title = m.message;
        break;
      case "saved":
      case "done":
      case "ok":
        view.calibrating = false;
        bar.value = 1;
        text.className = "ok";
        text.textContent = m.message || "neutral pose saved";
        if (m.profile) showProfile(m.profile);
        break;
      default:
        view.calibrating = false;
        text.className = "bad";
        text.textContent = m.message || m.error || "calibration failed";
    }
    $("calibrate").disabled = view.calibrating;
  }

  // ---- drawing: only the newest frame, once per display refresh ----
  function draw(now) {
    if (view.flashUntil && now >= view.flashUntil) { view.flashUntil = 0; $("area").classList.remove("flash"); }
    const f = view.frame;
    if (f && view.dirty) {
      view.dirty = false;
      const marker = $("marker"), m = marker.style;
      marker.dataset.t = f.t;
      m.left = ((clamp(f.control.x) + 1) * 50).toFixed(2) + "%";
      m.top = ((1 - clamp(f.control.y)) * 50).toFixed(2) + "%";
      const tilt = view.mode === "raw" && f.rawTilt ? f.rawTilt : f.tilt;
      setText("roll", fixed(tilt.rollDeg, 1));
      setText("pitch", fixed(tilt.pitchDeg, 1));
      setText("x", fixed(f.control.x, 2));
      setText("y", fixed(f.control.y, 2));
      if (f.shake && !view.flashUntil && !view.sawShake) flash();
      view.sawShake = !!f.shake;
      if (f.loop) showLoop(f.loop);
    }
    requestAnimationFrame(draw);
  }

  // ---- buttons ----
  function busy(button, promise) {
    button.disabled = true;
    return promise.finally(() => { button.disabled = button.id === "calibrate" && view.calibrating; });
  }
  $("calibrate").addEventListener("click", () => {
    say("");
    calibrationEvent({ phase: "started", progress: 0 });
    busy($("calibrate"), api("POST", "/api/calibrate").catch((e) => calibrationEvent({ phase: "failed", message: e.message })));
  });
  $("zero").addEventListener("click", () => {
    busy($("zero"), api("POST", "/api/zero")
      .then((r) => { say((r && r.message) || "neutral pose reset to level", "ok"); if (r && "profile" in r) showProfile(r.profile); })
      .catch((e) => say(e.message, "bad")));
  });
  $("test-motor").addEventListener("click", () => {
    const effect = $("effect").value;
    busy($("test-motor"), api("POST", "/api/haptics", { effect })
      .then((r) => say((r && r.message) || "playing " + effect, "ok"))
      .catch((e) => say(e.message, "bad")));
  });
  for (const input of document.querySelectorAll("input[name=tilt-mode]")) {
    input.addEventListener("change", () => { view.mode = input.value; view.dirty = true; });
  }

  fillEffects(presets);
  api("GET", "/api/state").then(absorbSnapshot).catch(() => {});
  connect();
  requestAnimationFrame(draw);
})();
</script>
</body>
</html>
"""#
}
