"""Checks that redaction leaves no face Focal can still find, on labelled photos.

Usage: python3 -m focalscripts.redaction_check [FOLDER...]   (`make check-redaction`)
       (defaults: ../shared/eval/dev and .cache/stress-faces, built by `make stress`)

Every photo of each FOLDER/labels.json with a face labelled is cropped whole (`focal crop --size`
at its own size, as PNG) with redact(pixelate) and with redact(blur). Focal's accurate detector
then looks at each output, and a second time at four overlapping quarter tiles of it (each tile
scaled to the detector's proxy: twice the scale, which finds smaller faces). A labelled face is still found when a detected face overlaps it (its
centre inside the label, or the label's inside the detection). It prints, per folder and style:
the labelled faces, how many Focal finds in the unredacted photos (the same two passes), and how
many it still finds after redaction. It exits 1 when any face is still found.
"""
import json
import os
import subprocess
import sys
import tempfile

from . import paths
from .images import size_of, vips

STYLES = ["pixelate", "blur"]


def detect(focal, folder):
    """Faces Focal's accurate detector finds in each image of `folder`, by file name."""
    out = subprocess.run([focal, "detect", folder, "--accuracy", "accurate", "--json"], capture_output=True, text=True, check=True)
    found = {}
    for line in out.stdout.splitlines():
        item = json.loads(line)
        found[os.path.basename(item["input"])] = [s for s in item.get("subjects", []) if s["kind"] == "face"]
    return found


def tiled(folder, into):
    """Every image of `folder` cut into four overlapping tiles (7/12 of each side) in `into`,
    named NAME~LEFT~TOP.png; returns `into`."""
    os.makedirs(into, exist_ok=True)
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        width, height = size_of(path)
        tw, th = min(width, width * 7 // 12 + 1), min(height, height * 7 // 12 + 1)
        base = os.path.splitext(name)[0]
        for left, top in {(0, 0), (width - tw, 0), (0, height - th), (width - tw, height - th)}:
            vips("extract_area", path, os.path.join(into, f"{base}~{left}~{top}.png"), left, top, tw, th)
    return into


def untiled(found):
    """Faces found in tiles, moved back into their image's pixels, by the image's file name."""
    faces = {}
    for name, subjects in found.items():
        base, left, top = os.path.splitext(name)[0].rsplit("~", 2)
        for face in subjects:
            moved = dict(face, x=face["x"] + int(left), y=face["y"] + int(top))
            faces.setdefault(base + ".png", []).append(moved)
    return faces


def overlaps(label, face):
    """Whether a detected face lies on the labelled face: one's centre inside the other, and the
    two of comparable size (areas within 4 times of each other), so that a box around a whole
    head-and-shoulders silhouette is not taken for the face inside it."""
    fx, fy, fw, fh = face["x"], face["y"], face["width"], face["height"]
    lx, ly, lw, lh = label["x"], label["y"], label["w"], label["h"]
    cx, cy = fx + fw / 2, fy + fh / 2
    centre_inside = lx <= cx <= lx + lw and ly <= cy <= ly + lh
    label_inside = fx <= lx + lw / 2 <= fx + fw and fy <= ly + lh / 2 <= fy + fh
    ratio = (fw * fh) / max(1.0, lw * lh)
    return (centre_inside or label_inside) and 0.25 <= ratio <= 4


def found_labels(labels, whole, tiles):
    """How many labelled faces either pass finds."""
    return sum(1 for label in labels if any(overlaps(label, f) for f in whole + tiles))


def check(focal, folder, scratch):
    labels = json.load(open(os.path.join(folder, "labels.json")))["images"]
    photos = {name: entry for name, entry in labels.items() if any(b["kind"] == "face" for b in entry["boxes"])}
    by_size = {}
    for name, entry in sorted(photos.items()):
        by_size.setdefault((entry["width"], entry["height"]), []).append(os.path.join(folder, name))
    plain = os.path.join(scratch, "plain")
    os.makedirs(plain, exist_ok=True)
    for name in photos:
        vips("copy", os.path.join(folder, name), os.path.join(plain, os.path.splitext(name)[0] + ".png"))
    before = (detect(focal, plain), untiled(detect(focal, tiled(plain, plain + "-tiles"))))
    rows, leaks = [], 0
    for style in STYLES:
        out = os.path.join(scratch, style)
        os.makedirs(out, exist_ok=True)
        for (width, height), files in by_size.items():
            subprocess.run([focal, "crop", *files, "--size", f"{width}x{height}", "--redact", style, "--format", "png", "-o", out + os.sep],
                           capture_output=True, text=True, check=True)
        after = (detect(focal, out), untiled(detect(focal, tiled(out, out + "-tiles"))))
        total = found_before = still = 0
        for name, entry in photos.items():
            png = os.path.splitext(name)[0] + ".png"
            faces = [b for b in entry["boxes"] if b["kind"] == "face"]
            total += len(faces)
            found_before += found_labels(faces, before[0].get(png, []), before[1].get(png, []))
            left = found_labels(faces, after[0].get(png, []), after[1].get(png, []))
            still += left
            if left:
                print(f"  {paths.shown(os.path.join(folder, name))} redact({style}): {left} face(s) still found", file=sys.stderr)
        leaks += still
        rows.append(f"| {paths.shown(folder)} | {style} | {len(photos)} | {total} | {found_before} | {still} |")
    return rows, leaks


def main():
    folders = sys.argv[1:] or [paths.DEV, os.path.join(paths.CACHE, "stress-faces")]
    focal = paths.focal_binary(paths.DEBUG_FOCAL, paths.RELEASE_FOCAL)
    print("| photos | redaction | photos | labelled faces | found before (whole or tiles) | still found after |")
    print("|---|---|---|---|---|---|")
    leaks = 0
    for folder in folders:
        if not os.path.exists(os.path.join(folder, "labels.json")):
            print(f"redaction_check: {folder} has no labels.json (run `make stress` for .cache/stress-faces)", file=sys.stderr)
            return 2
        with tempfile.TemporaryDirectory(prefix="focal-redaction-") as scratch:
            rows, found = check(focal, folder, scratch)
        print("\n".join(rows), flush=True)
        leaks += found
    return 1 if leaks else 0


if __name__ == "__main__":
    sys.exit(main())
