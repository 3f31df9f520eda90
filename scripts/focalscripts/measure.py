"""Runs a command and reports its peak resident memory, time and how it ended.

Usage: python3 -m focalscripts.measure [--timeout SECONDS] [--report FILE] -- COMMAND [ARGS...]

The command's standard output and error pass through. The report (JSON, to FILE, else as the
last line of standard error) holds exit (its exit code, or null), signal (the signal that ended
it, or null), timed_out (killed at the time limit), seconds and peak_mb.

Why a process of its own: Linux carries a process's peak memory across exec, so a child that a
large process (a test runner) spawns reports the runner's peak, not its own. This small process
starts the command, so the figure is the command's. The Swift tests' MeasuredRun and
focalscripts.mutate run it so; run() serves the tools that start commands from a small process
themselves (bench, decodecost).
"""
import json
import os
import signal
import subprocess
import sys
import time


def run(command, timeout=None, stdout=None, stderr=None, cwd=None, env=None):
    """Runs `command`; returns {exit, signal, timed_out, seconds, peak_mb}. Without a timeout it
    waits for the end itself (exact seconds); with one it polls every 5 ms."""
    started = time.monotonic()
    child = subprocess.Popen(command, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL, cwd=cwd, env=env)
    timed_out = False
    if timeout is None:
        _, status, usage = os.wait4(child.pid, 0)
    else:
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid == child.pid:
                break
            if time.monotonic() - started > timeout and not timed_out:
                child.send_signal(signal.SIGKILL)
                timed_out = True
            time.sleep(0.005)
    child.returncode = 0  # reaped here; keep Popen from waiting again
    return {
        "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        "timed_out": timed_out,
        "seconds": time.monotonic() - started,
        "peak_mb": usage.ru_maxrss / 1024,
    }


def main():
    args = sys.argv[1:]
    timeout, report = None, None
    while args and args[0] != "--":
        if args[0] == "--timeout":
            timeout, args = float(args[1]), args[2:]
        elif args[0] == "--report":
            report, args = args[1], args[2:]
        elif args[0] in ("-h", "--help"):
            print(__doc__)
            return
        else:
            sys.exit(f"measure: unknown option {args[0]}")
    if not args[1:]:
        sys.exit("usage: python3 -m focalscripts.measure [--timeout SECONDS] [--report FILE] -- COMMAND [ARGS...]")
    result = run(args[1:], timeout)
    result.update(seconds=round(result["seconds"], 3), peak_mb=round(result["peak_mb"], 1))
    text = json.dumps(result)
    if report:
        with open(report, "w") as f:
            f.write(text + "\n")
    else:
        print(text, file=sys.stderr)


if __name__ == "__main__":
    main()
