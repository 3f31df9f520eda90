"""Largest contentful paint and layout shift of a hero image in three forms, side by side in one
run: a plain `<img>` of the crop URL, the README's markup (`<focal-img>` around that `<img
srcset>`, with the stylesheet and the module) and the element alone with the stylesheet. Image
answers are delayed 300 ms by the proxy, as a server across the Internet would answer, so that the
figures measure the page rather than loopback. Prints the medians (`make test-browser
BROWSER_FLAGS="-k first_paint -v"`).

Chromium reports LCP in 4 ms steps, so the bound is 1.1× the `<img>`'s at that resolution (the
step at or above 1.1×: 380 ms for an `<img>` at 344 ms). A paint waits for the next frame, so a
median of 7 loads still moves by a few percent from run to run: while a median is over its
bound, 7 loads more are measured (21 at most), and the median of all of them is the figure."""

import math
import statistics
import sys
import time
import unittest

import harness
from harness import wait_js

PHOTO = "grace_hopper.jpg"
WIDTHS = (320, 640, 960, 1280, 1920)
DELAY = 0.3
ROUNDS = 7
STEP = 4  # ms: the resolution of Chromium's LCP times


def bound(base):
    """1.1 × `base` at LCP's resolution: the first STEP at or above it."""
    return math.ceil(1.1 * base / STEP - 1e-9) * STEP

OBSERVER = """
window.__lcp = null; window.__cls = 0;
new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__lcp = {time: e.renderTime || e.loadTime || e.startTime, url: e.url,
  element: e.element ? `${e.element.parentElement?.localName} > ${e.element.localName}` : null}; })
  .observe({type: 'largest-contentful-paint', buffered: true});
new PerformanceObserver((list) => { for (const e of list.getEntries()) if (!e.hadRecentInput) window.__cls += e.value; })
  .observe({type: 'layout-shift', buffered: true});
"""

HEAD = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
{head}<style>body{{margin:0;font:16px sans-serif}} main{{max-width:700px;margin:0 auto}}</style></head>
<body><main><h1>A page</h1>{hero}<p>Text under the picture.</p></main></body></html>"""


def crop(width, height):
    return f"/unsafe/{width}x{height}/smart/filters:format(auto)/{PHOTO}"


def img(loading_attributes='fetchpriority="high"'):
    srcset = ", ".join(f"{crop(w, round(w * 9 / 16))} {w}w" for w in WIDTHS)
    return (f'<img src="{crop(640, 360)}" srcset="{srcset}" sizes="(max-width: 700px) 100vw, 700px" width="640" height="360"'
            f' {loading_attributes} decoding="async" alt="Grace Hopper" style="width:100%;height:auto">')


PAGES = {
    "<img>": HEAD.format(head="", hero=img()),
    "README markup": HEAD.format(
        head='<link rel="stylesheet" href="/focal-img.css"><script type="module" src="/focal-img.js"></script>',
        hero=f'<focal-img src="{PHOTO}" aspect="16:9" loading="eager">{img()}</focal-img>'),
    "element alone + stylesheet": HEAD.format(
        head='<link rel="stylesheet" href="/focal-img.css"><script type="module" src="/focal-img.js"></script>',
        hero=f'<focal-img src="{PHOTO}" aspect="16:9" loading="eager" fetchpriority="high" alt="Grace Hopper"></focal-img>'),
}


class FirstPaintTests(unittest.TestCase):
    width, height, dpr = 1000, 800, 1.0

    @classmethod
    def setUpClass(cls):
        cls.env = harness.env
        cls.driver = harness.make_driver(cls.width, cls.height, dpr=cls.dpr)
        cls.driver.execute_cdp_cmd("Network.enable", {})
        cls.driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        cls.script = cls.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": OBSERVER})

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()

    def measure(self, name):
        self.env.proxy.clear()
        self.env.proxy.delays["/unsafe/"] = DELAY
        self.env.proxy.pages["paint.html"] = PAGES[name]
        self.driver.get("about:blank")
        self.driver.get(self.env.origin + "/__test/paint.html")
        wait_js(self.driver, """const el = document.querySelector('focal-img');
            const shown = el ? el.state === 'loaded' : [...document.images].every((i) => i.complete && i.naturalWidth);
            return shown && window.__lcp !== null""", message=f"{name}: the hero shows")
        time.sleep(0.6)
        lcp, cls = self.driver.execute_script("return [window.__lcp, window.__cls]")
        images = [r for r in self.env.proxy.requests(f"/{PHOTO}") if r["path"].startswith("/unsafe/")]
        return lcp["time"], cls, len(images), sum(r.get("bytes", 0) for r in images), lcp["element"]

    def rounds(self, results, count):
        names = list(PAGES)
        for round in range(count):
            # Each round starts with another form: none is always the first after a pause.
            for name in names[round % len(names):] + names[:round % len(names)]:
                results[name].append(self.measure(name))
        return {name: statistics.median(r[0] for r in rounds) for name, rounds in results.items()}

    def test_the_markup_and_the_element_alone_paint_within_1_1x_of_img(self):
        results = {name: [] for name in PAGES}
        median = self.rounds(results, ROUNDS)
        for _ in range(2):
            if max(median["README markup"], median["element alone + stylesheet"]) <= bound(median["<img>"]):
                break
            median = self.rounds(results, ROUNDS)
        base = median["<img>"]
        loads = len(results["<img>"])
        print(f"\nLCP of a 700 px hero, {self.width}x{self.height} at {self.dpr:g}x, images answered after {DELAY * 1000:.0f} ms, "
              f"median of {loads} interleaved loads, each round starting with another form (bound: {bound(base)} ms):", file=sys.stderr)
        for name, rounds in results.items():
            worst_cls = max(r[1] for r in rounds)
            print(f"  {name:28} LCP {median[name]:6.0f} ms  {median[name] / base:5.2f}x <img>   CLS {worst_cls:.3f}"
                  f"   image requests {rounds[-1][2]}, {rounds[-1][3] / 1024:.0f} KB", file=sys.stderr)
        self.assertLessEqual(median["README markup"], bound(base), results)
        self.assertLessEqual(median["element alone + stylesheet"], bound(base), results)
        for name in ("README markup", "element alone + stylesheet"):
            self.assertLess(max(r[1] for r in results[name]), 0.01, f"{name}: layout shift {results[name]}")
            self.assertEqual([r[2] for r in results[name]], [1] * loads, f"{name}: one image request per load")
        # The largest paint names the image, in the page's DOM, in every form.
        self.assertEqual({r[4] for r in results["<img>"]}, {"main > img"})
        for name in ("README markup", "element alone + stylesheet"):
            self.assertEqual({r[4] for r in results[name]}, {"focal-img > img"}, name)


class FirstPaintOnAPhone(FirstPaintTests):
    width, height, dpr = 390, 844, 3.0


def load_tests(loader, tests, pattern):
    suite = unittest.TestSuite()
    for case in (FirstPaintTests, FirstPaintOnAPhone):
        suite.addTests(loader.loadTestsFromTestCase(case))
    return suite
