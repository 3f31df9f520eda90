"""Images through the `vips` and `vipsheader` commands (Debian's libvips-tools), and JPEG bytes."""
import math
import os
import subprocess
import tempfile


def vips(*args, cwd=None, env=None):
    """Runs `vips ARGS...` (each argument as text), its output discarded; raises when it fails."""
    subprocess.run(["vips", *map(str, args)], check=True, cwd=cwd, env=env, stdout=subprocess.DEVNULL)


def header(path, field):
    """One field of `vipsheader -f FIELD PATH`, as text."""
    return subprocess.run(["vipsheader", "-f", field, path], capture_output=True, text=True,
                          check=True).stdout.strip()


def size_of(path):
    """(width, height) of an image file."""
    return int(header(path, "width")), int(header(path, "height"))


def bands_of(path):
    return int(header(path, "bands"))


def image_size(data):
    """(width, height) of an encoded image, read by `vipsheader` from a temporary file."""
    with tempfile.NamedTemporaryFile(suffix=".img") as f:
        f.write(data)
        f.flush()
        try:
            return size_of(f.name)
        except subprocess.CalledProcessError as error:
            raise ValueError(f"vipsheader could not read the image: {error.stderr.strip()}") from None


def enlarge(src, dest, megapixels, quality, srgb=False, grain=0):
    """`src` resized to about `megapixels` MP and saved as a JPEG of `quality` without metadata,
    atomically; in sRGB when `srgb` (grey photos then decode alike everywhere), with Gaussian
    grain of sigma `grain` when above 0 (an enlarged photo is smooth and compresses to a third of
    a camera's file; grain brings the size and the decoder's work back to a camera's)."""
    width, height = size_of(src)
    scale = math.sqrt(megapixels * 1e6 / (width * height))
    parts = {k: f"{dest}.{k}.v" for k in ("big", "srgb", "noise", "sum", "out")}
    try:
        vips("resize", src, parts["big"], f"{scale:.6f}")
        current = parts["big"]
        if srgb:
            vips("colourspace", current, parts["srgb"], "srgb")
            current = parts["srgb"]
        if grain:
            w, h = size_of(current)
            vips("gaussnoise", parts["noise"], w, h, "--sigma", grain, "--mean", 0)
            vips("add", current, parts["noise"], parts["sum"])
            vips("cast", parts["sum"], parts["out"], "uchar")
            current = parts["out"]
        vips("copy", current, f"{dest}.part.jpg[Q={quality},strip]")
        os.replace(f"{dest}.part.jpg", dest)
    finally:
        for path in parts.values():
            if os.path.exists(path):
                os.remove(path)


def with_comment(data, text):
    """The JPEG `data` with a comment segment added after SOI (and JFIF APP0 when present):
    different bytes, the same pixels."""
    assert data[:2] == b"\xff\xd8", "not a JPEG"
    pos = 2
    if data[2:4] == b"\xff\xe0":
        pos = 4 + int.from_bytes(data[4:6], "big")
    payload = text.encode()
    segment = b"\xff\xfe" + (len(payload) + 2).to_bytes(2, "big") + payload
    return data[:pos] + segment + data[pos:]


def mean_difference(a, b):
    """Mean absolute difference of two encoded images of one size (0-255 a channel), their alpha
    flattened on white; a one-band image is compared as grey in every band."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, data in (("a", a), ("b", b)):
            path = os.path.join(tmp, name)
            with open(path, "wb") as f:
                f.write(data)
            flat = os.path.join(tmp, name + ".v")
            if bands_of(path) in (2, 4):
                vips("flatten", path, flat, "--background", "255 255 255")
            else:
                vips("copy", path, flat)
            paths.append(flat)
        vips("subtract", paths[0], paths[1], os.path.join(tmp, "d.v"))
        vips("abs", os.path.join(tmp, "d.v"), os.path.join(tmp, "e.v"))
        out = subprocess.run(["vips", "avg", os.path.join(tmp, "e.v")], capture_output=True, text=True, check=True)
        return float(out.stdout)
