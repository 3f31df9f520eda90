"""thumbor 7.8 and `focal serve` on the same photos and URLs, filter by filter (`make compare-filters`).

Usage: python3 -m focalscripts.filter_compare [--thumbor PATH] [--focal PATH]

Then sends the URLs of `thumbor_vectors` (sizes, spellings, arguments, formats and filters as
thumbor's, libthumbor's and imagor's test suites write them) to both, and compares status and size
(Focal's redirect to its own spelling followed); exits 1 when Focal refuses one thumbor serves, or
sizes it otherwise, unless `thumbor_vectors.KNOWN` says why.

Starts thumbor (its file loader, no detector) and `focal serve` on loopback ports over one
folder (the fixture photos and a PNG with alpha made from one of them), fetches each URL of the
list below from both, and compares the answers: the same size, and a mean absolute difference
(0-255 a channel) within 3 of the same URL without the filter. The pixel filters are applied to a
PNG at its own size (no resize), where the plain answers are the same pixels, so what differs is
the filter's; the sizing filters resize, which the two do differently (about 2-3 apart already). URLs marked as differing on purpose are measured and
their reason printed, not judged. Prints a Markdown table; exits 1 when a filter that should match
does not.
"""
import argparse
import os
import urllib.error
import urllib.request
import shutil
import sys
import tempfile

from . import paths
from .images import image_size, mean_difference, vips
from .servers import FocalServer, ThumborServer, thumbor_executable
from .thumbor_vectors import KNOWN, VECTORS
from .web import get

TOLERANCE = 3.0

# (URL after /unsafe/, the plain URL it is measured against, None or why Focal differs on purpose)
CASES = [
    ("filters:brightness(40):format(png)/astronaut.png", None),
    ("filters:brightness(-30):format(png)/astronaut.png", None),
    ("filters:contrast(40):format(png)/astronaut.png", None),
    ("filters:contrast(-30):format(png)/astronaut.png", None),
    ("filters:saturation(1.5):format(png)/astronaut.png", None),
    ("filters:saturation(0):format(png)/astronaut.png", None),
    ("filters:rgb(20,0,-20):format(png)/astronaut.png", None),
    ("filters:grayscale():format(png)/astronaut.png", None),
    ("filters:equalize():format(png)/astronaut.png", None),
    ("filters:colorize(40,40,40,ff8800):format(png)/astronaut.png", None),
    ("filters:blur(4):format(png)/astronaut.png", None),
    ("filters:blur(8,3):format(png)/astronaut.png", None),
    ("filters:convolution(1;2;1;2;4;2;1;2;1,3,true):format(png)/astronaut.png", None),
    ("filters:convolution(0;-1;0;-1;5;-1;0;-1;0,3,false):format(png)/astronaut.png", None),
    ("filters:curve([(0,0),(64,40),(192,215),(255,255)],[(0,0),(255,255)],[(0,0),(128,150),(255,255)],[(0,10),(255,240)]):format(png)/astronaut.png", None),
    ("filters:curve([(0,0),(255,255)],[(0,50),(128,170),(255,254)],[(0,0),(128,182),(255,252)],[(40,48),(128,144),(200,225)]):format(png)/astronaut.png", None),
    ("filters:rotate(90):format(png)/astronaut.png", None),
    ("300x200/filters:frame(frame.9.png):format(png)/grace_hopper.jpg",
     "thumbor 7.8's _nine_patch reads the image mode through PyUnicode_AsUTF8String's object as if it were a C string, "
     "so its stride and alpha index are garbage: it pads 0,0,0,19 and draws no frame; Focal frames as a nine-patch is meant to"),
    ("filters:rotate(180):format(png)/astronaut.png", None),
    ("-512x0/filters:rotate(90):format(png)/astronaut.png", None),
    ("-512x0/filters:watermark(chelsea.png,-10,-10,30,30,none):format(png)/astronaut.png", None),
    ("filters:round_corner(20,255,255,255):format(png)/astronaut.png", None),
    ("300x200/filters:background_color(ff0000):format(png)/alpha.png", None),
    ("filters:brightness(30):format(png)/alpha.png", None),
    ("filters:grayscale():format(png)/alpha.png", None),
    ("filters:colorize(40,40,40,ff8800):format(png)/alpha.png", None),
    ("filters:watermark(chelsea.png,-10,-10,30,30,none):format(png)/astronaut.png", None),
    ("filters:watermark(chelsea.png,center,center,50):format(png)/astronaut.png", None),
    ("fit-in/300x300/filters:fill(ff0000):format(png)/grace_hopper.jpg", None),
    ("fit-in/300x300/filters:fill(auto):format(png)/grace_hopper.jpg", None),
    ("300x200/filters:proportion(0.5):format(png)/grace_hopper.jpg", None),
    ("900x900/filters:no_upscale():format(png)/astronaut.png", None),
    ("fit-in/1000x1000/filters:upscale():format(png)/astronaut.png", None),
    ("300x100/filters:stretch():format(png)/grace_hopper.jpg", None),
    # Pocket's image cache sends extract_focal() with every plain photo: no change, in both.
    ("300x200/filters:extract_focal():format(png)/grace_hopper.jpg", None),
    ("filters:noise(20):format(png)/astronaut.png", "random: Focal's noise is the same for one seed on every replica, not thumbor's sequence"),
    ("filters:sharpen(2,1,true):format(png)/astronaut.png",
     "thumbor sharpens with GIMP's wavelet sharpen, Focal with an unsharp mask of the same amount and radius"),
    ("fit-in/300x300/filters:fill(blur):format(png)/grace_hopper.jpg", None),
]


