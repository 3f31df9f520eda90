"""Measures what one decode costs in memory, per format, to calibrate DecodeCost.

Usage: python3 -m focalscripts.decodecost [--only TEXT] [SIDE...]   (default sides 3000 4500; pixels are SIDE x SIDE;
       --only measures the formats whose name contains TEXT)

For each format that a decoder holds whole (progressive JPEG, interlaced PNG, GIF, WebP, HEIF,
TIFF strips) and, for comparison, the streaming ones, it writes a photo (Fixtures/grace_hopper.jpg
enlarged, so that every page of memory is touched as a real image would) at each side, runs
`vips thumbnail FILE 640 --size force` (the shrink-on-load decode Focal's proxy and render make,
with libvips set as Focal sets it: no operation cache, one thread)
in a process of its own, and prints the peak resident memory above that of a 64x64 decode, less
the file's own size (it is read into memory), divided by the pixels: bytes per pixel. DecodeCost's factors are these figures, rounded up.
"""
import argparse
import os
import struct
import subprocess
import sys
import tempfile

from . import images, measure, paths
from .cli import prog

PHOTO = os.path.join(paths.FIXTURES, "grace_hopper.jpg")

# As Focal runs libvips: no operation cache, one thread per call.
SETTINGS = ["--vips-cache-max=0", "--vips-concurrency=1"]

# name: (suffix and saver options, how to make the source image from an sRGB one)
CASES = {
    "jpeg baseline 4:2:0": ("jpg[Q=85]", None),
    "jpeg progressive 4:2:0": ("jpg[Q=85,interlace]", None),
    "jpeg progressive 4:4:4": ("jpg[Q=85,interlace,no-subsample]", None),
    "jpeg progressive grey": ("jpg[Q=85,interlace]", "grey"),
    "jpeg progressive cmyk": ("jpg[Q=85,interlace]", "cmyk"),
    "png rgb": ("png", None),
    "png interlaced rgb": ("png[interlace]", None),
    "png interlaced rgba": ("png[interlace]", "alpha"),
    "png interlaced grey": ("png[interlace]", "grey"),
    "png interlaced 16-bit rgba": ("png[interlace]", "rgba16"),
    "png interlaced palette": ("png[interlace,palette]", None),
    "gif": ("gif", None),
    "webp lossy": ("webp[Q=80,strip]", None),
    "webp lossless": ("webp[lossless,strip]", None),
    "webp lossy alpha": ("webp[Q=80,strip]", "alpha"),
    "tiff one strip": ("tif[compression=deflate]", "onestrip"),
    "tiff tiled": ("tif[compression=deflate,tile]", None),
    "heif": ("heic[Q=50]", None),
    "avif": ("avif[Q=50]", None),
}


def vips(*args, cwd):
    images.vips(*args, cwd=cwd, env=dict(os.environ, VIPS_WARNING="0"))


def peak_mb(command, cwd):
    """The peak resident memory of a command, in MiB (None when it fails)."""
    r = measure.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    env=dict(os.environ, VIPS_WARNING="0", VIPS_CONCURRENCY="1"))
    return r["peak_mb"] if r["exit"] == 0 else None


def make(work, side, case):
    suffix, variant = CASES[case]
    source = f"src-{side}-{variant or 'srgb'}.v"
    if not os.path.exists(os.path.join(work, source)):
        base = f"src-{side}-srgb.v"
        if not os.path.exists(os.path.join(work, base)):
            vips("thumbnail", PHOTO, base, side, "--height", side, "--size", "force", cwd=work)
        if variant == "grey":
            vips("colourspace", base, source, "b-w", cwd=work)
        elif variant == "cmyk":
            vips("colourspace", base, source, "cmyk", cwd=work)
        elif variant == "alpha":
            vips("bandjoin_const", base, source, 200, cwd=work)
        elif variant == "rgba16":
            vips("colourspace", base, "tmp16.v", "rgb16", cwd=work)
            vips("bandjoin_const", "tmp16.v", source, 60000, cwd=work)
        elif variant == "onestrip":
            source = base
    name = f"{case.replace(' ', '-')}-{side}.{suffix}"
    if variant == "onestrip":
        # tiffsave writes strips of a few rows; a decoder must hold a whole strip, so write one
        # strip of the whole image (uncompressed RGB) by hand.
        name = name.split("[")[0]
        vips("rawsave", source, "raw.bin", cwd=work)
        with open(os.path.join(work, "raw.bin"), "rb") as f:
            raw = f.read()
        os.remove(os.path.join(work, "raw.bin"))
        entries = [(256, 4, side), (257, 4, side), (258, 3, 8), (259, 3, 1), (262, 3, 2), (273, 4, 0),
                   (277, 3, 3), (278, 4, side), (279, 4, len(raw)), (284, 3, 1)]
        data_at = 8 + 2 + 12 * len(entries) + 4
        ifd = struct.pack("<H", len(entries))
        for tag, kind, value in entries:
            value = data_at if tag == 273 else value
            ifd += struct.pack("<HHI", tag, kind, 1) + (struct.pack("<HH", value, 0) if kind == 3 else struct.pack("<I", value))
        with open(os.path.join(work, name), "wb") as f:
            f.write(b"II*\x00" + struct.pack("<I", 8) + ifd + struct.pack("<I", 0) + raw)
        return name
    vips("copy", source, name, cwd=work)
    return name.split("[")[0]


def main():
    parser = argparse.ArgumentParser(prog=prog(__spec__), description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", metavar="TEXT", help="the formats whose name contains TEXT")
    parser.add_argument("sides", nargs="*", type=int, metavar="SIDE", help="image sides (default 3000 4500)")
    args = parser.parse_args()
    only = args.only
    sides = args.sides or [3000, 4500]
    with tempfile.TemporaryDirectory(prefix="decodecost-") as work:
        vips("thumbnail", PHOTO, "tiny.jpg", 64, cwd=work)
        floor = peak_mb(["vips", *SETTINGS, "thumbnail", "tiny.jpg", "out.v", "640", "--size", "force"], work)
        print(f"floor (a 64x64 decode): {floor:.0f} MiB; bytes per pixel above it at sides {sides}")
        print(f"{'format':30} " + " ".join(f"{s:>9}" for s in sides) + "   file MB")
        for case in [c for c in CASES if only in c]:
            row = []
            size = 0
            for side in sides:
                path = make(work, side, case)
                size = os.path.getsize(os.path.join(work, path)) / 1e6
                mb = peak_mb(["vips", *SETTINGS, "thumbnail", path, "out.v", "640", "--height", "640", "--size", "force"], work)
                # The file itself is read into memory too; what is left is the decoder's.
                above = None if mb is None else (mb - floor) * (1 << 20) - size * 1e6
                row.append("failed" if above is None else f"{above / (side * side):9.2f}")
                os.remove(os.path.join(work, path))
            print(f"{case:30} " + " ".join(f"{r:>9}" for r in row) + f"   {size:7.1f}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
