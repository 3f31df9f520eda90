#!/usr/bin/python3
"""<focal-img> against plain images, in headless Chromium against a live `focal serve`.

    /usr/bin/python3 scripts/bench-element.py [--focal .build/debug/focal] [--runs 3] [--dpr 1]

Reuses the browser tests' harness (Tests/browser/harness.py: focal serve on a free loopback port
with a temporary --data folder, and the logging proxy that serves the pages). Two pages, each in
four versions:

  snippet  the README's snippet: a heading, one 16:9 photo 700 px wide (srcset widths 352, 704,
           1408: the box at 1x and 2x), text below
  cards    a long page of 48 cards (three columns, 4:5 photos), most of them below the fold; the
           8 sample photos repeat, each card with its own quality(50 + i) so that every card is
           a URL of its own (as 48 different photos would be)

  img      a plain <img src> of one smart-crop URL, with width and height, as a page would write
           it by hand (snippet: the crop for the box at 1x; cards: the helper's 640-px candidate)
  srcset   the markup of focalImgMarkup alone (srcset + sizes, loading=lazy below the fold) and
           focal-img.css, no module
  element  <focal-img> (fetch mode) with focal-img.css, the module loaded as a page would
  element-nocss  the same without focal-img.css (the layout shift the stylesheet prevents)
  enhanced the srcset markup with the module: the <img> upgraded to the exact crop

For each: CLS (layout-shift entries), LCP (the last largest-contentful-paint entry's time, ms from
navigation start), the bytes and number of image requests the page made (Resource Timing:
transferSize of /unsafe/ requests, over loopback and with the HTTP cache disabled) once the
network is quiet, without scrolling. LCP is the median of --runs; the other columns do not vary.
Loopback makes LCP mostly the server's crop time: compare versions, not absolute numbers.
Needs chromium, chromedriver and python3-selenium (as `make test-browser` installs them) and a
built focal. Prints a Markdown table.
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "Tests/browser"))

import harness  # noqa: E402

PHOTOS = ["astronaut.png", "camera.png", "chelsea.png", "coffee.png", "grace_hopper.jpg",
          "hubble_deep_field.jpg", "motorcycle_left.png", "rocket.jpg"]

MEASURE = """<script>
  window.cls = 0; window.lcp = 0;
  new PerformanceObserver((l) => { for (const e of l.getEntries()) if (!e.hadRecentInput) window.cls += e.value; })
    .observe({type: 'layout-shift', buffered: true});
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.lcp = e.startTime; })
    .observe({type: 'largest-contentful-paint', buffered: true});
</script>"""

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width">
<title>bench</title>{css}{measure}
<style>body {{ margin: 0 auto; max-width: 1100px; font: 16px/1.5 sans-serif; padding: 0 16px; }}
.cards {{ display: grid; grid-template-columns: repeat(3, 1fr); gap: 16px; }}
.card p {{ margin: 4px 0 16px; }}</style></head>
<body><h1>A page of photos</h1><p>Some text before the images, as in an article.</p>
{body}
<p>Text below the images.</p>{script}</body></html>"""

LOREM = "Focal crops each photo for its box, keeping faces, pets and people in view. " * 4


def markup(driver, **settings):
    return driver.execute_script("return focalImgMarkup(arguments[0])", settings)


def sources(driver, **settings):
    return driver.execute_script("return focalSources(arguments[0])", settings)


