"""HTTP as the tools speak it: requests whose error statuses are answers, thumbor's signed URLs,
waiting for a server to be ready, and Prometheus text from /metrics.

    python3 -m focalscripts.web wait URL [--pid PID] [--timeout SECONDS] [--contains TEXT]

waits until URL answers 200 (with TEXT in its body, when given) and exits 0; exits 1 with the
reason when process PID exits first, the time runs out or the body lacks TEXT (for the shell
scripts that start a server).
"""
import argparse
import base64
import hashlib
import hmac
import re
import sys
import time
import urllib.error
import urllib.request

from .cli import prog


def request(method, url, body=None, headers=None, timeout=60):
    """(status, headers as a dict with lower-case names, body bytes); HTTP errors are answers, not
    exceptions. Failures to connect or read raise OSError."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def get(url, headers=None, timeout=60):
    """A GET: (status, lower-case headers, body)."""
    return request("GET", url, headers=headers, timeout=timeout)


def sign(key, path):
    """thumbor's signature of `path` (the URL after the signature, no leading slash): HMAC-SHA1,
    URL-safe base64."""
    digest = hmac.new(key.encode(), path.encode(), hashlib.sha1).digest()
    return base64.urlsafe_b64encode(digest).decode()


def signed(key, path):
    """`/SIGNATURE/path`, or `/unsafe/path` when key is None."""
    return f"/{sign(key, path)}/{path}" if key else f"/unsafe/{path}"


class NotReady(RuntimeError):
    """The server exited, or did not answer as asked within the time."""


def wait_ready(url, alive=lambda: True, timeout=120, contains=None):
    """Polls `url` every 0.1 s until it answers 200 (with `contains` in its body, when given).
    Raises NotReady when alive() turns false, when the time runs out, or when a 200 lacks
    `contains`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive():
            raise NotReady("exited while starting")
        try:
            status, _, body = get(url, timeout=2)
        except OSError:
            status, body = None, b""
        if status == 200:
            if contains is None or contains.encode() in body:
                return
            raise NotReady(f"{url} answered 200 without {contains!r}")
        time.sleep(0.1)
    raise NotReady(f"{url} did not answer 200 within {timeout:g} s")


def parse_metrics(text):
    """Prometheus text to {(name, frozenset(labels.items())): value}."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)', line)
        if not m:
            continue
        labels = frozenset(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
        try:
            out[(m.group(1), labels)] = float(m.group(3))
        except ValueError:
            pass
    return out


def metric_sum(metrics, name, **labels):
    """Sum of a metric over the series whose labels include `labels`."""
    want = set(labels.items())
    return sum(v for (n, ls), v in metrics.items() if n == name and want <= set(ls))


def metric_by(metrics, name, label):
    """{value of `label`: the metric's value} over the series of `name` that have that label."""
    out = {}
    for (n, ls), v in metrics.items():
        labels = dict(ls)
        if n == name and label in labels:
            out[labels[label]] = out.get(labels[label], 0) + v
    return out


def main():
    parser = argparse.ArgumentParser(prog=prog(__spec__), description="HTTP helpers for the shell scripts")
    sub = parser.add_subparsers(dest="command", required=True)
    wait = sub.add_parser("wait", help="wait until URL answers 200")
    wait.add_argument("url")
    wait.add_argument("--pid", type=int, help="give up when this process exits")
    wait.add_argument("--timeout", type=float, default=120)
    wait.add_argument("--contains", help="text the 200 answer's body must hold")
    args = parser.parse_args()

    def alive():
        if args.pid is None:
            return True
        try:
            with open(f"/proc/{args.pid}/stat") as f:
                stat = f.read()
        except OSError:
            return False
        return stat[stat.rfind(")") + 2:].split()[0] != "Z"  # a zombie has exited

    try:
        wait_ready(args.url, alive, args.timeout, args.contains)
    except NotReady as error:
        sys.exit(f"wait: {error}")


if __name__ == "__main__":
    main()