def write_nine_patch(path):
    """A 42x42 nine-patch: a 10-pixel ring (gold, its inner half half transparent) round a clear
    middle; the top and left guides stretch the middle 20 columns and rows, the bottom and right
    guides put the image 10 pixels in from each side."""
    size, ring = 42, 10
    pixels = []
    for y in range(size):
        for x in range(size):
            border = x in (0, size - 1) or y in (0, size - 1)
            if border:
                guide = (y == 0 or y == size - 1) and 1 + ring <= x < size - 1 - ring or \
                        (x == 0 or x == size - 1) and 1 + ring <= y < size - 1 - ring
                pixels.append((0, 0, 0, 255) if guide else (0, 0, 0, 0))
                continue
            depth = min(x - 1, y - 1, size - 2 - x, size - 2 - y)
            if depth >= ring:
                pixels.append((0, 0, 0, 0))
            else:
                pixels.append((200, 160, 40, 255 if depth < ring // 2 else 128))
    data = bytes(v for p in pixels for v in p)
    raw = os.path.splitext(path)[0] + ".rgba"
    with open(raw, "wb") as f:
        f.write(data)
    vips("rawload", raw, path, str(size), str(size), "4")
    os.remove(raw)


def plain_of(case):
    """The URL without its filters but format(png): what the two servers' resizes alone differ by."""
    head, _, rest = case.partition("filters:")
    image = rest.rsplit("/", 1)[1]
    return f"{head}filters:format(png)/{image}"


def compare(thumbor, focal):
    rows, failures = [], 0
    baselines = {}
    for case, reason in CASES:
        answers = {}
        for name, server in (("thumbor", thumbor), ("focal", focal)):
            status, headers, body = get(f"{server.base}/unsafe/{case}")
            if status != 200:
                raise SystemExit(f"filter_compare: {name} answered {status} to /unsafe/{case}: {body[:200]!r}")
            answers[name] = body
        sizes = {name: image_size(body) for name, body in answers.items()}
        plain = plain_of(case)
        if plain not in baselines:
            a = get(f"{thumbor.base}/unsafe/{plain}")[2]
            b = get(f"{focal.base}/unsafe/{plain}")[2]
            baselines[plain] = mean_difference(a, b) if image_size(a) == image_size(b) else None
        baseline = baselines[plain]
        same_size = sizes["thumbor"] == sizes["focal"]
        difference = mean_difference(answers["thumbor"], answers["focal"]) if same_size else None
        if reason:
            verdict = f"differs on purpose: {reason}"
        elif not same_size:
            verdict, failures = "**sizes differ**", failures + 1
        elif baseline is not None and difference <= baseline + TOLERANCE:
            verdict = "same"
        else:
            verdict, failures = f"**differs** (over {TOLERANCE:g} past the plain crops)", failures + 1
        shown = lambda s: f"{s[0]}x{s[1]}"
        rows.append(f"| `{case.split('filters:')[1].split(':format')[0]}` | `{case.split('filters')[0].rstrip('/') or '(own size)'}` | {shown(sizes['thumbor'])} | "
                    f"{shown(sizes['focal'])} | {'-' if baseline is None else f'{baseline:.1f}'} | "
                    f"{'-' if difference is None else f'{difference:.1f}'} | {verdict} |")
    return rows, failures


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _first_answer(url):
    """(status, headers, body) of a GET without following a redirect."""
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(url, timeout=120) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def _answer(base, path, with_type=False):
    """(statuses as "200" or "308→200", size as "WxH" (then the media type `with_type`) or the
    media type, the final status)."""
    status, headers, body = _first_answer(f"{base}/unsafe/{path}")
    statuses = str(status)
    if status == 308 and headers.get("location"):
        status, headers, body = _first_answer(base + headers["location"])
        statuses += f"→{status}"
    if status != 200:
        return statuses, "-", status
    kind = headers.get("content-type", "")
    if kind.startswith("image/"):
        try:
            w, h = image_size(body)
            return statuses, f"{w}x{h}" + (f" {kind.split(';')[0]}" if with_type else ""), status
        except Exception:  # a format this libvips reads no size of (JPEG XL)
            return statuses, kind, status
    return statuses, kind.split(";")[0], status


def compatibility(thumbor, focal):
    """The table of `thumbor_vectors.VECTORS` and its failures: a vector thumbor serves that
    Focal refuses or answers at another size, unless `KNOWN` says why."""
    rows, failures, served, focal_served, same = [], 0, 0, 0, 0
    for category, path in VECTORS:
        t_status, t_size, t_final = _answer(thumbor.base, path, with_type=category == "source")
        f_status, f_size, f_final = _answer(focal.base, path, with_type=category == "source")
        if t_final == 200:
            served += 1
            focal_served += f_final == 200
            same += f_final == 200 and t_size == f_size
        if path in KNOWN:
            verdict = f"differs on purpose: {KNOWN[path]}"
        elif t_final != 200:
            verdict = "thumbor refuses" + (", Focal serves" if f_final == 200 else "")
        elif f_final != 200:
            verdict, failures = "**Focal refuses**", failures + 1
        elif t_size != f_size:
            verdict, failures = "**sizes differ**", failures + 1
        else:
            verdict = "same size"
        rows.append(f"| {category} | `{path}` | {t_status} {t_size} | {f_status} {f_size} | {verdict} |")
    summary = (f"thumbor 7.8 serves {served} of {len(VECTORS)} vectors; Focal serves {focal_served} of those "
               f"({100 * focal_served / max(served, 1):.0f} %), {same} at thumbor's size "
               f"({100 * same / max(focal_served, 1):.0f} % of both served)")
    return rows, failures, summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--thumbor", default=None, help="thumbor executable (default: .cache/thumbor-venv, built when missing)")
    parser.add_argument("--focal", default=None, help="focal executable (default: FOCAL_BIN, .build/debug/focal, else release)")
    args = parser.parse_args()
    thumbor_bin = args.thumbor or thumbor_executable()
    focal_bin = args.focal or paths.focal_binary(paths.DEBUG_FOCAL, paths.RELEASE_FOCAL)
    root = tempfile.mkdtemp(prefix="focal-filter-compare-")
    try:
        for name in ("grace_hopper.jpg", "astronaut.png", "chelsea.png"):
            shutil.copy(os.path.join(paths.FIXTURES, name), root)
        write_nine_patch(os.path.join(root, "frame.9.png"))
        # A PNG with alpha: the photo, half transparent.
        vips("bandjoin_const", os.path.join(root, "grace_hopper.jpg"), os.path.join(root, "alpha.png"), "128")
        vips("copy", os.path.join(root, "grace_hopper.jpg"), os.path.join(root, "photo.tif"))
        vips("copy", os.path.join(root, "grace_hopper.jpg"), os.path.join(root, "photo.avif"))
        vips("copy", os.path.join(root, "grace_hopper.jpg"), os.path.join(root, "still.gif"))
        # A CMYK JPEG without a profile: read through a CMYK profile (libvips's own).
        vips("icc_transform", os.path.join(root, "grace_hopper.jpg"), os.path.join(root, "cmyk-profiled.jpg"), "cmyk")
        vips("copy", os.path.join(root, "cmyk-profiled.jpg"), os.path.join(root, "cmyk.jpg[strip]"))
        with ThumborServer(thumbor_bin, root, processes=1, detectors=()) as thumbor, FocalServer(focal_bin, root, allow_unsafe=True) as focal:
            rows, failures = compare(thumbor, focal)
            compat_rows, compat_failures, summary = compatibility(thumbor, focal)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"| filter | URL | thumbor 7.8 | Focal | plain crops differ by | filtered differ by | verdict |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print("| kind | URL after /unsafe/ | thumbor 7.8 | Focal | verdict |")
    print("|---|---|---|---|---|")
    print("\n".join(compat_rows))
    print()
    print(summary)
    if failures:
        print(f"filter_compare: {failures} filter(s) do not answer as thumbor's do", file=sys.stderr)
    if compat_failures:
        print(f"filter_compare: {compat_failures} URL(s) thumbor serves that Focal refuses or sizes otherwise", file=sys.stderr)
    return 1 if failures or compat_failures else 0


if __name__ == "__main__":
    sys.exit(main())
