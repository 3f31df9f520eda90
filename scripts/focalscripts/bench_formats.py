"""`make bench-formats`: what each output encoding costs and keeps, side by side in one run.

Every photo of the set (the fixtures, and the development photos when ../shared is beside the
checkout) is reduced to at most 1200 px wide (never enlarged), as a page's hero would be, then encoded by libvips's own
savers with the settings Focal uses (JPEG with optimised tables, WebP, AVIF through libheif and
libaom) at several qualities and, for AVIF, several efforts. Per setting: kilobytes and encode
milliseconds per megapixel (the `vips` command's time less that of a plain copy, so start-up
cancels out), and a structural similarity to the source (SSIM of the luma over 8x8 blocks,
computed with libvips: 1 is identical). Settings run interleaved per photo.

Focal's choices came from this table: AVIF at effort 0 (libaom's fastest) and quality 15 below
JPEG's (85 gives 70), WebP at the quality given. Options --enlarge (photos brought up to the
width, as an upscaled hero) shows the other side of it.

Options: --photos N (at most N photos, default all), --width W (default 1200).
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

from . import paths
from .cli import prog

FIXTURES = ["grace_hopper.jpg", "astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "motorcycle_left.png"]

# (name, libvips saver, its options, extension)
SETTINGS = [("jpeg q85", "jpegsave", ["--Q", "85", "--optimize-coding", "--strip"], ".jpg"),
            ("webp q85", "webpsave", ["--Q", "85", "--strip"], ".webp"),
            ("webp q75", "webpsave", ["--Q", "75", "--strip"], ".webp")]
for _q in (65, 70, 75):
    for _effort in (0, 2, 4):
        SETTINGS.append((f"avif q{_q} effort {_effort}", "heifsave",
                         ["--Q", str(_q), "--compression", "av1", "--effort", str(_effort), "--bitdepth", "8",
                          "--strip"], ".avif"))


def vips(*args):
    subprocess.run(["vips", *args], check=True, capture_output=True)


def header(path, field):
    out = subprocess.run(["vipsheader", "-f", field, path], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def luma(src, dest, work):
    """`src` as one float band of luma (0-255)."""
    grey = os.path.join(work, "grey.v")
    vips("colourspace", src, grey, "b-w")
    band = os.path.join(work, "band.v")
    vips("extract_band", grey, band, "0")
    vips("cast", band, dest, "float")


def block_stats(a, b, work):
    """Per 8x8 block: means of a, b, a*a, b*b, a*b (files)."""
    out = {}
    for name, (x, y) in {"aa": (a, a), "bb": (b, b), "ab": (a, b)}.items():
        product = os.path.join(work, f"{name}.v")
        vips("multiply", x, y, product)
        out[name] = product
    out["a"], out["b"] = a, b
    means = {}
    for name, path in out.items():
        mean = os.path.join(work, f"m{name}.v")
        vips("shrink", path, mean, "8", "8")
        means[name] = mean
    return means


def ssim(reference, candidate, work):
    """Mean SSIM of the luma over 8x8 blocks (constants of Wang et al. for 8-bit)."""
    a, b = os.path.join(work, "la.v"), os.path.join(work, "lb.v")
    luma(reference, a, work)
    luma(candidate, b, work)
    m = block_stats(a, b, work)
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    p = lambda name: os.path.join(work, name + ".v")  # noqa: E731
    vips("multiply", m["a"], m["b"], p("mamb"))
    vips("multiply", m["a"], m["a"], p("ma2"))
    vips("multiply", m["b"], m["b"], p("mb2"))
    vips("subtract", m["ab"], p("mamb"), p("cov"))
    vips("subtract", m["aa"], p("ma2"), p("va"))
    vips("subtract", m["bb"], p("mb2"), p("vb"))
    vips("linear", p("mamb"), p("n1"), "2", str(c1))
    vips("linear", p("cov"), p("n2"), "2", str(c2))
    vips("add", p("ma2"), p("mb2"), p("d1a"))
    vips("linear", p("d1a"), p("d1"), "1", str(c1))
    vips("add", p("va"), p("vb"), p("d2a"))
    vips("linear", p("d2a"), p("d2"), "1", str(c2))
    vips("multiply", p("n1"), p("n2"), p("num"))
    vips("multiply", p("d1"), p("d2"), p("den"))
    vips("divide", p("num"), p("den"), p("map"))
    out = subprocess.run(["vips", "avg", p("map")], check=True, capture_output=True, text=True)
    return float(out.stdout.strip())


def timed(args):
    start = time.perf_counter()
    vips(*args)
    return time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(prog=prog(__spec__), description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--photos", type=int, default=0)
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--enlarge", action="store_true", help="bring smaller photos up to --width too")
    args = parser.parse_args(argv)
    if shutil.which("vips") is None:
        sys.exit("bench-formats: the vips command is missing (libvips-tools; scripts/setup.sh deps installs it)")
    photos = [os.path.join(paths.ROOT, "Fixtures", name) for name in FIXTURES]
    photos = [p for p in photos if os.path.exists(p)]
    photos += sorted(glob.glob(os.path.join(paths.DEV, "*.jpg")))[::4]
    if args.photos > 0:
        photos = photos[:args.photos]
    if not photos:
        sys.exit("bench-formats: no photos (run `make fixtures`)")
    totals = {name: [0, 0.0, 0.0] for name, *_ in SETTINGS}
    megapixels = 0.0
    with tempfile.TemporaryDirectory(prefix="focal-bench-formats.") as work:
        for photo in photos:
            reference = os.path.join(work, "reference.v")
            vips("thumbnail", photo, reference, str(args.width), "--height", "100000", "--size",
                 "both" if args.enlarge else "down")
            megapixels += int(header(reference, "width")) * int(header(reference, "height")) / 1e6
            for name, saver, options, ext in SETTINGS:
                out = os.path.join(work, "out" + ext)
                copy = timed(["copy", reference, os.path.join(work, "copy.v")])
                seconds = timed([saver, reference, out, *options])
                totals[name][0] += os.path.getsize(out)
                totals[name][1] += max(0.0, seconds - copy)
                totals[name][2] += ssim(reference, out, work)
    print(f"{len(photos)} photos, at most {args.width} px wide{' (enlarged to it)' if args.enlarge else ''}, "
          f"{megapixels:.1f} MP in all; "
          f"libvips {header_version()}")
    print(f"{'setting':22} {'KB/MP':>8} {'encode ms/MP':>13} {'SSIM':>7}")
    for name, (size, seconds, similarity) in totals.items():
        print(f"{name:22} {size / 1024 / megapixels:8.1f} {1000 * seconds / megapixels:13.0f} "
              f"{similarity / len(photos):7.4f}")


def header_version():
    out = subprocess.run(["vips", "--version"], capture_output=True, text=True)
    return out.stdout.strip().split("-")[-1] if out.returncode == 0 else "?"


if __name__ == "__main__":
    main()
