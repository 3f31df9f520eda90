"""What the browser tests run against: a live `focal serve` on loopback, a proxy in front of it
that can slow chosen requests down and records every request (and whether the browser gave up
on it), and headless Chromium driven by Selenium.

`run.py` sets up one Environment for the whole run; the test modules use `harness.env`.
"""

import http.client
import http.server
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import threading
import time
import unittest
import urllib.error
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

HERE = Path(__file__).resolve().parent
PAGES = HERE / "pages"

env = None  # the Environment of this run, set by run.py


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Focal:
    """`focal serve` as a child process: started, stopped and restarted on the same port and data."""

    def __init__(self, binary, root, data, token, key, log_path, cwd, allow_unsafe=True, extra_args=()):
        self.binary, self.root, self.data, self.token, self.key = binary, root, data, token, key
        self.allow_unsafe, self.extra_args = allow_unsafe, list(extra_args)
        self.log_path, self.cwd = log_path, cwd
        self.port = free_port()
        self.process = None
        self.pidfile = None  # where the running server's pid is written, if anywhere

    def write_pid(self):
        if self.pidfile:
            Path(self.pidfile).write_text(f"{self.process.pid}\n" if self.process and self.process.poll() is None else "")

    @property
    def origin(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout=120):
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [self.binary, "serve", "--root", self.root, "--host", "127.0.0.1", "--port", str(self.port),
             f"--key={self.key}", "--data", self.data]
            + ([f"--token={self.token}"] if self.token else [])
            + (["--allow-unsafe"] if self.allow_unsafe else []) + self.extra_args,
            stdout=log, stderr=subprocess.STDOUT, cwd=self.cwd, start_new_session=True)
        log.close()
        self.write_pid()
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"focal serve exited with {self.process.returncode}; see {self.log_path}")
            try:
                with urllib.request.urlopen(self.origin + "/readyz", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.25)
        raise RuntimeError(f"focal serve was not ready within {timeout} s; see {self.log_path}")

    def stop(self):
        if not self.process or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.write_pid()

    def restart(self):
        self.stop()
        self.start()