def build_pages(driver):
    """{(page, version): html}."""
    pages = {}
    # snippet: one 16:9 photo, 700 px wide
    # The README's snippet: widths for the hero's box at 1x and 2x (704 px: 700 rounded to 16:9).
    one = dict(src="astronaut.png", aspect="16:9", sizes="700px", alt="An astronaut", loading="eager",
               fetchpriority="high", widths=[352, 704, 1408])
    fallback = next(s for s in sources(driver, src=one["src"], aspect=one["aspect"], widths=one["widths"])
                    if s["width"] >= 700)
    wrap = '<div style="width:700px">{}</div><p>' + LOREM + "</p>"
    snippet = {
        "img": wrap.format(f'<img src="{fallback["url"]}" width="{fallback["width"]}" height="{fallback["height"]}" '
                           f'style="width:100%;height:auto;display:block" alt="An astronaut">'),
        "srcset": wrap.format(markup(driver, **one)),
        "element": wrap.format('<focal-img src="astronaut.png" aspect="16:9" alt="An astronaut" loading="eager" '
                               'fetchpriority="high"></focal-img>'),
        "enhanced": wrap.format(markup(driver, **one)),
    }
    snippet["element-nocss"] = snippet["element"]
    # cards: 48 cards, 3 columns, 4:5
    cards = {version: [] for version in snippet}
    for i in range(48):
        photo = PHOTOS[i % len(PHOTOS)]
        above = i < 6
        options = {"quality": 50 + i}
        settings = dict(src=photo, aspect="4:5", sizes="(max-width: 1100px) 33vw, 356px", alt=photo,
                        loading="eager" if above else "lazy", options=options)
        fb = next(s for s in sources(driver, src=photo, aspect="4:5", options=options) if s["width"] >= 640)
        text = f"<p>Card {i + 1}: {photo}</p>"
        cards["img"].append(f'<div class="card"><img src="{fb["url"]}" width="{fb["width"]}" height="{fb["height"]}" '
                            f'style="width:100%;height:auto;display:block" alt="{photo}">{text}</div>')
        cards["srcset"].append(f'<div class="card">{markup(driver, **settings)}{text}</div>')
        cards["enhanced"].append(f'<div class="card">{markup(driver, **settings)}{text}</div>')
        cards["element"].append(f'<div class="card"><focal-img src="{photo}" aspect="4:5" alt="{photo}" quality="{50 + i}"'
                                f'{" loading=eager" if above else ""}></focal-img>{text}</div>')
    cards["element-nocss"] = cards["element"]
    for version in snippet:
        css = '<link rel="stylesheet" href="/focal-img.css">' if version not in ("img", "element-nocss") else ""
        script = ('<script type="module" src="/focal-img.js"></script>'
                  if version in ("element", "element-nocss", "enhanced") else "")
        pages[("snippet", version)] = PAGE.format(css=css, measure=MEASURE, body=snippet[version], script=script)
        pages[("cards", version)] = PAGE.format(css=css, measure=MEASURE, script=script,
                                                body='<div class="cards">' + "".join(cards[version]) + "</div>")
    return pages


def measure(env, driver, html, settle=1.5, timeout=30):
    env.proxy.clear()
    env.proxy.pages["bench.html"] = html
    driver.get(env.origin + "/__test/bench.html")
    # Quiet: no new request to the proxy for `settle` seconds, and every image request answered.
    deadline, last, count = time.time() + timeout, time.time(), -1
    while time.time() < deadline:
        log = env.proxy.requests()
        if len(log) != count:
            count, last = len(log), time.time()
        elif time.time() - last > settle and all(r["end"] for r in log):
            break
        time.sleep(0.1)
    return driver.execute_script("""
        const images = performance.getEntriesByType('resource').filter((e) => e.name.includes('/unsafe/'));
        return {cls: window.cls, lcp: window.lcp, requests: images.length,
                bytes: images.reduce((sum, e) => sum + e.transferSize, 0)};""")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--focal", default=str(REPO / ".build/debug/focal"))
    parser.add_argument("--root", default=str(REPO / "Fixtures"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dpr", type=float, default=1.0)
    args = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="focal-bench-element-")
    env = harness.Environment(str(Path(args.focal).resolve()), str(Path(args.root).resolve()), str(REPO),
                              str(REPO / ".cache/screenshots"), workdir)
    harness.env = env
    driver = None
    try:
        driver = harness.make_driver(1280, 900, dpr=args.dpr)
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        driver.get(env.origin + "/__test/element.html")
        harness.wait_js(driver, "return window.ready === true")
        pages = build_pages(driver)
        # Warm the server's caches once per page, so that every version meets the same server.
        for html in pages.values():
            measure(env, driver, html, settle=0.5)
        rows = []
        for (page, version), html in pages.items():
            runs = [measure(env, driver, html) for _ in range(args.runs)]
            rows.append((page, version, max(r["cls"] for r in runs), statistics.median(r["lcp"] for r in runs),
                         runs[-1]["bytes"], runs[-1]["requests"]))
        print(f"Chromium headless, 1280x900 at dpr {args.dpr:g}, loopback, HTTP cache off; "
              f"LCP median of {args.runs}; no scrolling\n")
        print("| page | version | CLS (max) | LCP ms | image bytes | image requests |")
        print("|---|---|---|---|---|---|")
        for page, version, cls, lcp, size, requests in rows:
            print(f"| {page} | {version} | {cls:.3f} | {lcp:.0f} | {size:,} | {requests} |")
    finally:
        if driver:
            driver.quit()
        env.close()


if __name__ == "__main__":
    main()
