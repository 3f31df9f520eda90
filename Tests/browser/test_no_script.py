"""With JavaScript off, the helpers' markup downloads each image once: an article page (a 700-px
column, a 16:9 hero, four lazy 4:5 cards in a grid), written by `focalImgMarkup` itself, asks for
no more image bytes than the same page of plain `<img srcset sizes>`, on a desktop and on phones,
with image answers 300 ms late as across the Internet. (Chromium loads lazy images at once when
scripting is off; a `sizes="auto, …"` then fell back to the viewport's width for a first copy and
fetched the card's candidate after layout: two downloads, the first the largest.)"""

import sys
import time

import harness
from harness import wait_js

DELAY = 0.3
HERO = ("astronaut.png", "16:9", "(max-width: 700px) 100vw, 700px", "eager", "A hero")
CARDS = [(photo, "4:5", "(max-width: 700px) 25vw, 169px", "lazy", photo)
         for photo in ("chelsea.png", "coffee.png", "grace_hopper.jpg", "motorcycle_left.png")]

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
HEAD<style>body{margin:0;font:16px sans-serif} main{max-width:700px;margin:0 auto}
.cards{display:grid;grid-template-columns:repeat(4,1fr);gap:8px} img{width:100%;height:auto;display:block}</style>
</head><body><main><h1>An article</h1>HERO<p>Text under the picture, then the cards.</p>
<div class="cards">CARDS</div></main></body></html>"""

# The helper writes the markup in the browser, as a site's build step would.
WRITE = """const {focalImgMarkup} = await import('/focal-img.js');
return arguments[0].map(([src, aspect, sizes, loading, alt]) => focalImgMarkup({src, aspect, sizes, loading, alt,
  fetchpriority: loading === 'eager' ? 'high' : undefined}));"""


class ArticleWithoutJavaScript(harness.UncachedPageCase):

    def markup(self):
        """The hero and cards as `focalImgMarkup` writes them (JavaScript on, on a blank page of the origin)."""
        self.env.proxy.pages["blank.html"] = "<!doctype html><title>blank</title>"
        self.driver.get(self.env.origin + "/__test/blank.html")
        parts = self.driver.execute_script(f"return (async () => {{ {WRITE} }})().then((r) => r)", [list(p) for p in [HERO] + CARDS])
        return parts[0], "".join(parts[1:])

    def load(self, html, scripts):
        """The page loaded until every image shows; its image requests."""
        self.driver.get("about:blank")
        time.sleep(0.3)
        self.env.proxy.clear()
        self.env.proxy.delays["/unsafe/"] = DELAY
        self.env.proxy.pages["article.html"] = html
        self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": not scripts})
        try:
            self.driver.get(self.env.origin + "/__test/article.html")
            if not scripts:
                wait_js(self.driver, "return [...document.images].every((i) => i.complete && i.naturalWidth > 0)",
                        message="every image shown")
        finally:
            self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
        if scripts:
            wait_js(self.driver, "return [...document.images].every((i) => i.complete && i.naturalWidth > 0)",
                    message="every image shown")
        time.sleep(1.0)  # a second copy would have been asked for by now
        return [r for r in self.env.proxy.requests("/unsafe/")]

    def test_each_image_is_downloaded_once_with_javascript_off(self):
        hero, cards = self.markup()
        self.assertIn('loading="lazy"', cards)
        helpers = PAGE.replace("HEAD", '<link rel="stylesheet" href="/focal-img.css"><script type="module" src="/focal-img.js"></script>') \
            .replace("HERO", hero).replace("CARDS", cards)
        # The plain page: the same <img> elements, without the element around them.
        strip = lambda html: html.replace("</focal-img>", "").split("<focal-img")[0] + "".join(
            part.split(">", 1)[1] for part in html.split("<focal-img")[1:])
        plain = PAGE.replace("HEAD", "").replace("HERO", strip(hero)).replace("CARDS", strip(cards))
        without = self.load(plain, scripts=False)
        off = self.load(helpers, scripts=False)
        bytes_plain, bytes_off = sum(r.get("bytes", 0) for r in without), sum(r.get("bytes", 0) for r in off)
        print(f"\nJavaScript off, {self.width}x{self.height} at {self.dpr:g}x: the helpers' markup "
              f"{len(off)} image requests, {bytes_off / 1024:.0f} KB; plain <img srcset> {len(without)}, "
              f"{bytes_plain / 1024:.0f} KB ({bytes_off / bytes_plain:.2f}x)", file=sys.stderr)
        photos = [p[0] for p in [HERO] + CARDS]
        for photo in photos:
            asked = [r["path"] for r in off if r["path"].endswith("/" + photo)]
            self.assertEqual(len(asked), 1, f"{photo}: {asked}")
        self.assertLessEqual(bytes_off, 1.05 * bytes_plain, f"{[r['path'] for r in off]} against {[r['path'] for r in without]}")
        # And with JavaScript on, still one request per image.
        on = self.load(helpers, scripts=True)
        self.driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
        time.sleep(1.0)
        on = [r for r in self.env.proxy.requests("/unsafe/")]
        for photo in photos:
            asked = [r["path"] for r in on if r["path"].endswith("/" + photo)]
            self.assertEqual(len(asked), 1, f"JavaScript on, {photo}: {asked}")


class ArticleWithoutJavaScriptOnAPhone(ArticleWithoutJavaScript):
    width, height, dpr, mobile = 390, 844, 3.0, True


class ArticleWithoutJavaScriptAt2x(ArticleWithoutJavaScript):
    width, height, dpr, mobile = 390, 844, 2.0, True
