"""Checks both sides of redaction on labelled photos: no face Focal can still find, and nothing
else changed.

Usage: python3 -m focalscripts.redaction_check [FOLDER...]   (`make check-redaction`)
       (defaults: ../shared/eval/dev, .cache/stress-faces and .cache/stress, built by `make stress`)

Every photo of each FOLDER/labels.json is cropped whole (`focal crop --size` at its own size, as
PNG) three times: plainly, with redact(pixelate) and with redact(blur).

Faces found again: on the photos with a face labelled, Focal's accurate detector looks at each
redacted output, and a second time at four overlapping quarter tiles of it (each tile scaled to
the detector's proxy: twice the scale, which finds smaller faces). A labelled face is still found
when a detected face overlaps it (its centre inside the label, or the label's inside the
detection, the two areas within 4 times of each other).

Changed away from the faces: the mean absolute difference (0-255, every band, alpha included)
between the redacted and the plain output over the pixels at least one face-size away from every
labelled face (each label grown by its longer side on every side), and the share of those pixels
that changed by more than 8 in some band. Labels list every face (the stress sets inherit the
development set's), so a photo with none labelled must not change at all.

It prints, per folder and style: the photos, the labelled faces, how many Focal finds in the plain
outputs (the same two passes), how many it still finds after redaction, the mean change away from
the faces over all the photos' pixels, the worst photo and its change, and how many faceless photos
changed; then, with `--smallest`, how many faces of 8 to 32 px a redaction hides in a 3000×2000
photo, and with `--animation`, the cost per frame of redacting an animation. It exits 1 when a
face is still found, when a photo with faces changes by more than 2 away from them, or when a
photo without faces changes at all. FOCAL_BIN names the focal binary (default: the debug build,
else the release build).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from . import paths
from .cli import prog
from .images import bands_of, size_of, vips

STYLES = ["pixelate", "blur"]
# Done-means bounds: the mean change away from the faces on any photo with faces, and on one without.
FACE_PHOTO_BOUND, FACELESS_BOUND = 2.0, 0.0
# A band changed by more than this counts a pixel as changed.
CHANGED = 8


def detect(focal, folder):
    """Faces Focal's accurate detector finds in each image of `folder`, by file name."""
    out = subprocess.run([focal, "detect", folder, "--accuracy", "accurate", "--json"], capture_output=True, text=True, check=True)
    found = {}
    for line in out.stdout.splitlines():
        item = json.loads(line)
        found[os.path.basename(item["input"])] = [s for s in item.get("subjects", []) if s["kind"] == "face"]
    return found


def tiled(folder, into, names):
    """The images `names` of `folder` cut into four overlapping tiles (7/12 of each side) in
    `into`, named NAME~LEFT~TOP.png; returns `into`."""
    os.makedirs(into, exist_ok=True)
    for name in names:
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


def away_intervals(faces, width, height):
    """For each row, the column ranges [start, end) at least one face-size away from every face
    in `faces` (each grown by its longer side on every side)."""
    grown = []
    for f in faces:
        side = max(f["w"], f["h"])
        grown.append((int(f["x"] - side), int(f["y"] - side), int(f["x"] + f["w"] + side + 1), int(f["y"] + f["h"] + side + 1)))
    rows = []
    for y in range(height):
        cuts = sorted((max(0, l), min(width, r)) for l, t, r, b in grown if t <= y < b and r > 0 and l < width)
        spans, start = [], 0
        for left, right in cuts:
            if left > start:
                spans.append((start, left))
            start = max(start, right)
        if start < width:
            spans.append((start, width))
        rows.append(spans)
    return rows


def change_away(plain, redacted, faces, scratch):
    """(mean absolute difference, share of pixels changed by more than `CHANGED`) between two
    outputs of one size over the pixels away from `faces`; (None, None) when nothing is away. A
    redacted output with other bands than the plain one (alpha lost or added) is an error."""
    bands = bands_of(plain)
    if bands_of(redacted) != bands:
        raise ValueError(f"{redacted} has {bands_of(redacted)} bands, the unredacted crop {bands}")
    width, height = size_of(plain)
    diff, changed = os.path.join(scratch, "d.v"), os.path.join(scratch, "c.v")
    vips("subtract", plain, redacted, diff)
    vips("abs", diff, diff + ".abs.v")
    vips("cast", diff + ".abs.v", diff + ".u8.v", "uchar")
    vips("rawsave", diff + ".u8.v", diff + ".raw")
    vips("relational_const", diff + ".u8.v", changed, "more", CHANGED)
    vips("bandbool", changed, changed + ".any.v", "or")
    vips("rawsave", changed + ".any.v", changed + ".raw")
    with open(diff + ".raw", "rb") as f:
        values = f.read()
    with open(changed + ".raw", "rb") as f:
        flags = f.read().translate(bytes([0] + [1] * 255))
    total = count = changed_pixels = 0
    for y, spans in enumerate(away_intervals(faces, width, height)):
        for left, right in spans:
            row = y * width
            total += sum(values[(row + left) * bands:(row + right) * bands])
            changed_pixels += sum(flags[row + left:row + right])
            count += right - left
    if not count:
        return None, None
    return total / (count * bands), changed_pixels / count


