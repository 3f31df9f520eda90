"""One download per image: the README's markup (`<focal-img>` around an `<img srcset sizes>`) on a
phone at 3x and a desktop at 1x asks for each photo once, no more bytes than the same page with
JavaScript off, at every pixel ratio."""

import json
import time
import unittest
import urllib.request

import harness
from harness import wait_js

# (photo, aspect, sizes, loading): a hero above cards, as a page of articles has them.
PHOTOS = [
    ("astronaut.png", (16, 9), "(max-width: 700px) 100vw, 700px", "eager"),
    ("chelsea.png", (4, 3), "(max-width: 700px) 50vw, 350px", "eager"),
    ("coffee.png", (4, 3), "(max-width: 700px) 50vw, 350px", "eager"),
]
WIDTHS = (320, 640, 960, 1280, 1920)


def crop_url(photo, width, height):
    return f"/unsafe/{width}x{height}/smart/filters:format(auto)/{photo}"


def markup(photo, aspect, sizes, loading):
    """The README's form, as `focalImgMarkup` writes it: a candidate per width, `w` descriptors."""
    candidates = [(w, round(w * aspect[1] / aspect[0])) for w in WIDTHS]
    srcset = ", ".join(f"{crop_url(photo, w, h)} {w}w" for w, h in candidates)
    w, h = candidates[1]
    return (f'<focal-img src="{photo}" aspect="{aspect[0]}:{aspect[1]}" loading="{loading}">'
            f'<img src="{crop_url(photo, w, h)}" srcset="{srcset}" sizes="{sizes}" width="{w}" height="{h}"'
            f' loading="{loading}" decoding="async" alt="{photo}"></focal-img>')


PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><link rel="stylesheet" href="/focal-img.css">
<script type="module" src="/focal-img.js"></script>
<script>window.events = []; document.addEventListener('focal-load', (e) => window.events.push(e.detail));</script>
<style>body{margin:0} main{max-width:700px;margin:0 auto} .cards{display:flex} .cards>*{flex:1}</style>
</head><body><main>HERO<div class="cards">CARDS</div></main></body></html>"""


class OneDownloadTests(harness.UncachedPageCase):
    width, height, dpr, mobile = 390, 844, 3.0, True

    def load(self, scripts=True):
        """The page, loaded until every photo shows; the image requests per photo and their bytes."""
        self.env.proxy.clear()
        parts = [markup(*p) for p in PHOTOS]
        self.env.proxy.pages["downloads.html"] = PAGE.replace("HERO", parts[0]).replace("CARDS", "".join(parts[1:]))
        self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": not scripts})
        try:
            self.driver.get(self.env.origin + "/__test/downloads.html")
            wait_js(self.driver, "return [...document.images].every((i) => i.complete && i.naturalWidth > 0)",
                    message="every image shown")
            if scripts:
                wait_js(self.driver, "return window.events.length >= arguments[0]", len(PHOTOS),
                        message="focal-load from every element")
            time.sleep(0.5)  # a second download would have started by now
        finally:
            self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
        requests = {photo: [r for r in self.env.proxy.requests(f"/{photo}") if r["path"].startswith("/unsafe/")]
                    for photo, *_ in PHOTOS}
        return requests

    def test_each_photo_is_downloaded_once_and_no_more_bytes_than_without_javascript(self):
        plain = self.load(scripts=False)
        enhanced = self.load(scripts=True)
        for photo, requests in enhanced.items():
            self.assertEqual(len(requests), 1, f"{photo}: {[r['path'] for r in requests]}")
            self.assertEqual(requests[0]["status"], 200)
        # The element kept the markup's own candidate: the same URLs as without JavaScript.
        self.assertEqual({p: [r["path"] for r in rs] for p, rs in enhanced.items()},
                         {p: [r["path"] for r in rs] for p, rs in plain.items()})
        with_js = sum(r["bytes"] for rs in enhanced.values() for r in rs)
        without = sum(r["bytes"] for rs in plain.values() for r in rs)
        self.assertLessEqual(with_js, 1.05 * without, f"{with_js} bytes with JavaScript, {without} without")
        states = self.driver.execute_script(
            "return [...document.querySelectorAll('focal-img')].map((e) => [e.state, e.querySelector('img').currentSrc])")
        self.assertTrue(all(state == "loaded" for state, _ in states), states)
        self.driver.save_screenshot(str(self.env.screenshots / f"downloads-{self.width}x{self.height}-{self.dpr:g}x.png"))

    def test_a_lazy_image_is_picked_by_its_box_with_sizes_auto(self):
        """An author's `sizes="auto, 100vw"` on a lazy image (the helpers no longer write it: with
        JavaScript off it costs a second download, test_no_script): the browser picks the
        candidate for the card's width, not the screen's, and the element keeps it."""
        self.env.proxy.clear()
        card = markup("chelsea.png", (4, 3), "auto, 100vw", "lazy")
        self.env.proxy.pages["lazy.html"] = PAGE.replace("HERO", "").replace(
            "CARDS", f'<div style="height:1500px"></div>').replace("</main>", f'<div style="width:50%">{card}</div></main>')
        self.driver.get(self.env.origin + "/__test/lazy.html")
        self.driver.execute_script("document.querySelector('focal-img').scrollIntoView()")
        detail = wait_js(self.driver, "return window.events[0]", message="the lazy card shows")
        box = self.driver.execute_script("return document.querySelector('focal-img').getBoundingClientRect().width")
        time.sleep(0.5)
        paths = [r["path"] for r in self.env.proxy.requests("/chelsea.png")]
        self.assertEqual(len(paths), 1, paths)
        # The smallest candidate that covers the card at this pixel ratio, not the whole screen.
        wanted = next(w for w in WIDTHS if w >= box * self.dpr)
        self.assertEqual(paths[0], crop_url("chelsea.png", wanted, round(wanted * 3 / 4)), f"box {box} px at {self.dpr}x")
        self.assertEqual(detail["url"], self.env.origin + paths[0])

    def picture_page(self, box_css):
        """A `<picture>` with art direction: square candidates for narrow screens, 16:9 beyond."""
        square = ", ".join(f"{crop_url('astronaut.png', w, w)} {w}w" for w in WIDTHS[:3])
        wide = ", ".join(f"{crop_url('astronaut.png', w, round(w * 9 / 16))} {w}w" for w in WIDTHS)
        self.env.proxy.clear()
        self.env.proxy.pages["picture.html"] = PAGE.replace("HERO", f"""<style>{box_css}</style>
            <focal-img src="astronaut.png" loading="eager"><picture>
              <source media="(max-width: 600px)" srcset="{square}" sizes="100vw">
              <source srcset="{wide}" sizes="700px">
              <img src="{crop_url('astronaut.png', 640, 360)}" width="640" height="360" alt="An astronaut in a suit">
            </picture></focal-img>""").replace("CARDS", "")
        self.driver.get(self.env.origin + "/__test/picture.html")
        return wait_js(self.driver, "return window.events[0]", message="the picture shows")

    def test_a_picture_keeps_its_art_direction_its_name_and_one_download(self):
        narrow = self.width <= 600
        self.picture_page("focal-img { aspect-ratio: 16 / 9 } @media (max-width: 600px) { focal-img { aspect-ratio: 1 } }")
        time.sleep(0.5)
        paths = [r["path"] for r in self.env.proxy.requests("/astronaut.png")]
        self.assertEqual(len(paths), 1, paths)
        self.assertRegex(paths[0], r"^/unsafe/(\d+)x\1/" if narrow else r"^/unsafe/(\d+)x(\d+)/", "the source for this screen")
        if not narrow:
            w, h = map(int, paths[0].split("/")[2].split("x"))
            self.assertAlmostEqual(w / h, 16 / 9, delta=0.01)
        img = self.driver.find_element("css selector", "focal-img img")
        self.assertEqual(img.accessible_name, "An astronaut in a suit")
        self.assertTrue(img.is_displayed())
        self.assertEqual(self.driver.execute_script(
            "const el = document.querySelector('focal-img'); return [el.state, el.querySelectorAll('source').length]"), ["loaded", 2])

    def test_a_picture_in_a_box_of_another_shape_gets_the_exact_crop_through_its_source(self):
        detail = None
        self.picture_page("focal-img { aspect-ratio: 2 / 1 }")
        detail = wait_js(self.driver, "return window.events.find((e) => /\\/unsafe\\/(\\d+)x(\\d+)\\//.test(e.url) && "
                                      "e.url.match(/(\\d+)x(\\d+)/).slice(1).map(Number).reduce((w, h) => w === 2 * h))",
                         message="the 2:1 crop shows")
        shown = self.driver.execute_script("return document.querySelector('focal-img img').currentSrc")
        self.assertEqual(shown, detail["url"])
        self.assertEqual(self.driver.find_element("css selector", "focal-img img").accessible_name, "An astronaut in a suit")

    def test_a_box_of_another_shape_still_gets_its_exact_crop(self):
        """Keeping the markup's image is for a box of its shape: a square box fetches the square."""
        self.env.proxy.clear()
        self.env.proxy.pages["square.html"] = PAGE.replace("HERO", markup(*PHOTOS[0]).replace(
            'aspect="16:9"', 'aspect="1:1"')).replace("CARDS", "")
        self.driver.get(self.env.origin + "/__test/square.html")
        detail = wait_js(self.driver, "return window.events[0]", message="the square crop")
        self.assertEqual(detail["width"], detail["height"])
        paths = [r["path"] for r in self.env.proxy.requests("/astronaut.png")]
        self.assertEqual(len(paths), 2, paths)
        self.assertRegex(paths[1], r"^/unsafe/(\d+)x\1/smart/")


    def test_the_gallerys_snippet_is_the_markup_form_and_works_pasted_into_a_page(self):
        self.driver.get(self.env.origin + "/#photo=chelsea.png")
        # Once the plan is in: the crop version of its 16:9 frame (the snippet's aspect).
        snippet = harness.wait(self.driver, lambda d: d.execute_script(
            "const s = document.getElementById('snippet').textContent; return s.includes('chelsea.png') && s.includes('?v=') && s"), 30,
            "the snippet names the photo, versioned")
        self.assertRegex(snippet, r"focal-img(\.[0-9a-f]+)?\.css", "the stylesheet: no layout shift, a box before the module runs")
        self.assertIn("<img\n", snippet, "an <img> inside: shown with JavaScript off, as early as <img>")
        # The hero the README teaches: eager, first in line, widths for a 700-px slot.
        self.assertIn('loading="eager"', snippet)
        self.assertIn('fetchpriority="high"', snippet)
        self.assertNotIn('loading="lazy"', snippet)
        self.assertRegex(snippet, r" 70\dw", "a candidate for the 700-px slot at 1x (widths round to the 16-px step)")
        self.assertNotIn(" 1280w", snippet)
        self.driver.get("about:blank")  # the gallery's own requests end here
        time.sleep(0.5)
        self.env.proxy.clear()
        self.env.proxy.pages["pasted.html"] = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<script>window.events = []; document.addEventListener("focal-load", (e) => window.events.push(e.detail));'
            '</script></head><body style="margin:0"><div style="max-width:700px">' + snippet + "</div></body></html>")
        self.driver.get(self.env.origin + "/__test/pasted.html")
        self.driver.execute_script("document.querySelector('focal-img img').scrollIntoView()")
        wait_js(self.driver, "return window.events.length === 1", message="the pasted snippet shows its photo")
        time.sleep(0.5)
        # The page's own requests (a late one of the gallery's could still reach the proxy).
        photo = [r["path"] for r in self.env.proxy.requests("/chelsea.png")
                 if r["path"].startswith("/unsafe/") and "/__test/pasted.html" in (r["headers"].get("referer") or "")]
        self.assertEqual(len(photo), 1, photo)
        self.assertEqual(harness.console_errors(self.driver), [])


