"""wrk, driven with the one Lua script beside this file (wrk.lua): threads rotate over a list of
paths without sharing one, and the script prints a JSON line that this module reads."""
import json
import os
import subprocess

LUA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wrk.lua")
TOOLS = {"wrk": "wrk"}  # command: Debian package (processes.ensure_commands)


class Run:
    """wrk running in the background over `paths` (request paths, each with its leading slash)
    against `base`; result() waits for it.

    ports: one port per server instance (thread i talks to 127.0.0.1:ports[i mod n]) instead of
    base's. count: count the answers by status, replica, cache state and Varnish retry (slower).
    The list of paths is written to `folder`/paths.txt."""

    def __init__(self, base, paths, seconds, threads, connections, folder, ports=None, count=False,
                 timeout=60):
        list_path = os.path.join(folder, "paths.txt")
        with open(list_path, "w") as f:
            f.write("".join(p + "\n" for p in paths))
        env = {k: v for k, v in os.environ.items() if k not in ("WRK_PORTS", "WRK_COUNT")}
        if ports:
            env["WRK_PORTS"] = ",".join(map(str, ports))
        if count:
            env["WRK_COUNT"] = "1"
        self.seconds = seconds
        self.command = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s",
                        "--timeout", f"{timeout}s", "--latency", "-s", LUA, base, "--", list_path,
                        str(threads)]
        self.popen = subprocess.Popen(self.command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True, env=env)

    def result(self, timeout=None):
        """wrk.lua's figures, with rps (answered requests per second) and errors (socket errors
        and timeouts) added; RuntimeError when wrk fails or prints none."""
        out, err = self.popen.communicate(timeout=timeout or self.seconds + 60)
        if self.popen.returncode != 0:
            raise RuntimeError(f"wrk failed ({self.popen.returncode}): {err.strip()}")
        return parse(out, err)


def parse(stdout, stderr=""):
    """The JSON line wrk.lua printed, with rps and errors added."""
    line = next((l for l in reversed(stdout.splitlines()) if l.startswith('{"wrk"')), None)
    if line is None:
        raise RuntimeError(f"wrk printed no result:\n{stdout}\n{stderr}")
    result = json.loads(line)
    seconds = result["duration_us"] / 1e6
    result["rps"] = result["requests"] / seconds if seconds else 0.0
    result["errors"] = result["connect_errors"] + result["read_errors"] + result["write_errors"] + result["timeouts"]
    return result


def run(base, paths, seconds, threads, connections, folder, **options):
    """Runs wrk to its end (Run's arguments): its figures."""
    return Run(base, paths, seconds, threads, connections, folder, **options).result()
