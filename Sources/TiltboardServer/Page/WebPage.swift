/// The page `tiltboard serve` shows at `/`: one HTML file with its CSS and JavaScript inline,
/// compiled into the binary (no resource bundle to install, no CDN, works with no internet).
///
/// Stable element ids for tests and scripts: `area`, `marker`, `status` (text `live` or
/// `reconnecting`), `roll`, `pitch`, `calibrate`, `zero`, `test-motor` (disabled on a board
/// without a motor, with `motor-note` saying why), `chart`, `shake-level`;
/// the marker's `data-t` is the loop time (`t`, seconds) of the frame it shows. The chart (a canvas:
/// the last 10 s of roll and pitch, the linear acceleration the shake detector compares with its
/// threshold, shakes and motor on-spans shaded; a tap pauses and resumes it) sets `data-points`
/// (frames it holds), `data-last-linear` (the newest `linearPeakG`), `data-max-linear` (the
/// largest in view), `data-threshold` (the newest `thresholdG`) and `data-paused`.
///
/// The page follows `GET /api/stream` (a WebSocket: a snapshot, then state frames and events),
/// drawing only the newest frame at each animation frame, and reconnects whenever the stream
/// ends or goes quiet. A token in the page's own address (`?token=`) is passed on to every API
/// call and to the stream, and taken out of the address bar (the server keeps it in a cookie).
///
/// With several boards (`GET /api/boards` lists more than one) the page is one player's: the
/// `player` selector ("I am player N", kept in localStorage under `tiltboard-player`) picks whose
/// readouts, chart, Calibrate, Zero, Test motor and sensitivity it shows (`/api/boards/N/…`); every
/// player's marker is on the area, each in its colour with its number, `data-player` set (the
/// chosen one is `marker`, the others `marker-N`, each with its `data-t`), `players-legend`
/// names them, and each other player's chart is `chart-N` (with the chart's `data-` fields). With
/// one board none of this shows.
package enum WebPage {
    package static let html = #"""
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
/* The marker's centre travels over the field, inset by its radius, so at an edge it stays whole. */
#field { position: absolute; inset: 4.5%; }
#marker, .peer { position: absolute; left: 50%; top: 50%; width: 9.9%; aspect-ratio: 1 / 1; border-radius: 50%;
  transform: translate(-50%, -50%); background: var(--accent); box-shadow: 0 2px 6px rgba(0,0,0,.35);
  will-change: left, top; display: flex; align-items: center; justify-content: center;
  color: #fff; font-size: .75rem; font-weight: 700; }
.peer { opacity: .8; }
#area.stale .peer { opacity: .35; }
#player { min-height: 34px; font-size: .85rem; padding: 0 .4rem; max-width: 45vw; }
#players-legend { justify-content: center; font-size: .8rem; }
#players-legend[hidden] { display: none; }
.readouts { display: grid; grid-template-columns: repeat(4, 1fr); gap: .4rem; margin-top: .7rem; text-align: center; }
.readouts div { background: var(--bg); border-radius: .4rem; padding: .3rem 0; }
.readouts .v { font-variant-numeric: tabular-nums; font-size: 1.15rem; font-weight: 600; }
.readouts .k { font-size: .72rem; color: var(--muted); }
#marker.held { opacity: .45; }
#trust { min-height: 1.2em; font-size: .8rem; color: var(--muted); text-align: center; }
.switch { display: flex; gap: 0; margin-top: .7rem; border: 1px solid var(--line); border-radius: .5rem; overflow: hidden; }
.switch label { flex: 1; text-align: center; padding: .45rem .2rem; cursor: pointer; font-size: .88rem; }
.switch input { position: absolute; opacity: 0; pointer-events: none; }
.switch input:checked + span { font-weight: 650; }
.switch label:has(input:checked) { background: var(--accent); color: #fff; }
.buttons { display: grid; grid-template-columns: 2fr 1fr; gap: .5rem; }
button, select { font: inherit; min-height: 44px; border-radius: .5rem; border: 1px solid var(--line);
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
#motor-note { grid-column: 1 / -1; font-size: .85rem; color: var(--muted); }
select:disabled { opacity: .5; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem .8rem; margin: 0; font-size: .9rem; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; font-variant-numeric: tabular-nums; }
#motor.on { color: var(--warn); font-weight: 700; }
#peer-charts { display: grid; gap: .8rem; }
#peer-charts:empty { display: none; }
#chart, .peer-chart { display: block; width: 100%; height: 180px; cursor: pointer; touch-action: manipulation;
  background: var(--area); border-radius: .4rem; }
@media (min-width: 760px) { #chart { height: 220px; } }
.peer-chart { height: 140px; }
.legend { display: flex; flex-wrap: wrap; gap: .2rem .8rem; font-size: .75rem; color: var(--muted); margin-top: .35rem; }
.legend i { display: inline-block; width: .9rem; height: .55rem; border-radius: .15rem; margin-right: .25rem; vertical-align: middle; }
.sens { display: flex; align-items: center; gap: .5rem; margin-top: .6rem; font-size: .88rem; }
.sens select { flex: 1; min-width: 0; }
#motor-log { list-style: none; margin: .4rem 0 0; padding: 0; font: .8rem/1.35 ui-monospace, "SFMono-Regular", Menlo, monospace;
  max-height: 7.5rem; overflow-y: auto; color: var(--muted); }
</style>
</head>
<body>
<header>
  <h1>Tiltboard</h1>
  <span class="board" id="board-title"></span>
  <select id="player" aria-label="which player you are" hidden></select>
  <span id="status" role="status" aria-live="polite">reconnecting</span>
</header>
<main>
  <section class="card" id="area-card">
    <div id="area" aria-label="tilt area: the marker moves as the board tilts">
      <div class="ring"></div>
      <span class="edge up">forward</span><span class="edge right">right</span>
      <div id="field"><div id="marker"></div></div>
    </div>
    <div class="readouts">
      <div><div class="v" id="roll">–</div><div class="k">roll °</div></div>
      <div><div class="v" id="pitch">–</div><div class="k">pitch °</div></div>
      <div><div class="v" id="x">–</div><div class="k">x</div></div>
      <div><div class="v" id="y">–</div><div class="k">y</div></div>
    </div>
    <div id="trust" aria-live="polite"></div>
    <div class="legend" id="players-legend" hidden></div>
    <div class="switch" role="radiogroup" aria-label="tilt shown">
      <label><input type="radio" name="tilt-mode" id="mode-calibrated" value="calibrated" checked><span>Calibrated tilt</span></label>
      <label><input type="radio" name="tilt-mode" id="mode-raw" value="raw"><span>Raw tilt</span></label>
    </div>
  </section>
  <div style="display:grid; gap:.8rem">
    <section class="card" id="chart-card">
      <h2>Motion · last 10 s <span id="chart-player"></span> <span id="chart-state"></span></h2>
      <canvas id="chart" aria-label="chart of the last 10 seconds of motion; tap to pause or resume" data-points="0" data-paused="false"></canvas>
      <div class="legend">
        <span><i style="background:#1f6feb"></i>roll °</span><span><i style="background:#8250df"></i>pitch °</span>
        <span><i style="background:#1a7f37"></i>linear g</span><span><i style="background:#cf222e"></i>shake threshold</span>
        <span><i style="background:rgba(255,211,61,.6)"></i>shake</span><span><i style="background:rgba(179,89,0,.55)"></i>motor on</span>
      </div>
    </section>
    <div id="peer-charts"></div>
    <section class="card">
      <h2>Calibration</h2>
      <div class="buttons">
        <button class="primary" id="calibrate" type="button">Calibrate</button>
        <button id="zero" type="button">Zero</button>
        <div class="motor-row">
          <select id="effect" aria-label="motor effect"></select>
          <button id="test-motor" type="button">Test motor</button>
        </div>
        <div id="motor-note" hidden></div>
      </div>
      <div id="calibration" hidden>
        <progress id="calibration-progress" max="1" value="0"></progress>
        <div id="calibration-message"></div>
      </div>
      <div class="sens">
        <label for="shake-level">Shake</label>
        <select id="shake-level" aria-label="shake sensitivity">
          <option value="gentle">gentle (0.6 g)</option>
          <option value="normal">normal (0.8 g)</option>
          <option value="firm">firm (1.2 g)</option>
        </select>
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
  // The server keeps the printed URL's token in a cookie: take it out of the address bar (and so
  // out of bookmarks and screenshots); a reload still works.
  const token = new URLSearchParams(location.search).get("token");
  if (token) history.replaceState(null, "", location.pathname);
  const view = { frame: null, dirty: false, mode: "calibrated", motorOn: false, hasMotor: true, calibrating: false,
                 flashUntil: 0, rateFrom: null, rate: null, effectAsked: null, capture: null,
                 history: [], chartPaused: false, chartDirty: false };
  const chartSeconds = 10;
  const stoppedNote = "tiltboard serve stopped; waiting for it to come back";
  let socket = null, retryMs = 500, watchdog = 0, retryTimer = 0;
  // Several boards: the player this page is (its routes under `base`), the others' markers.
  const playerKey = "tiltboard-player";
  const playerColors = ["#1f6feb", "#cf222e", "#1a7f37", "#8250df", "#b35900", "#0a7ea4", "#bf3989", "#57606a"];
  let players = [], me = 1, base = "/api", playersKnown = false;
  const peers = new Map();
  try {
    const stored = Number(localStorage.getItem(playerKey));
    if (Number.isInteger(stored) && stored > 1) { me = stored; base = "/api/boards/" + stored; }
  } catch (_) {}

  // Rounded to `d` places, never "-0.0".
  const fixed = (v, d) => (typeof v === "number" && isFinite(v)) ? (v.toFixed(d).replace(/^-(0\.?0*)$/, "$1")) : "–";
  const setText = (id, text) => { const e = $(id); if (e.textContent !== text) e.textContent = text; };
  const clamp = (v) => Math.max(-1, Math.min(1, typeof v === "number" && isFinite(v) ? v : 0));

  async function api(method, path, body) {
    const headers = { "Accept": "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers["Authorization"] = "Bearer " + token;
    let response;
    try {
      response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (_) {
      const error = new Error("no connection to tiltboard serve");
      error.offline = true;
      throw error;
    }
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

  // ---- connection: `live` while frames arrive, else `reconnecting` and retrying ----
  function setStatus(live) {
    const s = $("status");
    s.textContent = live ? "live" : "reconnecting";
    s.classList.toggle("live", live);
    $("area").classList.toggle("stale", !live);
  }
  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const ws = new WebSocket(scheme + location.host + base + "/stream" + (token ? "?token=" + encodeURIComponent(token) : ""));
    socket = ws;
    ws.onmessage = (event) => {
      if (ws !== socket) return;
      retryMs = 500;
      setStatus(true);
      armWatchdog();
      let message;
      try { message = JSON.parse(event.data); } catch (_) { return; }
      handle(message);
    };
    ws.onclose = () => { if (ws === socket) lost(); };
  }
  function lost() {
    const ws = socket;
    socket = null;
    setStatus(false);
    try { ws.close(); } catch (_) {}
    clearTimeout(watchdog);
    retryTimer = setTimeout(connect, retryMs);
    // Still failing after a few tries: ask the API why (a wrong token, a refused Host) and say so.
    if (retryMs >= 2000) api("GET", base + "/state").catch((e) => { if (!e.offline) say(e.message, "bad"); });
    retryMs = Math.min(retryMs * 2, 4000);
  }
  // A stream that goes quiet (a half-open link after the Wi-Fi dropped) is given up and reopened.
  function armWatchdog() {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => { if (socket) lost(); }, 5000);
  }

  // ---- what the stream says ----
  function handle(m) {
    switch (m.type) {
      case "state": takeFrame(m); break;
      case "snapshot": takeSnapshot(m); break;
      case "shake": flash(); setText("shakes", String(m.shakes)); break;
      case "motor": motorEvent(m); break;
      case "calibration": calibrationEvent(m); break;
      case "sensor-lost": say("sensor lost at " + fixed(m.t, 2) + " s: " + m.reason + "; retrying", "bad"); break;
      case "sensor-back": say("sensor back at " + fixed(m.t, 2) + " s" + (m.reconfigured ? " (reconfigured)" : ""), "ok"); break;
      case "stopping": say(stoppedNote, "bad"); break;
    }
  }
  function takeFrame(f) {
    view.frame = f;
    view.dirty = true;
    if (f.haptic !== view.motorOn) { view.motorOn = f.haptic; showMotor(); }
    remember(f);
    setText("shakes", String(f.shakes));
    showLoop(f);
  }
  function takeSnapshot(s) {
    // A snapshot opens every connection: the server is back.
    if ($("message").textContent === stoppedNote) say("");
    if (s.t !== null) takeFrame(s);
    // The list of boards did not arrive at the start (the server was away): ask again.
    if (!playersKnown) loadPlayers();
    showBoard(s.board);
    showProfile(s.profile);
    if (Array.isArray(s.effects) && s.effects.length) fillEffects(s.effects);
    if (s.sensitivity) showShake(s.sensitivity);
    if (s.calibration.running) calibrationEvent({ state: "running", progress: s.calibration.progress });
  }
  function showBoard(b) {
    setText("board", b.name);
    setText("board-title", (players.length > 1 ? "Player " + me + " · " : "") + b.name);
    setText("chip", b.chip + (b.simulated ? " · simulated" : "") + (b.motor ? "" : " · no motor"));
    // Without a motor, Test motor is shown unavailable, with the server's reason.
    view.hasMotor = b.motor !== false;
    const reason = view.hasMotor ? "" : (b.motorUnavailable || "the board has no motor");
    for (const id of ["test-motor", "effect"]) { $(id).disabled = !view.hasMotor; $(id).title = reason; }
    $("motor-note").hidden = view.hasMotor;
    setText("motor-note", reason ? "Test motor unavailable: " + reason : "");
    showMotor();
  }
  // When the profile was made and at what pose: the summary comes with the snapshot, the pose's
  // pitch and roll from the stored profile itself.
  function showProfile(p) {
    if (p.problem) { setText("profile", p.problem); return; }
    if (!p.calibrated) { setText("profile", "not calibrated yet (level) · " + p.path); return; }
    const when = "calibrated " + new Date(p.createdAt).toLocaleString();
    setText("profile", (p.neutralTiltDeg === 0 ? "level (zeroed " + new Date(p.createdAt).toLocaleString() + ")"
                        : "neutral " + fixed(p.neutralTiltDeg, 1) + "° from level · " + when) + " · " + p.path);
    if (p.neutralTiltDeg === 0) return;
    api("GET", base + "/profile").then((r) => {
      const n = r.profile && r.profile.neutral;
      if (!n || n.tiltDeg === 0) return;
      // The TiltAngles convention: pitch = atan2(−g.y, g.z), roll = atan2(−g.x, √(g.y² + g.z²)).
      const [gx, gy, gz] = n.meanRawG, deg = 180 / Math.PI;
      setText("profile", "neutral " + fixed(n.tiltDeg, 1) + "° from level (pitch " + fixed(Math.atan2(-gy, gz) * deg, 1)
              + "°, roll " + fixed(Math.atan2(-gx, Math.hypot(gy, gz)) * deg, 1) + "°" + (n.clamped ? ", clamped" : "")
              + ") · " + when + " · " + r.path);
    }).catch(() => {});
  }
  // The loop's rate over the last second or more of its own time, and the ticks it missed.
  function showLoop(f) {
    const from = view.rateFrom;
    if (!from || f.loop.samples < from.samples || f.t < from.t) { view.rateFrom = { t: f.t, samples: f.loop.samples }; }
    else if (f.t - from.t >= 1) {
      view.rate = (f.loop.samples - from.samples) / (f.t - from.t);
      view.rateFrom = { t: f.t, samples: f.loop.samples };
    }
    setText("loop", (view.rate ? fixed(view.rate, 0) + " samples/s · " : "") + f.loop.missedTicks + " missed ticks");
  }
  function showMotor() {
    const e = $("motor");
    e.textContent = !view.hasMotor ? "none" : view.motorOn ? "on" : "off";
    e.classList.toggle("on", view.motorOn);
  }
  function log(text) {
    const li = document.createElement("li");
    li.textContent = text;
    const list = $("motor-log");
    list.prepend(li);
    while (list.children.length > 20) list.lastChild.remove();
  }
  function motorEvent(m) {
    view.motorOn = m.on;
    showMotor();
    const asked = m.on && view.effectAsked ? " (" + view.effectAsked + ")" : "";
    if (m.on) view.effectAsked = null;
    log(fixed(m.t, 2) + " s  motor " + (m.on ? "on" : "off") + asked);
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

  // ---- calibration: the same capture as `tiltboard calibrate`, progress on the stream ----
  function calibrationEvent(m) {
    const bar = $("calibration-progress"), text = $("calibration-message");
    $("calibration").hidden = false;
    text.className = "";
    text.title = m.message || "";
    view.calibrating = m.state === "running" || m.state === "restarted";
    bar.value = m.progress || 0;
    switch (m.state) {
      case "running":
      case "restarted":
        // After a restart the note stays up until the capture ends, so a person sees why it began again.
        text.textContent = (m.restarts ? "moved — starting again" + (m.restarts > 1 ? " (" + m.restarts + "×)" : "") + " · " : "")
          + "hold the board still… " + Math.floor((m.progress || 0) * 100) + " %"
          + (view.capture ? " (" + view.capture.durationSeconds + " s; gives up after " + view.capture.timeoutSeconds + " s)" : "");
        break;
      case "done":
        text.className = "ok";
        text.textContent = "neutral pose saved: " + fixed(m.tiltDeg, 1) + "° from level" + (m.message ? " (" + m.message + ")" : "");
        break;
      default:
        text.className = "bad";
        text.textContent = m.message;
    }
    $("calibrate").disabled = view.calibrating;
  }

  // ---- the chart: the last 10 s of frames, drawn on a canvas ----
  function remember(f, h = view.history) {
    // The loop started again (a new serve): old points would sit in the future.
    if (h.length && f.t < h[h.length - 1].t) h.length = 0;
    h.push({ t: f.t, roll: f.tilt.rollDeg, pitch: f.tilt.pitchDeg,
             lin: typeof f.linearPeakG === "number" ? f.linearPeakG : (f.linearG || 0),
             thr: f.thresholdG, shake: f.shake, motor: f.haptic });
    let drop = 0;
    while (drop < h.length && h[drop].t < f.t - chartSeconds) drop++;
    if (drop) h.splice(0, drop);
    if (h === view.history && !view.chartPaused) view.chartDirty = true;
  }
  // `canvas` drawn from the frames `h`; the other players' charts (several boards) never pause.
  function drawChart(canvas = $("chart"), h = view.history, paused = view.chartPaused) {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(canvas.clientWidth * dpr)), ht = Math.max(1, Math.round(canvas.clientHeight * dpr));
    if (canvas.width !== w || canvas.height !== ht) { canvas.width = w; canvas.height = ht; }
    const g = canvas.getContext("2d");
    const css = getComputedStyle(document.documentElement);
    const color = (name) => css.getPropertyValue(name).trim();
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    const W = w / dpr, H = ht / dpr, left = 34, right = 8, top = 6, gap = 16, bottom = 16;
    const plotW = W - left - right, half = (H - top - gap - bottom) / 2;
    g.clearRect(0, 0, W, H);
    g.font = "10px system-ui, sans-serif";
    g.textBaseline = "middle";
    const end = h.length ? h[h.length - 1].t : 0, start = end - chartSeconds;
    const x = (t) => left + (t - start) / chartSeconds * plotW;
    // Shake and motor spans over both panels.
    const spans = (key, fill, y0, y1) => {
      g.fillStyle = fill;
      for (let i = 0; i < h.length; i++) {
        if (!h[i][key]) continue;
        const x0 = x(h[i].t), x1 = i + 1 < h.length ? x(h[i + 1].t) : x(h[i].t) + 2;
        g.fillRect(x0, y0, Math.max(1, x1 - x0), y1 - y0);
      }
    };
    spans("shake", "rgba(255,211,61,.45)", top, H - bottom);
    spans("motor", "rgba(179,89,0,.45)", top + half + gap + half - 8, top + half + gap + half);
    // Panel frames, zero lines and labels.
    g.strokeStyle = color("--grid"); g.lineWidth = 1;
    g.strokeRect(left, top, plotW, half);
    g.strokeRect(left, top + half + gap, plotW, half);
    let span = 30;
    for (const p of h) span = Math.max(span, Math.abs(p.roll || 0), Math.abs(p.pitch || 0));
    span = Math.min(180, Math.ceil(span / 15) * 15);
    const yTilt = (d) => top + half / 2 - (d / span) * (half / 2);
    g.beginPath(); g.moveTo(left, yTilt(0)); g.lineTo(left + plotW, yTilt(0)); g.stroke();
    let thr = h.length ? h[h.length - 1].thr : 0.8, maxLin = 0;
    for (const p of h) maxLin = Math.max(maxLin, p.lin || 0);
    const top2 = top + half + gap, range = Math.max(1.5, (thr || 0.8) * 1.6, maxLin * 1.1);
    const yLin = (v) => top2 + half - (Math.min(v, range) / range) * half;
    g.fillStyle = color("--muted");
    g.textAlign = "right";
    g.fillText("+" + span + "°", left - 3, top + 5); g.fillText("0°", left - 3, yTilt(0)); g.fillText("−" + span + "°", left - 3, top + half - 5);
    g.fillText(range.toFixed(1) + " g", left - 3, top2 + 5); g.fillText("0 g", left - 3, top2 + half - 4);
    g.textAlign = "left";
    for (let s = 0; s <= chartSeconds; s += 2) g.fillText("−" + (chartSeconds - s) + " s", left + s / chartSeconds * plotW - (s === chartSeconds ? 22 : s ? 10 : 0), H - 7);
    const line = (key, y, stroke) => {
      g.strokeStyle = stroke; g.lineWidth = 1.6; g.beginPath();
      let started = false;
      for (const p of h) {
        const v = p[key];
        if (typeof v !== "number" || !isFinite(v)) { started = false; continue; }
        if (started) g.lineTo(x(p.t), y(v)); else { g.moveTo(x(p.t), y(v)); started = true; }
      }
      g.stroke();
    };
    g.save();
    g.beginPath(); g.rect(left, top, plotW, H - top - bottom); g.clip();
    line("roll", yTilt, "#1f6feb");
    line("pitch", yTilt, "#8250df");
    line("lin", yLin, "#1a7f37");
    // The threshold as the detector had it at each moment (a step where the sensitivity changed).
    g.setLineDash([5, 4]);
    line("thr", yLin, "#cf222e");
    g.setLineDash([]);
    g.restore();
    if (typeof thr === "number") { g.fillStyle = "#cf222e"; g.textAlign = "right"; g.fillText(thr.toFixed(2) + " g", left + plotW - 2, yLin(thr) - 7); }
    if (paused) {
      g.fillStyle = color("--ink"); g.textAlign = "center"; g.font = "600 13px system-ui, sans-serif";
      g.fillText("paused · tap to resume", left + plotW / 2, top + 12);
    }
    canvas.dataset.points = String(h.length);
    canvas.dataset.lastLinear = h.length ? String(h[h.length - 1].lin) : "";
    canvas.dataset.maxLinear = String(maxLin);
    canvas.dataset.threshold = typeof thr === "number" ? String(thr) : "";
  }
  $("chart").addEventListener("click", () => {
    view.chartPaused = !view.chartPaused;
    $("chart").dataset.paused = String(view.chartPaused);
    setText("chart-state", view.chartPaused ? "· paused" : "");
    view.chartDirty = true;
  });

  // ---- shake sensitivity: stored in the profile, applied by the loop at its next tick ----
  function showShake(s) {
    const select = $("shake-level");
    // `default`: the board file's settings, shown as the level they match (or custom).
    const name = s.level === "default" ? (s.description || "normal").split(" ")[0] : s.level;
    if (name === "custom") {
      let o = select.querySelector("option[value=custom]");
      if (!o) { o = document.createElement("option"); o.value = "custom"; select.append(o); }
      o.textContent = "custom (" + fixed(s.thresholdG, 2) + " g)";
    }
    select.value = name;
    select.dataset.thresholdG = String(s.thresholdG);
  }
  $("shake-level").addEventListener("change", () => {
    const level = $("shake-level").value;
    if (level === "custom") return;
    const select = $("shake-level");
    select.disabled = true;
    say("");
    api("POST", base + "/shake", { level }).then((r) => { showShake(r.shake); say("shake sensitivity " + r.shake.description + " saved", "ok"); },
                                              (e) => say(e.message, "bad")).finally(() => { select.disabled = false; });
  });

  // ---- drawing: the newest frame only, once per display refresh ----
  function draw(now) {
    if (view.chartDirty && view.chartPaused) { view.chartDirty = false; drawChart(); }
    if (view.flashUntil && now >= view.flashUntil) { view.flashUntil = 0; $("area").classList.remove("flash"); }
    const f = view.frame;
    if (f && view.dirty) {
      view.dirty = false;
      const marker = $("marker");
      marker.dataset.t = f.t;
      // x right → right; y forward → up the screen.
      marker.style.left = ((clamp(f.control.x) + 1) * 50).toFixed(2) + "%";
      marker.style.top = ((1 - clamp(f.control.y)) * 50).toFixed(2) + "%";
      // No gyro and more than gravity on the accelerometer: the marker holds its last trusted tilt.
      const held = f.tilt.trusted === false;
      marker.classList.toggle("held", held);
      setText("trust", held ? "moving too hard to read the tilt: holding" : "");
      const tilt = view.mode === "raw" ? f.raw : f.tilt;
      setText("roll", fixed(tilt.rollDeg, 1));
      setText("pitch", fixed(tilt.pitchDeg, 1));
      setText("x", fixed(f.control.x, 2));
      setText("y", fixed(f.control.y, 2));
    }
    if (view.chartDirty && !view.chartPaused) { view.chartDirty = false; drawChart(); }
    for (const peer of peers.values()) {
      if (peer.chartDirty) { peer.chartDirty = false; drawChart(peer.chart, peer.history, false); }
      if (!peer.dirty) continue;
      peer.dirty = false;
      const p = peer.frame;
      peer.el.dataset.t = p.t;
      peer.el.style.left = ((clamp(p.control.x) + 1) * 50).toFixed(2) + "%";
      peer.el.style.top = ((1 - clamp(p.control.y)) * 50).toFixed(2) + "%";
    }
    requestAnimationFrame(draw);
  }

  // ---- buttons ----
  function press(button, request, done, failed = (e) => say(e.message, "bad")) {
    button.disabled = true;
    say("");
    request.then(done, failed).finally(() => {
      button.disabled = (button.id === "calibrate" && view.calibrating) || (button.id === "test-motor" && !view.hasMotor);
    });
  }
  $("calibrate").addEventListener("click", () => {
    calibrationEvent({ state: "running", progress: 0 });
    press($("calibrate"), api("POST", base + "/calibrate"),
          (r) => { view.capture = r; },
          (e) => calibrationEvent({ state: "failed", message: e.message }));
  });
  $("zero").addEventListener("click", () => {
    press($("zero"), api("POST", base + "/zero"), (r) => { showProfile(r.profile); say("neutral pose reset to level", "ok"); });
  });
  $("test-motor").addEventListener("click", () => {
    const effect = $("effect").value;
    view.effectAsked = effect;
    press($("test-motor"), api("POST", base + "/haptics", { effect }), () => log("test: " + effect));
  });
  for (const input of document.querySelectorAll("input[name=tilt-mode]")) {
    input.addEventListener("change", () => { view.mode = input.value; view.dirty = true; });
  }

  // ---- several boards: whose page this is, and everyone's marker ----
  function paint(el, n) {
    el.style.background = playerColors[(n - 1) % playerColors.length];
    el.textContent = String(n);
    el.title = "Player " + n;
    el.dataset.player = String(n);
  }
  function loadPlayers() {
    api("GET", "/api/boards").then((r) => {
      if (playersKnown || !r || !Array.isArray(r.boards)) return;
      playersKnown = true;
      setUpPlayers(r.boards);
    }, () => {});
  }
  function setUpPlayers(boards) {
    players = boards;
    const several = boards.length > 1;
    if (!boards.some((b) => b.player === me)) { if (me !== 1 || base !== "/api") choose(1); return; }
    if (!several) return;
    const select = $("player");
    select.replaceChildren(...boards.map((b) => {
      const o = document.createElement("option");
      o.value = String(b.player);
      o.textContent = "I am player " + b.player + " · " + b.board.name;
      return o;
    }));
    select.hidden = false;
    const legend = $("players-legend");
    legend.replaceChildren(...boards.map((b) => {
      const span = document.createElement("span"), i = document.createElement("i");
      i.style.background = playerColors[(b.player - 1) % playerColors.length];
      span.append(i, "Player " + b.player + " · " + b.board.name);
      span.dataset.player = String(b.player);
      return span;
    }));
    legend.hidden = false;
    // Player 1's routes are also the ones without a board: no need to open its stream again.
    choose(me, base !== "/api/boards/" + me && !(me === 1 && base === "/api"));
  }
  // This page becomes player `n`'s: its stream, readouts, chart and buttons; the others' markers.
  function choose(n, reconnect = true) {
    me = n;
    const several = players.length > 1;
    base = several ? "/api/boards/" + n : "/api";
    try { if (several) localStorage.setItem(playerKey, String(n)); else localStorage.removeItem(playerKey); } catch (_) {}
    if (several) {
      $("player").value = String(n);
      paint($("marker"), n);
      setText("chart-player", "· Player " + n);
      const chosen = players.find((b) => b.player === n);
      if (chosen) setText("board-title", "Player " + n + " · " + chosen.board.name);
      for (const span of $("players-legend").children) span.style.fontWeight = span.dataset.player === String(n) ? "700" : "";
    }
    if (reconnect) {
      // What shows so far was another player's.
      view.frame = null; view.history.length = 0; view.rateFrom = null; view.rate = null; view.capture = null;
      view.calibrating = false; view.motorOn = false; view.effectAsked = null; view.chartDirty = true;
      $("calibration").hidden = true; $("calibrate").disabled = false; $("motor-log").replaceChildren(); say("");
      const ws = socket;
      socket = null;
      if (ws) { try { ws.close(); } catch (_) {} }
      clearTimeout(watchdog); clearTimeout(retryTimer);
      retryMs = 500;
      connect();
    }
    openPeers();
  }
  function openPeers() {
    for (const peer of peers.values()) { peer.closed = true; try { peer.ws.close(); } catch (_) {} peer.el.remove(); peer.card.remove(); }
    peers.clear();
    if (players.length < 2) return;
    for (const b of players) {
      if (b.player === me) continue;
      const el = document.createElement("div");
      el.className = "peer";
      el.id = "marker-" + b.player;
      paint(el, b.player);
      $("field").append(el);
      // Its chart: the same strip as this player's, smaller.
      const card = document.createElement("section"), title = document.createElement("h2"), chart = document.createElement("canvas");
      card.className = "card";
      title.textContent = "Motion · last 10 s · Player " + b.player;
      chart.className = "peer-chart";
      chart.id = "chart-" + b.player;
      chart.dataset.player = String(b.player);
      chart.dataset.points = "0";
      chart.setAttribute("aria-label", "chart of player " + b.player + "'s last 10 seconds of motion");
      card.append(title, chart);
      $("peer-charts").append(card);
      const peer = { el, card, chart, history: [], chartDirty: false, ws: null, frame: null, dirty: false, closed: false };
      peers.set(b.player, peer);
      const open = () => {
        if (peer.closed) return;
        const scheme = location.protocol === "https:" ? "wss://" : "ws://";
        const ws = new WebSocket(scheme + location.host + b.path + "/stream" + (token ? "?token=" + encodeURIComponent(token) : ""));
        peer.ws = ws;
        ws.onmessage = (event) => {
          let m;
          try { m = JSON.parse(event.data); } catch (_) { return; }
          if (m.type === "state" || (m.type === "snapshot" && m.t !== null)) {
            peer.frame = m; peer.dirty = true;
            remember(m, peer.history);
            peer.chartDirty = true;
          }
        };
        ws.onclose = () => { if (!peer.closed) setTimeout(open, 1000); };
      };
      open();
    }
  }
  $("player").addEventListener("change", () => choose(Number($("player").value)));

  fillEffects(["tick", "click", "double-click", "buzz", "alarm"]);
  connect();
  loadPlayers();
  requestAnimationFrame(draw);
})();
</script>
</body>
</html>
"""#
}
