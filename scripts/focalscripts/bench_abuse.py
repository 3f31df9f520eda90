"""`make bench-abuse`: `focal serve` under hostile load on loopback, with a well-behaved client beside it.

A benchmark, not a test: it prints figures and exits 0 unless the server could not start or
crashed (exited during an attack, or did not exit cleanly after SIGTERM). Every attack starts a
fresh `focal serve --root ROOT --allow-unsafe --allow-network 127.0.0.1` (plus the attack's own
flags, then FOCAL_SERVE_ARGS; `spellings` takes --key instead of --allow-unsafe) on a free
loopback port, warms the well-behaved client's URL (and what the attack asks for again and
again), runs the attack (bounded in count and time, stopping by itself), and measures:

  - the attack's requests or connections made, and their outcomes: the HTTP status answered, or
    `closed` (the server closed or reset the connection without an answer), `timeout`,
    `refused`, `open` (still held open by the server when the attacker let go), `connect-fail`;
  - the server's resident memory: VmRSS just before, its peak (VmRSS sampled every 50 ms, and
    VmHWM, the kernel's own peak since start), and VmRSS 5 s after the attack (Focal gives memory
    back about 2 s after a burst), and, when that is more than 10% above before, 15 s after too
    (not with --quick);
  - open connections at peak (focal_http_connections_open from /metrics, sampled every 250 ms;
    where /metrics cannot be asked, the server's open sockets counted in /proc/PID/fd);
  - the server's CPU use during the attack (utime + stime from /proc/PID/stat over wall time;
    100% is one core);
  - the well-behaved client: a separate process (so that the attacker's threads do not slow it)
    that GETs `/unsafe/200x200/smart/grace_hopper.jpg` (a cached crop) on a new connection each
    time, one request at a time with 50 ms between, timeout 15 s: its p50/p99/max latency of
    answered requests, and its errors (anything but a 200, including timeouts).

Attacks (full figures; --quick in brackets):

  url-flood     40 threads each POSTing `/v1/plan` (even threads) or GETting
                `/unsafe/meta/100x100/smart/<URL>` (odd threads), both naming a 36 MB PNG (an
                enlarged Fixtures/astronaut.png, built once into .cache/bench-abuse/www/) served
                by a Python http.server on loopback, again and again for 10 s [4 s].
  file-flood    100 threads each POSTing `/v1/plan` on files no request named before: copies of
                Fixtures/hubble_deep_field.jpg that differ by a few appended bytes, 600 [200]
                made in a root of this run's own (thread i takes files i, i+100, ...), until
                the files run out or 10 s [4 s] pass.
  stalled       1,000 [300] connections each sending a `/v1/plan` head with Content-Length
                1048576 (the JSON limit) and 1048575 bytes of body, then nothing for 15 s [6 s],
                then closing. Body memory (--body-memory, 128 MiB) is the bound under test.
  drip          300 connections each sending a `/v1/plan` head (Content-Length 4096) and then
                one body byte every 2 s for 40 s [10 s]; the server should close them once they
                are slower than 16 KiB/s after 5 s. Reports when (seconds after connecting).
  idle-fd       the server started with RLIMIT_NOFILE 512 (so its connection cap is 192), and 600
                idle connections (connect, send nothing) kept open for 25 s [12 s], each
                reconnected as soon as the server closes it (header timeout, 10 s). Reports
                whether the client is served, the server's CPU, and its log lines about the
                connection limit.
  unknown-id    16 threads GETting `/unsafe/100x100/id:<random 64 hex digits>` for 10 s [4 s]
                against a root of 2,000 tiny distinct JPEGs (photos/) and 20,000 other files
                (other/), built once into .cache/bench-abuse/ids-root/. Reports requests/s.
  sigterm       six concurrent PNG renders of Fixtures/astronaut.png (1700x1700 to 2800x2800,
                answers of about 4-12 MB) read by clients at 1 MiB/s [4 MiB/s] through a small
                receive buffer; SIGTERM to the server as soon as the first answer's head arrives
                (the well-behaved client stops there: refusals after SIGTERM are no figure).
                Reports, for each answer, whether its body length equals its Content-Length, and
                how long the process took to exit (it bounds shutdown at request + header + body
                timeouts + 5 s = 75 s by default).
  non-readers   `/unsafe/2048x2048/filters:format(png)/astronaut.png` (about 7.4 MB) warmed into
                the memory cache, then 300 [150] sockets (SO_RCVBUF 4096, set before connecting)
                each sending one GET for it and never reading, held 20 s [12 s: past the 10 s the
                server gives a reader that takes nothing]. Answers of one stored copy count
                once on --answer-memory. Reports GET /healthz probes made every 0.5 s on new
                connections during the attack (p50, max; the target is under 1 s, and RSS under
                800 MB) and the connections the server closed by the end: `closed` (the client saw
                EOF or RST) or `closed-unread` (the server's end is closed, per /proc/net/tcp, and
                its FIN waits behind bytes the client never read).
  answer-memory the server with --memory-cache 0 --answer-memory 64, and 40 [20] sockets (small
                receive buffer) asking one after another for PNGs of astronaut.png at 2048x2048,
                2047x2048, 2046x2048, ... (about 7.4 MB each, none shared), reading their heads
                and nothing more. Reports the statuses in order (200s, then 503
                `server.answers_full` once the answers held pass 64 MiB) and the peak of
                focal_http_answer_bytes. (Without the memory cache the well-behaved client's crop
                is made anew each time, in the queue behind the PNGs.)
  slow-readers-cap  the server started with RLIMIT_NOFILE 512 (connection cap 192), and 230 [200]
                sockets (small receive buffer) each asking for the warmed 2048x2048 PNG and
                reading 1 KiB a second, for 20 s [12 s]. /healthz probes as in non-readers, from
                the moment every request is sent: how long until one got in, and the
                evicted_stalled and answer_too_slow counts from /metrics; and the sockets closed
                before any answer although their GET went with the connection.
  tiff-tiles    a root of its own (.cache/bench-abuse/tiff-root/, built once with `vips`) holding
                a 10000x10000 grey deflate TIFF in 16x16 tiles (390,625 tiles: far past the 2 s
                decode estimate), and 4 threads GETting `/unsafe/400x400/tiny.tif` for 10 s [4 s].
                Reports the outcomes (422 `input.too_costly` expected), the server's CPU and the
                slowest refusal.
  database-down a throw-away PostgreSQL (focalscripts.cluster.Postgres) and
                `focal serve --database=URL` on a root of its own (.cache/bench-abuse/db-root/: the
                fixtures, which the warm-up plans, and fresh/, JPEG copies of them that nothing
                read before); one smart crop warmed; then PostgreSQL stopped, and 4 threads GET
                smart crops at sizes never asked before (`/unsafe/{w}x{h}/smart/<photo>`) for
                10 s [5 s], of fixtures and fresh photos in turn. Reports outcomes by status and
                X-Focal-Degraded, latencies, and /readyz (200 "degraded" expected). Skipped (not a
                failure) when PostgreSQL is not installed (Debian's postgresql package).
  database-frozen  as database-down, but every PostgreSQL process SIGSTOPped instead (SIGCONT
                afterwards, always); at the end SIGTERM to the server: seconds to exit (the bound
                is 35 s).
  spellings     a server with --key (signed URLs only), and 200 requests of non-canonical
                spellings of signed URLs of coffee.png, in turn: the signature's `=` written `%3D`,
                sizes zero-padded (`0300x0200`, signed as written), `format(auto):format(auto)`.
                Reports the outcomes (400 `request.not_canonical` expected) and
                focal_renders_total before and after (no new render expected).

The table is printed at the end and written, with every detail, to .cache/bench-abuse/results.json.
The server's log of each attack is kept in .cache/bench-abuse/logs/.

Options (`make bench-abuse BENCH_ABUSE_FLAGS="--quick --only drip,sigterm"`): --quick (every
attack shortened: a smoke run of a few minutes), --only NAME,... (some attacks, by the names above).
Environment: FOCAL_BIN (default .build/release/focal, else .build/debug/focal), FOCAL_SERVE_ARGS
(extra `focal serve` flags, e.g. "--memory-budget 256").
"""
import argparse
import asyncio
import base64
import collections
import hashlib
import hmac
import http.client
import json
import os
import pwd
import random
import resource
import secrets
import select
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from . import images, paths, processes
from .cli import cores, percentile, prog, sayer
from .cluster import Postgres, postgres_tool
from .processes import cpu_seconds, log_lines, open_sockets, status_kib
from .servers import FocalServer, Server, focal_serve_support
from .web import get, metric_by, metric_sum, sign, signed

