"""`make bench-abuse`: `focal serve` under hostile load on loopback, with a well-behaved client beside it.

A benchmark, not a test: it prints figures and exits 0 unless the server could not start or
crashed (exited during an attack, or did not exit cleanly after SIGTERM). Every attack starts a
fresh `focal serve --root ROOT --allow-unsafe --allow-network 127.0.0.1` (plus FOCAL_SERVE_ARGS)
on a free loopback port, warms the well-behaved client's URL, runs the attack (bounded in count
and time, stopping by itself), and measures:

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

The table is printed at the end and written, with every detail, to .cache/bench-abuse/results.json.
The server's log of each attack is kept in .cache/bench-abuse/logs/.

Options (`make bench-abuse BENCH_ABUSE_FLAGS="--quick --only drip,sigterm"`): --quick (every
attack shortened: a smoke run of under 2 minutes), --only NAME,... (some attacks, by the names above).
Environment: FOCAL_BIN (default .build/release/focal, else .build/debug/focal), FOCAL_SERVE_ARGS
(extra `focal serve` flags, e.g. "--memory-budget 256").
"""
import argparse
import asyncio
import collections
import http.client
import json
import os
import random
import resource
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

from . import images, paths, processes
from .cli import cores, percentile, prog, sayer
from .processes import cpu_seconds, log_lines, open_sockets, status_kib
from .servers import FocalServer, Server, focal_serve_support
from .web import get, metric_by, metric_sum

WORK = os.path.join(paths.CACHE, "bench-abuse")
FIXTURES = paths.FIXTURES
CLIENT_PATH = "/unsafe/200x200/smart/grace_hopper.jpg"
BIG_SCALE = 6.8  # 512x512 astronaut -> 3482x3482, 36 MB as an uncompressed PNG
BIG_RECIPE = f"astronaut.png resize {BIG_SCALE}, png compression 0"
IDS_PHOTOS, IDS_OTHERS = 2000, 20000
IDS_RECIPE = f"{IDS_PHOTOS} tiny jpegs in photos/, {IDS_OTHERS} text files in other/"
RENDER_SIDES = [1700, 1900, 2100, 2300, 2500, 2800]
ATTACKS = ["url-flood", "file-flood", "stalled", "drip", "idle-fd", "unknown-id", "sigterm"]


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

    def __init__(self, port):
        self.process = subprocess.Popen(
            processes.module_command("bench_abuse", "--well-behaved", port, CLIENT_PATH), env=processes.module_env(),
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

    GAUGES = ("focal_http_connections_open", "focal_http_body_bytes", "focal_jobs_memory_bytes")

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


# Running an attack --------------------------------------------------------------------------------

class Context:
    pass


def server_for(name, args, run_dir):
    workdir = os.path.join(run_dir, name)
    extra = ["--allow-network", "127.0.0.1"] + args.focal_args
    root = FIXTURES
    if name == "file-flood":
        root = args.copies[0]
    elif name == "unknown-id":
        root = args.ids_root
    cls, kwargs = FocalServer, {}
    if name == "idle-fd":
        cls, kwargs = LimitedFocal, {"nofile": 512}
    return cls(args.focal, root, allow_unsafe=True, extra_args=extra, workdir=workdir, **kwargs)


def warm_workers(server):
    """Brings the server to its steady state before "RSS before" is read: plans of the fixtures
    on two threads, so that every worker has loaded its detectors (each inference thread keeps
    its own copy of the networks) and the allocator its arenas; then waits for the trim that
    follows a burst."""
    photos = sorted(f for f in os.listdir(FIXTURES) if f.endswith((".jpg", ".png")))

    def plan(photo):
        body = json.dumps({"source": {"path": photo}, "frames": [{"aspect": "1:1"}]}).encode()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
            connection.request("POST", "/v1/plan", body=body, headers={"Content-Type": "application/json"})
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
    server = server_for(name, args, run_dir)
    started = time.monotonic()
    try:
        server.start(timeout=180)
    except RuntimeError as error:
        say(f"{name}: the server did not start: {error}")
        return {"attack": name, "failed": "server did not start"}
    start_seconds = time.monotonic() - started
    row = {"attack": name, "server_start_s": start_seconds}
    try:
        status, _, body = get(server.base + CLIENT_PATH, timeout=120)
        if status != 200:
            raise RuntimeError(f"warm-up of {CLIENT_PATH} answered {status}: {body[:200]!r}")
        get(server.base + CLIENT_PATH, timeout=60)
        warm_workers(server)
        ctx = Context()
        ctx.server, ctx.quick, ctx.source = server, args.quick, source
        ctx.copy_names = args.copies[1] if name == "file-flood" else None
        pid = server.pid
        row["rss_before_mib"] = status_kib(pid, "VmRSS") / 1024
        monitor = Monitor(server, use_metrics=(name != "idle-fd"))
        ctx.client, ctx.client_result = Client(server.port), None
        say(f"{name}: attacking")
        attack_started = time.monotonic()
        result = globals()["attack_" + name.replace("-", "_")](ctx)
        row["attack_s"] = time.monotonic() - attack_started
        row["client"] = ctx.client_result or ctx.client.stop()
        row.update(monitor.stop())
        row.update(result)
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
    header = (f"{'attack':<11} {'made':>6} {'RSS before':>10} {'peak RSS':>9} {'VmHWM':>6} {'RSS +5s':>8} "
              f"{'conns':>6} {'CPU%':>5} {'client':>7} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} {'errors':>6}  outcomes")
    print(header)
    print("-" * len(header))
    for r in rows:
        if r.get("failed") and "client" not in r:
            print(f"{r['attack']:<11} FAILED: {r['failed']}")
            continue
        c = r["client"]
        conns = r.get("peak_connections")
        conns_text = fmt(conns) if conns is not None else f"{r['peak_sockets']}s"
        outcomes = " ".join(f"{k}:{v}" for k, v in sorted(r["outcomes"].items()))
        print(f"{r['attack']:<11} {r['made']:>6} {fmt(r['rss_before_mib']):>10} {fmt(r['peak_rss_mib']):>9} "
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
        if r.get("crashed"):
            flags.append(f"{r['attack']}: the server CRASHED or did not exit cleanly")
    if flags:
        print()
        for line in flags:
            print(f"look: {line}")
    return flags


def main():
    parser = argparse.ArgumentParser(prog=prog(__spec__), description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="every attack shortened (under 2 minutes)")
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