class RepeatViewTests(unittest.TestCase):
    """With the HTTP cache on: the README's markup with the versions `POST /v1/plan` gives (and the
    versioned script and stylesheet `/v1/config` names) is answered immutable, so a second view
    of the page asks the server for nothing; without versions every image is revalidated."""

    @classmethod
    def setUpClass(cls):
        cls.env = harness.env
        cls.driver = harness.make_driver(1000, 800)
        cls.config = json.loads(urllib.request.urlopen(cls.env.origin + "/v1/config", timeout=30).read())

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()

    def version(self, photo, aspect):
        body = json.dumps({"source": {"path": photo}, "frames": [{"aspect": f"{aspect[0]}:{aspect[1]}"}]}).encode()
        request = urllib.request.Request(self.env.origin + "/v1/plan", data=body, headers={"Content-Type": "application/json"})
        return json.loads(urllib.request.urlopen(request, timeout=60).read())["frames"][0]["version"]

    def page(self, versions):
        element = self.config["element"]
        head = (f'<link rel="stylesheet" href="{element["style"]}" integrity="{element["styleIntegrity"]}" crossorigin="anonymous">'
                f'<script type="module" src="{element["script"]}" integrity="{element["integrity"]}" crossorigin="anonymous"></script>')
        parts = []
        for photo, aspect, sizes, loading in PHOTOS:
            html = markup(photo, aspect, sizes, loading)
            if versions:
                v = self.version(photo, aspect)
                html = html.replace(f"/{photo} ", f"/{photo}?v={v} ").replace(f'/{photo}"', f'/{photo}?v={v}"')
                html = html.replace("<focal-img ", f'<focal-img version="{v}" ', 1)
            parts.append(html)
        return PAGE.replace('<link rel="stylesheet" href="/focal-img.css">\n<script type="module" src="/focal-img.js"></script>', head) \
            .replace("HERO", parts[0]).replace("CARDS", "".join(parts[1:]))

    def view(self, html):
        self.driver.get("about:blank")
        self.env.proxy.clear()
        self.env.proxy.pages["repeat.html"] = html
        self.driver.get(self.env.origin + "/__test/repeat.html")
        wait_js(self.driver, "return window.events.length >= arguments[0]", len(PHOTOS), message="every photo shows")
        time.sleep(0.5)
        return [r["path"] for r in self.env.proxy.requests() if not r["path"].startswith("/__test/")]

    def test_a_repeat_view_of_versioned_markup_asks_for_nothing(self):
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.driver.execute_cdp_cmd("Network.clearBrowserCache", {})
        html = self.page(versions=True)
        self.assertIn("?v=", html)
        first = self.view(html)
        self.assertEqual(len([p for p in first if p.startswith("/unsafe/")]), len(PHOTOS), first)
        self.assertEqual(self.view(html), [], "a repeat view is served by the browser's cache")
        # Without versions the same page checks every image with the server again (304s).
        plain = self.page(versions=False)
        self.view(plain)
        again = [p for p in self.view(plain) if p.startswith("/unsafe/")]
        self.assertEqual(len(again), len(PHOTOS), again)


