"""Builds Focal's corpus of hostile inputs: `make corpus` (run by `make test`).

Usage: python3 -m focalscripts.corpus [--out DIR] [--force]

Writes into DIR (default .cache/corpus/) one file per case and `manifest.json`, which lists for
each file what `focal crop FILE --size 400x400` must give: "ok", or one of the error codes named
(an input may be refused for one of several reasons, e.g. its side or its pixel count). The
corpus test (Tests/FocalTests/CorpusTests.swift) reads that manifest and fails when it is missing.

Cases: empty, random and non-image bytes (text, HTML, SVG, PDF, a libvips matrix file, PPM,
CSV, the vips format); every format Focal reads (JPEG baseline/progressive/CMYK/grey, PNG in
every colour type and depth, palette, interlaced, WebP lossy/lossless/animated, GIF, TIFF
strips/tiles/pages/16-bit/float/CMYK/1-bit, HEIC, AVIF) and each truncated at several cut
points; JPEGs cut in half with an end marker appended; headers that claim huge sizes;
decompression bombs (a 20000x20000 PNG of a few hundred KB, a 10000x10000 GIF of tens of bytes,
a GIF of thousands of frames, a TIFF of a thousand pages, interlaced 16-bit RGBA PNGs, progressive
CMYK JPEGs, a one-strip TIFF, a large WebP and HEIC) on both sides of the decode budget; a
progressive JPEG that repeats one small scan thousands of times; 1xN and Nx1 extremes; every EXIF
orientation on a non-square image; the crashes the fuzzer found (Tests/Corpus/, copied in).

Deterministic (fixed seeds, no timestamps) and idempotent: when the manifest's stamp (this
script, the fixtures, the vips version) matches and every file is present with its recorded
digest, nothing is rebuilt. Needs only Python's standard library and the `vips` command
(Debian's libvips-tools). Fixtures come from `make fixtures`.
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

from . import images, paths
from .cli import prog

FIXTURES = paths.FIXTURES
REPRODUCERS = os.path.join(paths.ROOT, "Tests", "Corpus")
VERSION = 1

OK = "ok"
CORRUPT = "input.corrupt"
NOT_IMAGE = "input.not_an_image"
UNSUPPORTED = "input.unsupported"
EMPTY = "input.empty"
PIXELS = "input.too_many_pixels"
COSTLY = "input.too_costly"
ASPECT = "input.extreme_aspect"
OUTPUT = "output.too_large"
FRAMES = "input.too_many_frames"
BOMB = [PIXELS, COSTLY, ASPECT]


def say(text):
    print(f"corpus: {text}", file=sys.stderr)


# MARK: - Byte-level writers


def be16(v):
    return struct.pack(">H", v)


def be32(v):
    return struct.pack(">I", v)


def le16(v):
    return struct.pack("<H", v)


def le32(v):
    return struct.pack("<I", v)


def deflate_zeros(count):
    """A zlib stream of `count` zero bytes, built without deflating them all: a block of 1 MiB of
    zeros refers only to zeros before it, so the same compressed block can be repeated."""
    mib = 1 << 20
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = min(count, mib)
    out = [c.compress(bytes(first)), c.flush(zlib.Z_SYNC_FLUSH)]
    left = count - first
    if left >= mib:
        block = c.compress(bytes(mib)) + c.flush(zlib.Z_SYNC_FLUSH)
        out.append(block)
        left -= mib
        out.append(block * (left // mib))
        left %= mib
    out.append(c.compress(bytes(left)) + c.flush(zlib.Z_FINISH))
    # The Adler-32 of zeros: a stays 1, b grows by 1 a byte.
    adler = ((count % 65521) << 16) | 1
    return b"\x78\xda" + b"".join(out) + be32(adler)


def png_chunk(kind, body):
    typed = kind + body
    return be32(len(body)) + typed + be32(zlib.crc32(typed) & 0xFFFFFFFF)


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_zero(width, height, color_type=0, bit_depth=8, interlace=False, extra=b""):
    """A PNG of zero samples (black, transparent) of any size, compressed without building it."""
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color_type]
    bits_per_pixel = channels * bit_depth

    def row_bytes(w):
        return 1 + (w * bits_per_pixel + 7) // 8 if w > 0 else 0

    if interlace:
        passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        total = 0
        for x0, y0, dx, dy in passes:
            w = (width - x0 + dx - 1) // dx if width > x0 else 0
            h = (height - y0 + dy - 1) // dy if height > y0 else 0
            if w and h:
                total += h * row_bytes(w)
    else:
        total = height * row_bytes(width)
    ihdr = be32(width) + be32(height) + bytes([bit_depth, color_type, 0, 0, 1 if interlace else 0])
    plte = png_chunk(b"PLTE", bytes(6)) if color_type == 3 else b""
    return (PNG_SIGNATURE + png_chunk(b"IHDR", ihdr) + plte + extra
            + png_chunk(b"IDAT", deflate_zeros(total)) + png_chunk(b"IEND", b""))


def gif_canvas(width, height, frame_width=1, frame_height=1, frames=1, coded=None):
    """A GIF whose screen is `width` x `height`, holding `frames` frames of frame_width x
    frame_height pixels (colour 0), each coded with a clear code, literals and an end code; only
    the first `coded` pixels of a frame are coded when given (the rest of its data is missing)."""
    out = bytearray(b"GIF89a" + le16(width) + le16(height) + bytes([0x80, 0, 0]) + bytes([0, 0, 0, 255, 255, 255]))
    if frames > 1:  # loop forever
        out += b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
    # LZW with 2-bit minimum code size: codes are 3 bits; a clear code every other pixel keeps it so.
    pixels = frame_width * frame_height if coded is None else coded
    codes = []
    for n in range(pixels):
        if n % 2 == 0:
            codes.append(4)
        codes.append(0)
    codes.append(5)
    packed, acc, bits = bytearray(), 0, 0
    for code in codes:
        acc |= code << bits
        bits += 3
        while bits >= 8:
            packed.append(acc & 0xFF)
            acc >>= 8
            bits -= 8
    if bits:
        packed.append(acc & 0xFF)
    data = bytearray([2])
    for i in range(0, len(packed), 255):
        part = packed[i:i + 255]
        data += bytes([len(part)]) + part
    data += b"\x00"
    for _ in range(frames):
        if frames > 1:
            out += b"\x21\xf9\x04\x04\x02\x00\x00\x00"  # graphic control: 2/100 s, keep
        out += b"\x2c" + le16(0) + le16(0) + le16(frame_width) + le16(frame_height) + b"\x00" + data
    out += b"\x3b"
    return bytes(out)


def tiff(width, height, *, pages=1, rows_per_strip=None, tile=None, compress=True, truncate_at=None):
    """A little-endian 8-bit grey TIFF of zeros, its directories before its data (so that a cut
    keeps the header and loses pixels). Strips (`rows_per_strip`, default the whole image) or
    square tiles (`tile`), deflate-compressed unless `compress` is false."""
    out = bytearray(b"II*\x00" + le32(8))

    def pack(raw_size):
        return deflate_zeros(raw_size) if compress else bytes(raw_size)

    for page in range(pages):
        if tile:
            across, down = (width + tile - 1) // tile, (height + tile - 1) // tile
            blocks = [pack(tile * tile) for _ in range(across * down)]
            layout = [(322, 4, [tile]), (323, 4, [tile])]
            offsets_tag, counts_tag = 324, 325
        else:
            rows = min(height, rows_per_strip or height)
            count = (height + rows - 1) // rows
            blocks = [pack(width * min(rows, height - i * rows)) for i in range(count)]
            layout = [(278, 4, [rows])]
            offsets_tag, counts_tag = 273, 279
        entries = [(256, 4, [width]), (257, 4, [height]), (258, 3, [8]), (259, 3, [8 if compress else 1]),
                   (262, 3, [1]), (277, 3, [1])] + layout
        entries += [(offsets_tag, 4, [0] * len(blocks)), (counts_tag, 4, [len(b) for b in blocks])]
        entries.sort(key=lambda e: e[0])
        ifd_at = len(out)
        ifd_size = 2 + 12 * len(entries) + 4
        extra_at = ifd_at + ifd_size
        # Out-of-line arrays, then the blocks.
        extra = bytearray()
        array_offsets = {}
        for tag, kind, values in entries:
            if len(values) > 1:
                array_offsets[tag] = extra_at + len(extra)
                extra += b"".join(le32(v) for v in values)
        data_at = extra_at + len(extra)
        block_offsets, at = [], data_at
        for b in blocks:
            block_offsets.append(at)
            at += len(b)
        if len(blocks) > 1:
            extra[array_offsets[offsets_tag] - extra_at:array_offsets[offsets_tag] - extra_at + 4 * len(blocks)] = \
                b"".join(le32(v) for v in block_offsets)
        next_ifd = at if page + 1 < pages else 0
        ifd = bytearray(le16(len(entries)))
        for tag, kind, values in entries:
            if tag == offsets_tag:
                values = block_offsets
            ifd += le16(tag) + le16(kind) + le32(len(values))
            if len(values) > 1:
                ifd += le32(array_offsets[tag])
            elif kind == 3:
                ifd += le16(values[0]) + b"\x00\x00"
            else:
                ifd += le32(values[0])
        ifd += le32(next_ifd)
        out += ifd + extra + b"".join(blocks)
    data = bytes(out)
    return data[:truncate_at] if truncate_at else data


def patch_tiff_size(data, width, height):
    """A TIFF from `tiff()` with the width and height in its first directory replaced (they are
    its first two entries, both LONG)."""
    out = bytearray(data)
    out[18:22] = le32(width)
    out[30:34] = le32(height)
    return bytes(out)


def jpeg_segments(data):
    """(marker, start, end) for each marker segment of a JPEG, a scan running up to the next marker."""
    out, i = [], 2
    while i + 1 < len(data):
        if data[i] != 0xFF:
            raise ValueError(f"no marker at {i}")
        marker = data[i + 1]
        if marker == 0xD9:
            out.append((marker, i, i + 2))
            break
        if i + 3 >= len(data):
            raise ValueError("a marker cut short")
        end = i + 2 + (data[i + 2] << 8 | data[i + 3])
        if marker == 0xDA:
            while end + 1 < len(data) and not (data[end] == 0xFF and data[end + 1] != 0 and not 0xD0 <= data[end + 1] <= 0xD7):
                end += 1
        out.append((marker, i, end))
        i = end
    return out


def repeat_scan(jpeg, times):
    """A progressive JPEG with its smallest scan (and the Huffman tables just before it) repeated
    `times` more times before the end marker: every repeat is decoded again."""
    segments = jpeg_segments(jpeg)
    scans = [k for k, s in enumerate(segments) if s[0] == 0xDA]
    best = None
    for k in scans[1:]:
        first = k
        while first > 0 and segments[first - 1][0] == 0xC4:
            first -= 1
        piece = jpeg[segments[first][1]:segments[k][2]]
        if best is None or len(piece) < len(best):
            best = piece
    eoi = segments[-1][1]
    return jpeg[:eoi] + best * times + jpeg[eoi:]


def patch_jpeg_size(jpeg, width, height):
    """The JPEG with its start-of-frame size replaced."""
    data = bytearray(jpeg)
    for marker, start, _ in jpeg_segments(jpeg):
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            data[start + 5:start + 7] = be16(height)
            data[start + 7:start + 9] = be16(width)
            return bytes(data)
    raise ValueError("no frame header")


def exif_orientation(value):
    """An APP1 Exif segment (big-endian TIFF) holding only the orientation tag."""
    tiff_bytes = b"MM\x00\x2a" + be32(8) + be16(1) + be16(0x0112) + be16(3) + be32(1) + be16(value) + b"\x00\x00" + be32(0)
    payload = b"Exif\x00\x00" + tiff_bytes
    return b"\xff\xe1" + be16(len(payload) + 2) + payload


def insert_after_soi(jpeg, segment):
    return jpeg[:2] + segment + jpeg[2:]


def without_app_segments(jpeg):
    """The JPEG without its APPn segments (so that an inserted one is the only one)."""
    keep = [jpeg[:2]]
    for marker, start, end in jpeg_segments(jpeg):
        if not 0xE0 <= marker <= 0xEF:
            keep.append(jpeg[start:end])
    return b"".join(keep)


def patch_vp8l_size(webp, width, height):
    """A lossless (VP8L) WebP with its size fields replaced, in the VP8X canvas too if it has one."""
    data = bytearray(webp)
    at = data.find(b"VP8L")
    if at < 0 or data[at + 8] != 0x2F:
        raise ValueError("no VP8L chunk")
    bits = struct.unpack("<I", bytes(data[at + 9:at + 13]))[0]
    bits = (bits & ~0x0FFFFFFF) | ((width - 1) & 0x3FFF) | (((height - 1) & 0x3FFF) << 14)
    data[at + 9:at + 13] = struct.pack("<I", bits)
    if data[12:16] == b"VP8X":
        data[24:27] = struct.pack("<I", width - 1)[:3]
        data[27:30] = struct.pack("<I", height - 1)[:3]
    return bytes(data)


def patch_ispe(heif, width, height):
    """A HEIF with every image-spatial-extents box claiming `width` x `height`."""
    data = bytearray(heif)
    at = data.find(b"ispe")
    if at < 0:
        raise ValueError("no ispe box")
    while at >= 0:
        data[at + 8:at + 12] = be32(width)
        data[at + 12:at + 16] = be32(height)
        at = data.find(b"ispe", at + 4)
    return bytes(data)


# MARK: - The corpus


class Corpus:
    def __init__(self, out, work):
        self.out = out
        self.work = work
        self.entries = {}

    def add(self, name, data, expect, note):
        if name in self.entries:
            raise ValueError(f"duplicate corpus name {name}")
        with open(os.path.join(self.out, name), "wb") as f:
            f.write(data)
        self.entries[name] = {"expect": expect if isinstance(expect, list) else [expect], "note": note,
                              "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}

    def vips(self, *args):
        images.vips(*args, cwd=self.work, env=dict(os.environ, VIPS_WARNING="0", VIPS_CONCURRENCY="1"))

    def path(self, name):
        return os.path.join(self.work, name)

    def read(self, name):
        with open(self.path(name), "rb") as f:
            return f.read()

    def saved(self, source, name, *options):
        """`source` saved by vips as `name` (the suffix picks the saver) and read back."""
        self.vips("copy", source, name + ("[" + ",".join(options) + "]" if options else ""))
        return self.read(name)


def truncations(corpus, stem, data, ext):
    """The file cut at 16 and 200 bytes, a quarter, half, three quarters, and one byte short."""
    n = len(data)
    corpus.add(f"trunc-{stem}-16b.{ext}", data[:16], [CORRUPT, NOT_IMAGE], f"{stem}: the first 16 bytes")
    corpus.add(f"trunc-{stem}-200b.{ext}", data[:200], [CORRUPT, NOT_IMAGE], f"{stem}: the first 200 bytes")
    for pct in (25, 50, 75):
        corpus.add(f"trunc-{stem}-{pct}pct.{ext}", data[:n * pct // 100], CORRUPT, f"{stem}: the first {pct} %")
    # Only the trailer is lost: every pixel is there, so a picture is as right as an error.
    corpus.add(f"trunc-{stem}-last-byte.{ext}", data[:n - 1], [OK, CORRUPT], f"{stem}: all but the last byte")


def build(corpus):
    rng = random.Random(20240508)
    v = corpus.vips
    hopper = os.path.join(FIXTURES, "grace_hopper.jpg")  # 512x600, a face
    coffee = os.path.join(FIXTURES, "coffee.png")  # 600x400
    chelsea = os.path.join(FIXTURES, "chelsea.png")  # 451x300, a cat
    astronaut = os.path.join(FIXTURES, "astronaut.png")  # 512x512
    for path in (hopper, coffee, chelsea, astronaut):
        if not os.path.exists(path):
            sys.exit(f"corpus: missing {path}: run `make fixtures` first")

    # Working images: a non-square photo with alpha, a 2048x1365 photo for progressive scans.
    v("resize", coffee, "small.v", 0.5)  # 300x200
    v("bandjoin_const", "small.v", "small-alpha.v", 200)
    v("colourspace", "small.v", "small-grey.v", "b-w")
    v("bandjoin_const", "small-grey.v", "small-grey-alpha.v", 255)
    v("cast", "small.v", "small16.v", "ushort")
    v("linear", "small16.v", "small16b.v", 257, 0)
    v("copy", "small16b.v", "small16c.v", "--interpretation", "rgb16")
    v("cast", "small16c.v", "small16.v", "ushort")
    v("bandjoin_const", "small16.v", "small16-alpha.v", 65535)
    v("colourspace", "small.v", "small-cmyk.v", "cmyk")
    v("cast", "small.v", "small-float.v", "float")
    # 256 samples a pixel, all but one "extra" (the fuzzer's find: they reached the RGB buffer).
    v("black", "many.v", 300, 200, "--bands", 256)
    v("copy", "many.v", "many-bw.v", "--interpretation", "b-w")
    v("resize", hopper, "big.v", 4)  # 2048x2400
    v("crop", "big.v", "large.v", 0, 500, 2048, 1365)

    # --- Not images ---
    corpus.add("empty.jpg", b"", EMPTY, "zero bytes")
    corpus.add("one-byte.png", b"\x89", NOT_IMAGE, "one byte")
    corpus.add("random-4k.bin", rng.randbytes(4096), NOT_IMAGE, "random bytes")
    corpus.add("zeros-64k.jpg", bytes(65536), NOT_IMAGE, "zero bytes named .jpg")
    corpus.add("ff-4k.jpg", b"\xff" * 4096, NOT_IMAGE, "0xFF bytes")
    corpus.add("text.jpg", b"This is a text file with a .jpg name, not a picture.\n" * 20, NOT_IMAGE, "plain text")
    corpus.add("page.html", b"<!doctype html><html><body><img src=x></body></html>\n", NOT_IMAGE, "HTML")
    corpus.add("data.json", b'{"image": "not really", "width": 10000}\n', NOT_IMAGE, "JSON")
    corpus.add("drawing.svg", b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="20000" height="20000">'
               b'<rect width="100%" height="100%" fill="red"/></svg>\n', [NOT_IMAGE, UNSUPPORTED], "SVG (libvips marks it untrusted)")
    corpus.add("doc.pdf", b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
               b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
               [NOT_IMAGE, UNSUPPORTED], "PDF (libvips marks it untrusted)")
    corpus.add("matrix.mat", b"4 3\n1 2 3 4\n5 6 7 8\n9 10 11 12\n", UNSUPPORTED, "a libvips matrix text file")
    corpus.add("matrix-huge.mat", b"10000000 10000000\n1 2 3\n", [NOT_IMAGE, UNSUPPORTED],
               "a matrix file claiming 10^14 cells (libvips's matrix loader does not take it either)")
    corpus.add("table.csv", b"1,2,3\n4,5,6\n", NOT_IMAGE, "CSV")
    corpus.add("image.ppm", b"P6\n16 16\n255\n" + rng.randbytes(16 * 16 * 3), UNSUPPORTED, "PPM: libvips reads it, Focal does not")
    corpus.add("image.v", corpus.saved("small.v", "image-native.v"), [NOT_IMAGE, UNSUPPORTED],
               "the vips format (libvips reads it only from files)")
    corpus.add("image.jxl", corpus.saved("small.v", "image.jxl"), UNSUPPORTED, "JPEG XL: libvips marks its loader untrusted")

    # --- Magic numbers followed by garbage ---
    for name, magic in [("jpeg", b"\xff\xd8\xff\xe0"), ("png", PNG_SIGNATURE), ("gif", b"GIF89a"),
                        ("tiff", b"II*\x00"), ("webp", b"RIFF\x00\x10\x00\x00WEBPVP8 "), ("heic", b"\x00\x00\x00\x18ftypheic")]:
        corpus.add(f"magic-{name}-random.{name}", magic + rng.randbytes(4096), [CORRUPT] + BOMB,
                   f"a {name} signature, then random bytes")
    corpus.add("magic-jpeg-only.jpg", b"\xff\xd8\xff", CORRUPT, "a JPEG signature alone")

    # --- Every format, plain and odd, and each truncated ---
    formats = {}
    formats["jpeg-baseline"] = (corpus.saved("small.v", "b.jpg", "Q=85"), "jpg")
    formats["jpeg-progressive"] = (corpus.saved("small.v", "p.jpg", "interlace"), "jpg")
    formats["png"] = (corpus.saved("small.v", "p.png"), "png")
    formats["png-interlaced"] = (corpus.saved("small.v", "pi.png", "interlace"), "png")
    formats["webp-lossy"] = (corpus.saved("small.v", "l.webp", "strip"), "webp")
    formats["webp-lossless"] = (corpus.saved("small.v", "ll.webp", "lossless", "strip"), "webp")
    formats["gif"] = (corpus.saved("small.v", "g.gif"), "gif")
    formats["tiff-strips"] = (corpus.saved("small.v", "s.tif", "compression=deflate"), "tif")
    formats["tiff-tiled"] = (corpus.saved("small.v", "t.tif", "tile", "tile-width=64", "tile-height=64"), "tif")
    formats["heic"] = (corpus.saved("small.v", "h.heic", "Q=50"), "heic")
    formats["avif"] = (corpus.saved("small.v", "a.avif", "Q=50"), "avif")
    for stem, (data, ext) in formats.items():
        corpus.add(f"ok-{stem}.{ext}", data, OK, f"a 300x200 photo as {stem}")
        truncations(corpus, stem, data, ext)

    ok_variants = [
        ("ok-jpeg-grey.jpg", "small-grey.v", ["Q=80"]),
        ("ok-jpeg-cmyk.jpg", "small-cmyk.v", []),
        ("ok-jpeg-cmyk-progressive.jpg", "small-cmyk.v", ["interlace"]),
        ("ok-jpeg-444.jpg", "small.v", ["no-subsample"]),
        ("ok-png-rgba.png", "small-alpha.v", []),
        ("ok-png-grey.png", "small-grey.v", []),
        ("ok-png-grey-alpha.png", "small-grey-alpha.v", []),
        ("ok-png-16bit.png", "small16.v", []),
        ("ok-png-16bit-rgba-interlaced.png", "small16-alpha.v", ["interlace"]),
        ("ok-png-palette.png", "small.v", ["palette"]),
        ("ok-png-palette-alpha.png", "small-alpha.v", ["palette"]),
        ("ok-png-1bit.png", "small-grey.v", ["bitdepth=1"]),
        ("ok-webp-alpha.webp", "small-alpha.v", ["strip"]),
        ("ok-gif-alpha.gif", "small-alpha.v", []),
        ("ok-tiff-16bit.tif", "small16.v", ["compression=lzw"]),
        ("ok-tiff-float.tif", "small-float.v", []),
        ("ok-tiff-cmyk.tif", "small-cmyk.v", []),
        ("ok-tiff-grey-alpha.tif", "small-grey-alpha.v", []),
        ("ok-tiff-256-bands.tif", "many-bw.v", ["compression=deflate"]),
        ("ok-tiff-1bit.tif", "small-grey.v", ["bitdepth=1"]),
        ("ok-tiff-jpeg.tif", "small.v", ["compression=jpeg"]),
        ("ok-tiff-pyramid.tif", "small.v", ["tile", "pyramid", "tile-width=64", "tile-height=64"]),
        ("ok-tiff-bigtiff.tif", "small.v", ["bigtiff"]),
        ("ok-heic-alpha.heic", "small-alpha.v", ["Q=50"]),
    ]
    for name, source, options in ok_variants:
        corpus.add(name, corpus.saved(source, "variant-" + name, *options), OK, f"{source} saved with {options or 'defaults'}")

    # Animated: 24 frames of 64x64 as GIF, and the same frames as an animated WebP.
    frames = gif_canvas(64, 64, 64, 64, frames=24)
    corpus.add("ok-gif-animated.gif", frames, OK, "24 frames of 64x64")
    with open(corpus.path("frames.gif"), "wb") as f:
        f.write(frames)
    v("copy", "frames.gif[n=-1]", "anim.webp")
    corpus.add("ok-webp-animated.webp", corpus.read("anim.webp"), OK, "an animated WebP of 24 frames")

    # --- JPEG damage ---
    base = corpus.read("b.jpg")
    prog = corpus.read("p.jpg")
    half = base[:len(base) // 2]
    corpus.add("jpeg-half-eoi.jpg", half + b"\xff\xd9", CORRUPT, "a baseline JPEG cut in half with an end marker appended")
    corpus.add("jpeg-progressive-half-eoi.jpg", prog[:len(prog) // 2] + b"\xff\xd9", CORRUPT,
               "a progressive JPEG cut in half with an end marker appended")
    garbled = bytearray(base)
    for i in range(len(base) // 2, len(base) - 2, 7):
        garbled[i] = 0xFF
    corpus.add("jpeg-garbled-second-half.jpg", bytes(garbled), CORRUPT, "entropy data overwritten with 0xFF halfway")
    flipped = bytearray(base)
    r = random.Random(7)
    for _ in range(20):
        i = r.randrange(len(base) // 3, len(base) - 2)
        flipped[i] ^= 1 << r.randrange(8)
    corpus.add("jpeg-bitflips.jpg", bytes(flipped), [OK, CORRUPT], "20 flipped bits in the entropy-coded data")
    no_eoi = base[:-2]
    corpus.add("jpeg-no-eoi.jpg", no_eoi, [OK, CORRUPT], "a whole JPEG without its end marker")
    v("resize", "small.v", "tiny.v", 0.08)
    tiny = corpus.saved("tiny.v", "tiny.jpg")
    corpus.add("jpeg-tiny-claims-10000x10000.jpg", patch_jpeg_size(tiny, 10000, 10000), CORRUPT,
               "a 24x16 JPEG whose header claims 10000x10000")
    corpus.add("jpeg-tiny-claims-8000x6000.jpg", patch_jpeg_size(tiny, 8000, 6000), CORRUPT,
               "a 24x16 JPEG whose header claims 8000x6000")
    corpus.add("jpeg-claims-65500x65500.jpg", patch_jpeg_size(base, 65500, 65500), PIXELS, "a header claiming 65500x65500")
    corpus.add("jpeg-claims-65500x1.jpg", patch_jpeg_size(base, 65500, 1), [PIXELS, ASPECT, CORRUPT], "a header claiming 65500x1")
    corpus.add("jpeg-claims-0x0.jpg", patch_jpeg_size(base, 0, 0), CORRUPT, "a header claiming 0x0")
    # Many APP segments.
    junk = b"\xff\xe4" + be16(60002) + bytes(rng.randbytes(60000))
    corpus.add("jpeg-400-app-segments.jpg", insert_after_soi(base, junk * 400), [OK, CORRUPT],
               "400 APP4 segments of 60 KB (24 MB) before the image")
    # A broken ICC profile on a CMYK image (the CMYK-to-sRGB conversion reads it).
    cmyk = corpus.read("variant-ok-jpeg-cmyk.jpg")
    icc = b"ICC_PROFILE\x00\x01\x01" + be32(4000) + b"acspGARBAGE" + rng.randbytes(600)
    corpus.add("jpeg-cmyk-bad-icc.jpg", insert_after_soi(cmyk, b"\xff\xe2" + be16(len(icc) + 2) + icc), [OK, CORRUPT],
               "a CMYK JPEG with a garbage ICC profile")

    # Progressive scans: one small scan repeated (each repeat is decoded again).
    v("copy", hopper, "hopper-prog.jpg[interlace,strip]")
    hopper_prog = corpus.read("hopper-prog.jpg")
    corpus.add("jpeg-scan-repeat-5000.jpg", repeat_scan(hopper_prog, 5000), COSTLY,
               "a 512x600 progressive JPEG repeating one small scan 5000 times")
    corpus.add("jpeg-scan-repeat-101.jpg", repeat_scan(hopper_prog, 91), COSTLY,
               "the same with 101 scans in all: one over the scan limit")
    v("copy", "large.v", "large-prog.jpg[interlace,Q=90]")
    corpus.add("jpeg-scan-repeat-80.jpg", repeat_scan(corpus.read("large-prog.jpg"), 80), [OK, CORRUPT],
               "a 2048x1365 progressive JPEG with one scan repeated 80 times: under the scan limit, so decoded")

    # --- EXIF orientation on a non-square (300x200) JPEG ---
    plain = without_app_segments(base)
    for value in range(1, 9):
        corpus.add(f"orient-{value}.jpg", insert_after_soi(plain, exif_orientation(value)), OK,
                   f"EXIF orientation {value} on a 300x200 JPEG")
    for value in (0, 9, 65535):
        corpus.add(f"orient-invalid-{value}.jpg", insert_after_soi(plain, exif_orientation(value)), OK,
                   f"EXIF orientation {value} (invalid: treated as 1)")
    exif_chunk = png_chunk(b"eXIf", exif_orientation(6)[10:])
    png_plain = corpus.read("p.png")
    corpus.add("orient-6.png", png_plain[:33] + exif_chunk + png_plain[33:], OK, "a PNG with an eXIf orientation of 6")

    # --- Headers claiming huge sizes ---
    corpus.add("png-claims-100000x100000.png", png_zero(100000, 100000, 2)[:33] + png_chunk(b"IDAT", deflate_zeros(64))
               + png_chunk(b"IEND", b""), PIXELS, "an IHDR claiming 100000x100000, 64 bytes of data")
    corpus.add("png-claims-2147483647x1.png", PNG_SIGNATURE + png_chunk(b"IHDR", be32(0x7FFFFFFF) + be32(1) + bytes([8, 2, 0, 0, 0]))
               + png_chunk(b"IEND", b""), [CORRUPT] + BOMB, "an IHDR claiming 2^31-1 x 1")
    corpus.add("png-claims-0x0.png", PNG_SIGNATURE + png_chunk(b"IHDR", be32(0) + be32(0) + bytes([8, 2, 0, 0, 0]))
               + png_chunk(b"IEND", b""), CORRUPT, "an IHDR claiming 0x0")
    corpus.add("gif-claims-65535x65535.gif", gif_canvas(65535, 65535, 65535, 65535, coded=2), PIXELS,
               "a GIF whose frame claims 65535x65535, two pixels coded")
    corpus.add("tiff-claims-1000000x1000000.tif", patch_tiff_size(tiff(16, 16), 1000000, 1000000), [PIXELS, CORRUPT],
               "a 16x16 TIFF whose directory claims 10^12 pixels")
    lossless = corpus.read("ll.webp")
    corpus.add("webp-claims-16383x16383.webp", patch_vp8l_size(lossless, 16383, 16383), PIXELS, "a VP8L header claiming 16383x16383")
    corpus.add("webp-claims-16384x16384.webp", patch_vp8l_size(lossless, 16384, 16384), CORRUPT,
               "a VP8L header claiming 16384x16384 (over WebP's own maximum)")
    corpus.add("webp-claims-10000x10000.webp", patch_vp8l_size(lossless, 10000, 10000), COSTLY,
               "a VP8L header claiming 10000x10000 (100 MP: at the pixel limit, over the decode budget)")
    heic = corpus.read("h.heic")
    corpus.add("heic-claims-30000x30000.heic", patch_ispe(heic, 30000, 30000), [PIXELS, CORRUPT], "ispe claiming 30000x30000")
    corpus.add("heic-claims-1000x1000.heic", patch_ispe(heic, 1000, 1000), [OK, CORRUPT], "ispe claiming 1000x1000 for 300x200 data")

    # --- Decompression bombs ---
    corpus.add("bomb-png-20000x20000.png", png_zero(20000, 20000, 0), PIXELS, "20000x20000 grey PNG of about 400 KB")
    corpus.add("bomb-png-10000x10000-1bit.png", png_zero(10000, 10000, 0, 1), OK,
               "10000x10000 1-bit PNG (100 MP, at the pixel limit; streams)")
    corpus.add("bomb-png-interlaced-16bit-rgba-4000.png", png_zero(4000, 4000, 6, 16, interlace=True), [OK, COSTLY],
               "4000x4000 interlaced 16-bit RGBA PNG (decoded whole: about 128 MB of samples)")
    corpus.add("bomb-png-interlaced-16bit-rgba-8000.png", png_zero(8000, 8000, 6, 16, interlace=True), COSTLY,
               "8000x8000 interlaced 16-bit RGBA PNG (about 512 MB of samples)")
    corpus.add("bomb-png-interlaced-palette-10000.png", png_zero(10000, 10000, 3, 8, interlace=True), [OK, COSTLY],
               "10000x10000 interlaced palette PNG (expanded to RGB when decoded)")
    ztxt = png_chunk(b"zTXt", b"Comment\x00\x00" + deflate_zeros(50 << 20)[:])
    corpus.add("bomb-png-ztxt-50mb.png", png_plain[:33] + ztxt + png_plain[33:], [OK, CORRUPT],
               "a zTXt chunk inflating to 50 MB")
    iccp = png_chunk(b"iCCP", b"icc\x00\x00" + deflate_zeros(50 << 20))
    corpus.add("bomb-png-iccp-50mb.png", png_plain[:33] + iccp + png_plain[33:], [OK, CORRUPT],
               "an iCCP chunk inflating to 50 MB")
    # libnsgif takes a screen over 2048 px for a mistake and sizes the image by its frames: a
    # bomb's frame must be large itself. These frames code two pixels and end.
    corpus.add("bomb-gif-10000x10000.gif", gif_canvas(10000, 10000, 10000, 10000, coded=2), COSTLY,
               "a GIF of tens of bytes whose frame claims 10000x10000")
    # libnsgif decodes a frame whose LZW data ends early (with an end code) as complete, the rest
    # transparent: a picture, not an error, under fail_on=error and fail_on=warning alike.
    corpus.add("bomb-gif-5000x5000.gif", gif_canvas(5000, 5000, 5000, 5000, coded=2), [OK, CORRUPT, COSTLY],
               "a GIF of tens of bytes whose frame claims 5000x5000 (its data ends after two pixels)")
    corpus.add("gif-screen-10000x10000.gif", gif_canvas(10000, 10000), OUTPUT,
               "a GIF screen of 10000x10000 with one 1x1 frame: libnsgif reads it as 1x1")
    corpus.add("bomb-gif-5000-frames.gif", gif_canvas(500, 500, 16, 16, frames=5000), [OK, FRAMES],
               "5000 frames of 16x16 on a 500x500 screen: too long to animate (ImageLimits.maxFrames); its first frame as a still")
    corpus.add("ok-gif-3-frames.gif", gif_canvas(64, 64, 64, 64, frames=3), OK,
               "three 64x64 frames: an animation, cropped frame by frame")
    corpus.add("bomb-tiff-1000-pages.tif", tiff(400, 300, pages=1000, rows_per_strip=300), OK,
               "a TIFF of 1000 pages (only the first is read)")
    corpus.add("bomb-tiff-20000-pages.tif", tiff(1, 1, pages=20000, compress=False), COSTLY,
               "a TIFF of 20000 one-pixel pages (libvips reads every directory before the first pixel)")
    corpus.add("bomb-gif-20000-frames.gif", gif_canvas(64, 64, 1, 1, frames=20000), [OK, COSTLY, FRAMES],
               "a GIF of 20000 one-pixel frames (libnsgif stops counting after 4096): too long to animate; its first frame as a still")
    corpus.add("bomb-tiff-one-strip-9000.tif", tiff(9000, 9000), [OK, COSTLY], "a 9000x9000 grey TIFF in one deflated strip")
    corpus.add("bomb-tiff-tiles-16px.tif", tiff(10000, 10000, tile=16), COSTLY,
               "10000x10000 in 390,625 tiles of 16x16 (a minute of CPU for 7 MB): refused from its directory")
    corpus.add("ok-tiff-tiles-32px.tif", tiff(2000, 2000, tile=32), OK, "2000x2000 in 3,969 tiles of 32x32")
    corpus.add("ok-tiff-tile-8192.tif", tiff(8192, 8192, tile=8192), OK, "8192x8192 grey in one tile of 67 MB")
    corpus.add("bomb-tiff-tile-10240.tif", tiff(10240, 10240, tile=10240), COSTLY,
               "10240x10240 grey in one tile of 105 MB, more than libvips decodes")
    v("black", "cmyk-black.v", 5000, 5000, "--bands", 4)
    v("copy", "cmyk-black.v", "cmyk5000.v", "--interpretation", "cmyk")
    corpus.add("bomb-jpeg-progressive-cmyk-5000.jpg", corpus.saved("cmyk5000.v", "pc5000.jpg", "interlace", "Q=50"), [OK, COSTLY],
               "5000x5000 progressive CMYK JPEG (every coefficient is kept: 200 MB)")
    v("black", "cmyk-black8.v", 8000, 8000, "--bands", 4)
    v("copy", "cmyk-black8.v", "cmyk8000.v", "--interpretation", "cmyk")
    corpus.add("bomb-jpeg-progressive-cmyk-8000.jpg", corpus.saved("cmyk8000.v", "pc8000.jpg", "interlace", "Q=50"), COSTLY,
               "8000x8000 progressive CMYK JPEG (512 MB of coefficients)")
    v("black", "rgb-black-8000.v", 8000, 8400, "--bands", 3)
    corpus.add("bomb-jpeg-progressive-8000x8400.jpg", corpus.saved("rgb-black-8000.v", "p8000.jpg", "interlace", "Q=50"), [OK, COSTLY],
               "8000x8400 progressive 4:2:0 JPEG (67 MP: coefficients of about 220 MB, just under the budget)")
    corpus.add("bomb-png-interlaced-16bit-rgba-4400.png", png_zero(4400, 4400, 6, 16, interlace=True), [OK, COSTLY],
               "4400x4400 interlaced 16-bit RGBA PNG (just under the decode budget)")
    corpus.add("bomb-gif-5600x5600.gif", gif_canvas(5600, 5600, 5600, 5600, coded=2), [OK, CORRUPT, COSTLY],
               "a GIF whose frame claims 5600x5600 (just under the decode budget)")
    v("black", "rgb-black.v", 7000, 7000, "--bands", 3)
    corpus.add("bomb-webp-7000.webp", corpus.saved("rgb-black.v", "b7000.webp", "lossless", "strip"), [OK, COSTLY],
               "a 7000x7000 lossless WebP of a few KB")
    v("black", "heic-black.v", 5000, 5000, "--bands", 3)
    corpus.add("bomb-heic-5000.heic", corpus.saved("heic-black.v", "b5000.heic", "Q=10"), [OK, COSTLY],
               "a 5000x5000 HEIC of a few KB")

    # --- Extreme shapes ---
    corpus.add("extreme-tiff-1x10000000.tif", tiff(1, 10_000_000), [PIXELS, ASPECT, CORRUPT],
               "a TIFF of 1x10000000 pixels (libvips itself refuses sides of 10^7)")
    corpus.add("extreme-tiff-1x9000000.tif", tiff(1, 9_000_000), [PIXELS, ASPECT], "a TIFF of 1x9000000 pixels")
    corpus.add("extreme-tiff-6000000x1.tif", tiff(6_000_000, 1), [PIXELS, ASPECT], "a TIFF of 6000000x1 pixels")
    corpus.add("extreme-png-65535x1.png", png_zero(65535, 1, 0), ASPECT, "a PNG of 65535x1")
    corpus.add("extreme-png-1x65535.png", png_zero(1, 65535, 0), ASPECT, "a PNG of 1x65535")
    corpus.add("extreme-png-101x1.png", png_zero(101, 1, 2), ASPECT, "a PNG of 101x1 (just over 100:1)")
    corpus.add("extreme-png-100x1.png", png_zero(100, 1, 2), OUTPUT, "a PNG of 100x1 (100:1 is allowed; 400x400 from 1x1 is not)")
    corpus.add("extreme-png-6000x60.png", png_zero(6000, 60, 2), OK, "a PNG of 6000x60 (100:1)")
    corpus.add("extreme-tiff-60000x600.tif", tiff(60000, 600, rows_per_strip=16), OK, "a TIFF of 60000x600 (100:1, 36 MP)")
    corpus.add("extreme-png-1x1.png", png_zero(1, 1, 2), OUTPUT, "a 1x1 PNG (400x400 is a 400x enlargement)")
    corpus.add("extreme-gif-1x1.gif", gif_canvas(1, 1), OUTPUT, "a 1x1 GIF")
    v("black", "one.v", 1, 1, "--bands", 3)
    corpus.add("extreme-jpeg-1x1.jpg", corpus.saved("one.v", "one.jpg"), OUTPUT, "a 1x1 JPEG")
    corpus.add("extreme-webp-1x1.webp", corpus.saved("one.v", "one.webp", "strip"), OUTPUT, "a 1x1 WebP")
    corpus.add("extreme-tiff-1x1.tif", tiff(1, 1), OUTPUT, "a 1x1 TIFF")
    corpus.add("extreme-png-50x50.png", png_zero(50, 50, 2), OK, "50x50 to 400x400: exactly the 8x upscale limit")
    corpus.add("extreme-png-49x49.png", png_zero(49, 49, 2), OUTPUT, "49x49 to 400x400: just over the 8x upscale limit")

    # --- Truncated or damaged in the middle, structure intact ---
    tiled = tiff(2048, 2048, tile=256)
    corpus.add("tiff-tiled-truncated.tif", tiled[: len(tiled) * 6 // 10], CORRUPT,
               "a 2048x2048 tiled TIFF, directory first, cut at 60 %")
    strips = tiff(2048, 2048, rows_per_strip=64)
    corpus.add("tiff-strips-truncated.tif", strips[: len(strips) * 6 // 10], CORRUPT,
               "a 2048x2048 TIFF of strips, directory first, cut at 60 %")
    corpus.add("tiff-uncompressed-truncated.tif", tiff(1000, 1000, rows_per_strip=10, compress=False)[:500_000], CORRUPT,
               "an uncompressed 1000x1000 TIFF cut at half its pixels")
    gif = corpus.read("g.gif")
    corpus.add("gif-truncated-no-trailer.gif", gif[: len(gif) * 9 // 10], CORRUPT, "a GIF cut at 90 %: its last rows are missing")
    png_whole = corpus.read("p.png")
    idat = png_whole.find(b"IDAT")
    damaged = bytearray(png_whole)
    damaged[idat + 100] ^= 0x55
    corpus.add("png-bad-crc.png", bytes(damaged), CORRUPT, "a PNG with one IDAT byte changed (its CRC no longer matches)")

    # --- The fuzzer's reproducers, kept in the repository ---
    if os.path.isdir(REPRODUCERS):
        with open(os.path.join(REPRODUCERS, "expect.json")) as f:
            expected = json.load(f)
        for name in sorted(os.listdir(REPRODUCERS)):
            if name == "expect.json" or name.startswith("."):
                continue
            if name not in expected:
                sys.exit(f"corpus: Tests/Corpus/{name} has no entry in Tests/Corpus/expect.json")
            with open(os.path.join(REPRODUCERS, name), "rb") as f:
                corpus.add(f"fuzz-{name}", f.read(), expected[name]["expect"], expected[name]["note"])


def stamp():
    h = hashlib.sha256()
    with open(os.path.abspath(__file__), "rb") as f:
        h.update(f.read())
    for name in sorted(os.listdir(FIXTURES)) if os.path.isdir(FIXTURES) else []:
        with open(os.path.join(FIXTURES, name), "rb") as f:
            h.update(name.encode() + hashlib.sha256(f.read()).digest())
    if os.path.isdir(REPRODUCERS):
        for name in sorted(os.listdir(REPRODUCERS)):
            with open(os.path.join(REPRODUCERS, name), "rb") as f:
                h.update(name.encode() + hashlib.sha256(f.read()).digest())
    version = subprocess.run(["vips", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    h.update(version.encode() + str(VERSION).encode())
    return h.hexdigest()


def up_to_date(out, want):
    try:
        with open(os.path.join(out, "manifest.json")) as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        return False
    if manifest.get("stamp") != want:
        return False
    for name, entry in manifest["files"].items():
        path = os.path.join(out, name)
        if not os.path.isfile(path) or os.path.getsize(path) != entry["bytes"]:
            return False
    return True


def main():
    parser = argparse.ArgumentParser(prog=prog(__spec__), description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(paths.CACHE, "corpus"))
    parser.add_argument("--force", action="store_true", help="rebuild even when up to date")
    args = parser.parse_args()
    if shutil.which("vips") is None:
        sys.exit("corpus: the vips command is missing: run `make deps` (Debian package libvips-tools)")
    want = stamp()
    if not args.force and up_to_date(args.out, want):
        say(f"{args.out} is up to date")
        return
    started = time.monotonic()
    # Build beside the old corpus and swap, so that an interrupted run leaves no half corpus.
    parent = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".corpus-", dir=parent)
    work = tempfile.mkdtemp(prefix=".corpus-work-", dir=parent)
    try:
        corpus = Corpus(staging, work)
        build(corpus)
        total = sum(e["bytes"] for e in corpus.entries.values())
        manifest = {"stamp": want, "version": VERSION,
                    "cases": len(corpus.entries), "bytes": total,
                    "files": dict(sorted(corpus.entries.items()))}
        with open(os.path.join(staging, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=1, sort_keys=True)
            f.write("\n")
        if os.path.exists(args.out):
            shutil.rmtree(args.out)
        os.replace(staging, args.out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(staging, ignore_errors=True)
    say(f"{len(corpus.entries)} files, {total / (1 << 20):.1f} MiB in {args.out} ({time.monotonic() - started:.1f} s)")


if __name__ == "__main__":
    main()
