/// The page `tiltboard serve` shows at `/`: one HTML file with its CSS and JavaScript inline,
/// compiled into the binary (no files to install, no network needed).
public enum WebPage {
    public static let html = """
    <!doctype html>
    <html lang="en">
    <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
    <title>tiltboard</title></head>
    <body>
    <p>Status: <span id="status">reconnecting</span> · roll <span id="roll">–</span>° · pitch <span id="pitch">–</span>°</p>
    <div id="area" style="position:relative;width:300px;height:300px;border:1px solid #888">
      <div id="marker" style="position:absolute;width:20px;height:20px;background:#06c;left:140px;top:140px"></div>
    </div>
    <button id="calibrate">Calibrate</button> <button id="zero">Zero</button> <button id="test-motor">Test motor</button>
    <script>
    const q = (id) => document.getElementById(id);
    const post = (path, body) => fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body || {})});
    q('calibrate').onclick = () => post('/api/calibrate');
    q('zero').onclick = () => post('/api/zero');
    q('test-motor').onclick = () => post('/api/haptics', {effect: 'click'});
    function connect() {
      const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/api/stream');
      ws.onopen = () => { q('status').textContent = 'live'; };
      ws.onclose = () => { q('status').textContent = 'reconnecting'; setTimeout(connect, 1000); };
      ws.onmessage = (m) => {
        const f = JSON.parse(m.data);
        if (f.type !== 'state' && f.type !== 'snapshot') return;
        if (f.tilt) { q('roll').textContent = f.tilt.rollDeg.toFixed(1); q('pitch').textContent = f.tilt.pitchDeg.toFixed(1); }
        if (f.control) { q('marker').style.left = (140 + 140 * f.control.x) + 'px'; q('marker').style.top = (140 - 140 * f.control.y) + 'px'; }
      };
    }
    connect();
    </script>
    </body>
    </html>
    """
}
