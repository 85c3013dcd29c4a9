"""The page of `tiltboard serve` in a real browser (headless Chromium), against a simulated board
playing Tests/browser/tour.json in real time: flat 5 s, right edge down 20°, front edge down 20°,
then held at pitch −15°, roll −20°; and a second board playing Tests/browser/shakes.json: 1 g
shakes (4 Hz along x, 1 s) every 2.5 s, which the `gentle` sensitivity counts and `firm` does not;
and two players in one serve (the tour, and a board that turns left early), each with its marker.

Usage: page_test.py TILTBOARD_BINARY [--screenshots DIR]
Prints PASS:/FAIL: per check and ends with `browser: N passed, M failed`; exits 1 on a failure.
Every wait is on a condition (WebDriverWait), none on a fixed time.
"""

import argparse
import json
import math
import os
import re
import sys
import tempfile
import traceback

import harness
from harness import marker, number, text, wait_until

passed = failed = 0


def check(name, body):
    global passed, failed
    try:
        body()
        passed += 1
        print(f"PASS: {name}", flush=True)
    except Exception as error:  # noqa: BLE001 — every failure is reported and counted
        failed += 1
        detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        print(f"FAIL: {name}: {detail}", flush=True)
        traceback.print_exc(file=sys.stderr)


def near(driver, element_id, value, tolerance):
    """The readout `element_id` shows a number within `tolerance` of `value`."""
    shown = number(driver, element_id)
    return shown is not None and abs(shown - value) < tolerance


def save(driver, path):
    # Selenium reports a file it could not write by returning False.
    assert driver.save_screenshot(path), f"could not write {path}"


