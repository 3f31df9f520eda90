#!/usr/bin/env python3
"""URLs made by libthumbor (thumbor's Python client, from PyPI), fetched from a live server.

    FOCAL_TEST_BASE=http://127.0.0.1:8080 FOCAL_TEST_KEY=secret \\
        .cache/libthumbor-venv/bin/python Tests/clients/libthumbor_test.py [--server focal|thumbor] [-v]

scripts/client-tests.sh starts a server and runs this. Environment:
  FOCAL_TEST_BASE        the server's base URL (required)
  FOCAL_TEST_KEY         a signing key the server accepts (required)
  FOCAL_TEST_OTHER_KEYS  more keys it accepts, comma-separated (checks key rotation)
  FOCAL_TEST_IMAGES      image paths under the server's root, comma-separated
                         (default grace_hopper.jpg,astronaut.png,chelsea.png: `make fixtures`)
  FOCAL_TEST_ROOT        the server's root folder, when this machine can read it: the sizes that
                         depend on the source's aspect (fit-in, one side 0) are then checked exactly
  FOCAL_TEST_TOKEN       the server's write token (focal only): a crop saved through the API is then
                         what libthumbor's `smart` URLs of that aspect return
Images are measured with `vipsheader` (Debian's libvips-tools). `--server thumbor` checks what
thumbor 7.8 itself does: a bad signature or an `unsafe/` URL there is a 400, and an unknown filter
is ignored, so those checks are relaxed or skipped; everything else is the same test.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import unittest
import urllib.error
import urllib.request

from libthumbor import CryptoURL

SERVER = "focal"
BASE = os.environ.get("FOCAL_TEST_BASE", "").rstrip("/")
KEY = os.environ.get("FOCAL_TEST_KEY", "")
TOKEN = os.environ.get("FOCAL_TEST_TOKEN", "")
OTHER_KEYS = [k for k in os.environ.get("FOCAL_TEST_OTHER_KEYS", "").split(",") if k]
IMAGES = [i for i in os.environ.get("FOCAL_TEST_IMAGES", "grace_hopper.jpg,astronaut.png,chelsea.png").split(",") if i]
ROOT = os.environ.get("FOCAL_TEST_ROOT")
LOADERS = {"image/jpeg": "jpegload", "image/png": "pngload", "image/webp": "webpload"}


def fetch(path, headers=None, method="GET", body=None):
    """(status, headers, body) of METHOD BASE+path; error statuses are answers, not exceptions."""
    request = urllib.request.Request(BASE + path, headers=headers or {}, method=method, data=body)
    try:
        with urllib.request.urlopen(request, timeout=120) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def vips_field(path, field):
    out = subprocess.run(["vipsheader", "-f", field, path], capture_output=True, text=True)
    if out.returncode != 0:
        raise AssertionError(f"vipsheader cannot read it: {out.stderr.strip()}")
    return out.stdout.strip()


def decode(body):
    """(width, height, libvips loader) of an encoded image."""
    with tempfile.NamedTemporaryFile() as f:
        f.write(body)
        f.flush()
        return int(vips_field(f.name, "width")), int(vips_field(f.name, "height")), vips_field(f.name, "vips-loader")


def source_size(image):
    """(width, height) of a source image, or None when FOCAL_TEST_ROOT is not set."""
    if not ROOT:
        return None
    path = os.path.join(ROOT, image)
    return int(vips_field(path, "width")), int(vips_field(path, "height"))


def mean_difference(a, b, flip=None):
    """Mean absolute pixel difference between two encoded images of one size, `a` first flipped
    (`horizontal` or `vertical`) if asked."""
    with tempfile.TemporaryDirectory() as tmp:
        pa, pb = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        with open(pa, "wb") as f:
            f.write(a)
        with open(pb, "wb") as f:
            f.write(b)
        if flip:
            subprocess.run(["vips", "flip", pa, pa + ".v", flip], check=True)
            pa += ".v"
        subprocess.run(["vips", "subtract", pa, pb, os.path.join(tmp, "d.v")], check=True)
        subprocess.run(["vips", "abs", os.path.join(tmp, "d.v"), os.path.join(tmp, "e.v")], check=True)
        out = subprocess.run(["vips", "avg", os.path.join(tmp, "e.v")], capture_output=True, text=True, check=True)
        return float(out.stdout)


class LibthumborURLs(unittest.TestCase):
    """Signed URLs from libthumbor's CryptoURL.generate, as a thumbor user's application makes
    them."""

    crypto = None

    @classmethod
    def setUpClass(cls):
        cls.crypto = CryptoURL(key=KEY)

    def url(self, key=None, **options):
        crypto = CryptoURL(key=key) if key else self.crypto
        return crypto.generate(**options)

    def get_image(self, url, size=None, content_type=None):
        """Fetches `url`, checks a 200 image (of `size` and `content_type` when given) and
        returns (width, height, body)."""
        status, headers, body = fetch(url)
        self.assertEqual(status, 200, f"{url}: {body[:300]!r}")
        kind = headers.get("Content-Type", "").split(";")[0].strip()
        self.assertTrue(kind.startswith("image/"), f"{url}: Content-Type {kind!r}")
        width, height, loader = decode(body)
        self.assertEqual(LOADERS.get(kind, loader), loader, f"{url}: Content-Type {kind} but the bytes are {loader}")
        if content_type:
            self.assertEqual(kind, content_type, url)
        if size:
            self.assertEqual((width, height), size, url)
        return width, height, body

    def assertJSONError(self, url, statuses):
        """The answer is one of `statuses` with a JSON body {"status", "code", "message"}."""
        status, headers, body = fetch(url)
        self.assertIn(status, statuses, f"{url}: {body[:300]!r}")
        if SERVER == "thumbor":
            return
        self.assertIn("application/json", headers.get("Content-Type", ""), url)
        error = json.loads(body)
        for field in ("status", "code", "message"):
            self.assertIn(field, error, f"{url}: {error}")
        self.assertEqual(error["status"], status, f"{url}: {error}")
        self.assertIsInstance(error["code"], str, f"{url}: {error}")
        return error

    # Sizes --------------------------------------------------------------------------------

    def test_smart_crops_have_the_requested_size(self):
        for image in IMAGES:
            for width, height in ((300, 300), (320, 180), (180, 320), (200, 250)):
                with self.subTest(image=image, size=f"{width}x{height}"):
                    url = self.url(width=width, height=height, smart=True, image_url=image)
                    self.get_image(url, (width, height))

    def test_centre_and_aligned_crops(self):
        for image in IMAGES:
            for halign, valign in (("center", "middle"), ("left", "top"), ("right", "bottom")):
                with self.subTest(image=image, halign=halign, valign=valign):
                    url = self.url(width=240, height=160, halign=halign, valign=valign, image_url=image)
                    self.get_image(url, (240, 160))

    def test_alignment_moves_the_crop(self):
        image = IMAGES[0]
        _, _, left = self.get_image(self.url(width=100, height=300, halign="left", image_url=image), (100, 300))
        _, _, right = self.get_image(self.url(width=100, height=300, halign="right", image_url=image), (100, 300))
        self.assertGreater(mean_difference(left, right), 2.0, "left and right crops look the same")

    def test_manual_crop(self):
        for image in IMAGES:
            with self.subTest(image=image):
                url = self.url(crop=((10, 20), (310, 220)), width=150, height=100, image_url=image)
                self.get_image(url, (150, 100))

    def test_manual_crop_without_a_size_keeps_the_region(self):
        image = IMAGES[0]
        self.get_image(self.url(crop=((10, 20), (210, 170)), image_url=image), (200, 150))

    def test_one_side_zero_keeps_the_aspect(self):
        for image in IMAGES:
            with self.subTest(image=image):
                width, height, _ = self.get_image(self.url(width=200, height=0, image_url=image))
                self.assertEqual(width, 200)
                source = source_size(image)
                if source:
                    self.assertAlmostEqual(height, source[1] * 200 / source[0], delta=1.0)

    def test_fit_in(self):
        for image in IMAGES:
            with self.subTest(image=image):
                width, height, _ = self.get_image(self.url(width=200, height=150, fit_in=True, image_url=image))
                self.assertLessEqual(width, 200)
                self.assertLessEqual(height, 150)
                self.assertTrue(width == 200 or height == 150, f"{width}x{height} does not fill 200x150")
                source = source_size(image)
                if source:
                    scale = min(200 / source[0], 150 / source[1])
                    self.assertAlmostEqual(width, source[0] * scale, delta=1.0)
                    self.assertAlmostEqual(height, source[1] * scale, delta=1.0)

    def test_flips_mirror_the_image(self):
        image = IMAGES[0]
        _, _, plain = self.get_image(self.url(width=300, height=200, image_url=image), (300, 200))
        for option, axis in (("flip", "horizontal"), ("flop", "vertical")):
            with self.subTest(option=option):
                url = self.url(width=300, height=200, image_url=image, **{option: True})
                self.assertIn("-300x200" if option == "flip" else "300x-200", url)
                _, _, flipped = self.get_image(url, (300, 200))
                mirrored = mean_difference(plain, flipped, flip=axis)
                different = mean_difference(plain, flipped)
                self.assertLess(mirrored, 8.0, f"{option}: not a mirror image of the plain crop")
                self.assertLess(mirrored * 3, different, f"{option}: the image looks unflipped")

    # Filters ------------------------------------------------------------------------------

    def test_format_and_quality_filters(self):
        image = IMAGES[0]
        for fmt, kind in (("webp", "image/webp"), ("png", "image/png"), ("jpeg", "image/jpeg")):
            with self.subTest(format=fmt):
                url = self.url(width=200, height=200, smart=True, image_url=image,
                               filters=[f"format({fmt})", "quality(70)"])
                self.get_image(url, (200, 200), kind)

    def test_quality_changes_the_bytes(self):
        image = IMAGES[0]
        _, _, low = self.get_image(self.url(width=300, height=300, image_url=image, filters=["quality(20)"]), (300, 300))
        _, _, high = self.get_image(self.url(width=300, height=300, image_url=image, filters=["quality(95)"]), (300, 300))
        self.assertLess(len(low), len(high))

    def test_focal_filter(self):
        image = IMAGES[0]
        for focal in ("focal(10x10:110x110)",):
            with self.subTest(filter=focal):
                url = self.url(width=200, height=100, image_url=image, filters=[focal])
                self.get_image(url, (200, 100))

    def test_thumbors_filters_are_signed_and_served(self):
        image = IMAGES[0]
        _, _, plain = self.get_image(self.url(width=200, height=100, image_url=image, filters=["format(png)"]), (200, 100))
        cases = (
            (["grayscale()"], (200, 100)), (["brightness(10)", "contrast(20)"], (200, 100)), (["saturation(0.5)"], (200, 100)),
            (["rgb(10,0,-10)"], (200, 100)), (["equalize()"], (200, 100)), (["colorize(20,20,20,ff0000)"], (200, 100)),
            (["noise(10)"], (200, 100)), (["blur(2)"], (200, 100)), (["sharpen(1.5,0.5,true)"], (200, 100)),
            (["convolution(1;2;1;2;4;2;1;2;1,3,true)"], (200, 100)), (["round_corner(10,255,255,255)"], (200, 100)),
            (["rotate(90)"], (100, 200)), (["proportion(0.5)"], (100, 50)),
        )
        for filters, size in cases:
            with self.subTest(filters=filters):
                _, _, body = self.get_image(self.url(width=200, height=100, image_url=image, filters=filters + ["format(png)"]), size)
                if size == (200, 100):
                    self.assertGreater(mean_difference(plain, body), 0.2, f"{filters} changed nothing")
        _, _, filled = self.get_image(self.url(width=300, height=300, fit_in=True, image_url=image, filters=["fill(ff0000)"]), (300, 300))
        status, headers, _ = fetch(self.url(width=100, height=100, image_url=image, filters=["max_age(60)"]))
        self.assertEqual(status, 200)
        self.assertIn("max-age=60", headers.get("Cache-Control", ""))

    def test_unknown_filter_is_refused(self):
        if SERVER == "thumbor":
            self.skipTest("thumbor ignores filters it does not know")
        url = self.url(width=200, height=200, image_url=IMAGES[0], filters=["nosuchfilter(1)"])
        self.assertJSONError(url, (400,))

    # Metadata and HTTP ----------------------------------------------------------------------

    def test_meta_answers_thumbor_json(self):
        url = self.url(meta=True, width=300, height=300, smart=True, image_url=IMAGES[0])
        status, headers, body = fetch(url)
        self.assertEqual(status, 200, body[:300])
        self.assertIn("json", headers.get("Content-Type", ""))
        meta = json.loads(body)
        self.assertIn("thumbor", meta)
        self.assertIsInstance(meta["thumbor"].get("operations"), list)
        self.assertIn("source", meta["thumbor"])

    def test_etag_revalidation(self):
        url = self.url(width=120, height=120, smart=True, image_url=IMAGES[0])
        status, headers, _ = fetch(url)
        self.assertEqual(status, 200)
        etag = headers.get("ETag")
        if not etag:
            self.skipTest("no ETag")
        status, _, body = fetch(url, {"If-None-Match": etag})
        self.assertEqual(status, 304)
        self.assertEqual(body, b"")

    # Signatures -------------------------------------------------------------------------------

    def test_wrong_key_is_refused(self):
        url = self.url(key=KEY + "-wrong", width=300, height=300, smart=True, image_url=IMAGES[0])
        error = self.assertJSONError(url, (400,) if SERVER == "thumbor" else (403,))
        if error is not None:
            self.assertNotIn(KEY, json.dumps(error), "the error body shows the key")

    def test_signature_of_another_url_is_refused(self):
        good = self.url(width=300, height=300, image_url=IMAGES[0])
        signature = good.split("/")[1]
        other = f"/{signature}/301x300/{IMAGES[0]}"
        self.assertJSONError(other, (400,) if SERVER == "thumbor" else (403,))

    def test_unsafe_is_refused_without_allow_unsafe(self):
        url = self.url(unsafe=True, width=300, height=300, image_url=IMAGES[0])
        self.assertTrue(url.startswith("unsafe/"), url)
        if SERVER == "thumbor":
            self.assertJSONError("/" + url, (400,))
        else:
            self.assertJSONError("/" + url, (400, 403))

    # Saved crops -------------------------------------------------------------------------------

    def test_a_saved_crop_is_what_smart_urls_of_its_aspect_return(self):
        if SERVER != "focal" or not TOKEN:
            self.skipTest("a saved crop needs focal serve and FOCAL_TEST_TOKEN")
        image = IMAGES[0]
        # A signed-only server reads nothing of its photos out without the token (or a request
        # signature).
        status, _, _ = fetch("/v1/photos")
        self.assertEqual(status, 401)
        status, _, body = fetch("/v1/photos", {"Authorization": "Bearer " + TOKEN})
        self.assertEqual(status, 200)
        ids = {p["path"]: p["id"] for p in json.loads(body)["photos"]}
        self.assertIn(image, ids)
        smart = self.url(width=320, height=180, smart=True, image_url=image)
        _, automatic_headers, automatic = fetch(smart)
        automatic_plan = json.loads(automatic_headers["X-Focal-Plan"])
        # A 16:9 crop in the bottom-left corner, away from Focal's own choice.
        width, height = source_size(image) or (automatic_plan["image"][0], automatic_plan["image"][1])
        crop_width = width // 2 // 16 * 16
        saved = {"x": 0, "y": height - crop_width * 9 // 16, "width": crop_width, "height": crop_width * 9 // 16}
        self.assertNotEqual([saved[k] for k in ("x", "y", "width", "height")], automatic_plan["crop"])
        path = f"/v1/images/{ids[image]}/overrides/16x9"
        status, _, body = fetch(path, {"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"},
                                "PUT", json.dumps(saved).encode())
        self.assertIn(status, (200, 201), body[:300])
        try:
            for size in ((320, 180), (1280, 720), (160, 90)):
                with self.subTest(size=size):
                    url = self.url(width=size[0], height=size[1], smart=True, image_url=image)
                    status, headers, body = fetch(url)
                    self.assertEqual(status, 200, body[:300])
                    self.assertEqual(headers.get("X-Focal-Strategy"), "manual")
                    self.assertEqual(json.loads(headers["X-Focal-Plan"])["crop"],
                                     [saved["x"], saved["y"], saved["width"], saved["height"]])
            # The pixels are those of the same region asked for by hand.
            by_hand = self.url(width=320, height=180, image_url=image, crop=(
                (saved["x"], saved["y"]), (saved["x"] + saved["width"], saved["y"] + saved["height"])))
            _, _, manual = self.get_image(by_hand, (320, 180))
            _, _, overridden = self.get_image(smart, (320, 180))
            self.assertLess(mean_difference(overridden, manual), 2.0)
            self.assertGreater(mean_difference(overridden, automatic), 5.0)
        finally:
            status, _, _ = fetch(path, {"Authorization": "Bearer " + TOKEN}, "DELETE")
            self.assertIn(status, (200, 204))
        status, headers, _ = fetch(smart)
        self.assertNotEqual(headers.get("X-Focal-Strategy"), "manual", "after the saved crop is deleted")

    def test_every_configured_key_signs(self):
        if not OTHER_KEYS:
            self.skipTest("no FOCAL_TEST_OTHER_KEYS")
        for key in OTHER_KEYS:
            with self.subTest(key=key[:4] + "..."):
                self.get_image(self.url(key=key, width=100, height=100, image_url=IMAGES[0]), (100, 100))


def main():
    global SERVER
    parser = argparse.ArgumentParser(description="libthumbor URLs against a live server")
    parser.add_argument("--server", choices=["focal", "thumbor"], default="focal",
                        help="thumbor: expect thumbor's own answers to bad signatures and unknown filters")
    args, rest = parser.parse_known_args()
    SERVER = args.server
    if not BASE or not KEY:
        sys.exit("libthumbor_test: set FOCAL_TEST_BASE and FOCAL_TEST_KEY (scripts/client-tests.sh does)")
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
