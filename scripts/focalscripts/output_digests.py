"""`make output-digests`: the SHA-256 of `focal serve`'s answer to every URL of a fixed corpus, for
two builds side by side, so that a refactor can show it changed no output byte.

Usage: python3 -m focalscripts.output_digests [--before BIN] [--after BIN] [--list]

Starts each build's `focal serve --allow-unsafe` afresh on loopback over one folder (the fixture
photos, an animated GIF, a PNG with alpha and a nine-patch frame), asks each URL of CORPUS below
(every effect, smart and manual crops, detections drawn, redactions of every style and shape,
watermark, fill, frame, mirroring, animations, every output format, max_bytes, autojpg, trim),
and compares the answers' status, type and SHA-256. `--after` defaults to this checkout's
release build, `--before` to nothing (then the digests alone are printed: `--list`). Exits 1
when any answer differs.
"""
import argparse
import hashlib
import os
import shutil
import sys
import tempfile

from . import paths
from .filter_compare import write_nine_patch
from .images import vips
from .servers import FocalServer
from .web import get

# What every answer is made of: the photos and overlays under the server's root.
PHOTOS = ["grace_hopper.jpg", "astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg"]

CORPUS = [
    # Crops: smart (faces, a pet, saliency), manual, fit-in, aspect, flips.
    "300x200/smart/grace_hopper.jpg",
    "200x200/smart/chelsea.png",
    "320x180/smart/coffee.png",
    "400x300/smart/filters:format(webp)/astronaut.png",
    "100x100:400x400/200x200/grace_hopper.jpg",
    "fit-in/300x300/grace_hopper.jpg",
    "-300x200/smart/grace_hopper.jpg",
    "300x-200/smart/astronaut.png",
    "-300x-200/smart/filters:grayscale()/astronaut.png",
    "trim/200x200/coffee.png",
    # Every effect.
    "300x200/smart/filters:brightness(40)/grace_hopper.jpg",
    "300x200/smart/filters:contrast(-30)/grace_hopper.jpg",
    "300x200/smart/filters:saturation(1.5)/grace_hopper.jpg",
    "300x200/smart/filters:rgb(20,0,-20)/grace_hopper.jpg",
    "300x200/smart/filters:grayscale()/grace_hopper.jpg",
    "300x200/smart/filters:equalize()/grace_hopper.jpg",
    "300x200/smart/filters:colorize(40,40,40,ff8800)/grace_hopper.jpg",
    "300x200/smart/filters:blur(4)/grace_hopper.jpg",
    "300x200/smart/filters:sharpen(2,1,true)/grace_hopper.jpg",
    "300x200/smart/filters:convolution(1;2;1;2;4;2;1;2;1,3,true)/grace_hopper.jpg",
    "300x200/smart/filters:curve([(0,0),(64,40),(192,215),(255,255)],[(0,0),(255,255)],[(0,0),(128,150),(255,255)],[(0,10),(255,240)])/grace_hopper.jpg",
    "300x200/smart/filters:rotate(90)/grace_hopper.jpg",
    "300x200/smart/filters:noise(20)/grace_hopper.jpg",
    "300x200/smart/filters:round_corner(20,255,255,255)/grace_hopper.jpg",
    "300x200/smart/filters:hue(90)/grace_hopper.jpg",
    "300x200/filters:background_color(ff0000)/alpha.png",
    "300x200/filters:brightness(30):format(png)/alpha.png",
    # Detections drawn; redactions of every style, kind and shape.
    "300x200/smart/filters:draw_detections()/grace_hopper.jpg",
    "300x200/smart/filters:draw_detections()/chelsea.png",
    "300x200/smart/filters:redact(blur)/grace_hopper.jpg",
    "300x200/smart/filters:redact(pixelate,12)/grace_hopper.jpg",
    "300x200/smart/filters:redact(ff00ff,face+person,oval)/astronaut.png",
    "300x200/smart/filters:redact(blur):draw_detections():grayscale()/grace_hopper.jpg",
    "300x200/filters:redact(pixelate):format(png)/alpha.png",
    # Overlays, alone and together, and with a redaction.
    "300x200/smart/filters:watermark(chelsea.png,-10,-10,30,30,none)/grace_hopper.jpg",
    "300x200/smart/filters:watermark(chelsea.png,center,center,50)/grace_hopper.jpg",
    "300x200/smart/filters:watermark(grace_hopper.jpg,0,0,0,100,100):redact(blur)/chelsea.png",
    "fit-in/300x300/filters:fill(ff0000)/grace_hopper.jpg",
    "fit-in/300x300/filters:fill(auto)/grace_hopper.jpg",
    "fit-in/300x300/filters:fill(blur)/grace_hopper.jpg",
    "fit-in/300x300/filters:fill(transparent):format(png)/grace_hopper.jpg",
    "300x200/filters:frame(frame.9.png)/grace_hopper.jpg",
    "fit-in/300x300/filters:fill(ff0000):frame(frame.9.png):watermark(chelsea.png,10,10,20):blur(2)/grace_hopper.jpg",
    "300x200/smart/filters:frame(frame.9.png):redact(pixelate)/grace_hopper.jpg",
    "300x200/smart/filters:image(chelsea.png,right-10,bottom-10,30,multiply)/grace_hopper.jpg",
    "300x200/filters:image(grace_hopper.jpg,0,0):redact(blur):format(png)/alpha.png",
    # Animations: a crop, effects, a redaction, overlays.
    "200x150/smart/animation.gif",
    "200x150/smart/filters:grayscale():format(webp)/animation.gif",
    "200x150/smart/filters:redact(blur)/animation.gif",
    "200x150/filters:watermark(chelsea.png,0,0,20):frame(frame.9.png)/animation.gif",
    "200x150/filters:image(chelsea.png,center,center,50)/animation.gif",
    "200x100/filters:grayscale()/color:ff6600",
    "-200x150/filters:draw_detections()/animation.gif",
    # Formats and encoding.
    "300x200/smart/filters:format(png)/grace_hopper.jpg",
    "300x200/smart/filters:format(webp):quality(60)/grace_hopper.jpg",
    "300x200/smart/filters:format(avif)/grace_hopper.jpg",
    "300x200/smart/filters:format(gif)/grace_hopper.jpg",
    "300x200/smart/filters:max_bytes(6000)/grace_hopper.jpg",
    "300x200/filters:autojpg()/astronaut.png",
    "300x200/smart/filters:strip_icc():quality(95)/rocket.jpg",
]