def frame_time(driver):
    return float(driver.find_element("id", "marker").get_attribute("data-t") or "nan")


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--screenshots", help="folder for page-desktop.png, page-phone.png and page-players.png")
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="tiltboard-browser-")
    motor_log = os.path.join(tmp, "motor.log")
    profile = os.path.join(tmp, "profile.json")
    board = harness.write_board(tmp, os.path.join(harness.HERE, "tour.json"), motor_log)
    env = dict(os.environ, HOME=tmp, XDG_CONFIG_HOME=os.path.join(tmp, "config"))
    server = harness.Server(args.binary, board, profile, env, os.path.join(tmp, "serve.log"))
    shots = args.screenshots or tmp
    os.makedirs(shots, exist_ok=True)
    # The browser first, so the board's tour (which starts with the server) is not half over
    # by the time the page opens.
    driver = harness.browser(os.path.join(tmp, "chromium"), harness.DESKTOP)
    # Bound to every address, serve asks for a token; run-browser.sh runs this in a network
    # namespace of its own, so that address is this test's loopback and nothing else.
    # A board of its own: like a GPIO line, a simulated motor is driven by one process at a time.
    lan_folder = os.path.join(tmp, "lan")
    os.makedirs(lan_folder, exist_ok=True)
    lan_board = harness.write_board(lan_folder, os.path.join(harness.HERE, "tour.json"), os.path.join(lan_folder, "motor.log"))
    lan = harness.Server(args.binary, lan_board, os.path.join(lan_folder, "profile.json"), env,
                         os.path.join(tmp, "serve-lan.log"), host="0.0.0.0")
    shaken_folder = os.path.join(tmp, "shakes")
    os.makedirs(shaken_folder)
    shaken_profile = os.path.join(shaken_folder, "profile.json")
    shaken = harness.Server(args.binary, harness.write_board(shaken_folder, os.path.join(harness.HERE, "shakes.json"),
                                                             os.path.join(shaken_folder, "motor.log")),
                            shaken_profile, env, os.path.join(tmp, "serve-shakes.log"))
    # The shipped board without a motor.
    bare_folder = os.path.join(tmp, "no-motor")
    os.makedirs(bare_folder)
    bare = harness.Server(args.binary, os.path.join(harness.HERE, "..", "..", "Boards", "simulated-no-motor.json"),
                          os.path.join(bare_folder, "profile.json"), env, os.path.join(tmp, "serve-no-motor.log"))
    # Two players in one serve: player 1 tours, player 2 turns left (roll −20°) after 2 s.
    team = []
    for n, script in ((1, os.path.join(harness.HERE, "tour.json")), (2, None)):
        folder = os.path.join(tmp, f"player{n}")
        os.makedirs(folder)
        if script is None:
            script = os.path.join(folder, "script.json")
            with open(script, "w") as f:
                json.dump({"segments": [{"hold": {"pitchDeg": 0, "rollDeg": 0, "seconds": 2}},
                                        {"rotate": {"pitchDeg": 0, "rollDeg": -20, "seconds": 1}},
                                        {"hold": {"seconds": 600}}]}, f)
        path = harness.write_board(folder, script, os.path.join(folder, "motor.log"))
        document = read_json(path)
        document["name"] = f"player {n} board"
        with open(path, "w") as f:
            json.dump(document, f)
        team.append({"board": path, "profile": os.path.join(folder, "profile.json"), "motor": os.path.join(folder, "motor.log")})
    players = harness.Server(args.binary, team[0]["board"], team[0]["profile"], env, os.path.join(tmp, "serve-players.log"),
                             extra=["--board", team[1]["board"], "--profile", team[1]["profile"]])
    try:
        urls = []
        check("serve starts and prints its URL", lambda: urls.append(server.start()))
        if urls:
            driver.get(urls[0])
            run_checks(driver, server, profile, motor_log, shots)
            shake_checks(driver, shaken, shaken_profile)
            check("a board without a motor: Test motor and its effects are disabled, the page says why, motor reads none",
                  lambda: no_motor_checks(driver, bare))
            check("beyond loopback: the token opens the page, leaves the address bar, and a reload needs no token",
                  lambda: token_checks(driver, lan))
            players_checks(driver, players, team, shots)
    finally:
        driver.quit()
        server.kill()
        lan.kill()
        shaken.kill()
        bare.kill()
        players.kill()
    if failed and os.path.exists(server.log_path):
        with open(server.log_path) as log:
            sys.stderr.write("the server's stderr, last lines:\n" + "".join(log.readlines()[-20:]))
    print(f"browser: {passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


def run_checks(driver, server, profile, motor_log, shots):
    def live():
        wait_until(driver, "#status reads live", lambda: text(driver, "status") == "live")
    check("the page connects: #status reads live", live)

    def ids():
        for element_id in ("marker", "area", "calibrate", "zero", "test-motor", "status", "roll", "pitch"):
            driver.find_element("id", element_id)
    check("the stable element ids are all there", ids)

    def alone():
        # The list of boards has arrived (the page asks for it once connected).
        wait_until(driver, "the page knows its board", lambda: text(driver, "board") == "browser test board")
        for element_id in ("player", "players-legend", "peer-charts"):
            assert not driver.find_element("id", element_id).is_displayed(), f"#{element_id} shows with one board"
        assert not driver.find_elements("css selector", "[data-player], .peer, .peer-chart"), "another player's marker or chart"
        assert text(driver, "board-title") == "browser test board", f"the title reads {text(driver, 'board-title')!r}"
    check("one board: no player selector, legend, other markers or charts", alone)

    def flat():
        wait_until(driver, "flat board: roll and pitch within 2°, marker in the centre",
                   lambda: near(driver, "roll", 0, 2) and near(driver, "pitch", 0, 2)
                   and all(abs(v - 0.5) < 0.03 for v in marker(driver)))
    check("flat board: the marker rests in the centre", flat)

    def right():
        wait_until(driver, "roll above 10° (right edge down)", lambda: (number(driver, "roll") or 0) > 10)
        x0, y0 = marker(driver)
        wait_until(driver, "the marker 0.25 of the area to the right of where the tilt found it, the roll still above 10°",
                   lambda: marker(driver)[0] > x0 + 0.25 and (number(driver, "roll") or 0) > 10)
        x1, y1 = marker(driver)
        assert abs(y1 - y0) < 0.05, f"the marker also moved vertically: {y0:.3f} → {y1:.3f}"
    check("right edge down: the marker moves right, not up or down", right)

    def forward():
        wait_until(driver, "pitch above 10° (front edge down)", lambda: (number(driver, "pitch") or 0) > 10)
        x0, y0 = marker(driver)
        wait_until(driver, "the marker 0.25 of the area higher up the screen, the pitch still above 10°",
                   lambda: marker(driver)[1] < y0 - 0.25 and (number(driver, "pitch") or 0) > 10)
        x1, _ = marker(driver)
        assert abs(x1 - x0) < 0.05, f"the marker also moved sideways: {x0:.3f} → {x1:.3f}"
    check("front edge down: the marker moves up the screen, not sideways", forward)

    def tilted():
        wait_until(driver, "held at pitch −15°, roll −20°",
                   lambda: near(driver, "pitch", -15, 2) and near(driver, "roll", -20, 2))
        # Tilted left and back: the marker heads for the bottom-left corner.
        wait_until(driver, "the marker in the bottom-left quarter",
                   lambda: marker(driver)[0] < 0.3 and marker(driver)[1] > 0.7)
    check("held tilted left and back: the marker goes left and down", tilted)

    def chart():
        wait_until(driver, "the chart holds over 3 s of frames", lambda: chart_attr(driver, "points") > 60)
        before = canvas_image(driver)
        t0 = frame_time(driver)
        wait_until(driver, "the chart redrawn a second of loop time later",
                   lambda: frame_time(driver) > t0 + 1 and canvas_image(driver) != before)
        driver.find_element("id", "chart").click()
        wait_until(driver, "#chart data-paused true", lambda: chart_attr(driver, "paused", str) == "true")
        paused = canvas_image(driver)
        t1 = frame_time(driver)
        wait_until(driver, "a second of loop time while paused", lambda: frame_time(driver) > t1 + 1)
        assert canvas_image(driver) == paused, "the paused chart changed"
        driver.find_element("id", "chart").click()
        wait_until(driver, "the chart moves again after a second tap",
                   lambda: chart_attr(driver, "paused", str) == "false" and canvas_image(driver) != paused)
    check("the chart draws the last seconds, a tap pauses it and another resumes it", chart)

    def calibrate():
        driver.find_element("id", "calibrate").click()
        wait_until(driver, "the calibration progress bar shows progress",
                   lambda: float(driver.find_element("id", "calibration-progress").get_attribute("value") or 0) > 0)
        wait_until(driver, "a saved profile on disk", lambda: (read_json(profile) or {}).get("neutral"))
        neutral = read_json(profile)["neutral"]
        g = neutral["meanRawG"]
        # The pose's gravity reaction: (−sin r, −sin p·cos r, cos p·cos r) for p = −15°, r = −20°.
        p, r = math.radians(-15), math.radians(-20)
        want = (-math.sin(r), -math.sin(p) * math.cos(r), math.cos(p) * math.cos(r))
        assert all(abs(a - b) < 0.03 for a, b in zip(g, want)), f"neutral meanRawG {g}, expected ≈ {want}"
        assert abs(neutral["tiltDeg"] - 24.8) < 1.5, f"neutral tiltDeg {neutral['tiltDeg']}, expected ≈ 24.8"
        wait_until(driver, "roll and pitch within 1.5° of the new neutral, the marker back in the centre",
                   lambda: near(driver, "roll", 0, 1.5) and near(driver, "pitch", 0, 1.5)
                   and all(abs(v - 0.5) < 0.03 for v in marker(driver)))
    check("Calibrate at the tilted pose: profile written, marker back in the centre", calibrate)

    def stays():
        # A second of the loop's time later (the frame's `t`, kept on the marker), still centred.
        t0 = frame_time(driver)
        wait_until(driver, "frames a second of loop time later", lambda: frame_time(driver) > t0 + 1)
        assert all(abs(v - 0.5) < 0.03 for v in marker(driver)), f"marker drifted to {marker(driver)}"
    check("after Calibrate the marker stays in the centre", stays)

    def raw_toggle():
        driver.find_element("css selector", "label:has(#mode-raw)").click()
        wait_until(driver, "raw tilt: roll about −20°", lambda: near(driver, "roll", -20, 2.5))
        driver.find_element("css selector", "label:has(#mode-calibrated)").click()
        wait_until(driver, "calibrated tilt: roll about 0°", lambda: near(driver, "roll", 0, 1.5))
    check("the raw/calibrated switch shows the tilt before and after the neutral pose", raw_toggle)

    def zero():
        driver.find_element("id", "zero").click()
        wait_until(driver, "a level neutral in the profile", lambda: ((read_json(profile) or {}).get("neutral") or {}).get("tiltDeg") == 0)
        wait_until(driver, "roll back to about −20° against level", lambda: near(driver, "roll", -20, 2))
        wait_until(driver, "the marker leaves the centre for the bottom left",
                   lambda: marker(driver)[0] < 0.4 and marker(driver)[1] > 0.6)
    check("Zero: the profile's neutral is level again and the tilt reads against level", zero)

    def motor():
        before = open(motor_log).read().splitlines() if os.path.exists(motor_log) else []
        driver.execute_script("document.getElementById('effect').value = 'buzz'")
        driver.find_element("id", "test-motor").click()
        wait_until(driver, "an on and an off line in the motor log file",
                   lambda: [line.split()[1] for line in open(motor_log).read().splitlines()[len(before):]][-2:] == ["1", "0"])
        wait_until(driver, "the page's motor log shows the effect",
                   lambda: "buzz" in text(driver, "motor-log") or " on" in text(driver, "motor-log"))
    check("Test motor: the motor log shows it", motor)

    def reconnect():
        status = server.stop()
        assert status == 0, f"serve exited {status} on SIGTERM, expected 0"
        lines = open(motor_log).read().splitlines()
        assert lines and lines[-1].endswith(" 0"), f"motor log ends {lines[-1:]}, expected the motor off"
        wait_until(driver, "#status reads reconnecting", lambda: text(driver, "status") == "reconnecting")
        server.start()
        wait_until(driver, "#status reads live again", lambda: text(driver, "status") == "live")
        # The restarted board plays its tour from the start: flat.
        wait_until(driver, "fresh frames: roll within 2° of level", lambda: near(driver, "roll", 0, 2))
    check("server stopped: reconnecting; started again: live", reconnect)

    def screenshots():
        # The restarted tour tilts right again: the marker on its way, the log and profile filled in.
        wait_until(driver, "the marker on the right", lambda: marker(driver)[0] > 0.75)
        save(driver, os.path.join(shots, "page-desktop.png"))
        harness.emulate(driver, harness.PHONE, phone=True)
        try:
            width = driver.execute_script("return document.documentElement.scrollWidth")
            assert width <= harness.PHONE["width"], f"the phone page is {width} px wide, wider than the screen"
            area = driver.find_element("id", "area").rect
            assert 0 <= area["x"] and area["x"] + area["width"] <= harness.PHONE["width"], f"#area {area} is off the screen"
            for element_id in ("calibrate", "zero", "test-motor"):
                box = driver.find_element("id", element_id).rect
                assert box["height"] >= 44, f"#{element_id} is {box['height']} px tall, too small to tap"
            save(driver, os.path.join(shots, "page-phone.png"))
        finally:
            harness.emulate(driver, harness.DESKTOP, phone=False)
    check("phone-sized page (390×844, touch) fits the screen, buttons big enough to tap; screenshots saved", screenshots)

    def moved():
        # A fresh tour; Calibrate 1.5 s before the board turns right at 5 s (loop time ≈ tour time).
        server.stop()
        wait_until(driver, "#status reads reconnecting", lambda: text(driver, "status") == "reconnecting")
        server.start()
        wait_until(driver, "a frame of the new tour", lambda: text(driver, "status") == "live" and frame_time(driver) < 3)
        wait_until(driver, "loop time 3.5 s", lambda: frame_time(driver) >= 3.5)
        driver.find_element("id", "calibrate").click()
        wait_until(driver, "the page says the board moved",
                   lambda: "moved — starting again" in text(driver, "calibration-message"))
        wait_until(driver, "the capture saved at the new pose", lambda: "neutral pose saved" in text(driver, "calibration-message"))
        g = read_json(profile)["neutral"]["meanRawG"]
        assert abs(g[0] + math.sin(math.radians(20))) < 0.03, f"neutral meanRawG {g}: not the right-edge-down pose"
    check("Calibrate while the board turns: \"moved — starting again\", then saved at the pose it settled in", moved)


def chart_attr(driver, name, kind=float):
    value = driver.find_element("id", "chart").get_attribute("data-" + name)
    try:
        return kind(value)
    except (TypeError, ValueError):
        return kind()


def chart_attr_of(driver, chart_id, name):
    found = driver.find_elements("id", chart_id)
    try:
        return float(found[0].get_attribute("data-" + name)) if found else 0
    except (TypeError, ValueError):
        return 0


def canvas_image(driver):
    return driver.execute_script("return document.getElementById('chart').toDataURL()")


def choose_level(driver, level):
    driver.execute_script("const s = document.getElementById('shake-level'); s.value = arguments[0];"
                          "s.dispatchEvent(new Event('change'))", level)


def shake_checks(driver, shaken, profile):
    urls = []
    check("a second board that shakes at 1 g: serve starts", lambda: urls.append(shaken.start()))
    if not urls:
        return
    driver.get(urls[0])
    shakes = lambda: int(text(driver, "shakes") or 0)

    def firm():
        wait_until(driver, "#status reads live", lambda: text(driver, "status") == "live")
        choose_level(driver, "firm")
        wait_until(driver, "shake.level firm in the profile", lambda: ((read_json(profile) or {}).get("shake") or {}).get("level") == "firm")
        wait_until(driver, "the state frames' threshold 1.2 g", lambda: chart_attr(driver, "threshold") == 1.2)
        count, t0 = shakes(), frame_time(driver)
        # Three 1 g shakes (one every 2.5 s) pass under the 1.2 g threshold.
        wait_until(driver, "7.5 s of loop time", lambda: frame_time(driver) > t0 + 7.5)
        assert shakes() == count, f"{shakes() - count} shakes counted at firm"
        peak = chart_attr(driver, "max-linear")
        assert 0.8 < peak < 1.2, f"the chart's largest linear acceleration is {peak} g, expected about 1 g"
    check("firm (1.2 g): the page sets it, the profile stores it, 1 g shakes are not counted but are charted", firm)

    def gentle():
        count = shakes()
        before = canvas_image(driver)
        choose_level(driver, "gentle")
        wait_until(driver, "shake.level gentle in the profile", lambda: ((read_json(profile) or {}).get("shake") or {}).get("level") == "gentle")
        wait_until(driver, "the state frames' threshold 0.6 g", lambda: chart_attr(driver, "threshold") == 0.6)
        wait_until(driver, "a 1 g shake counted", lambda: shakes() > count)
        assert canvas_image(driver) != before, "the chart did not change"
    check("gentle (0.6 g): the same 1 g shakes are counted", gentle)


def no_motor_checks(driver, bare):
    driver.get(bare.start())
    wait_until(driver, "#status reads live", lambda: text(driver, "status") == "live")
    wait_until(driver, "the snapshot's board shown", lambda: "no motor" in text(driver, "chip"))
    for element_id in ("test-motor", "effect"):
        assert not driver.find_element("id", element_id).is_enabled(), f"#{element_id} is enabled on a board without a motor"
    note = text(driver, "motor-note")
    assert note == 'Test motor unavailable: the board has no motor (add a "motor" section to its board file)', f"#motor-note reads {note!r}"
    assert text(driver, "motor") == "none", f"#motor reads {text(driver, 'motor')!r}"


def token_checks(driver, lan):
    printed = lan.start()
    token = re.search(r"[?&]token=([0-9a-f]{32})", printed)
    assert token, f"serve --host 0.0.0.0 printed {printed}, with no token"
    # The printed name (NAME.local) means nothing inside the namespace; an IP literal is allowed.
    local = f"http://127.0.0.1:{lan.port}/"
    driver.get(local + "?token=" + token.group(1))
    wait_until(driver, "#status reads live", lambda: text(driver, "status") == "live")
    assert "token" not in driver.current_url, f"the address bar still shows the token: {driver.current_url}"
    driver.refresh()
    wait_until(driver, "#status reads live after a reload", lambda: text(driver, "status") == "live")
    driver.delete_all_cookies()
    driver.get(local)
    wait_until(driver, "without the token: 401 with the server's advice",
               lambda: "missing or wrong token" in driver.find_element("tag name", "body").text)


def players_checks(driver, players, team, shots):
    """Two boards in one serve: both markers move, the page picks its player (kept over a reload),
    and player 2's Zero, sensitivity and Test motor reach player 2's board alone."""
    urls = []
    check("two players: serve --board --board starts", lambda: urls.append(players.start()))
    if not urls:
        return
    driver.get(urls[0])
    place = lambda element: driver.execute_script(
        "const a = document.getElementById('area').getBoundingClientRect(), m = arguments[0].getBoundingClientRect();"
        "return [((m.left + m.width / 2) - a.left) / a.width, ((m.top + m.height / 2) - a.top) / a.height];", element)
    markers = lambda: {m.get_attribute("data-player"): m for m in driver.find_elements("css selector", "#field [data-player]")}
    stamp = lambda m: float(m.get_attribute("data-t") or "nan")

    def both():
        wait_until(driver, "#status reads live", lambda: text(driver, "status") == "live")
        wait_until(driver, "a marker for player 1 and one for player 2", lambda: set(markers()) == {"1", "2"})
        one, two = markers()["1"], markers()["2"]
        assert one.get_attribute("id") == "marker", f"player 1's marker is #{one.get_attribute('id')}"
        assert one.text == "1" and two.text == "2", f"the markers read {one.text!r} and {two.text!r}"
        assert one.value_of_css_property("background-color") != two.value_of_css_property("background-color"), "one colour for both"
        wait_until(driver, "both markers' frames advancing", lambda: stamp(markers()["1"]) > 0.5 and stamp(markers()["2"]) > 0.5)
        wait_until(driver, "player 2's marker goes left (its board turns left)", lambda: place(markers()["2"])[0] < 0.3)
        wait_until(driver, "player 1's marker goes right (its tour turns right)", lambda: place(markers()["1"])[0] > 0.7)
        assert place(markers()["2"])[0] < 0.3, "player 2's marker left the left side"
        wait_until(driver, "player 2's own chart holds frames", lambda: chart_attr_of(driver, "chart-2", "points") > 20)
        legend = text(driver, "players-legend")
        assert "Player 1" in legend and "Player 2" in legend, f"#players-legend reads {legend!r}"
    check("two players: two markers, numbered, in two colours, each moving with its own board; a chart each", both)

    def pick():
        choose = driver.find_element("id", "player")
        assert choose.is_displayed(), "no player selector"
        driver.execute_script("const s = document.getElementById('player'); s.value = '2'; s.dispatchEvent(new Event('change'))")
        wait_until(driver, "the page is player 2's", lambda: markers().get("2") is not None
                   and markers()["2"].get_attribute("id") == "marker" and text(driver, "board-title").startswith("Player 2"))
        wait_until(driver, "live on player 2's stream, its roll about −20°", lambda: text(driver, "status") == "live" and near(driver, "roll", -20, 2.5))
        assert driver.execute_script("return localStorage.getItem('tiltboard-player')") == "2"
        wait_until(driver, "player 1's chart beside player 2's", lambda: chart_attr_of(driver, "chart-1", "points") > 20)
        assert not driver.find_elements("id", "chart-2"), "a second chart of player 2"
    check("\"I am player 2\": the readouts, title and chosen marker are player 2's", pick)

    def zero_and_sensitivity():
        driver.find_element("id", "zero").click()
        wait_until(driver, "player 2's profile: a level neutral", lambda: ((read_json(team[1]["profile"]) or {}).get("neutral") or {}).get("tiltDeg") == 0)
        choose_level(driver, "firm")
        wait_until(driver, "player 2's profile: shake firm", lambda: ((read_json(team[1]["profile"]) or {}).get("shake") or {}).get("level") == "firm")
        wait_until(driver, "player 2's frames: threshold 1.2 g", lambda: chart_attr(driver, "threshold") == 1.2)
        assert read_json(team[0]["profile"]) is None, "player 1's profile was written"
        state = driver.execute_async_script("const done = arguments[arguments.length - 1];"
                                            "fetch('/api/boards/1/state').then((r) => r.json()).then(done, () => done(null))")
        assert state and state["sensitivity"]["level"] == "default" and state["thresholdG"] == 0.8, \
            f"player 1's sensitivity changed: {state and state['sensitivity']}"
    check("player 2's Zero and sensitivity change player 2's profile and detector only", zero_and_sensitivity)

    def motor():
        driver.execute_script("document.getElementById('effect').value = 'buzz'")
        driver.find_element("id", "test-motor").click()
        wait_until(driver, "an on and an off line in player 2's motor log",
                   lambda: os.path.exists(team[1]["motor"]) and [l.split()[1] for l in open(team[1]["motor"]).read().splitlines()][-2:] == ["1", "0"])
        ones = [l for l in open(team[0]["motor"]).read().splitlines() if l.split()[1] == "1"] if os.path.exists(team[0]["motor"]) else []
        assert not ones, f"player 1's motor went on: {ones[:3]}"
    check("player 2's Test motor buzzes motor 2 alone", motor)

    def reload():
        driver.refresh()
        wait_until(driver, "live after the reload", lambda: text(driver, "status") == "live")
        wait_until(driver, "still player 2's page", lambda: driver.find_element("id", "player").get_attribute("value") == "2"
                   and markers().get("2") is not None and markers()["2"].get_attribute("id") == "marker"
                   and text(driver, "board-title").startswith("Player 2"))
        wait_until(driver, "player 2's threshold (1.2 g) on the chart", lambda: chart_attr(driver, "threshold") == 1.2)
        assert set(markers()) == {"1", "2"}, f"markers after the reload: {sorted(markers())}"
        save(driver, os.path.join(shots, "page-players.png"))
    check("the choice of player 2 survives a reload (screenshot saved)", reload)


if __name__ == "__main__":
    sys.exit(main())