WORK = os.path.join(paths.CACHE, "bench-abuse")
FIXTURES = paths.FIXTURES
CLIENT_PATH = "/unsafe/200x200/smart/grace_hopper.jpg"
BIG_SCALE = 6.8  # 512x512 astronaut -> 3482x3482, 36 MB as an uncompressed PNG
BIG_RECIPE = f"astronaut.png resize {BIG_SCALE}, png compression 0"
IDS_PHOTOS, IDS_OTHERS = 2000, 20000
IDS_RECIPE = f"{IDS_PHOTOS} tiny jpegs in photos/, {IDS_OTHERS} text files in other/"
RENDER_SIDES = [1700, 1900, 2100, 2300, 2500, 2800]
BIG_ANSWER = "/unsafe/2048x2048/filters:format(png)/astronaut.png"  # about 7.4 MB
TIFF_RECIPE = "10000x10000 black, tiffsave --tile 16x16 --compression deflate"
DB_RECIPE = "Fixtures photos, and fresh/: each as a JPEG (Q=90)"
DATABASE_ATTACKS = ("database-down", "database-frozen")
CAPPED_ATTACKS = ("idle-fd", "slow-readers-cap")  # RLIMIT_NOFILE 512: /metrics is not asked during them
SHUTDOWN_BOUND_S = 35  # --request-timeout 30 + 5
# Flags of the attacks that need a server of their own kind (before FOCAL_SERVE_ARGS).
SERVE_FLAGS = {"answer-memory": ["--memory-cache", "0", "--answer-memory", "64"]}
ATTACKS = ["url-flood", "file-flood", "stalled", "drip", "idle-fd", "unknown-id", "sigterm",
           "non-readers", "answer-memory", "slow-readers-cap", "tiff-tiles", "database-down", "database-frozen",
           "spellings"]


say = sayer("bench-abuse")


def raise_nofile(wanted):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard == resource.RLIM_INFINITY else min(hard, max(soft, wanted))
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# The well-behaved client (a process of its own) ---------------------------------------------------

def well_behaved(port, path):
    """Runs until standard input closes; prints {latencies_ms, statuses, errors} as JSON."""
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    latencies, statuses, errors = [], collections.Counter(), collections.Counter()
    while not stop.is_set():
        started = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            statuses[str(response.status)] += 1
            if response.status == 200:
                latencies.append((time.monotonic() - started) * 1000)
            else:
                errors[str(response.status)] += 1
        except Exception as error:  # noqa: BLE001 - every failure is a figure here
            errors[outcome_of(error)] += 1
        finally:
            conn.close()
        stop.wait(0.05)
    json.dump({"latencies_ms": latencies, "statuses": statuses, "errors": errors}, sys.stdout)


class Client:
    """The well-behaved client, started and stopped around an attack."""

    def __init__(self, port, path=CLIENT_PATH):
        self.process = subprocess.Popen(
            processes.module_command("bench_abuse", "--well-behaved", port, path), env=processes.module_env(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def stop(self):
        out, _ = self.process.communicate(timeout=60)
        data = json.loads(out)
        lat = data["latencies_ms"]
        return {"requests": len(lat) + sum(data["errors"].values()), "ok": len(lat),
                "errors": sum(data["errors"].values()), "error_kinds": data["errors"],
                "p50_ms": percentile(lat, 50), "p99_ms": percentile(lat, 99),
                "max_ms": max(lat) if lat else None}


# Watching the server ------------------------------------------------------------------------------

def metrics(server, timeout=1.0):
    """The server's /metrics (web.parse_metrics), or None when it does not answer 200."""
    try:
        return server.metrics(timeout=timeout)
    except (OSError, http.client.HTTPException, RuntimeError):
        return None


class Monitor:
    """Samples the server's VmRSS every 50 ms, and /metrics and its open sockets every 250 ms."""

    GAUGES = ("focal_http_connections_open", "focal_http_body_bytes", "focal_jobs_memory_bytes",
              "focal_http_answer_bytes")

    def __init__(self, server, use_metrics=True):
        self.server, self.pid, self.use_metrics = server, server.pid, use_metrics
        self.stop_event = threading.Event()
        self.peak_rss = self.peak_hwm = self.peak_sockets = 0
        self.peaks = {g: 0.0 for g in self.GAUGES}
        self.metrics_answers = 0
        self.cpu_start, self.t_start = cpu_seconds(self.pid), time.monotonic()
        self.last_cpu = self.cpu_start
        self.threads = [threading.Thread(target=self._memory, daemon=True),
                        threading.Thread(target=self._slow, daemon=True)]
        for t in self.threads:
            t.start()

    def _memory(self):
        while not self.stop_event.is_set():
            self.last_cpu = cpu_seconds(self.pid) or self.last_cpu
            self.peak_rss = max(self.peak_rss, status_kib(self.pid, "VmRSS"))
            self.peak_hwm = max(self.peak_hwm, status_kib(self.pid, "VmHWM"))
            self.stop_event.wait(0.05)

    def _slow(self):
        while not self.stop_event.is_set():
            self.peak_sockets = max(self.peak_sockets, open_sockets(self.pid))
            if self.use_metrics:
                values = metrics(self.server)
                if values:
                    self.metrics_answers += 1
                    for g in self.GAUGES:
                        self.peaks[g] = max(self.peaks[g], metric_sum(values, g))
            self.stop_event.wait(0.25)

    def stop(self):
        cpu, wall = cpu_seconds(self.pid) or self.last_cpu, time.monotonic() - self.t_start
        self.stop_event.set()
        for t in self.threads:
            t.join()
        result = {
            "peak_rss_mib": self.peak_rss / 1024, "hwm_mib": self.peak_hwm / 1024,
            "peak_sockets": self.peak_sockets, "cpu_percent": 100 * (cpu - self.cpu_start) / wall if wall else 0,
            "seconds": wall,
        }
        if self.metrics_answers:
            result["peak_connections"] = self.peaks["focal_http_connections_open"]
            result["peak_body_mib"] = self.peaks["focal_http_body_bytes"] / 2**20
            result["peak_jobs_memory_mib"] = self.peaks["focal_jobs_memory_bytes"] / 2**20
            result["peak_answer_mib"] = self.peaks["focal_http_answer_bytes"] / 2**20
        return result


# Plain HTTP from attacker threads -----------------------------------------------------------------

def outcome_of(error):
    if isinstance(error, (socket.timeout, TimeoutError, asyncio.TimeoutError)):
        return "timeout"
    if isinstance(error, ConnectionRefusedError):
        return "refused"
    return "closed"


def request(port, method, path, body=None, timeout=60):
    """The status of one request on a new connection, or an outcome word for a failure."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        return str(response.status)
    except Exception as error:  # noqa: BLE001
        return outcome_of(error)
    finally:
        conn.close()


def flood(threads, job, deadline):
    """Runs job(thread index, round) -> outcome in `threads` threads until the deadline or a job
    returns None; a Counter of outcomes."""
    outcomes, lock = collections.Counter(), threading.Lock()

    def worker(i):
        n = 0
        while time.monotonic() < deadline:
            result = job(i, n)
            if result is None:
                return
            with lock:
                outcomes[result] += 1
            n += 1

    pool = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return outcomes


def fetch(port, path, timeout=30, headers=None):
    """One GET on a new connection: (status or an outcome word, seconds, lower-case headers, body)."""
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        body = response.read()
        return (str(response.status), time.monotonic() - started,
                {k.lower(): v for k, v in response.getheaders()}, body)
    except Exception as error:  # noqa: BLE001
        return outcome_of(error), time.monotonic() - started, {}, b""
    finally:
        conn.close()


def with_code(status, headers):
    """`503 server.answers_full`: a status with the server's error code, when it sent one."""
    code = headers.get("x-focal-error")
    return f"{status} {code}" if code else status


def request_signature(key, method, path, body):
    """Focal's request signature (docs/http-api.md): HMAC-SHA256 of `METHOD path\nhex(SHA-256(body))`, URL-safe
    base64 without padding, for the JSON API of a signed-only server."""
    digest = hashlib.sha256(body).hexdigest()
    mac = hmac.new(key.encode(), f"{method} {path}\n{digest}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def latency_text(seconds):
    """`p50 12 ms, max 340 ms` of a list of durations in seconds."""
    if not seconds:
        return "none answered"
    return f"p50 {percentile(seconds, 50) * 1000:.0f} ms, max {max(seconds) * 1000:.0f} ms"


def runs(values):
    """`9x200, 11x503 server.answers_full`: a sequence as runs of equal values."""
    out = []
    for value in values:
        if out and out[-1][0] == value:
            out[-1][1] += 1
        else:
            out.append([value, 1])
    return ", ".join(f"{n}x{v}" for v, n in out)


class Probe:
    """GETs `path` (/healthz) on a new connection every `every` seconds, one at a time, in a thread
    of its own, until stop(): latencies, failures, and when the first 200 came."""

    def __init__(self, port, path="/healthz", every=0.5, timeout=15):
        self.port, self.path, self.every, self.timeout = port, path, every, timeout
        self.records = []  # (started, seconds, outcome), times from self.started
        self.inflight = None
        self.stop_event = threading.Event()
        self.started = time.monotonic()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop_event.is_set():
            begun = time.monotonic()
            self.inflight = begun
            outcome = fetch(self.port, self.path, timeout=self.timeout)[0]
            took = time.monotonic() - begun
            self.inflight = None
            self.records.append((begun - self.started, took, outcome))
            self.stop_event.wait(max(0.0, self.every - took))

    def stop(self):
        """{probes, ok, p50_ms, max_ms (of the 200s), failures, first_ok_after_s, waiting_s, slow: [(started
        s after the probe began, ms)] of those over 500 ms}."""
        self.stop_event.set()
        self.thread.join(2)
        records, inflight = list(self.records), self.inflight
        ok = [took for _, took, outcome in records if outcome == "200"]
        failures = collections.Counter(outcome for _, _, outcome in records if outcome != "200")
        first = next((start + took for start, took, outcome in records if outcome == "200"), None)
        waiting = time.monotonic() - inflight if inflight is not None and self.thread.is_alive() else None
        return {"probes": len(records), "ok": len(ok), "p50_ms": percentile([t * 1000 for t in ok], 50),
                "max_ms": max(ok) * 1000 if ok else None, "failures": dict(failures),
                "first_ok_after_s": first, "waiting_s": waiting,
                "slow": [(round(start, 1), round(took * 1000)) for start, took, _ in records if took > 0.5]}


def probe_text(probe):
    text = (f"/healthz every 0.5 s on new connections: {probe['probes']} probes, {probe['ok']} answered 200, "
            f"p50 {fmt(probe['p50_ms'])} ms, max {fmt(probe['max_ms'])} ms")
    if probe["failures"]:
        text += f", failures {probe['failures']}"
    if probe["waiting_s"] is not None:
        text += f", one still waiting after {probe['waiting_s']:.1f} s"
    if probe["slow"]:
        text += "; over 500 ms (s after the probes began: ms): " + ", ".join(f"{s}: {ms}" for s, ms in probe["slow"])
    return text


# Raw sockets that read little or nothing ----------------------------------------------------------

TCP_ESTABLISHED, TCP_CLOSE, TCP_CLOSE_WAIT = 1, 7, 8


def open_get(port, path, rcvbuf=4096, timeout=5):
    """A socket with a small receive buffer (set before connecting, so that the window stays small)
    that has sent one GET of `path`: (socket, None), or (None, outcome word) when it failed."""
    sock = socket.socket()
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.settimeout(timeout)
        sock.connect(("127.0.0.1", port))
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        return sock, None
    except OSError as error:
        sock.close()
        return None, "connect-fail" if outcome_of(error) != "refused" else "refused"


def parse_head(data):
    """(status, lower-case headers) of the start of an HTTP answer (status None if it has no
    status line yet)."""
    lines = data.split(b"\r\n\r\n", 1)[0].decode(errors="replace").split("\r\n")
    parts = lines[0].split()
    status = parts[1] if len(parts) > 1 and lines[0].startswith("HTTP/") else None
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers


def server_side_states(port):
    """{client port: TCP state} of the server's end of each loopback connection to `port`, from
    /proc/net/tcp (a connection whose server end is gone altogether is absent)."""
    states = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) < 4:
                continue
            local, remote, state = fields[1], fields[2], int(fields[3], 16)
            if int(local.rsplit(":", 1)[1], 16) == port and state != 10:  # 10: the listening socket
                states[int(remote.rsplit(":", 1)[1], 16)] = state
    return states


def connection_state(sock, server_states):
    """`closed` when the client has seen the server's EOF or RST, `closed-unread` when the server's
    end is closed but its FIN waits behind bytes this client never read, else `open`."""
    try:
        error = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        state = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]
        local_port = sock.getsockname()[1]
    except OSError:
        return "closed"
    if error or state in (TCP_CLOSE, TCP_CLOSE_WAIT):
        return "closed"
    return "open" if server_states.get(local_port) == TCP_ESTABLISHED else "closed-unread"


# Raw connections (asyncio) ------------------------------------------------------------------------

def post_head(port, length, path="/v1/plan"):
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()


async def read_answer(reader):
    """(status or 'closed', monotonic time) once the server answers or closes."""
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = await reader.read(4096)
            if not chunk:
                return "closed", time.monotonic()
            data += chunk
    except OSError:
        return "closed", time.monotonic()
    parts = data.split(b"\r\n", 1)[0].split()
    return (parts[1].decode() if len(parts) > 1 else "closed"), time.monotonic()


async def connect(port, timeout):
    return await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)


