"""Checks that thumbor runs its face detector: `scripts/thumbor-env.sh check` runs this.

    python3 -m focalscripts.thumbor_check [--thumbor .cache/thumbor-venv/bin/thumbor] [--root Fixtures]

starts thumbor with its face detector alone on a free port and checks that a `smart` crop really
ran the detector (the `meta/` answer lists focal points from "Face Detection", and the smart crop
differs from the centre crop), then stops it.
"""
import argparse
import json
import os
import sys

from . import images, paths
from .cli import prog
from .servers import ThumborServer
from .web import get


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
            if status != 200 or not headers.get("content-type", "").startswith("image/"):
                sys.exit(f"check: the {label} crop answered {status} {headers.get('content-type')}")
            size = images.image_size(body)
            if size != (300, 300):
                sys.exit(f"check: the {label} crop is {size[0]}x{size[1]}, not 300x300")
        if smart[2] == centre[2]:
            sys.exit("check: the smart crop is the same as the centre crop")
        face = faces[0]
        print(f"check: thumbor answers /unsafe/300x300/smart/{photo}: 300x300 "
              f"{smart[1].get('content-type')}, {len(smart[2])} bytes; its face detector found "
              f"{len(faces)} face(s), the first at x={face['x']:.0f} y={face['y']:.0f} "
              f"({face['width']}x{face['height']}); the smart crop differs from the centre crop")


def main():
    parser = argparse.ArgumentParser(prog=prog(__spec__), description=__doc__.split("\n\n")[0])
    parser.add_argument("--thumbor", default=os.path.join(paths.CACHE, "thumbor-venv", "bin", "thumbor"))
    parser.add_argument("--root", default=paths.FIXTURES)
    parser.add_argument("--photo", default="grace_hopper.jpg")
    args = parser.parse_args()
    check_thumbor(args.thumbor, args.root, args.photo)


if __name__ == "__main__":
    main()
