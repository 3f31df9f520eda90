"""Writes an int8 copy of an image model with NNCF's post-training quantization, calibrated on photos.

Usage (in the NNCF venv that `scripts/setup.sh models` makes under .cache/nncf-venv):
    python -m focalscripts.quantize IN.onnx OUT.xml --photos DIR

The calibration inputs are the photos of DIR (the fixtures `make fixtures` fetches from pinned
packages), in name order: each whole, its four corners at 60 % of its size and its centre at 50 %,
each also mirrored left to right, stretched to the model's fixed 8-bit input as Focal stretches
them (6 x 2 inputs a photo). Nothing is random. The model is written as OpenVINO IR (OUT.xml and
OUT.bin, fp32 where it is not quantized), through temporary names renamed when both are complete.

Kept only where it measured lossless: YOLOv4-tiny int8 found every pet, person and non-pet of the
development set as fp32 did, and one more stress-set cat (68/77 against 67/77).
"""
import argparse
import os
import subprocess
import sys
import tempfile

from .cli import prog, sayer

say = sayer("quantize")
# Fractions of the photo: left, top, width, height.
AREAS = [None, (0, 0, .6, .6), (.4, 0, .6, .6), (0, .4, .6, .6), (.4, .4, .6, .6), (.25, .25, .5, .5)]


def vips(*args):
    subprocess.run(["vips", *map(str, args)], check=True, capture_output=True)


def sample(path, width, height, area, mirrored, np):
    """One calibration input, uint8 [1, height, width, 3]: the `area` of the photo (fractions;
    None for all of it), in sRGB, stretched to exactly `width` x `height` by libvips (as Focal
    stretches its proxy), mirrored left to right when asked. libvips's own resampling matters:
    a numpy bilinear stretch calibrated a model that lost a person of the development set."""
    with tempfile.TemporaryDirectory() as folder:
        current = path
        if area:
            size = [int(subprocess.run(["vipsheader", "-f", field, path], capture_output=True, text=True, check=True).stdout)
                    for field in ("width", "height")]
            box = [round(area[0] * size[0]), round(area[1] * size[1]), round(area[2] * size[0]), round(area[3] * size[1])]
            vips("extract_area", current, f"{folder}/a.v", *box)
            current = f"{folder}/a.v"
        vips("colourspace", current, f"{folder}/s.v", "srgb")
        vips("extract_band", f"{folder}/s.v", f"{folder}/b.v", 0, "--n", 3)
        vips("thumbnail_image", f"{folder}/b.v", f"{folder}/t.v", width, "--height", height, "--size", "force")
        current = f"{folder}/t.v"
        if mirrored:
            vips("flip", current, f"{folder}/f.v", "horizontal")
            current = f"{folder}/f.v"
        vips("cast", current, f"{folder}/c.v", "uchar")
        vips("rawsave", f"{folder}/c.v", f"{folder}/r.raw")
        return np.fromfile(f"{folder}/r.raw", dtype=np.uint8).reshape(1, height, width, 3)


def calibration(folder, width, height, np):
    """The calibration inputs, uint8 [1, height, width, 3], in a fixed order."""
    inputs = []
    for name in sorted(os.listdir(folder)):
        if not name.lower().endswith((".jpg", ".jpeg", ".png")):
            continue
        for area in AREAS:
            for mirrored in (False, True):
                inputs.append(sample(os.path.join(folder, name), width, height, area, mirrored, np))
    return inputs


def main():
    parser = argparse.ArgumentParser(prog=prog(__spec__), description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="the fp32 model (a fixed 8-bit [1, H, W, 3] input, as focalscripts.onnx_input writes)")
    parser.add_argument("output", help="the int8 model to write, OUT.xml (and OUT.bin)")
    parser.add_argument("--photos", required=True, help="the calibration photos' folder")
    args = parser.parse_args()
    try:  # only in the NNCF venv
        import nncf
        import numpy as np
        import openvino as ov
    except ImportError as error:
        sys.exit(f"quantize: {error}; run it with the NNCF venv's python (scripts/setup.sh models makes it)")
    core = ov.Core()
    model = core.read_model(args.model)
    shape = model.input(0).get_partial_shape()
    if shape.rank.get_length() != 4 or shape[3].get_length() != 3:
        sys.exit(f"quantize: {args.model}: the input is not [1, H, W, 3]")
    height, width = shape[1].get_length(), shape[2].get_length()
    inputs = calibration(args.photos, width, height, np)
    if not inputs:
        sys.exit(f"quantize: no photos in {args.photos}")
    say(f"{len(inputs)} calibration inputs of {width}x{height} from {args.photos}")
    quantized = nncf.quantize(model, nncf.Dataset(inputs), subset_size=len(inputs), preset=nncf.QuantizationPreset.MIXED)
    base = args.output[:-4] if args.output.endswith(".xml") else args.output
    os.makedirs(os.path.dirname(os.path.abspath(base)), exist_ok=True)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(base))) as folder:
        part = os.path.join(folder, "model.xml")
        ov.save_model(quantized, part, compress_to_fp16=False)
        os.replace(os.path.join(folder, "model.bin"), base + ".bin")
        os.replace(part, base + ".xml")
    say(f"wrote {base}.xml and {base}.bin")


if __name__ == "__main__":
    main()