def crop_all(focal, by_size, out, extra):
    """Every photo of `by_size` (files by their (width, height)) cropped whole to `out` as PNG,
    with `extra` arguments (a redaction)."""
    os.makedirs(out, exist_ok=True)
    for (width, height), files in by_size.items():
        subprocess.run([focal, "crop", *files, "--size", f"{width}x{height}", *extra, "--format", "png", "-o", out + os.sep],
                       capture_output=True, text=True, check=True)


def check(focal, folder, scratch):
    """The rows for one folder, the number of faces still found, and the photos over a bound."""
    labels = json.load(open(os.path.join(folder, "labels.json")))["images"]
    by_size, faces_of = {}, {}
    for name, entry in sorted(labels.items()):
        by_size.setdefault((entry["width"], entry["height"]), []).append(os.path.join(folder, name))
        faces_of[os.path.splitext(name)[0] + ".png"] = [b for b in entry["boxes"] if b["kind"] == "face"]
    with_faces = [png for png, faces in faces_of.items() if faces]
    plain = os.path.join(scratch, "plain")
    crop_all(focal, by_size, plain, [])
    before = (detect(focal, plain), untiled(detect(focal, tiled(plain, plain + "-tiles", with_faces)))) if with_faces else ({}, {})
    rows, leaks, over = [], 0, []
    for style in STYLES:
        out = os.path.join(scratch, style)
        crop_all(focal, by_size, out, ["--redact", style])
        after = (detect(focal, out), untiled(detect(focal, tiled(out, out + "-tiles", with_faces)))) if with_faces else ({}, {})
        total = found_before = still = 0
        sums = weights = 0.0
        worst, faceless_changed = (0.0, "-"), 0
        for png, faces in sorted(faces_of.items()):
            shown = paths.shown(os.path.join(folder, png))
            if faces:
                total += len(faces)
                found_before += found_labels(faces, before[0].get(png, []), before[1].get(png, []))
                left = found_labels(faces, after[0].get(png, []), after[1].get(png, []))
                still += left
                if left:
                    print(f"  {shown} redact({style}): {left} face(s) still found", file=sys.stderr)
            mean, share = change_away(os.path.join(plain, png), os.path.join(out, png), faces, scratch)
            if mean is None:
                continue
            width, height = size_of(os.path.join(plain, png))
            sums += mean * width * height
            weights += width * height
            if mean > worst[0]:
                worst = (mean, png)
            bound = FACE_PHOTO_BOUND if faces else FACELESS_BOUND
            if not faces and mean > 0:
                faceless_changed += 1
            if mean > bound:
                over.append(f"{shown} redact({style}): {mean:.2f} away from the faces ({share:.1%} of those pixels changed), over {bound:g}")
        leaks += still
        faceless = sum(1 for faces in faces_of.values() if not faces)
        rows.append(f"| {paths.shown(folder)} | {style} | {len(faces_of)} | {total} | {found_before} | {still} | "
                    f"{sums / max(1.0, weights):.2f} | {worst[1]} {worst[0]:.2f} | {faceless_changed} of {faceless} |")
    return rows, leaks, over


def animation_cost(focal, folder, scratch, frames=8):
    """Seconds per frame that redact(blur) adds to an animated crop: a GIF of `frames` frames cut
    from the largest photo of `folder` with faces labelled, panning across it, cropped to its
    frame size with and without a redaction (best of two runs each)."""
    labels = json.load(open(os.path.join(folder, "labels.json")))["images"]
    named = [(e["width"] * e["height"], n) for n, e in labels.items() if any(b["kind"] == "face" for b in e["boxes"])]
    if not named:
        return None
    source = os.path.join(folder, max(named)[1])
    width, height = size_of(source)
    fw, fh = width * 3 // 4, height * 3 // 4
    parts = []
    for i in range(frames):
        left, top = (width - fw) * i // max(1, frames - 1), (height - fh) * i // max(1, frames - 1)
        part = os.path.join(scratch, f"frame{i}.png")
        vips("extract_area", source, part, left, top, fw, fh)
        parts.append(part)
    strip = os.path.join(scratch, "strip.v")
    vips("arrayjoin", " ".join(parts), strip, "--across", 1)
    gif = os.path.join(scratch, "pan.gif")
    vips("copy", strip, gif + f"[page-height={fh}]")

    def best(extra):
        times = []
        for _ in range(2):
            started = time.monotonic()
            subprocess.run([focal, "crop", gif, "--size", f"{fw}x{fh}", *extra, "-o", os.path.join(scratch, "out.gif")],
                           capture_output=True, text=True, check=True)
            times.append(time.monotonic() - started)
        return min(times)

    plain, redacted = best([]), best(["--redact", "blur"])
    return frames, fw, fh, plain, redacted