async def stalled_connection(port, hold, sem):
    """Head with Content-Length 1 MiB, all but one byte of body, `hold` seconds, close."""
    length = 1 << 20
    async with sem:
        try:
            reader, writer = await connect(port, 10)
        except (OSError, asyncio.TimeoutError) as error:
            return {"outcome": "connect-fail" if outcome_of(error) != "refused" else "refused"}
    answer = asyncio.ensure_future(read_answer(reader))
    chunk = b" " * 65536
    sent = 0
    try:
        writer.write(post_head(port, length))
        while sent < length - 1 and not answer.done():
            n = min(len(chunk), length - 1 - sent)
            writer.write(chunk[:n])
            await writer.drain()
            sent += n
    except OSError:
        pass
    try:
        outcome, _ = await asyncio.wait_for(asyncio.shield(answer), hold)
    except asyncio.TimeoutError:
        outcome = "open"
    answer.cancel()
    writer.close()
    return {"outcome": outcome, "sent": sent}


async def drip_connection(port, seconds, sem):
    """Head (Content-Length 4096), then one body byte every 2 s for `seconds`."""
    async with sem:
        try:
            reader, writer = await connect(port, 10)
        except (OSError, asyncio.TimeoutError) as error:
            return {"outcome": "connect-fail" if outcome_of(error) != "refused" else "refused"}
    opened = time.monotonic()
    answer = asyncio.ensure_future(read_answer(reader))
    deadline = opened + seconds
    sent = 0
    try:
        writer.write(post_head(port, 4096))
        while time.monotonic() < deadline and not answer.done():
            writer.write(b" ")
            await writer.drain()
            sent += 1
            await asyncio.wait([answer], timeout=min(2.0, max(0.0, deadline - time.monotonic())))
    except OSError:
        pass
    if answer.done():
        outcome, when = answer.result()
        result = {"outcome": outcome, "closed_after": when - opened, "sent": sent}
    else:
        result = {"outcome": "open", "sent": sent}
    answer.cancel()
    writer.close()
    return result


async def idle_slot(port, deadline, log):
    """Keeps one idle connection open until the deadline, reconnecting when the server closes it."""
    while time.monotonic() < deadline:
        try:
            reader, writer = await connect(port, min(3.0, max(0.1, deadline - time.monotonic())))
        except (OSError, asyncio.TimeoutError) as error:
            log.append("refused" if outcome_of(error) == "refused" else "connect-fail")
            await asyncio.sleep(0.2)
            continue
        opened = time.monotonic()
        try:
            outcome, when = await asyncio.wait_for(read_answer(reader), max(0.0, deadline - time.monotonic()))
            log.append(outcome)
            log.append(("closed_after", when - opened))
        except asyncio.TimeoutError:
            log.append("open")
        writer.close()


# Inputs -------------------------------------------------------------------------------------------

def big_png():
    """.cache/bench-abuse/www/big.png, an enlarged astronaut.png saved uncompressed (built once)."""
    folder = os.path.join(WORK, "www")
    path, stamp = os.path.join(folder, "big.png"), os.path.join(folder, "recipe.txt")
    if os.path.exists(path) and os.path.exists(stamp) and open(stamp).read() == BIG_RECIPE:
        return path
    if not shutil.which("vips"):
        sys.exit("bench-abuse: vips is needed to make the large PNG (apt-get install libvips-tools)")
    os.makedirs(folder, exist_ok=True)
    say(f"making {paths.shown(path)} (once)")
    tmp = os.path.join(folder, "big.v")
    images.vips("resize", os.path.join(FIXTURES, "astronaut.png"), tmp, BIG_SCALE)
    images.vips("pngsave", tmp, path + ".part.png", "--compression", 0)
    os.remove(tmp)
    os.replace(path + ".part.png", path)
    with open(stamp, "w") as f:
        f.write(BIG_RECIPE)
    return path


def ids_root():
    """A root of 2,000 tiny distinct JPEGs and 20,000 other files (built once)."""
    folder = os.path.join(WORK, "ids-root")
    stamp = os.path.join(folder, "recipe.txt")
    if os.path.exists(stamp) and open(stamp).read() == IDS_RECIPE:
        return folder
    say(f"making {paths.shown(folder)}/ (once)")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, "photos"))
    os.makedirs(os.path.join(folder, "other"))
    shutil.copy(os.path.join(FIXTURES, "grace_hopper.jpg"), folder)
    tiny = os.path.join(folder, "tiny.jpg")
    images.vips("thumbnail", os.path.join(FIXTURES, "grace_hopper.jpg"), tiny + "[Q=80,strip]", 48)
    with open(tiny, "rb") as f:
        data = f.read()
    os.remove(tiny)
    for i in range(IDS_PHOTOS):
        with open(os.path.join(folder, "photos", f"p{i:05}.jpg"), "wb") as f:
            f.write(data + f"bench-abuse {i}".encode())
    for i in range(IDS_OTHERS):
        with open(os.path.join(folder, "other", f"note{i:05}.txt"), "w") as f:
            f.write(f"not a photo {i}\n")
    with open(stamp, "w") as f:
        f.write(IDS_RECIPE)
    return folder


