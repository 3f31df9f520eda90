"""Builds the pet stress set: hard views of the development photos' cats and dogs, labelled.

Usage: python3 -m focalscripts.stress_set [DEV_FOLDER] [OUT_FOLDER]   (`make stress`)
       (defaults ../shared/eval/dev and .cache/stress)

For every cat or dog labelled in DEV_FOLDER/labels.json it writes six photos, and one more per
photo with pets (framed, every pet labelled), with the pet's
box carried along into a labels.json of the same format, so that `focal eval OUT_FOLDER` prints
recall per kind on them:

  tight     the pet's own box, nothing around it (the animal fills the frame)
  centre70  the central 70 % of the pet's box (ears, paws and tail cut off)
  left45    the pet with some room, its left 45 % hidden behind a flat wall
  bottom45  the same with its bottom 45 % hidden (a dog behind a window sill)
  avatar96  a square around the pet, 96 x 96 pixels (a puppy avatar)
  closeup   the pet's box enlarged to 1200 px on its long side (a phone close-up)
  framed    the whole photo at 40 % inside a grey frame 2.5 times its size (small pets far away)

Only cats and dogs are labelled (exhaustive_kinds: cat, dog), so faces found on the crops count
neither for nor against. Built with the `vips` command (Debian's libvips-tools); deterministic.
"""
import json
import os
import shutil

from . import paths
from .images import size_of, vips
from .labelled_set import rgb_copy, start

WALL = "120 110 100"  # a flat, dull colour for the wall or sill that hides part of the animal


def clamp_box(x, y, w, h, width, height):
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(width, x + w), min(height, y + h)
    return x0, y0, max(0, x1 - x0), max(0, y1 - y0)


def crop(src, dst, x, y, w, h):
    vips("crop", src, dst, int(x), int(y), int(w), int(h))


def main():
    labels, dev, out, scratch = start(__spec__, __doc__, "stress")
    labelled = {}

    def add(name, path_v, boxes):
        width, height = size_of(path_v)
        jpg = os.path.join(out, name + ".jpg")
        vips("copy", path_v, jpg + "[Q=90]")
        clipped = []
        for kind, (x, y, w, h) in boxes:
            x, y, w, h = clamp_box(x, y, w, h, width, height)
            if w > 0 and h > 0:
                clipped.append({"kind": kind, "x": round(x, 1), "y": round(y, 1), "w": round(w, 1), "h": round(h, 1)})
        labelled[name + ".jpg"] = {"width": width, "height": height, "exhaustive_kinds": ["cat", "dog"], "boxes": clipped}

    for image_name in sorted(labels["images"]):
        entry = labels["images"][image_name]
        pets = [b for b in entry["boxes"] if b["kind"] in ("cat", "dog")]
        if not pets:
            continue
        src = os.path.join(dev, image_name)
        base = os.path.splitext(image_name)[0]
        W, H = entry["width"], entry["height"]
        # The photo as a libvips file, 3 bands, so that every view below starts from the same pixels.
        whole = os.path.join(scratch, base + ".v")
        rgb_copy(src, whole)

        for i, pet in enumerate(pets):
            kind, px, py, pw, ph = pet["kind"], pet["x"], pet["y"], pet["w"], pet["h"]
            stem = f"{base}-{kind}{i}"

            # tight: the box itself.
            x, y, w, h = clamp_box(px, py, pw, ph, W, H)
            v = os.path.join(scratch, stem + "-tight.v")
            crop(whole, v, x, y, w, h)
            add(stem + "-tight", v, [(kind, (px - x, py - y, pw, ph))])

            # centre70: the middle 70 % of the box.
            cx, cy, cw, chh = px + 0.15 * pw, py + 0.15 * ph, 0.7 * pw, 0.7 * ph
            x, y, w, h = clamp_box(cx, cy, cw, chh, W, H)
            v = os.path.join(scratch, stem + "-centre70.v")
            crop(whole, v, x, y, w, h)
            add(stem + "-centre70", v, [(kind, (px - x, py - y, pw, ph))])

            # left45 and bottom45: the pet with 15 % room around it, part hidden by a flat wall.
            mx, my = 0.15 * pw, 0.15 * ph
            x, y, w, h = clamp_box(px - mx, py - my, pw + 2 * mx, ph + 2 * my, W, H)
            for side in ("left45", "bottom45"):
                v = os.path.join(scratch, f"{stem}-{side}.v")
                crop(whole, v, x, y, w, h)
                bx, by = px - x, py - y
                if side == "left45":
                    # From the frame's left edge to 45 % into the animal.
                    vips("draw_rect", v, WALL, 0, 0, int(bx + 0.45 * pw), int(h), "--fill")
                else:
                    top = int(by + 0.55 * ph)
                    vips("draw_rect", v, WALL, 0, top, int(w), int(h) - top, "--fill")
                add(f"{stem}-{side}", v, [(kind, (bx, by, pw, ph))])

            # avatar96: a square around the pet (its long side, 5 % room), shrunk to 96 x 96.
            side = max(pw, ph) * 1.05
            sx, sy = px + pw / 2 - side / 2, py + ph / 2 - side / 2
            sx, sy = min(max(0, sx), max(0, W - side)), min(max(0, sy), max(0, H - side))
            x, y, w, h = clamp_box(sx, sy, side, side, W, H)
            v = os.path.join(scratch, stem + "-avatar.v")
            crop(whole, v, x, y, w, h)
            small = os.path.join(scratch, stem + "-avatar96.v")
            vips("resize", v, small, 96 / max(w, h))
            s = 96 / max(w, h)
            add(stem + "-avatar96", small, [(kind, ((px - x) * s, (py - y) * s, pw * s, ph * s))])

            # closeup: the box enlarged to 1200 px on its long side.
            x, y, w, h = clamp_box(px, py, pw, ph, W, H)
            v = os.path.join(scratch, stem + "-box.v")
            crop(whole, v, x, y, w, h)
            s = 1200 / max(w, h)
            big = os.path.join(scratch, stem + "-closeup.v")
            vips("resize", v, big, s)
            add(stem + "-closeup", big, [(kind, ((px - x) * s, (py - y) * s, pw * s, ph * s))])

        # framed: the whole photo at 40 % in a grey frame 2.5 times its size, off centre, with
        # every pet of the photo labelled.
        s = 0.4
        small = os.path.join(scratch, base + "-small.v")
        vips("resize", whole, small, s)
        sw, sh = size_of(small)
        fw, fh = int(sw * 2.5), int(sh * 2.5)
        left, top = int(sw * 0.3), int(sh * 0.9)
        framed = os.path.join(scratch, base + "-framed.v")
        vips("embed", small, framed, left, top, fw, fh, "--extend", "background", "--background", "128 128 128")
        add(base + "-framed", framed,
            [(p["kind"], (left + p["x"] * s, top + p["y"] * s, p["w"] * s, p["h"] * s)) for p in pets])

    shutil.rmtree(scratch)
    with open(os.path.join(out, "labels.json"), "w") as f:
        json.dump({"format": "focal pet stress set, built by focalscripts.stress_set", "images": labelled}, f, indent=1)
    pets = sum(len(v["boxes"]) for v in labelled.values())
    print(f"stress-set: {len(labelled)} photos, {pets} pets in {paths.shown(out)}/")


if __name__ == "__main__":
    main()