def answers(binary, root):
    """{url: (status, type, sha256)} from `binary`'s server over `root`."""
    out = {}
    with FocalServer(binary, root, allow_unsafe=True) as server:
        for url in CORPUS:
            status, headers, body = get(server.base + "/unsafe/" + url, timeout=120)
            out[url] = (status, headers.get("content-type", ""), hashlib.sha256(body).hexdigest())
    return out


def make_root():
    root = tempfile.mkdtemp(prefix="focal-output-digests-")
    for name in PHOTOS:
        shutil.copy(os.path.join(paths.FIXTURES, name), root)
    shutil.copy(os.path.join(paths.ROOT, "docs", "animation-in.gif"), os.path.join(root, "animation.gif"))
    write_nine_patch(os.path.join(root, "frame.9.png"))
    vips("bandjoin_const", os.path.join(root, "grace_hopper.jpg"), os.path.join(root, "alpha.png"), "128")
    return root


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="the other build's focal (e.g. a worktree's .build/release/focal)")
    parser.add_argument("--after", default=paths.RELEASE_FOCAL, help="this build's focal (default: the release build)")
    parser.add_argument("--list", action="store_true", help="print every digest")
    args = parser.parse_args()
    root = make_root()
    try:
        after = answers(args.after, root)
        before = answers(args.before, root) if args.before else None
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if args.list or before is None:
        for url, (status, kind, digest) in after.items():
            print(f"{digest[:16]} {status} {kind:<11} {url}")
    if before is None:
        return 0
    changed = [url for url in CORPUS if before[url] != after[url]]
    for url in changed:
        print(f"differs: {url}\n  before {before[url]}\n  after  {after[url]}")
    print(f"output_digests: {len(CORPUS) - len(changed)} of {len(CORPUS)} answers the same byte for byte"
          f" ({sum(1 for v in after.values() if v[0] != 200)} answered with an error status in both builds)")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
