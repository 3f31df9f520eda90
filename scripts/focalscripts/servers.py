"""`focal serve` and thumbor on loopback ports, for the benchmarks and the tests.

Each server gets its own folder (configuration, caches, log: a temporary one unless given) and
runs as a processes.Process (its own process group, SIGTERM if the tool dies), is started and
waited for until its readiness path answers 200, and is stopped with SIGTERM (SIGKILL after a
grace period). Memory and CPU are read from /proc for the server's whole process tree.
"""
import os
import shutil
import signal
import subprocess
import tempfile

from . import paths, processes, web
from .ports import free_port


class Server:
    """A server process with its own folder, started in its own process group."""

    name = "server"
    ready_path = "/"

    def __init__(self, port=None, workdir=None, log_name="server.log"):
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self._own_workdir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix=f"{self.name}-")
        os.makedirs(self.workdir, exist_ok=True)
        self.log_path = os.path.join(self.workdir, log_name)
        self.process = None
        self.history = []  # every processes.Process started, restarts included

    def command(self):
        raise NotImplementedError

    def environment(self):
        return dict(os.environ)

    def start(self, timeout=120):
        """Starts the server and waits until `ready_path` answers 200; on failure stops it and
        raises RuntimeError with the end of its log."""
        self.process = processes.Process(self.name, self.command(), self.log_path, env=self.environment()).start()
        self.history.append(self.process)
        try:
            web.wait_ready(self.base + self.ready_path, self.process.alive, timeout)
        except web.NotReady as error:
            self.process.stop(grace=5)
            status = f" (status {self.process.returncode})" if "exited" in str(error) else ""
            raise RuntimeError(f"{self.name} {error}{status}:\n{self.log_tail()}") from None
        return self

    def stop(self, grace=15):
        """SIGTERM to the process group, SIGKILL after `grace` seconds; removes the folder when it
        is a temporary one of its own."""
        if self.process:
            self.process.stop(signal.SIGTERM, grace)
        if self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def kill(self, sig=signal.SIGKILL):
        """Sends `sig` (SIGKILL: no goodbye) and waits for the process to go."""
        self.process.send(sig)
        self.process.popen.wait(timeout=30)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def pid(self):
        return self.process.pid if self.process else None

    def pids(self):
        return processes.process_tree(self.process.pid) if self.process else []

    def rss_kib(self):
        """Resident memory of the whole process tree now (shared pages counted in each)."""
        return sum(processes.status_kib(p, "VmRSS") for p in self.pids())

    def hwm_kib(self):
        """Sum of each process's own peak resident memory since it started."""
        return sum(processes.status_kib(p, "VmHWM") for p in self.pids())

    def cpu(self):
        """{pid: CPU seconds} for the process tree."""
        return {p: processes.cpu_seconds(p) for p in self.pids()}

    def log_tail(self, lines=30):
        return processes.log_tail(self.log_path, lines)


class FocalServer(Server):
    """`focal serve` on `root` (a folder, or `s3://BUCKET/PREFIX` with the store's variables in
    `extra_env`), with its disk cache (if any) in the server's own folder. The keys and settings
    come from the command line alone: no FOCAL_* variable of the caller's reaches it."""

    name = "focal"
    ready_path = "/readyz"

    def __init__(self, executable, root, keys=(), allow_unsafe=False, disk_cache=False,
                 extra_args=(), port=None, workdir=None, log_name="server.log", extra_env=None):
        super().__init__(port, workdir, log_name)
        self.extra_env = dict(extra_env or {})
        self.executable = executable
        # A bucket (s3://BUCKET/PREFIX) is passed as it is; a folder as an absolute path.
        self.root = root if root.startswith("s3://") else os.path.abspath(root)
        self.keys = list(keys)
        self.allow_unsafe = allow_unsafe
        self.disk_cache = disk_cache
        self.extra_args = list(extra_args)

    def command(self):
        cmd = [self.executable, "serve", "--host", "127.0.0.1", "--port", str(self.port),
               "--root", self.root]
        for key in self.keys:
            cmd.append(f"--key={key}")  # joined: a random key may start with "-"
        if self.allow_unsafe:
            cmd.append("--allow-unsafe")
        if self.disk_cache:
            cmd += ["--cache-dir", os.path.join(self.workdir, "cache")]
        return cmd + self.extra_args

    def environment(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith("FOCAL_")}
        env["TMPDIR"] = self.workdir
        env.update(self.extra_env)
        return env

    def metrics(self, timeout=10):
        """/metrics, parsed (web.parse_metrics); RuntimeError unless it answers 200."""
        status, _, body = web.get(self.base + "/metrics", timeout=timeout)
        if status != 200:
            raise RuntimeError(f"{self.name} /metrics answered {status}")
        return web.parse_metrics(body.decode(errors="replace"))


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


def thumbor_executable():
    """thumbor in .cache/thumbor-venv, which scripts/thumbor-env.sh builds (pinned by sha256) when
    it is missing or out of date."""
    venv = subprocess.run([os.path.join(paths.SCRIPTS, "thumbor-env.sh"), "thumbor"],
                          stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
    return os.path.join(paths.ROOT, venv, "bin", "thumbor")


def focal_serve_support(executable):
    """(True, help text) if `executable serve --help` works, else (False, reason)."""
    if not os.path.exists(executable):
        return False, f"{paths.shown(executable)} does not exist (build it with `make release`)"
    try:
        p = subprocess.run([executable, "serve", "--help"], capture_output=True, text=True, timeout=30)
    except OSError as e:
        return False, f"{executable} could not run: {e}"
    text = p.stdout + p.stderr
    if p.returncode != 0 or "--root" not in text:
        return False, (f"{paths.shown(executable)} has no `serve` command yet (`focal serve "
                       f"--help` does not offer --root)")
    return True, text
