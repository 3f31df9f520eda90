"""Runs the browser tests: starts `focal serve` (a temporary --data folder, a token, unsafe URLs
allowed) and the test proxy, runs the tests in headless Chromium, and always stops the server.

    python3 Tests/browser/run.py --focal .build/debug/focal [--root Fixtures] [-k PATTERN] [-v]

Exit status: 0 when every test passed.
"""

import argparse
import atexit
import os
import signal
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402


def main():
    repo = HERE.parent.parent
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--focal", default=str(repo / ".build/debug/focal"), help="the focal executable")
    parser.add_argument("--root", default=str(repo / "Fixtures"), help="the demo photos")
    parser.add_argument("--screenshots", default=str(repo / ".cache/screenshots"), help="where screenshots go")
    parser.add_argument("--pidfile", help="write the server's process id here (for a wrapper's trap)")
    parser.add_argument("-k", dest="patterns", action="append", help="only tests whose name contains this")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="focal-browser-")
    env = harness.Environment(os.path.abspath(args.focal), os.path.abspath(args.root), str(repo),
                              args.screenshots, workdir)
    harness.env = env
    env.focal.pidfile = args.pidfile
    env.focal.write_pid()
    atexit.register(env.close)
    # SIGTERM and SIGINT end the run through atexit, so the server never outlives it.
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: sys.exit(130))
    print(f"focal serve on {env.focal.origin}, pages through {env.origin}; log {env.focal.log_path}", flush=True)

    loader = unittest.TestLoader()
    if args.patterns:
        loader.testNamePatterns = [f"*{p}*" for p in args.patterns]
    suite = loader.discover(str(HERE), pattern="test_*.py", top_level_dir=str(HERE))
    result = unittest.TextTestRunner(verbosity=2 if args.verbose else 1).run(suite)
    if not result.wasSuccessful():
        # Keep the server's log where it can be read.
        log = Path(args.screenshots) / "focal.log"
        try:
            log.write_bytes(Path(env.focal.log_path).read_bytes())
            print(f"server log: {log}")
        except OSError:
            pass
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
