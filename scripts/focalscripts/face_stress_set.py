"""Builds the small-face stress set: the development photos' faces made small, labelled.

Usage: python3 -m focalscripts.face_stress_set [DEV_FOLDER] [OUT_FOLDER]   (`make stress-faces`)
       (defaults ../shared/eval/dev and .cache/stress-faces)

For every photo of DEV_FOLDER/labels.json with a face labelled it writes three views, with the
face boxes carried along (their `difficult` and `truncated` marks too) into a labels.json of the
same format, so that `focal eval OUT_FOLDER` prints face recall on them:

  x0.5      the whole photo shrunk to half its size
  x0.35     to 35 %
  x0.25     to a quarter (a 37 px face becomes 9 px)
  framed    the whole photo in a grey frame three times its size (a large group photo whose
            faces are a small part of the frame: the detector's proxy shrinks them)

Only faces are labelled (exhaustive_kinds: face), so the other kinds count neither for nor
against. Built with the `vips` command (Debian's libvips-tools), libvips's own Lanczos resize;
deterministic.
"""
import json
import os
import shutil

from . import paths
from .images import size_of, vips
from .labelled_set import rgb_copy, start

SCALES = [("x0.5", 0.5), ("x0.35", 0.35), ("x0.25", 0.25)]
FRAME = 3  # the framed view: the photo in a frame this many times its size


def main():
    labels, dev, out, scratch = start(__spec__, __doc__, "stress-faces")
    labelled = {}

    def add(name, path_v, faces, scale, left=0, top=0):
        width, height = size_of(path_v)
        vips("copy", path_v, os.path.join(out, name + ".jpg") + "[Q=90]")
        boxes = []
        for face in faces:
            box = {key: value for key, value in face.items() if key in ("kind", "difficult", "truncated")}
            box.update(x=round(left + face["x"] * scale, 1), y=round(top + face["y"] * scale, 1),
                       w=round(face["w"] * scale, 1), h=round(face["h"] * scale, 1))
            boxes.append(box)
        labelled[name + ".jpg"] = {"width": width, "height": height, "exhaustive_kinds": ["face"], "boxes": boxes}

    for image_name in sorted(labels["images"]):
        entry = labels["images"][image_name]
        faces = [b for b in entry["boxes"] if b["kind"] == "face"]
        if not faces:
            continue
        base = os.path.splitext(image_name)[0]
        whole = os.path.join(scratch, base + ".v")
        rgb_copy(os.path.join(dev, image_name), whole)
        for suffix, scale in SCALES:
            small = os.path.join(scratch, f"{base}-{suffix}.v")
            vips("resize", whole, small, scale)
            # libvips rounds the new size; scale the boxes by what it made.
            add(f"{base}-{suffix}", small, faces, size_of(small)[0] / entry["width"])
        width, height = entry["width"], entry["height"]
        left, top = width, int(height * 0.8)
        framed = os.path.join(scratch, base + "-framed.v")
        vips("embed", whole, framed, left, top, width * FRAME, height * FRAME, "--extend", "background", "--background", "128 128 128")
        add(f"{base}-framed", framed, faces, 1, left, top)

    shutil.rmtree(scratch)
    with open(os.path.join(out, "labels.json"), "w") as f:
        json.dump({"format": "focal small-face stress set, built by focalscripts.face_stress_set", "images": labelled}, f, indent=1)
    count = sum(len(v["boxes"]) for v in labelled.values())
    print(f"face-stress-set: {len(labelled)} photos, {count} faces in {paths.shown(out)}/")


if __name__ == "__main__":
    main()
