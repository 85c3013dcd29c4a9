"""What the browser checks and the latency measurement share: a temporary folder with a simulated
board, `tiltboard serve` started and stopped as a child process, and headless Chromium driven by
Debian's chromedriver. Nothing here reaches beyond the machine: the server binds 127.0.0.1."""

import json
import os
import queue
import re
import signal
import subprocess
import threading

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

HERE = os.path.dirname(os.path.abspath(__file__))
# Generous: a shared two-core machine under load may be slow, and waits end as soon as they hold.
TIMEOUT = 60
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}

# The marker's centre and the area's size in CSS pixels, and the marker's place in the area as
# fractions (0, 0 top left; 0.5, 0.5 the centre).
MARKER_JS = """
const a = document.getElementById('area').getBoundingClientRect();
const m = document.getElementById('marker').getBoundingClientRect();
return [((m.left + m.width / 2) - a.left) / a.width, ((m.top + m.height / 2) - a.top) / a.height];
"""


def write_board(folder, script, motor_log):
    """A simulated MPU-6050 playing `script` in real time, its offsets zeroed so that flat reads
    level before any calibration, its motor logged to `motor_log`."""
    board = {
        "name": "browser test board",
        "sensor": {"chip": "mpu6050", "bus": "simulated", "rateHz": 100},
        "motor": {"chip": "simulated", "line": 17, "shakeEffect": "pulse:150"},
        "simulation": {"script": script, "noise": True, "seed": 7, "motorLog": motor_log,
                       "part": {"zeroGOffsetMg": [0, 0, 0], "gyroBiasDps": [0, 0, 0]}},
    }
    path = os.path.join(folder, "board.json")
    with open(path, "w") as f:
        json.dump(board, f)
    return path


class Server:
    """`tiltboard serve` on 127.0.0.1; `start()` returns the URL it printed."""

    def __init__(self, binary, board, profile, env, log_path, extra=(), host="127.0.0.1"):
        self.binary, self.board, self.profile, self.env = binary, board, profile, env
        self.log_path, self.extra, self.host = log_path, list(extra), host
        self.port = 0
        self.process = None

    def start(self):
        args = [self.binary, "serve", "--board", self.board, "--profile", self.profile,
                "--host", self.host, "--port", str(self.port)] + self.extra
        log = open(self.log_path, "a")
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL,
                                        env=self.env, text=True)
        lines = queue.Queue()

        def pump(stream):
            for line in stream:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=pump, args=(self.process.stdout,), daemon=True).start()
        while True:
            try:
                line = lines.get(timeout=TIMEOUT)
            except queue.Empty:
                raise AssertionError(f"serve printed no URL within {TIMEOUT} s (log: {self.log_path})")
            if line is None:
                raise AssertionError(f"serve exited {self.process.wait()} before printing a URL (log: {self.log_path})")
            match = re.search(r"http://[^\s]+", line)
            if match:
                url = match.group(0)
                # The same port on a restart, so the open page finds the server again.
                self.port = int(re.search(r":(\d+)/", url).group(1))
                return url

    def stop(self):
        """SIGTERM, as Ctrl-C or systemd would; returns the exit status."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=TIMEOUT)

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def browser(profile_dir, size):
    """Headless Chromium through Debian's chromedriver: no download, no network."""
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--user-data-dir={profile_dir}", "--no-first-run", "--disable-extensions",
                "--disable-background-networking", "--disable-sync", "--hide-scrollbars",
                "--force-device-scale-factor=1", f"--window-size={size['width']},{size['height']}"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    emulate(driver, size, phone=False)
    return driver


def emulate(driver, size, phone):
    """Makes the page's viewport exactly `size`; `phone`: a mobile viewport with touch input."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": size["width"], "height": size["height"], "deviceScaleFactor": 1, "mobile": phone})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": phone, "maxTouchPoints": 5 if phone else 1})


def wait_until(driver, what, condition, timeout=TIMEOUT):
    """Polls `condition` (no argument) until it returns something truthy; fails naming `what`."""
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda _: condition(), message=what)


def text(driver, element_id):
    return driver.find_element("id", element_id).text


def number(driver, element_id):
    try:
        return float(text(driver, element_id))
    except ValueError:
        return None


def marker(driver):
    return driver.execute_script(MARKER_JS)