def smallest_face(focal, folder, scratch, sides=(8, 10, 12, 14, 16, 20, 24, 32), canvas=(3000, 2000)):
    """How many labelled faces a redaction hides, by face size, in a large photo: the development
    photos with the most faces, shrunk so that their median face has each of `sides` pixels (its
    longer side) and set in a grey canvas of `canvas` (a 6 MP photo of a crowd far away), then
    cropped whole with a magenta fill. A face counts as hidden when half of its box is magenta.
    Returns {side: (hidden, faces)}."""
    labels = json.load(open(os.path.join(folder, "labels.json")))["images"]
    chosen = sorted(((sum(b["kind"] == "face" for b in e["boxes"]), n) for n, e in labels.items()), reverse=True)[:3]
    results = {}
    for count, name in chosen:
        if not count:
            continue
        entry = labels[name]
        faces = [b for b in entry["boxes"] if b["kind"] == "face"]
        median = sorted(max(b["w"], b["h"]) for b in faces)[len(faces) // 2]
        for side in sides:
            scale = side / median
            small = os.path.join(scratch, "small.v")
            vips("resize", os.path.join(folder, name), small, scale)
            width, height = size_of(small)
            if width > canvas[0] or height > canvas[1]:
                continue
            left, top = (canvas[0] - width) // 2, (canvas[1] - height) // 2
            placed = os.path.join(scratch, f"{os.path.splitext(name)[0]}-{side}.png")
            vips("embed", small, placed, left, top, canvas[0], canvas[1], "--extend", "background", "--background", "128 128 128")
            out = os.path.join(scratch, "out.png")
            subprocess.run([focal, "crop", placed, "--size", f"{canvas[0]}x{canvas[1]}", "--redact", "ff00ff", "--format", "png", "-o", out],
                           capture_output=True, text=True, check=True)
            raw = os.path.join(scratch, "out.raw")
            vips("rawsave", out, raw)
            with open(raw, "rb") as f:
                pixels = f.read()
            bands = bands_of(out)
            hidden = 0
            for face in faces:
                x0, y0 = int(left + face["x"] * scale), int(top + face["y"] * scale)
                x1, y1 = int(left + (face["x"] + face["w"]) * scale + 0.999), int(top + (face["y"] + face["h"]) * scale + 0.999)
                area = max(1, (x1 - x0) * (y1 - y0))
                magenta = sum(1 for y in range(y0, y1) for x in range(x0, x1)
                              if pixels[(y * canvas[0] + x) * bands:(y * canvas[0] + x) * bands + 3] == b"\xff\x00\xff")
                hidden += magenta * 2 >= area
            got = results.get(side, (0, 0))
            results[side] = (got[0] + hidden, got[1] + len(faces))
    return results


def main():
    parser = argparse.ArgumentParser(prog=prog(__spec__), description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="*", metavar="FOLDER")
    parser.add_argument("--animation", action="store_true", help="also time redacting an animation, per frame")
    parser.add_argument("--smallest", action="store_true", help="also measure the smallest faces hidden in a 3000x2000 photo")
    args = parser.parse_args()
    folders = args.folders or [paths.DEV, os.path.join(paths.CACHE, "stress-faces"), os.path.join(paths.CACHE, "stress")]
    focal = paths.focal_binary(paths.DEBUG_FOCAL, paths.RELEASE_FOCAL)
    print("| photos | redaction | photos | labelled faces | found before (whole or tiles) | still found after "
          "| mean change away from faces | worst photo | faceless photos changed |")
    print("|---|---|---|---|---|---|---|---|---|")
    leaks, over = 0, []
    for folder in folders:
        if not os.path.exists(os.path.join(folder, "labels.json")):
            print(f"redaction_check: {folder} has no labels.json (run `make stress` for .cache/stress and .cache/stress-faces)",
                  file=sys.stderr)
            return 2
        with tempfile.TemporaryDirectory(prefix="focal-redaction-") as scratch:
            rows, found, changed = check(focal, folder, scratch)
        print("\n".join(rows), flush=True)
        leaks += found
        over += changed
    for line in over:
        print(f"  {line}", file=sys.stderr)
    if args.animation:
        with tempfile.TemporaryDirectory(prefix="focal-redaction-animation-") as scratch:
            measured = animation_cost(focal, folders[0], scratch)
        if measured:
            frames, fw, fh, plain, redacted = measured
            print(f"\nAnimation: {frames} frames of {fw}x{fh} ({paths.shown(focal)}): {plain:.2f} s plain, {redacted:.2f} s with "
                  f"redact(blur): {(redacted - plain) / frames * 1000:.0f} ms a frame for the redaction")
    if args.smallest:
        with tempfile.TemporaryDirectory(prefix="focal-redaction-smallest-") as scratch:
            measured = smallest_face(focal, folders[0], scratch)
        print("\nSmallest faces: labelled faces hidden in a 3000x2000 photo, by the face's longer side")
        print("| face side (px) | " + " | ".join(str(side) for side in measured) + " |")
        print("|---|" + "---|" * len(measured))
        print("| hidden | " + " | ".join(f"{hidden} of {faces}" for hidden, faces in measured.values()) + " |")
    return 1 if leaks or over else 0


if __name__ == "__main__":
    sys.exit(main())