class Proxy:
    """A loopback HTTP proxy to Focal. It serves the test pages under /__test/, signs for them
    at /__test/sign (a site's own signer, holding the token), delays requests whose path
    contains a chosen text, and logs every request: path, headers, when it started and ended,
    and whether the client went away before the answer."""

    def __init__(self, focal):
        self.focal = focal
        self.delays = {}  # text in the path → seconds
        self.pages = {}  # /__test/NAME → HTML written by a test (cleared with clear())
        self.log = []
        self.lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out as written: with Nagle's algorithm a small body waited for
            # the browser's delayed ACK of the headers (40 ms for an 800-byte stylesheet), which
            # no server of Focal's (one write per answer) makes a client wait.
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def finish(self):
                super().finish()
                upstream = getattr(self, "upstream", None)
                if upstream is not None:
                    upstream.close()

            def do_GET(self):
                proxy.handle(self)

            do_POST = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = do_GET

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def origin(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def clear(self):
        with self.lock:
            self.log.clear()
            self.delays.clear()
            self.pages.clear()

    def requests(self, text=""):
        with self.lock:
            return [dict(entry) for entry in self.log if text in entry["path"]]

    def handle(self, h):
        entry = {"method": h.command, "path": h.path, "start": time.time(), "end": None, "aborted": False,
                 "status": None, "type": None, "headers": {k.lower(): v for k, v in h.headers.items()}}
        with self.lock:
            self.log.append(entry)
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else None
        if h.path.startswith("/__test/sign"):
            status, headers, data = self.sign(body)
        elif h.path.startswith("/__test/"):
            status, headers, data = self.page(h.path)
        else:
            status, headers, data = self.forward(h, body)
        delay = max([seconds for text, seconds in list(self.delays.items()) if text in h.path] or [0])
        if delay and self.wait_unless_gone(h.connection, delay):
            entry["aborted"] = True
            entry["end"] = time.time()
            h.close_connection = True
            return
        try:
            h.send_response(status)
            entry["type"] = next((v for k, v in headers if k.lower() == "content-type"), None)
            for name, value in headers:
                h.send_header(name, value)
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            if h.command != "HEAD":
                h.wfile.write(data)
            entry["status"] = status
            entry["bytes"] = len(data) if h.command != "HEAD" else 0
        except (BrokenPipeError, ConnectionResetError):
            entry["aborted"] = True
        entry["end"] = time.time()

    @staticmethod
    def wait_unless_gone(connection, seconds):
        """Waits; True as soon as the client closes its connection (an aborted fetch)."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            ready, _, _ = select.select([connection], [], [], min(0.05, max(0, deadline - time.time())))
            if ready:
                try:
                    if connection.recv(1, socket.MSG_PEEK) == b"":
                        return True
                except OSError:
                    return True
                time.sleep(0.02)  # a next request pipelined: not ours to read
        return False

    def forward(self, h, body):
        # One kept-alive connection to Focal per browser connection (a proxy's usual pool): a new
        # one per request added a few ms to every stylesheet and script, more on a busy machine.
        connection = getattr(h, "upstream", None)
        if connection is None:
            connection = h.upstream = http.client.HTTPConnection("127.0.0.1", self.focal.port, timeout=60)
        headers = {k: v for k, v in h.headers.items() if k.lower() not in ("host", "connection", "keep-alive")}
        try:
            try:
                connection.request(h.command, h.path, body=body, headers=headers)
                response = connection.getresponse()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                # Focal closed the idle connection: once more on a new one.
                connection.close()
                connection.request(h.command, h.path, body=body, headers=headers)
                response = connection.getresponse()
            data = response.read()
        except OSError as error:
            connection.close()
            return 502, [("Content-Type", "application/json")], json.dumps(
                {"status": 502, "code": "proxy.unreachable", "message": str(error)}).encode()
        if response.will_close:
            connection.close()
        skip = {"connection", "keep-alive", "transfer-encoding", "content-length"}
        return response.status, [(k, v) for k, v in response.getheaders() if k.lower() not in skip], data

    def page(self, path):
        name = path.split("?")[0][len("/__test/"):]
        if name in self.pages:
            return 200, [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")], \
                self.pages[name].encode()
        file = (PAGES / name).resolve()
        if PAGES not in file.parents or not file.is_file():
            return 404, [("Content-Type", "text/plain")], b"no such test page"
        kind = {".html": "text/html; charset=utf-8", ".js": "text/javascript", ".png": "image/png",
                ".svg": "image/svg+xml"}.get(file.suffix, "application/octet-stream")
        return 200, [("Content-Type", kind), ("Cache-Control", "no-store")], file.read_bytes()

    def sign(self, body):
        """A site's signer: Focal's /v1/sign behind the site's own endpoint, the token kept here."""
        request = urllib.request.Request(self.focal.origin + "/v1/sign", data=body, method="POST", headers={
            "Content-Type": "application/json", "Authorization": f"Bearer {self.focal.token}"})
        try:
            with urllib.request.urlopen(request, timeout=10) as r:
                return 200, [("Content-Type", "application/json")], r.read()
        except urllib.error.HTTPError as error:
            return error.code, [("Content-Type", "application/json")], error.read()


class Environment:
    """Focal, the proxy, and where screenshots go."""

    def __init__(self, binary, root, cwd, screenshots, workdir):
        self.workdir = Path(workdir)
        self.data = self.workdir / "data"
        self.data.mkdir(parents=True, exist_ok=True)
        self.token = "browser-test-token"
        # A preset of filters alone, for `<focal-img preset>` (it changes no other URL).
        self.focal = Focal(binary, root, str(self.data), self.token, "browser-test-key",
                           str(self.workdir / "focal.log"), cwd, extra_args=["--preset", "grey=filters:grayscale()"])
        self.focal.start()
        self.proxy = Proxy(self.focal)
        self.screenshots = Path(screenshots)
        self.screenshots.mkdir(parents=True, exist_ok=True)

    @property
    def origin(self):
        """Where the browser goes: the proxy."""
        return self.proxy.origin

    def close(self):
        try:
            self.proxy.close()
        finally:
            self.focal.stop()
            shutil.rmtree(self.workdir, ignore_errors=True)


class UncachedPageCase(unittest.TestCase):
    """Tests with one headless Chromium of the class's viewport, its HTTP cache off: every load
    asks the server, so that the proxy's log counts what a first visit downloads."""
    width, height, dpr, mobile = 1000, 800, 1.0, False

    @classmethod
    def setUpClass(cls):
        cls.env = env
        cls.driver = make_driver(cls.width, cls.height, dpr=cls.dpr, mobile=cls.mobile)
        cls.driver.execute_cdp_cmd("Network.enable", {})
        cls.driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()


def make_driver(width=1280, height=900, dpr=1.0, dark=False, mobile=False):
    """Headless Chromium with a viewport of width × height CSS pixels at `dpr`."""
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--hide-scrollbars", "--no-first-run", "--disable-extensions",
                     f"--window-size={width},{height}", "--lang=en-US"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"))
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": dpr, "mobile": mobile})
    if mobile:
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    if dark:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
            "features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    driver.set_script_timeout(30)
    return driver


def wait(driver, condition, timeout=30, message=""):
    """Waits until `condition(driver)` is truthy; returns its value."""
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(condition, message)


def wait_js(driver, script, *args, timeout=30, message=""):
    """Waits until a JavaScript expression (`return ...`) is truthy; returns its value."""
    return wait(driver, lambda d: d.execute_script(script, *args), timeout, message or script)


def console_errors(driver, allow=()):
    """Severe console entries since the last call, except those containing a text in `allow`."""
    entries = driver.get_log("browser")
    return [e for e in entries if e["level"] == "SEVERE" and not any(text in e["message"] for text in allow)]


def simple_ratio(width, height):
    """The ratio p:q (lowest terms, each up to 32) closest to width:height among those within half
    a CSS pixel of the box, smaller terms first on a tie; None when none is that close."""
    import math
    best, best_error = None, math.inf
    for q in range(1, 33):
        for p in range(1, 33):
            if math.gcd(p, q) != 1:
                continue
            if abs(p * height / q - width) > 0.5 or abs(q * width / p - height) > 0.5:
                continue
            error = abs(p * height - q * width) / (q * height)
            if error < best_error - 1e-12 or (abs(error - best_error) <= 1e-12 and p + q < sum(best)):
                best, best_error = (p, q), error
    return best


def frame_size(width, height, dpr, step=16, limit=None, max_dpr=2):
    """The size <focal-img> requests for a box, computed here independently of the page: the
    closest simple ratio (terms up to 32, within half a CSS pixel) scaled to cover the box at
    min(dpr, max_dpr) (the element's max-dpr, default 2), its longer side moving in steps of about
    `step`, at most `limit` (w, h) when given; otherwise each side rounded up to the step."""
    import math
    dpr = min(dpr, max_dpr)
    tw, th = width * dpr - 1e-6, height * dpr - 1e-6
    ratio = simple_ratio(width, height)
    if ratio:
        p, q = ratio
        unit = math.ceil(step / max(p, q))
        k = unit * math.ceil(max(tw / p, th / q) / unit)
        k = min(k, 4096 // max(p, q))
        if limit:
            k = min(k, math.floor(min(limit[0] / p, limit[1] / q)))
        k = max(1, k)
        return k * p, k * q
    assert not limit, "only simple ratios here"
    return step * math.ceil(tw / step), step * math.ceil(th / step)