class InlinePreviewTests(unittest.TestCase):
    """A frame's inline preview (`"previews": true` in `POST /v1/plan`) shows at once, with no
    request: under the markup's image before it loads (JavaScript or not), and as the element's
    blurred placeholder until its crop arrives."""

    @classmethod
    def setUpClass(cls):
        cls.env = harness.env
        cls.driver = harness.make_driver(1000, 800)
        cls.driver.execute_cdp_cmd("Network.enable", {})
        cls.driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()

    def preview(self, photo, aspect):
        body = json.dumps({"source": {"path": photo}, "frames": [{"aspect": aspect}], "previews": True}).encode()
        request = urllib.request.Request(self.env.origin + "/v1/plan", data=body, headers={"Content-Type": "application/json"})
        return json.loads(urllib.request.urlopen(request, timeout=60).read())["frames"][0]["preview"]

    def test_the_element_shows_the_preview_at_once_and_the_markup_under_its_image(self):
        preview = self.preview("chelsea.png", "16:9")
        self.assertTrue(preview.startswith("data:image/webp;base64,") and len(preview) < 600, preview[:80])
        self.env.proxy.clear()
        self.env.proxy.delays["/unsafe/"] = 2.0
        self.env.proxy.pages["preview.html"] = PAGE.replace("HERO", f"""
            <focal-img id="alone" src="chelsea.png" aspect="16:9" preview="{preview}" style="width:400px"></focal-img>""").replace("CARDS", "")
        self.driver.get(self.env.origin + "/__test/preview.html")
        shown = wait_js(self.driver, """const p = document.getElementById('alone').shadowRoot?.querySelector('img.placeholder');
            return p && p.complete && p.naturalWidth > 0 && [p.getAttribute('src'), p.classList.contains('preview'),
              getComputedStyle(p).filter, document.getElementById('alone').state]""", timeout=5, message="the preview at once")
        self.assertEqual(shown[0], preview)
        self.assertTrue(shown[1])
        self.assertIn("blur", shown[2])
        self.assertEqual(shown[3], "loading", "the crop is still on its way")
        self.driver.save_screenshot(str(self.env.screenshots / "element-inline-preview.png"))
        wait_js(self.driver, "return window.events.length === 1", message="the crop replaces it")
        self.assertEqual([r["path"] for r in self.env.proxy.requests("/unsafe/")], ["/unsafe/400x225/smart/filters:format(auto)/chelsea.png"],
                         "one request: the crop; the preview cost none")
        # The markup: the preview under the <img> while it loads (a style, so also without JavaScript).
        self.driver.get(self.env.origin + "/__test/element.html")
        wait_js(self.driver, "return window.ready === true")
        html = self.driver.execute_script("return focalImgMarkup(arguments[0])",
                                          {"src": "chelsea.png", "aspect": "16:9", "preview": preview, "widths": [320, 640]})
        self.assertIn(f'preview="{preview}"', html)
        # Lazy, far below: nothing loaded yet, the preview already under the <img>.
        self.env.proxy.clear()
        self.env.proxy.pages["preview-markup.html"] = PAGE.replace("HERO", '<div style="height:4000px"></div>' + html).replace("CARDS", "")
        self.driver.get(self.env.origin + "/__test/preview-markup.html")
        background = self.driver.execute_script("return getComputedStyle(document.querySelector('focal-img img')).backgroundImage")
        self.assertIn("data:image/webp;base64,", background, "the preview under the image while it loads")
        self.driver.execute_script("document.querySelector('focal-img').scrollIntoView()")
        wait_js(self.driver, "return window.events.length >= 1", message="the markup's image shows")
        self.assertEqual(self.driver.execute_script("return getComputedStyle(document.querySelector('focal-img img')).backgroundImage"), "none",
                         "gone once the image shows")


class OneDownloadOnADesktop(OneDownloadTests):
    width, height, dpr, mobile = 1000, 800, 1.0, False


class OneDownloadAt2x(OneDownloadTests):
    width, height, dpr, mobile = 800, 800, 2.0, False


def load_tests(loader, tests, pattern):
    suite = unittest.TestSuite()
    for case in (OneDownloadTests, OneDownloadOnADesktop, OneDownloadAt2x, RepeatViewTests, InlinePreviewTests):
        suite.addTests(loader.loadTestsFromTestCase(case))
    return suite
