"""The checkout's folders, the focal binary the tools run, and how they name paths and commits."""
import os
import subprocess

PACKAGE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(PACKAGE)
ROOT = os.path.dirname(SCRIPTS)
FIXTURES = os.path.join(ROOT, "Fixtures")
MODELS = os.path.join(ROOT, "models")
CACHE = os.path.join(ROOT, ".cache")
# The development photos, when ../shared is beside the checkout.
DEV = os.path.join(ROOT, "..", "shared", "eval", "dev")
RELEASE_FOCAL = os.path.join(ROOT, ".build", "release", "focal")
DEBUG_FOCAL = os.path.join(ROOT, ".build", "debug", "focal")


def focal_binary(default=RELEASE_FOCAL, fallback=None):
    """The focal executable to run, as an absolute path: FOCAL_BIN when set, else `default`, else
    `fallback` when `default` does not exist."""
    chosen = os.environ.get("FOCAL_BIN")
    if not chosen:
        chosen = default
        if fallback and not os.path.exists(default):
            chosen = fallback
    return os.path.abspath(chosen)


def shown(path):
    """`path` relative to the checkout when it is inside it, else as it is."""
    path = os.path.abspath(path)
    return os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path


def commit():
    """The checkout's short commit, or "unknown"."""
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return out.stdout.strip() or "unknown"