def copies_root(run_dir, count):
    """A root holding grace_hopper.jpg and `count` distinct copies of hubble_deep_field.jpg."""
    folder = os.path.join(run_dir, "copies-root")
    os.makedirs(os.path.join(folder, "copies"))
    shutil.copy(os.path.join(FIXTURES, "grace_hopper.jpg"), folder)
    with open(os.path.join(FIXTURES, "hubble_deep_field.jpg"), "rb") as f:
        data = f.read()
    names = []
    for i in range(count):
        name = f"copies/c{i:05}.jpg"
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data + f"bench-abuse copy {i}".encode())
        names.append(name)
    return folder, names


def tiff_root():
    """.cache/bench-abuse/tiff-root/: tiny.tif, 10000x10000 grey in 16x16 deflate tiles, and
    grace_hopper.jpg for the well-behaved client (built once)."""
    folder = os.path.join(WORK, "tiff-root")
    stamp = os.path.join(folder, "recipe.txt")
    if os.path.exists(stamp) and open(stamp).read() == TIFF_RECIPE:
        return folder
    if not shutil.which("vips"):
        sys.exit("bench-abuse: vips is needed to make the tiled TIFF (apt-get install libvips-tools)")
    say(f"making {paths.shown(folder)}/tiny.tif (once)")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    shutil.copy(os.path.join(FIXTURES, "grace_hopper.jpg"), folder)
    images.vips("black", "tiny.v", 10000, 10000, cwd=folder)
    images.vips("tiffsave", "tiny.v", "tiny.part.tif", "--tile", "--tile-width", 16, "--tile-height", 16,
                "--compression", "deflate", cwd=folder)
    os.remove(os.path.join(folder, "tiny.v"))
    os.replace(os.path.join(folder, "tiny.part.tif"), os.path.join(folder, "tiny.tif"))
    with open(stamp, "w") as f:
        f.write(TIFF_RECIPE)
    return folder


def fixture_photos():
    return sorted(f for f in os.listdir(FIXTURES) if f.endswith((".jpg", ".png")))


def db_root():
    """.cache/bench-abuse/db-root/: the fixtures' photos (the warm-up plans them, so their saved
    crops are known before the database goes away) and fresh/, a JPEG of each that nothing reads
    before the attack (built once)."""
    folder = os.path.join(WORK, "db-root")
    stamp = os.path.join(folder, "recipe.txt")
    if os.path.exists(stamp) and open(stamp).read() == DB_RECIPE:
        return folder
    say(f"making {paths.shown(folder)}/ (once)")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, "fresh"))
    for photo in fixture_photos():
        shutil.copy(os.path.join(FIXTURES, photo), folder)
        stem = os.path.splitext(photo)[0]
        images.vips("copy", os.path.join(FIXTURES, photo), os.path.join(folder, "fresh", stem + ".jpg[Q=90]"))
    with open(stamp, "w") as f:
        f.write(DB_RECIPE)
    return folder


def postgres_missing():
    """Why a PostgreSQL server cannot be started here, or None."""
    try:
        for tool in ("initdb", "postgres", "pg_isready", "createdb", "pg_ctl"):
            postgres_tool(tool)
    except RuntimeError as error:
        return str(error)
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "as root PostgreSQL runs as the user postgres, which does not exist (Debian's postgresql package)"
    return None


class SourceServer(Server):
    """python3 -m http.server on loopback serving a folder."""

    name = "http.server"

    def __init__(self, folder, workdir):
        super().__init__(workdir=workdir)
        self.folder = folder

    def command(self):
        return [sys.executable, "-m", "http.server", str(self.port), "--bind", "127.0.0.1", "--directory", self.folder]


class LimitedFocal(FocalServer):
    """`focal serve` started with RLIMIT_NOFILE set to `nofile` (soft and hard)."""

    def __init__(self, *args, nofile=512, **kwargs):
        super().__init__(*args, **kwargs)
        self.nofile = nofile

    def command(self):
        setter = ("import os, resource, sys; n = int(sys.argv[1]); "
                  "resource.setrlimit(resource.RLIMIT_NOFILE, (n, n)); os.execv(sys.argv[2], sys.argv[2:])")
        return [sys.executable, "-c", setter, str(self.nofile)] + super().command()


