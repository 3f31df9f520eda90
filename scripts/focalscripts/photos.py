"""The photos `make bench-serve` and `make bench-cluster` request, and their URL lists.

The repository's real photos (Fixtures/, and ../shared/eval/dev/*.jpg when present) enlarged to
about 12 MP with `vips`, given a light grain so that their files are as large as a camera's (1-3.5
MB rather than the 0.3-1 MB of a smooth enlargement), and saved at several JPEG qualities: built
once into .cache/bench-serve/photos/base/ (rebuilt when RECIPE changes). Paths below are relative
to PHOTOS, the root the servers are given.
"""
import json
import math
import os
import random
import sys

from . import images, paths
from .cli import sayer

PHOTOS = os.path.join(paths.CACHE, "bench-serve", "photos")
MEGAPIXELS = 12
GRAIN = 5
RECIPE = f"{MEGAPIXELS} MP, srgb, grain {GRAIN}"  # the base photos are rebuilt when this changes
QUALITIES = [90, 80, 70, 95, 85, 75]
SIZES = [(400, 400), (640, 360), (360, 640), (800, 600), (600, 800), (300, 300), (1200, 630),
         (1080, 1080), (500, 500), (1024, 768), (320, 240), (720, 1280), (200, 200), (960, 540)]

TOOLS = {"vips": "libvips-tools", "vipsheader": "libvips-tools"}  # command: Debian package

say = sayer("photos")


def sources(limit=None):
    """The photos to enlarge: Fixtures/*.png|jpg, then the development photos."""
    found = []
    for folder, exts in ((paths.FIXTURES, (".png", ".jpg")), (paths.DEV, (".jpg",))):
        if os.path.isdir(folder):
            found += [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.lower().endswith(exts)]
    if not found:
        sys.exit("photos: none to enlarge: run `make fixtures` first")
    return found[:limit] if limit else found


def base_photos(quick):
    """[(relative path, width, height)] of the enlarged photos, built once (fewer when `quick`)."""
    srcs = sources(8 if quick else None)
    count = 2 if quick else max(2, math.ceil(48 / len(srcs)))
    folder = os.path.join(PHOTOS, "base")
    os.makedirs(folder, exist_ok=True)
    manifest_path = os.path.join(folder, "manifest.json")
    try:
        with open(manifest_path) as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        manifest = {}
    if manifest.get("recipe") != RECIPE:
        manifest = {"recipe": RECIPE, "photos": {}}
    made = manifest["photos"]
    names, todo = [], []
    for src in srcs:
        stem = os.path.splitext(os.path.basename(src))[0]
        for quality in QUALITIES[:count]:
            name = f"{stem}-q{quality}.jpg"
            if name not in made or not os.path.exists(os.path.join(folder, name)):
                todo.append((src, name, quality))
            names.append(name)
    if todo:
        say(f"enlarging {len(todo)} photos to {MEGAPIXELS} MP into {paths.shown(folder)}/ (once)")
    for n, (src, name, quality) in enumerate(todo):
        dest = os.path.join(folder, name)
        images.enlarge(src, dest, MEGAPIXELS, quality, srgb=True, grain=GRAIN)
        made[name] = images.size_of(dest)
        with open(manifest_path, "w") as f:
            json.dump(manifest, f, indent=0, sort_keys=True)
        if (n + 1) % 10 == 0:
            say(f"  {n + 1}/{len(todo)}")
    return [(f"base/{name}", *made[name]) for name in names]


def copies(photos, folder, count, prefix, label):
    """`count` distinct files in PHOTOS/folder: copy i of photos[i % len] with a JPEG comment
    "LABEL PREFIXi" (the same pixels, its own bytes, so no cache keyed by content, path or URL can
    answer for another); a copy already there is kept. [(relative path, width, height)]."""
    os.makedirs(os.path.join(PHOTOS, folder), exist_ok=True)
    data, made = {}, []
    for i in range(count):
        rel, width, height = photos[i % len(photos)]
        name = f"{folder}/{prefix}{i:05}-{os.path.basename(rel)}"
        path = os.path.join(PHOTOS, name)
        if not os.path.exists(path):
            if rel not in data:
                with open(os.path.join(PHOTOS, rel), "rb") as f:
                    data[rel] = f.read()
            with open(path + ".part", "wb") as f:
                f.write(images.with_comment(data[rel], f"{label} {prefix}{i}"))
            os.replace(path + ".part", path)
        made.append((name, width, height))
    return made


def smart_paths(files):
    """One `WxH/smart/` path per file, the sizes in rotation: [(path, (w, h))]."""
    out = []
    for i, (rel, _, _) in enumerate(files):
        w, h = SIZES[i % len(SIZES)]
        out.append((f"{w}x{h}/smart/{rel}", (w, h)))
    return out


# The widths `focalSources` (the element's helper for static pages) offers by default, and the
# five of them a page's srcset ladder asks for in `make bench-serve`'s ladder case.
ELEMENT_WIDTHS = [320, 480, 640, 800, 1024, 1280, 1600, 1920]
LADDER_WIDTHS = [320, 640, 1024, 1600, 1920]
LADDER_ASPECTS = [(16, 9), (4, 3), (1, 1), (3, 4)]


def element_size(width, aspect):
    """The frame `focalSources` asks for at `width` for an aspect p:q: the width rounded to a
    multiple of p (so that saved crops apply), the height in proportion (focal-img.js sizeAt)."""
    p, q = aspect
    d = math.gcd(p, q)
    p, q = p // d, q // d
    k = max(1, math.floor(width / p + 0.5))  # Math.round
    return k * p, k * q


def ladder_paths(files, widths=LADDER_WIDTHS):
    """Each file at every width of a page's srcset ladder, one aspect per file (in rotation),
    the widths of a file one after another: [(path, (w, h))]."""
    out = []
    for i, (rel, _, _) in enumerate(files):
        aspect = LADDER_ASPECTS[i % len(LADDER_ASPECTS)]
        for width in widths:
            w, h = element_size(width, aspect)
            out.append((f"{w}x{h}/smart/{rel}", (w, h)))
    return out


def manual_paths(photos, count, seed):
    """`count` distinct manual crops (`AxB:CxD/WxH/`) over the photos: [(path, (w, h))]."""
    rng = random.Random(seed)
    out, seen = [], set()
    while len(out) < count:
        rel, width, height = photos[len(out) % len(photos)]
        cw = rng.randint(width // 4, width * 9 // 10)
        ch = rng.randint(height // 4, height * 9 // 10)
        left, top = rng.randint(0, width - cw), rng.randint(0, height - ch)
        w, h = SIZES[len(out) % len(SIZES)]
        path = f"{left}x{top}:{left + cw}x{top + ch}/{w}x{h}/{rel}"
        if path not in seen:
            seen.add(path)
            out.append((path, (w, h)))
    return out
