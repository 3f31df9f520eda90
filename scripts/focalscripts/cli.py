"""What every tool's command line shares: prefixed messages and settings from the environment."""
import math
import os
import sys


def prog(spec):
    """The program name for argparse: how the module was run (`python3 -m focalscripts.NAME`)."""
    return f"python3 -m {spec.name}" if spec else None


def sayer(name):
    """A function that prints `name: message` on standard error at once."""
    def say(message):
        print(f"{name}: {message}", file=sys.stderr, flush=True)
    return say


def env_int(name, default):
    """The integer in environment variable `name`, or `default` when it is unset or empty."""
    value = os.environ.get(name)
    return int(value) if value else default


def cores():
    """The CPUs this process may run on."""
    return len(os.sched_getaffinity(0))


def percentile(values, p):
    """The nearest-rank `p`th percentile of `values`, None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]