class PostgresFocal(FocalServer):
    """`focal serve --database=URL` with a throw-away PostgreSQL of its own (cluster.Postgres, in a
    temporary folder: world-readable, since as root PostgreSQL runs as the user postgres), started
    before it and stopped after it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.postgres = None
        self.pg_folder = None
        self.frozen = []

    def start(self, timeout=120):
        self.pg_folder = tempfile.mkdtemp(prefix="focal-bench-abuse-pg-")
        os.chmod(self.pg_folder, 0o755)
        self.postgres = Postgres(self.pg_folder)  # stop() stops whatever of it started
        try:
            self.postgres.start()
        except (OSError, RuntimeError, subprocess.SubprocessError) as error:
            raise RuntimeError(f"PostgreSQL did not start: {error}") from None
        # Joined with "=": the URL is one argument whatever it holds.
        self.extra_args.append(f"--database={self.postgres.url}")
        return super().start(timeout)

    def freeze(self):
        """SIGSTOP to every PostgreSQL process (the postmaster and its children); their pids."""
        pids = processes.process_tree(self.postgres.process.pid)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGSTOP)
                self.frozen.append(pid)
            except ProcessLookupError:
                pass
        return pids

    def thaw(self):
        """SIGCONT to every process freeze() stopped."""
        for pid in self.frozen:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        self.frozen = []

    def stop(self, grace=15):
        try:
            super().stop(grace)
        finally:
            self.thaw()
            if self.postgres:
                self.postgres.stop()
            if self.pg_folder:
                shutil.rmtree(self.pg_folder, ignore_errors=True)


# The attacks --------------------------------------------------------------------------------------
# Each takes the context (server, options, ...) and returns {made, outcomes, notes, ...}.

def attack_url_flood(ctx):
    url = f"http://127.0.0.1:{ctx.source.port}/big.png"
    body = json.dumps({"source": {"url": url}, "frames": [{"aspect": "1:1"}]})
    meta = "/unsafe/meta/100x100/smart/" + urllib.parse.quote(url, safe="")
    seconds = 4 if ctx.quick else 10
    port = ctx.server.port
    by_route = {"plan": collections.Counter(), "meta": collections.Counter()}
    lock = threading.Lock()

    def job(i, n):
        route = "plan" if i % 2 == 0 else "meta"
        result = request(port, "POST", "/v1/plan", body) if route == "plan" else request(port, "GET", meta)
        with lock:
            by_route[route][result] += 1
        return result

    outcomes = flood(40, job, time.monotonic() + seconds)
    return {"made": sum(outcomes.values()), "outcomes": outcomes, "by_route": by_route,
            "notes": [f"40 threads for {seconds} s; plan {dict(by_route['plan'])}, meta {dict(by_route['meta'])}"]}


def attack_file_flood(ctx):
    names = ctx.copy_names
    seconds = 4 if ctx.quick else 10
    port = ctx.server.port
    waves = len(names) // 100

    def job(i, n):
        if n >= waves:
            return None
        body = json.dumps({"source": {"path": names[n * 100 + i]}, "frames": [{"aspect": "1:1"}]})
        return request(port, "POST", "/v1/plan", body)

    started = time.monotonic()
    outcomes = flood(100, job, started + seconds)
    return {"made": sum(outcomes.values()), "outcomes": outcomes,
            "notes": [f"100 threads, {len(names)} distinct files, {time.monotonic() - started:.1f} s"]}


def attack_stalled(ctx):
    count, hold = (300, 6) if ctx.quick else (1000, 15)

    async def run():
        sem = asyncio.Semaphore(200)  # connects at once, so that the listen backlog does not overflow
        return await asyncio.gather(*(stalled_connection(ctx.server.port, hold, sem) for _ in range(count)))

    results = asyncio.run(run())
    outcomes = collections.Counter(r["outcome"] for r in results)
    full = sum(1 for r in results if r.get("sent") == (1 << 20) - 1)
    return {"made": count, "outcomes": outcomes,
            "notes": [f"{count} connections, held {hold} s; {full} sent all 1048575 bytes"]}


def attack_drip(ctx):
    count, seconds = (300, 10) if ctx.quick else (300, 40)

    async def run():
        sem = asyncio.Semaphore(200)
        return await asyncio.gather(*(drip_connection(ctx.server.port, seconds, sem) for _ in range(count)))

    results = asyncio.run(run())
    outcomes = collections.Counter(r["outcome"] for r in results)
    closed = sorted(r["closed_after"] for r in results if "closed_after" in r)
    note = f"{count} connections for {seconds} s, 1 byte / 2 s; "
    if closed:
        note += (f"{len(closed)} closed by the server after {closed[0]:.1f}-{closed[-1]:.1f} s "
                 f"(median {percentile(closed, 50):.1f} s)")
    else:
        note += "none closed by the server"
    return {"made": count, "outcomes": outcomes, "closed_after_s": closed, "notes": [note]}


def attack_idle_fd(ctx):
    count, seconds = (600, 12) if ctx.quick else (600, 25)
    log = []

    async def run():
        deadline = time.monotonic() + seconds
        await asyncio.gather(*(idle_slot(ctx.server.port, deadline, log) for _ in range(count)))

    asyncio.run(run())
    outcomes = collections.Counter(x for x in log if isinstance(x, str))
    closed = sorted(x[1] for x in log if isinstance(x, tuple))
    made = sum(n for k, n in outcomes.items() if k not in ("connect-fail", "refused"))
    notes = [f"{count} idle slots for {seconds} s under RLIMIT_NOFILE 512; {made} connections made"
             + (f", closed by the server after {closed[0]:.1f}-{closed[-1]:.1f} s" if closed else "")]
    return {"made": made, "outcomes": outcomes, "notes": notes, "closed_after_s": closed}


def attack_unknown_id(ctx):
    seconds = 4 if ctx.quick else 10
    port = ctx.server.port

    def job(i, n):
        return request(port, "GET", f"/unsafe/100x100/id:{random.getrandbits(256):064x}", timeout=15)

    started = time.monotonic()
    outcomes = flood(16, job, started + seconds)
    elapsed = time.monotonic() - started
    rate = sum(outcomes.values()) / elapsed
    return {"made": sum(outcomes.values()), "outcomes": outcomes, "requests_per_second": rate,
            "notes": [f"16 threads for {elapsed:.1f} s: {rate:.0f} requests/s (one Python process: "
                      f"the attacker may be the limit)"]}


def slow_reader(port, side, rate, record, head_event, stop_at):
    """GETs a PNG render and reads it at `rate` bytes/s through a small receive buffer."""
    path = f"/unsafe/{side}x{side}/filters:format(png)/astronaut.png"
    record.update(side=side, status=None, content_length=None, body=0, end="?")
    started = time.monotonic()
    sock = socket.socket()
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32768)
        sock.settimeout(30)
        sock.connect(("127.0.0.1", port))
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(16384)
            if not chunk:
                record["end"] = "closed before the head"
                return
            data += chunk
        head, rest = data.split(b"\r\n\r\n", 1)
        record["head_after"] = time.monotonic() - started
        head_event.set()
        lines = head.decode(errors="replace").split("\r\n")
        record["status"] = int(lines[0].split()[1])
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                record["content_length"] = int(value.strip())
        body = len(rest)
        step = 16384
        begun = time.monotonic()
        while time.monotonic() < stop_at:
            try:
                chunk = sock.recv(step)
            except OSError as error:
                record["end"] = outcome_of(error)
                break
            if not chunk:
                record["end"] = "eof"
                break
            body += len(chunk)
            ahead = body / rate - (time.monotonic() - begun)
            if ahead > 0:
                time.sleep(ahead)
        else:
            record["end"] = "gave up"
        record["body"] = body
        record["done_after"] = time.monotonic() - started
    except OSError as error:
        record["end"] = outcome_of(error)
    finally:
        sock.close()


def attack_sigterm(ctx):
    rate = (4 if ctx.quick else 1) * 2**20
    head_event = threading.Event()
    stop_at = time.monotonic() + 150
    records = [{} for _ in RENDER_SIDES]
    threads = [threading.Thread(target=slow_reader, args=(ctx.server.port, side, rate, rec, head_event, stop_at),
                                daemon=True) for side, rec in zip(RENDER_SIDES, records)]
    for t in threads:
        t.start()
    head_event.wait(60)
    ctx.client_result = ctx.client.stop()  # what it sees after SIGTERM (refused) is no figure
    process = ctx.server.process.popen
    signalled = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=120)
        exit_after = time.monotonic() - signalled
    except subprocess.TimeoutExpired:
        exit_after = None
    for t in threads:
        t.join(max(0, stop_at - time.monotonic()))
    outcomes = collections.Counter()
    notes = [f"SIGTERM {0 if not records else min((r.get('head_after', 99) for r in records)):.2f} s after "
             f"the requests; the process exited "
             + (f"{exit_after:.1f} s later with status {process.returncode}" if exit_after is not None
                else "not at all within 120 s")]
    for r in records:
        whole = r.get("status") == 200 and r.get("content_length") == r.get("body")
        key = "complete" if whole else (f"{r['status']}" if r.get("status") not in (None, 200) else "cut short")
        outcomes[key] += 1
        notes.append(f"  {r['side']}x{r['side']}: status {r.get('status')}, Content-Length "
                     f"{r.get('content_length')}, body {r.get('body')} bytes ({r.get('end')}"
                     + (f" after {r['done_after']:.1f} s" if 'done_after' in r else "") + ")"
                     + ("" if whole else "  <-- NOT COMPLETE"))
    return {"made": len(records), "outcomes": outcomes, "exit_after_s": exit_after,
            "exit_status": process.returncode, "responses": records, "notes": notes, "signalled": True}


def attack_non_readers(ctx):
    count, hold = (150, 12) if ctx.quick else (300, 20)
    port = ctx.server.port
    probe = Probe(port)
    socks, outcomes = [], collections.Counter()
    for _ in range(count):
        sock, failure = open_get(port, BIG_ANSWER)
        if sock:
            socks.append(sock)
        else:
            outcomes[failure] += 1
    sent = time.monotonic()
    time.sleep(hold)
    server_states = server_side_states(port)
    states = [connection_state(sock, server_states) for sock in socks]
    held = time.monotonic() - sent
    probed = probe.stop()
    for sock in socks:
        sock.close()
    outcomes.update(states)
    closed = outcomes["closed"] + outcomes["closed-unread"]
    notes = [f"{count} sockets (SO_RCVBUF 4096) each asking {BIG_ANSWER} and reading nothing, held {held:.0f} s; "
             f"closed by the server by the end: {closed} ({outcomes['closed']} seen by the client as EOF/RST, "
             f"{outcomes['closed-unread']} with only the server's end closed, its FIN behind unread bytes), "
             f"{outcomes['open']} still open",
             probe_text(probed)]
    return {"made": count, "outcomes": outcomes, "probe": probed, "notes": notes}


def attack_answer_memory(ctx):
    count, wait = (20, 45) if ctx.quick else (40, 90)
    port = ctx.server.port
    records = []
    for i in range(count):
        width = 2048 - i
        sock, failure = open_get(port, f"/unsafe/{width}x2048/filters:format(png)/astronaut.png")
        records.append({"width": width, "sock": sock, "outcome": failure, "data": b"", "sent": time.monotonic()})
        time.sleep(0.02)
    pending = [r for r in records if r["sock"]]
    for r in pending:
        r["sock"].setblocking(False)
    deadline = time.monotonic() + wait
    while pending and time.monotonic() < deadline:
        ready, _, _ = select.select([r["sock"] for r in pending], [], [], 0.5)
        for r in [r for r in pending if r["sock"] in ready]:
            try:
                chunk = r["sock"].recv(4096)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                r["outcome"] = "closed"
                pending.remove(r)
                continue
            r["data"] += chunk
            if b"\r\n\r\n" in r["data"]:  # the head: read no more of this answer
                status, headers = parse_head(r["data"])
                r["outcome"] = with_code(status or "closed", headers)
                r["head_after"] = time.monotonic() - r["sent"]
                pending.remove(r)
    for r in pending:
        r["outcome"] = "timeout"
    for r in records:
        if r["sock"]:
            r["sock"].close()
    outcomes = collections.Counter(r["outcome"] for r in records)
    refused = [r["width"] for r in records if r["outcome"].startswith("503")]
    heads = [r["head_after"] for r in records if "head_after" in r]
    notes = [f"{count} sockets asking PNGs of {records[0]['width']}x2048 down to {records[-1]['width']}x2048, "
             f"reading only their heads; in order: {runs(r['outcome'] for r in records)}"
             + (f"; first 503 at width {refused[0]}" if refused else "; no answer refused")
             + (f"; heads within {max(heads):.1f} s" if heads else "")]
    responses = [{k: v for k, v in r.items() if k not in ("sock", "data")} for r in records]
    return {"made": count, "outcomes": outcomes, "responses": responses, "notes": notes}


def attack_slow_readers_cap(ctx):
    count, seconds = (200, 12) if ctx.quick else (230, 20)
    port = ctx.server.port
    readers = []
    for _ in range(count):
        sock, failure = open_get(port, BIG_ANSWER, timeout=3)
        readers.append({"sock": sock, "outcome": failure, "data": b"", "status": None, "body": 0,
                        "opened": time.monotonic()})
        if sock:
            sock.setblocking(False)
    sent = time.monotonic()
    probe = Probe(port)  # from the moment the cap is full
    deadline = sent + seconds
    while time.monotonic() < deadline:
        tick = time.monotonic()
        for r in readers:
            if r["sock"] is None or "end" in r:
                continue
            try:
                chunk = r["sock"].recv(1024)
            except BlockingIOError:
                continue
            except OSError:
                chunk = None
            if not chunk:
                r["end"] = "reset" if chunk is None else "eof"
                r["closed_after"] = time.monotonic() - r["opened"]
                continue
            r["body"] += len(chunk)
            if r["status"] is None:
                r["data"] += chunk
                r["status"] = parse_head(r["data"])[0] if b"\r\n" in r["data"] else None
        time.sleep(max(0.0, 1.0 - (time.monotonic() - tick)))
    probed = probe.stop()
    # The server's FIN waits behind what a reader has not read: its end's state says more.
    server_states = server_side_states(port)
    at_end = collections.Counter(connection_state(r["sock"], server_states) for r in readers
                                 if r["sock"] and "end" not in r)
    for r in readers:
        if r["sock"]:
            r["sock"].close()
    values = metrics(ctx.server, timeout=10) or {}
    early = {k: int(v) for k, v in metric_by(values, "focal_connections_closed_early_total", "reason").items()}
    outcomes = collections.Counter()
    for r in readers:
        if r["outcome"]:
            outcomes[r["outcome"]] += 1
        elif r["status"]:
            outcomes[r["status"]] += 1
        else:
            outcomes["closed" if "end" in r else "open"] += 1
    closed = sorted(r["closed_after"] for r in readers if "closed_after" in r)
    # Closed before any answer although the GET went with the connection: which ones, and how.
    unanswered = [(i, r["end"]) for i, r in enumerate(readers) if r["status"] is None and "end" in r]
    first = probed["first_ok_after_s"]
    notes = [f"{count} sockets (SO_RCVBUF 4096) each asking {BIG_ANSWER} and reading 1 KiB/s for {seconds} s "
             f"under RLIMIT_NOFILE 512; {sum(1 for r in readers if r['status'])} got a head; "
             + (f"{len(closed)} closed by the server after {closed[0]:.1f}-{closed[-1]:.1f} s "
                f"(median {percentile(closed, 50):.1f} s)" if closed else "none closed by the server")
             + (f"; closed before any answer (socket number, how): {unanswered}" if unanswered else ""),
             f"at the end, of those the client had seen no close of: {at_end['open']} open, "
             f"{at_end['closed-unread']} with the server's end closed (its FIN behind unread bytes), "
             f"{at_end['closed']} closed",
             "a /healthz probe got in " + (f"{first:.1f} s after the last request was sent" if first is not None
                                           else "NEVER during the attack"),
             probe_text(probed),
             f"focal_connections_closed_early_total: evicted_stalled {early.get('evicted_stalled', 0)}, "
             f"answer_too_slow {early.get('answer_too_slow', 0)}"
             + ("" if values else " (/metrics did not answer)")]
    return {"made": count, "outcomes": outcomes, "probe": probed, "closed_after_s": closed, "at_end": dict(at_end),
            "unanswered": unanswered,
            "evicted_stalled": early.get("evicted_stalled"), "answer_too_slow": early.get("answer_too_slow"),
            "notes": notes}


def attack_tiff_tiles(ctx):
    seconds = 4 if ctx.quick else 10
    port = ctx.server.port
    times, lock = collections.defaultdict(list), threading.Lock()

    def job(i, n):
        status, took, headers, _ = fetch(port, "/unsafe/400x400/tiny.tif", timeout=60)
        outcome = with_code(status, headers)
        with lock:
            times[outcome].append(took)
        return outcome

    started = time.monotonic()
    outcomes = flood(4, job, started + seconds)
    elapsed = time.monotonic() - started
    refusals = [t for outcome, ts in times.items() if outcome.startswith("422") for t in ts]
    notes = [f"4 threads for {elapsed:.1f} s: {sum(outcomes.values())} requests "
             f"({sum(outcomes.values()) / elapsed:.0f}/s); 422s {latency_text(refusals)}"]
    return {"made": sum(outcomes.values()), "outcomes": outcomes,
            "slowest_refusal_ms": max(refusals) * 1000 if refusals else None, "notes": notes}


def database_attack(ctx, frozen):
    seconds = 5 if ctx.quick else 10
    server = ctx.server
    port = server.port
    known = [p for p in fixture_photos() if p != "grace_hopper.jpg"]
    fresh = ["fresh/" + os.path.splitext(p)[0] + ".jpg" for p in known]
    counter, lock = iter(range(10**6)), threading.Lock()
    times = {"known": collections.defaultdict(list), "fresh": collections.defaultdict(list)}
    notes, result = [], {}
    try:
        if frozen:
            pids = server.freeze()
            notes.append(f"PostgreSQL frozen: SIGSTOP to its {len(pids)} processes")
        else:
            begun = time.monotonic()
            server.postgres.stop()
            notes.append(f"PostgreSQL stopped (pg_ctl stop -m fast) in {time.monotonic() - begun:.1f} s")

        def job(i, n):
            with lock:
                k = next(counter)
            group = "known" if k % 2 == 0 else "fresh"
            photos = known if group == "known" else fresh
            # A size never asked before: widths 120-519, then the next height.
            path = f"/unsafe/{120 + k // 2 % 400}x{200 + k // 800}/smart/{photos[k // 2 % len(photos)]}"
            status, took, headers, _ = fetch(port, path, timeout=60)
            outcome = with_code(status, headers) + (" degraded" if headers.get("x-focal-degraded") else "")
            with lock:
                times[group][outcome].append(took)
            return outcome

        started = time.monotonic()
        readiness = Probe(port, "/readyz")
        outcomes = flood(4, job, started + seconds)
        elapsed = time.monotonic() - started
        result["readyz_probe"] = readiness.stop()
        status, took, _, body = fetch(port, "/readyz", timeout=10)
        try:
            ready = json.loads(body).get("status")
        except ValueError:
            ready = body[:80]
        result["readyz"] = {"status": status, "body_status": ready, "ms": took * 1000}
        values = metrics(server, timeout=10) or {}
        degraded = metric_sum(values, "focal_degraded_total") if values else None
        notes.append(f"4 threads for {elapsed:.1f} s of smart crops at new sizes, fixtures and fresh photos in turn; "
                     f"/readyz {status} {ready!r} in {took * 1000:.0f} ms; focal_degraded_total {fmt(degraded)}")
        notes.append(probe_text(result["readyz_probe"]).replace("/healthz", "/readyz"))
        for group, label in (("known", "fixtures (saved crops read before)"), ("fresh", "fresh photos (never read)")):
            for outcome, ts in sorted(times[group].items()):
                notes.append(f"  {label}: {outcome} x{len(ts)}, {latency_text(ts)}")
        all_times = [t for g in times.values() for ts in g.values() for t in ts]
        result.update(made=sum(outcomes.values()), outcomes=outcomes, notes=notes,
                      p50_ms=percentile([t * 1000 for t in all_times], 50),
                      max_ms=max(all_times) * 1000 if all_times else None,
                      by_group={g: {o: len(ts) for o, ts in v.items()} for g, v in times.items()})
        if frozen:
            ctx.client_result = ctx.client.stop()  # what it sees after SIGTERM is no figure
            process = server.process.popen
            signalled = time.monotonic()
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=SHUTDOWN_BOUND_S + 25)
                exit_after = time.monotonic() - signalled
            except subprocess.TimeoutExpired:
                exit_after = None
            notes.append(f"SIGTERM with the database frozen: the process exited "
                         + (f"{exit_after:.1f} s later with status {process.returncode} (bound {SHUTDOWN_BOUND_S} s)"
                            if exit_after is not None else f"not at all within {SHUTDOWN_BOUND_S + 25} s"))
            result.update(signalled=True, exit_after_s=exit_after, exit_status=process.returncode)
    finally:
        if frozen:
            server.thaw()
    return result


def attack_database_down(ctx):
    return database_attack(ctx, frozen=False)


def attack_database_frozen(ctx):
    return database_attack(ctx, frozen=True)


def attack_spellings(ctx):
    key, port, count = ctx.key, ctx.server.port, 200
    base = "300x200/smart/coffee.png"
    canonical = {"plain": signed(key, base),
                 "format(auto)": signed(key, "300x200/smart/filters:format(auto)/coffee.png")}
    checks = {name: fetch(port, path, timeout=60)[0] for name, path in canonical.items()}
    spellings = {
        "signature %3D": "/" + sign(key, base).replace("=", "%3D") + "/" + base,
        "zero-padded 0300x0200": signed(key, "0300x0200/smart/coffee.png"),
        "format(auto):format(auto)": signed(key, "300x200/smart/filters:format(auto):format(auto)/coffee.png"),
    }
    names = list(spellings)
    by_spelling, lock = {name: collections.Counter() for name in names}, threading.Lock()

    def renders():
        values = metrics(ctx.server, timeout=10)
        return metric_sum(values, "focal_renders_total") if values else None

    def job(i, n):
        k = n * 4 + i
        if k >= count:
            return None
        name = names[k % len(names)]
        status, _, headers, _ = fetch(port, spellings[name], timeout=30)
        outcome = with_code(status, headers)
        with lock:
            by_spelling[name][outcome] += 1
        return outcome

    before = renders()
    outcomes = flood(4, job, time.monotonic() + 120)
    after = renders()
    notes = [f"the canonical URLs first: {checks}; then {sum(outcomes.values())} requests, 4 threads",
             f"focal_renders_total {fmt(before)} before, {fmt(after)} after"]
    notes += [f"  {name}: {dict(by_spelling[name])}" for name in names]
    return {"made": sum(outcomes.values()), "outcomes": outcomes, "canonical": checks,
            "by_spelling": {k: dict(v) for k, v in by_spelling.items()},
            "renders_before": before, "renders_after": after, "notes": notes}


# Running an attack --------------------------------------------------------------------------------

class Context:
    pass


def server_for(name, args, run_dir):
    workdir = os.path.join(run_dir, name)
    extra = ["--allow-network", "127.0.0.1"] + SERVE_FLAGS.get(name, []) + args.focal_args
    root = FIXTURES
    if name == "file-flood":
        root = args.copies[0]
    elif name == "unknown-id":
        root = args.ids_root
    elif name == "tiff-tiles":
        root = args.tiff_root
    elif name in DATABASE_ATTACKS:
        root = args.db_root
    cls, kwargs = FocalServer, {"allow_unsafe": True}
    if name in CAPPED_ATTACKS:
        cls, kwargs["nofile"] = LimitedFocal, 512
    elif name in DATABASE_ATTACKS:
        cls = PostgresFocal
    if name == "spellings":  # signed URLs only
        kwargs.update(allow_unsafe=False, keys=[args.key])
    return cls(args.focal, root, extra_args=extra, workdir=workdir, **kwargs)


def client_path_for(name, args):
    """The well-behaved client's URL: signed on the server that takes signed URLs only."""
    return signed(args.key, CLIENT_PATH[len("/unsafe/"):]) if name == "spellings" else CLIENT_PATH


