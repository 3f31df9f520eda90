#!/usr/bin/env python3
"""Start, watch and stop `focal serve` and thumbor on loopback ports, for the benchmark and tests.

Standard library only, so any python3 can import it. Each server gets its own temporary folder
(configuration, caches, log) and its own process group, and is stopped with SIGTERM (SIGKILL
after a grace period). Memory is read from /proc for the server's whole process tree.

    python3 scripts/imageservers.py check --thumbor .cache/thumbor-venv/bin/thumbor --root Fixtures

starts thumbor with its face detector on a free port and checks that a `smart` crop really ran
the detector (the `meta/` answer lists focal points from "Face Detection", and the smart crop
differs from the centre crop), then stops it.
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sign(key, path):
    """thumbor's signature of `path` (the URL after the signature, no leading slash): HMAC-SHA1,
    URL-safe base64."""
    digest = hmac.new(key.encode(), path.encode(), hashlib.sha1).digest()
    return base64.urlsafe_b64encode(digest).decode()


def signed(key, path):
    """`/SIGNATURE/path`, or `/unsafe/path` when key is None."""
    return f"/{sign(key, path)}/{path}" if key else f"/unsafe/{path}"


def get(url, timeout=60, headers=None):
    """(status, headers, body) of a GET; HTTP errors are answers, not exceptions."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def process_tree(pid):
    """pid and all its descendants that are alive now."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    tree, todo = [], [pid]
    while todo:
        p = todo.pop()
        tree.append(p)
        todo.extend(children.get(p, []))
    return tree


def status_kib(pid, field):
    """A `VmRSS`-like field of /proc/PID/status in KiB, 0 if the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def cpu_seconds(pid):
    """User plus system CPU time of a process so far."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


class Server:
    """A server process with its own temporary folder, started in its own process group."""

    name = "server"
    ready_path = "/"

    def __init__(self, port=None, workdir=None):
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self._own_workdir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix=f"{self.name}-")
        os.makedirs(self.workdir, exist_ok=True)
        self.log_path = os.path.join(self.workdir, "server.log")
        self.process = None

    def command(self):
        raise NotImplementedError

    def environment(self):
        return dict(os.environ)

    def start(self, timeout=120):
        """Starts the server and waits until `ready_path` answers 200."""
        self._log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            self.command(), cwd=ROOT, env=self.environment(), stdin=subprocess.DEVNULL,
            stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with status {self.process.returncode} while "
                                   f"starting:\n{self.log_tail()}")
            try:
                status, _, _ = get(self.base + self.ready_path, timeout=2)
                if status == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{self.name} was not ready after {timeout} s:\n{self.log_tail()}")

    def stop(self, grace=15):
        """SIGTERM to the process group, SIGKILL after `grace` seconds; removes the folder."""
        if self.process and self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
            except ProcessLookupError:
                pass
        if self.process:
            # Forked workers of a server that was killed may outlive it; they share its group.
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if getattr(self, "_log", None):
            self._log.close()
            self._log = None
        if self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def pids(self):
        return process_tree(self.process.pid) if self.process else []

    def rss_kib(self):
        """Resident memory of the whole process tree now (shared pages counted in each)."""
        return sum(status_kib(p, "VmRSS") for p in self.pids())

    def hwm_kib(self):
        """Sum of each process's own peak resident memory since it started."""
        return sum(status_kib(p, "VmHWM") for p in self.pids())

    def cpu(self):
        """{pid: CPU seconds} for the process tree."""
        return {p: cpu_seconds(p) for p in self.pids()}

    def log_tail(self, lines=30):
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""


class ThumborServer(Server):
    """thumbor 7.8 with the file loader on `root`, its OpenCV face detector, and nothing stored
    between requests unless `result_storage` is set (thumbor's file result storage, in
    `result_dir`, by default in the server's own folder). Originals and detector results are never
    stored (no_storage), so every `smart` request runs detection."""

    name = "thumbor"
    ready_path = "/healthcheck"

    def __init__(self, executable, root, key=None, processes=2, result_storage=False,
                 detectors=("thumbor.detectors.face_detector",), quality=85, log_level="warning",
                 result_dir=None, port=None, workdir=None):
        super().__init__(port, workdir)
        self.executable = executable
        self.root = os.path.abspath(root)
        self.key = key
        self.processes = processes
        self.result_storage = result_storage
        self.detectors = list(detectors)
        self.quality = quality
        self.log_level = log_level
        self.result_dir = result_dir or os.path.join(self.workdir, "result_storage")
        self.config_path = os.path.join(self.workdir, "thumbor.conf")

    def write_config(self):
        settings = {
            "LOADER": "thumbor.loaders.file_loader",
            "FILE_LOADER_ROOT_PATH": self.root,
            "STORAGE": "thumbor.storages.no_storage",
            "FILE_STORAGE_ROOT_PATH": os.path.join(self.workdir, "storage"),
            "RESULT_STORAGE": "thumbor.result_storages.file_storage" if self.result_storage else None,
            "RESULT_STORAGE_FILE_STORAGE_ROOT_PATH": self.result_dir,
            "RESULT_STORAGE_STORES_UNSAFE": True,
            "DETECTORS": self.detectors,
            "SECURITY_KEY": self.key or "unused-unsafe-only",
            "ALLOW_UNSAFE_URL": self.key is None,
            "QUALITY": self.quality,
            "MAX_AGE": 3600,
        }
        with open(self.config_path, "w") as f:
            for name, value in settings.items():
                f.write(f"{name} = {value!r}\n")

    def command(self):
        self.write_config()
        return [self.executable, "--ip", "127.0.0.1", "--port", str(self.port), "--conf",
                self.config_path, "--processes", str(self.processes), "--log-level", self.log_level]

    def environment(self):
        env = dict(os.environ)
        env["TMPDIR"] = self.workdir
        return env


