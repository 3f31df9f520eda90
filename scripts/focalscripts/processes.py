"""Child processes and what /proc says about processes: the one way the tools start, watch and
stop what they run (servers, PostgreSQL, Varnish), install Debian packages, and run another tool
of this package in a process of its own."""
import ctypes
import os
import shutil
import signal
import subprocess
import sys

from . import paths

PR_SET_PDEATHSIG = 1
# Looked up here, in the parent: a child between fork and exec only calls it.
_prctl = ctypes.CDLL(None, use_errno=True).prctl


class Process:
    """A child in its own process group (its leader, so that whatever it forks can be stopped with
    it), its output appended to a log file, sent SIGTERM by the kernel when the thread that started
    it exits (Linux's parent death signal: start it from the main thread), optionally as another
    user (PostgreSQL refuses to run as root)."""

    def __init__(self, name, command, log_path, env=None, user=None, cwd=None):
        self.name, self.command, self.log_path = name, command, log_path
        self.env, self.user, self.cwd = env, user, cwd or paths.ROOT
        self.popen = None

    def start(self):
        log = open(self.log_path, "ab")
        user = self.user

        def prepare():
            if user is not None:
                os.setgroups([])
                os.setgid(user.pw_gid)
                os.setuid(user.pw_uid)
            # After setuid, which clears it.
            _prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)

        try:
            self.popen = subprocess.Popen(
                self.command, cwd=self.cwd, env=self.env, stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=prepare)
        finally:
            log.close()
        return self

    @property
    def pid(self):
        return self.popen.pid if self.popen else None

    @property
    def returncode(self):
        return self.popen.returncode if self.popen else None

    def alive(self):
        return self.popen is not None and self.popen.poll() is None

    def send(self, sig):
        """`sig` to the process group, if the process is alive."""
        if self.alive():
            os.killpg(self.popen.pid, sig)

    def stop(self, sig=signal.SIGTERM, grace=20):
        """`sig` to the group, SIGKILL after `grace` seconds, then SIGKILL to whatever of the group
        outlived it; returns the exit status."""
        if self.popen is None:
            return None
        if self.popen.poll() is None:
            try:
                os.killpg(self.popen.pid, sig)
                self.popen.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                print(f"{self.name} (pid {self.popen.pid}) did not stop within {grace} s: SIGKILL",
                      file=sys.stderr, flush=True)
                os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait()
            except ProcessLookupError:
                pass
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        return self.popen.returncode

    def log_tail(self, lines=25):
        return log_tail(self.log_path, lines)


def log_tail(path, lines=25):
    """The last `lines` lines of a log file ("" when it cannot be read)."""
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


def log_lines(path, words):
    """The lines of a log file that contain any of `words`, stripped."""
    found = []
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if any(w in line for w in words):
                    found.append(line.strip())
    except OSError:
        pass
    return found


# Another tool of this package, in a process of its own -------------------------------------------

def module_command(module, *args):
    """The command that runs `python3 -m focalscripts.MODULE ARGS` with this Python."""
    return [sys.executable, "-m", f"{__package__}.{module}", *map(str, args)]


def module_env(env=None):
    """`env` (default: this process's environment) with this package's folder on PYTHONPATH, so
    that module_command runs from any working folder."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = paths.SCRIPTS + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


# /proc ----------------------------------------------------------------------------------------

def _stat_fields(pid):
    """The fields of /proc/PID/stat after the command name (state, ppid, pgrp, ...), or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    return stat[stat.rfind(")") + 2:].split()


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return None


def _pids():
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]


def process_tree(pid):
    """pid and all its descendants that are alive now."""
    children = {}
    for p in _pids():
        fields = _stat_fields(p)
        if fields:
            children.setdefault(int(fields[1]), []).append(p)
    tree, todo = [], [pid]
    while todo:
        p = todo.pop()
        tree.append(p)
        todo.extend(children.get(p, []))
    return tree


def processes_naming(text):
    """[(pid, command line)] of live processes (other than this one) whose command line contains
    `text`."""
    found = []
    for pid in _pids():
        if pid == os.getpid():
            continue
        cmdline = _cmdline(pid)
        if cmdline is not None and text in cmdline:
            found.append((pid, cmdline))
    return found


def processes_in_groups(groups):
    """[(pid, command line)] of live processes whose process group is one of `groups`."""
    found = []
    for pid in _pids():
        fields = _stat_fields(pid)
        cmdline = _cmdline(pid)
        if fields and cmdline is not None and int(fields[2]) in groups:
            found.append((pid, cmdline))
    return found


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
    """User plus system CPU time of a process so far (0 if it is gone)."""
    fields = _stat_fields(pid)
    if not fields:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def open_sockets(pid):
    """The sockets among a process's open file descriptors."""
    count = 0
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:"):
                    count += 1
            except OSError:
                pass
    except OSError:
        pass
    return count


# Debian packages ------------------------------------------------------------------------------

def as_root(cmd):
    """`cmd` as root: itself when root, through sudo otherwise."""
    if os.geteuid() == 0:
        return cmd
    if shutil.which("sudo"):
        return ["sudo"] + cmd
    sys.exit(f"need root to run {' '.join(cmd)} (install sudo, or run as root)")


def ensure_commands(commands, say):
    """Installs the Debian packages of the `{command: package}` that are not on PATH."""
    packages = sorted({package for command, package in commands.items() if not shutil.which(command)})
    if packages:
        say(f"installing {' '.join(packages)}")
        subprocess.run(as_root(["apt-get", "update", "-qq"]), check=True)
        subprocess.run(as_root(["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y",
                                "-qq", "--no-install-recommends"] + packages),
                       check=True, stdout=subprocess.DEVNULL)
