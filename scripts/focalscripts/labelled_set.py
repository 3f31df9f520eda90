"""What the stress-set builders share: their command line, a fresh output folder, and the
development photos as 3-band libvips files to cut views from."""
import argparse
import json
import os
import shutil

from . import paths
from .cli import prog
from .images import bands_of, vips


def start(spec, doc, default_out):
    """Reads `[DEV_FOLDER] [OUT_FOLDER]` (defaults ../shared/eval/dev and `default_out` under
    .cache), empties OUT_FOLDER and makes its scratch folder `.work`; returns (DEV_FOLDER's
    labels, DEV_FOLDER, OUT_FOLDER, scratch folder)."""
    parser = argparse.ArgumentParser(prog=prog(spec), description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dev", nargs="?", default=paths.DEV, metavar="DEV_FOLDER")
    parser.add_argument("out", nargs="?", default=os.path.join(paths.CACHE, default_out), metavar="OUT_FOLDER")
    args = parser.parse_args()
    with open(os.path.join(args.dev, "labels.json")) as f:
        labels = json.load(f)
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    scratch = os.path.join(args.out, ".work")
    os.makedirs(scratch)
    return labels, args.dev, args.out, scratch


def rgb_copy(src, dest):
    """`src` as a libvips file `dest` of 3 bands (alpha flattened), so that every view cut from it
    starts from the same pixels."""
    vips("copy", src, dest)
    if bands_of(dest) == 4:
        vips("flatten", dest, dest + ".flat.v")
        os.replace(dest + ".flat.v", dest)