class FocalServer(Server):
    """`focal serve` on `root`, with its disk cache (if any) in the server's own folder."""

    name = "focal"
    ready_path = "/readyz"

    def __init__(self, executable, root, keys=(), allow_unsafe=False, disk_cache=False,
                 extra_args=(), port=None, workdir=None):
        super().__init__(port, workdir)
        self.executable = executable
        self.root = os.path.abspath(root)
        self.keys = list(keys)
        self.allow_unsafe = allow_unsafe
        self.disk_cache = disk_cache
        self.extra_args = list(extra_args)

    def command(self):
        cmd = [self.executable, "serve", "--host", "127.0.0.1", "--port", str(self.port),
               "--root", self.root]
        for key in self.keys:
            cmd += ["--key", key]
        if self.allow_unsafe:
            cmd.append("--allow-unsafe")
        if self.disk_cache:
            cmd += ["--cache-dir", os.path.join(self.workdir, "cache")]
        return cmd + self.extra_args

    def environment(self):
        # The keys and settings come from the command line alone.
        env = {k: v for k, v in os.environ.items() if not k.startswith("FOCAL_")}
        env["TMPDIR"] = self.workdir
        return env


def focal_serve_support(executable):
    """(True, help text) if `executable serve --help` works, else (False, reason)."""
    if not os.path.exists(executable):
        return False, f"{os.path.relpath(executable, ROOT)} does not exist (build it with `make release`)"
    try:
        p = subprocess.run([executable, "serve", "--help"], capture_output=True, text=True, timeout=30)
    except OSError as e:
        return False, f"{executable} could not run: {e}"
    text = p.stdout + p.stderr
    if p.returncode != 0 or "--root" not in text:
        return False, (f"{os.path.relpath(executable, ROOT)} has no `serve` command yet (`focal serve "
                       f"--help` does not offer --root)")
    return True, text


def image_size(data):
    """(width, height) of an encoded image, read by `vipsheader` from a temporary file."""
    with tempfile.NamedTemporaryFile(suffix=".img") as f:
        f.write(data)
        f.flush()
        out = subprocess.run(["vipsheader", "-f", "width", f.name], capture_output=True, text=True)
        if out.returncode != 0:
            raise ValueError(f"vipsheader could not read the image: {out.stderr.strip()}")
        height = subprocess.run(["vipsheader", "-f", "height", f.name], capture_output=True,
                                text=True, check=True).stdout
        return int(out.stdout), int(height)


def check_thumbor(executable, root, photo):
    """Starts thumbor with the face detector alone and checks that `smart` runs it."""
    server = ThumborServer(executable, root, processes=1)
    with server:
        status, headers, body = get(f"{server.base}/unsafe/meta/300x300/smart/{photo}")
        if status != 200:
            sys.exit(f"check: meta/ answered {status}: {body[:300]!r}")
        points = json.loads(body)["thumbor"].get("focal_points", [])
        faces = [p for p in points if p.get("origin") == "Face Detection"]
        if not faces:
            sys.exit(f"check: thumbor found no face in {photo} (focal points: {points}); is OpenCV "
                     f"missing? log:\n{server.log_tail()}")
        smart = get(f"{server.base}/unsafe/300x300/smart/{photo}")
        centre = get(f"{server.base}/unsafe/300x300/{photo}")
        for label, (status, headers, body) in (("smart", smart), ("centre", centre)):
            if status != 200 or not headers.get("Content-Type", "").startswith("image/"):
                sys.exit(f"check: the {label} crop answered {status} {headers.get('Content-Type')}")
            size = image_size(body)
            if size != (300, 300):
                sys.exit(f"check: the {label} crop is {size[0]}x{size[1]}, not 300x300")
        if smart[2] == centre[2]:
            sys.exit("check: the smart crop is the same as the centre crop")
        face = faces[0]
        print(f"check: thumbor answers /unsafe/300x300/smart/{photo}: 300x300 "
              f"{smart[1].get('Content-Type')}, {len(smart[2])} bytes; its face detector found "
              f"{len(faces)} face(s), the first at x={face['x']:.0f} y={face['y']:.0f} "
              f"({face['width']}x{face['height']}); the smart crop differs from the centre crop")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="check that thumbor runs its face detector")
    check.add_argument("--thumbor", default=os.path.join(ROOT, ".cache/thumbor-venv/bin/thumbor"))
    check.add_argument("--root", default=os.path.join(ROOT, "Fixtures"))
    check.add_argument("--photo", default="grace_hopper.jpg")
    args = parser.parse_args()
    if args.command == "check":
        check_thumbor(args.thumbor, args.root, args.photo)


if __name__ == "__main__":
    main()