def prepare_big_answer(ctx):
    """BIG_ANSWER rendered once and read whole, so that it is in the memory cache."""
    status, took, _, body = fetch(ctx.server.port, BIG_ANSWER, timeout=120)
    if status != "200":
        raise RuntimeError(f"warm-up of {BIG_ANSWER} answered {status}")
    return f"{BIG_ANSWER} warmed: {len(body)} bytes in {took:.1f} s"


def prepare_smart_crop(ctx):
    status, took, _, _ = fetch(ctx.server.port, "/unsafe/200x200/smart/astronaut.png", timeout=120)
    if status != "200":
        raise RuntimeError(f"warm-up of a smart crop answered {status}")
    return None


# What an attack asks for again and again, warmed before "RSS before" is read.
PREPARE = {"non-readers": prepare_big_answer, "slow-readers-cap": prepare_big_answer,
           "database-down": prepare_smart_crop, "database-frozen": prepare_smart_crop}


def warm_workers(server, key=None):
    """Brings the server to its steady state before "RSS before" is read: plans of the fixtures
    on two threads, so that every worker has loaded its detectors (each inference thread keeps
    its own copy of the networks) and the allocator its arenas; then waits for the trim that
    follows a burst. With `key` (a signed-only server), each plan carries its request signature."""
    photos = fixture_photos()

    def plan(photo):
        body = json.dumps({"source": {"path": photo}, "frames": [{"aspect": "1:1"}]}).encode()
        headers = {"Content-Type": "application/json"}
        if key:
            headers["X-Focal-Signature"] = request_signature(key, "POST", "/v1/plan", body)
        try:
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
            connection.request("POST", "/v1/plan", body=body, headers=headers)
            connection.getresponse().read()
            connection.close()
        except OSError:
            pass
    threads = [threading.Thread(target=lambda half=half: [plan(p) for p in photos[half::2]]) for half in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    time.sleep(3)


def run_attack(name, args, run_dir, source):
    if name in DATABASE_ATTACKS and args.postgres_missing:
        say(f"{name}: skipped: {args.postgres_missing}")
        return {"attack": name, "skipped": f"PostgreSQL is not installed ({args.postgres_missing})"}
    server = server_for(name, args, run_dir)
    client_path = client_path_for(name, args)
    started = time.monotonic()
    try:
        server.start(timeout=180)
    except RuntimeError as error:
        say(f"{name}: the server did not start: {error}")
        return {"attack": name, "failed": "server did not start"}
    start_seconds = time.monotonic() - started
    row = {"attack": name, "server_start_s": start_seconds}
    try:
        status, _, body = get(server.base + client_path, timeout=120)
        if status != 200:
            raise RuntimeError(f"warm-up of {client_path} answered {status}: {body[:200]!r}")
        get(server.base + client_path, timeout=60)
        warm_workers(server, key=args.key if name == "spellings" else None)
        ctx = Context()
        ctx.server, ctx.quick, ctx.source, ctx.key = server, args.quick, source, args.key
        ctx.copy_names = args.copies[1] if name == "file-flood" else None
        prepared = PREPARE[name](ctx) if name in PREPARE else None
        pid = server.pid
        row["rss_before_mib"] = status_kib(pid, "VmRSS") / 1024
        monitor = Monitor(server, use_metrics=(name not in CAPPED_ATTACKS))
        ctx.client, ctx.client_result = Client(server.port, client_path), None
        say(f"{name}: attacking")
        attack_started = time.monotonic()
        result = globals()["attack_" + name.replace("-", "_")](ctx)
        row["attack_s"] = time.monotonic() - attack_started
        row["client"] = ctx.client_result or ctx.client.stop()
        row.update(monitor.stop())
        row.update(result)
        if prepared:
            row["notes"].insert(0, prepared)
        if result.get("signalled"):
            row["rss_after_mib"] = None
            row["crashed"] = not (result["exit_after_s"] is not None and result["exit_status"] == 0)
        elif not server.process.alive():
            row["rss_after_mib"] = None
            row["crashed"] = True
            row["notes"].append(f"the server EXITED during the attack (status {server.process.returncode})")
        else:
            time.sleep(5)
            row["rss_after_mib"] = status_kib(pid, "VmRSS") / 1024
            if row["rss_after_mib"] > 1.1 * row["rss_before_mib"] and not args.quick:
                time.sleep(10)
                row["rss_after_15s_mib"] = status_kib(pid, "VmRSS") / 1024
                row["notes"].append(f"RSS 15 s after the attack: {row['rss_after_15s_mib']:.0f} MiB")
            values = metrics(server, timeout=5) or {}
            early = {k: int(v) for k, v in metric_by(values, "focal_connections_closed_early_total", "reason").items()}
            row["closed_early"] = early
            refusals = {k: int(v) for k, v in metric_by(values, "focal_refusals_total", "reason").items() if v}
            row["refusals"] = refusals
            if early:
                row["notes"].append(f"focal_connections_closed_early_total: {early}")
            if refusals:
                row["notes"].append(f"focal_refusals_total: {refusals}")
            row["crashed"] = not server.process.alive()
        row["outcomes"] = dict(row["outcomes"])
        if row.get("by_route"):
            row["by_route"] = {k: dict(v) for k, v in row["by_route"].items()}
        cap = log_lines(server.log_path, ("connection limit", "accepting connections again"))
        row["log_connection_limit"] = cap
        if name == "idle-fd":
            row["notes"].append(f"server CPU {row['cpu_percent']:.1f}% of a core; client {row['client']['ok']} "
                                f"answered, {row['client']['errors']} errors {row['client']['error_kinds']}")
            row["notes"].append(f"{len(cap)} log lines about the connection limit"
                                + (f", first: {cap[0][:200]}" if cap else ""))
        if name == "slow-readers-cap":
            row["notes"].append(f"{len(cap)} log lines about the connection limit")
        if name == "tiff-tiles":
            row["notes"].append(f"server CPU {row['cpu_percent']:.1f}% of a core over {row['seconds']:.1f} s; "
                                f"slowest refusal {fmt(row.get('slowest_refusal_ms'))} ms")
        shutdown = log_lines(server.log_path, ("shutting down", "shutdown bound", "stopped"))
        if result.get("signalled"):
            row["notes"] += [f"  log: {line[:200]}" for line in shutdown]
        problems = log_lines(server.log_path, ('"level":"error"', '"level":"critical"', "Fatal error", "fatal"))
        if problems:
            row["notes"].append(f"{len(problems)} error lines in the log, first: {problems[0][:200]}")
    except Exception as error:  # noqa: BLE001 - an attack that breaks is reported, the others still run
        say(f"{name}: failed: {error!r}")
        row["failed"] = repr(error)
        row["crashed"] = server.process is not None and not server.process.alive() and not row.get("signalled")
    finally:
        os.makedirs(os.path.join(WORK, "logs"), exist_ok=True)
        try:
            shutil.copy(server.log_path, os.path.join(WORK, "logs", f"{name}.log"))
        except OSError:
            pass
        server.stop()
    return row


# Output -------------------------------------------------------------------------------------------

def fmt(value, spec=".0f"):
    return "-" if value is None else format(value, spec)


def print_table(rows, setup):
    print()
    for line in setup:
        print(line)
    print()
    header = (f"{'attack':<16} {'made':>6} {'RSS before':>10} {'peak RSS':>9} {'VmHWM':>6} {'RSS +5s':>8} "
              f"{'conns':>6} {'CPU%':>5} {'client':>7} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} {'errors':>6}  outcomes")
    print(header)
    print("-" * len(header))
    for r in rows:
        if r.get("skipped"):
            print(f"{r['attack']:<16} skipped: {r['skipped']}")
            continue
        if r.get("failed") and "client" not in r:
            print(f"{r['attack']:<16} FAILED: {r['failed']}")
            continue
        c = r["client"]
        conns = r.get("peak_connections")
        conns_text = fmt(conns) if conns is not None else f"{r['peak_sockets']}s"
        outcomes = " ".join(f"{k}:{v}" for k, v in sorted(r["outcomes"].items()))
        print(f"{r['attack']:<16} {r['made']:>6} {fmt(r['rss_before_mib']):>10} {fmt(r['peak_rss_mib']):>9} "
              f"{fmt(r['hwm_mib']):>6} {fmt(r.get('rss_after_mib')):>8} {conns_text:>6} {r['cpu_percent']:>5.0f} "
              f"{c['requests']:>7} {fmt(c['p50_ms'], '.1f'):>7} {fmt(c['p99_ms'], '.1f'):>7} "
              f"{fmt(c['max_ms'], '.1f'):>7} {c['errors']:>6}  {outcomes}")
    print("memory in MiB (VmRSS before the attack, peak VmRSS sampled every 50 ms, VmHWM, VmRSS 5 s after); "
          "conns: peak focal_http_connections_open (\"Ns\": open sockets counted in /proc when /metrics "
          "was not asked); CPU%: server CPU over the attack, 100 = one core; client: the well-behaved "
          "client's requests, latency of its 200s, its errors")
    print()
    for r in rows:
        for line in r.get("notes", []):
            print(f"{r['attack']}: {line}" if not line.startswith("  ") else f"{r['attack']}:{line}")
        if r.get("peak_body_mib") is not None and (r.get("peak_body_mib") or r.get("peak_jobs_memory_mib")):
            print(f"{r['attack']}: peak focal_http_body_bytes {r['peak_body_mib']:.0f} MiB, "
                  f"focal_jobs_memory_bytes {r['peak_jobs_memory_mib']:.0f} MiB")
        if r["attack"] in NEW_ATTACKS and (r.get("peak_answer_mib") or 0) >= 0.5:
            print(f"{r['attack']}: peak focal_http_answer_bytes {r['peak_answer_mib']:.0f} MiB")
    flags = []
    for r in rows:
        if "client" not in r:
            continue
        peak_mb = max(r["peak_rss_mib"], r["hwm_mib"]) * 2**20 / 1e6
        if peak_mb > 800:
            flags.append(f"{r['attack']}: server memory above 800 MB ({peak_mb:.0f} MB)")
        p99 = r["client"]["p99_ms"]
        if p99 is not None and p99 > 1000:
            flags.append(f"{r['attack']}: the well-behaved client's p99 is {p99:.0f} ms (> 1 s)")
        if r["client"]["ok"] == 0:
            flags.append(f"{r['attack']}: the well-behaved client was never served")
        if r.get("rss_after_mib") is not None and r["rss_after_mib"] > 1.1 * r["rss_before_mib"]:
            flags.append(f"{r['attack']}: RSS 5 s after ({r['rss_after_mib']:.0f} MiB) is more than 10% above "
                         f"before ({r['rss_before_mib']:.0f} MiB)")
        if r["attack"] == "sigterm" and r["outcomes"].get("complete", 0) != r["made"]:
            flags.append("sigterm: an answer was cut short after SIGTERM")
        flags += new_attack_flags(r)
        if r.get("crashed"):
            flags.append(f"{r['attack']}: the server CRASHED or did not exit cleanly")
    if flags:
        print()
        for line in flags:
            print(f"look: {line}")
    return flags


NEW_ATTACKS = ATTACKS[ATTACKS.index("non-readers"):]


def new_attack_flags(r):
    """What looks wrong in a row of the attacks added after sigterm."""
    name, outcomes, flags = r["attack"], r.get("outcomes", {}), []
    probe = r.get("probe")
    if probe and name != "slow-readers-cap":
        if probe["max_ms"] is not None and probe["max_ms"] > 1000:
            flags.append(f"{name}: a /healthz probe took {probe['max_ms']:.0f} ms (> 1 s)")
        if probe["failures"] or probe["waiting_s"] is not None or not probe["ok"]:
            flags.append(f"{name}: /healthz probes failed: {probe['failures']}"
                         + (f", one waiting {probe['waiting_s']:.1f} s" if probe["waiting_s"] is not None else ""))
    if name == "slow-readers-cap" and probe and probe["first_ok_after_s"] is None:
        flags.append("slow-readers-cap: no /healthz probe got in while the cap was full")
    if name == "answer-memory" and not any(k.startswith("503") for k in outcomes):
        flags.append("answer-memory: no answer was refused 503 past --answer-memory 64")
    if name == "answer-memory" and r.get("peak_answer_mib", 0) > 64 + 8:
        flags.append(f"answer-memory: focal_http_answer_bytes reached {r['peak_answer_mib']:.0f} MiB (budget 64)")
    if name == "tiff-tiles":
        other = {k: v for k, v in outcomes.items() if not k.startswith("422")}
        if other:
            flags.append(f"tiff-tiles: answers other than 422: {other}")
        if (r.get("slowest_refusal_ms") or 0) > 1000:
            flags.append(f"tiff-tiles: a refusal took {r['slowest_refusal_ms']:.0f} ms")
    if name in DATABASE_ATTACKS:
        other = {k: v for k, v in outcomes.items() if not k.startswith("200")}
        if other:
            flags.append(f"{name}: smart crops not answered 200: {other}")
        ready = r.get("readyz") or {}
        if ready and (ready.get("status") != "200" or ready.get("body_status") != "degraded"):
            flags.append(f"{name}: /readyz answered {ready.get('status')} {ready.get('body_status')!r}, "
                         f"not 200 'degraded'")
        ready_probe = r.get("readyz_probe") or {}
        if ready_probe.get("max_ms") is not None and ready_probe["max_ms"] > 1000:
            flags.append(f"{name}: /readyz took up to {ready_probe['max_ms']:.0f} ms (> 1 s)")
        if name == "database-frozen" and r.get("exit_after_s") is not None and r["exit_after_s"] > SHUTDOWN_BOUND_S:
            flags.append(f"database-frozen: SIGTERM took {r['exit_after_s']:.1f} s (bound {SHUTDOWN_BOUND_S} s)")
    if name == "spellings":
        other = {k: v for k, v in outcomes.items() if k != "400 request.not_canonical"}
        if other:
            flags.append(f"spellings: answers other than 400 request.not_canonical: {other}")
        if r.get("renders_before") is None or r.get("renders_after") != r.get("renders_before"):
            flags.append(f"spellings: focal_renders_total went from {r.get('renders_before')} to "
                         f"{r.get('renders_after')}")
        if any(v != "200" for v in r.get("canonical", {}).values()):
            flags.append(f"spellings: the canonical URLs answered {r['canonical']}")
    return flags


def main():
    parser = argparse.ArgumentParser(prog=prog(__spec__), description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="every attack shortened (a smoke run)")
    parser.add_argument("--only", default=",".join(ATTACKS), help="comma-separated: " + ", ".join(ATTACKS))
    parser.add_argument("--well-behaved", nargs=2, metavar=("PORT", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.well_behaved:
        well_behaved(int(args.well_behaved[0]), args.well_behaved[1])
        return 0
    attacks = [a for a in args.only.split(",") if a]
    for a in attacks:
        if a not in ATTACKS:
            parser.error(f"unknown attack {a!r} (one of {', '.join(ATTACKS)})")

    args.focal = paths.focal_binary(paths.RELEASE_FOCAL, fallback=paths.DEBUG_FOCAL)
    args.focal_args = shlex.split(os.environ.get("FOCAL_SERVE_ARGS", ""))
    ok, why = focal_serve_support(args.focal)
    if not ok:
        print(f"bench-abuse: cannot run: {why}.", file=sys.stderr)
        return 2
    nofile = raise_nofile(4096)
    if nofile < 1200:
        say(f"warning: only {nofile} file descriptors: the stalled and idle attacks may fail to open connections")

    os.makedirs(WORK, exist_ok=True)
    run_dir = os.path.join(WORK, f"run-{os.getpid()}")
    os.makedirs(run_dir)
    source = None
    rows = []
    load_before = os.getloadavg()
    try:
        if "url-flood" in attacks:
            www = os.path.dirname(big_png())
            source = SourceServer(www, os.path.join(run_dir, "http-server")).start()
        if "unknown-id" in attacks:
            args.ids_root = ids_root()
        if "file-flood" in attacks:
            args.copies = copies_root(run_dir, 200 if args.quick else 600)
        if "tiff-tiles" in attacks:
            args.tiff_root = tiff_root()
        args.postgres_missing = postgres_missing() if any(a in DATABASE_ATTACKS for a in attacks) else None
        if any(a in DATABASE_ATTACKS for a in attacks) and not args.postgres_missing:
            args.db_root = db_root()
        args.key = secrets.token_hex(24)
        for name in attacks:
            rows.append(run_attack(name, args, run_dir, source))
    finally:
        if source:
            source.stop()
        shutil.rmtree(run_dir, ignore_errors=True)
    load_after = os.getloadavg()

    setup = [f"bench-abuse{' --quick' if args.quick else ''}: {paths.shown(args.focal)} (commit {paths.commit()}) "
             f"{' '.join(args.focal_args) or '(default flags)'}; {cores()} cores; "
             f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after"]
    flags = print_table(rows, setup)
    with open(os.path.join(WORK, "results.json"), "w") as f:
        json.dump({"setup": setup, "quick": args.quick, "results": rows, "look": flags}, f, indent=1, default=str)
    broken = [r["attack"] for r in rows if r.get("crashed") or r.get("failed") == "server did not start"]
    if broken:
        print(f"bench-abuse: the server crashed or could not start in: {', '.join(broken)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
