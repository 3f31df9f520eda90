"""<focal-img> on its own test page: sizes, ordering under a slow server, placeholder, hidden and
removed elements, signing, events, cross-origin use."""

import time
import unittest

import harness
from harness import frame_size, wait, wait_js

PHOTO = "astronaut.png"  # a face: strategy "faces"


class ElementTests(unittest.TestCase):
    dpr = 1.0

    @classmethod
    def setUpClass(cls):
        cls.env = harness.env
        cls.driver = harness.make_driver(1200, 900, dpr=cls.dpr)
        # Every test sees the network, not the HTTP cache of an earlier test.
        cls.driver.execute_cdp_cmd("Network.enable", {})
        cls.driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()

    def setUp(self):
        self.env.proxy.clear()
        self.driver.get_log("browser")  # what earlier tests logged
        self.driver.get(self.env.origin + "/__test/element.html")
        wait_js(self.driver, "return window.ready === true")

    # --- helpers ---

    def make(self, id, attributes=None, style=""):
        attributes = {"src": PHOTO, **(attributes or {})}
        self.driver.execute_script("window.make(arguments[0], arguments[1], arguments[2])", id, attributes, style)

    def inspect(self, id):
        return self.driver.execute_script("return window.inspect(document.getElementById(arguments[0]))", id)

    def events(self, id=None, type="focal-load"):
        events = self.driver.execute_script("return window.events")
        return [e for e in events if e["type"] == type and (id is None or e["id"] == id)]

    def wait_loaded(self, id, count=1, timeout=30):
        return wait(self.driver, lambda d: len(self.events(id)) >= count and self.events(id), timeout,
                    f"{id}: no focal-load")[count - 1]["detail"]

    def resize(self, id, width, height):
        self.driver.execute_script(
            "const el = document.getElementById(arguments[0]); el.style.width = arguments[1] + 'px';"
            "el.style.height = arguments[2] + 'px';", id, width, height)

    # --- tests ---

    def test_size_follows_box_times_pixel_ratio(self):
        boxes = {"square": (160, 160), "banner": (320, 180), "card": (208, 260), "story": (153, 272),
                 "free": (301, 177), "tiny": (37, 23)}
        # A photo of 1000×872: no request here needs more pixels than it has (the element caps
        # requests at what the source holds once it knows, which depends on answers' order).
        for id, (w, h) in boxes.items():
            self.make(id, {"alt": id, "src": "hubble_deep_field.jpg"}, f"width:{w}px;height:{h}px")
        for id, (w, h) in boxes.items():
            detail = self.wait_loaded(id)
            expected = frame_size(w, h, self.dpr)
            self.assertEqual((detail["width"], detail["height"]), expected, id)
            # Independently of the rounding rule: it covers the box, barely, with the box's shape.
            self.assertGreaterEqual(detail["width"], w * self.dpr - 0.01)
            self.assertGreaterEqual(detail["height"], h * self.dpr - 0.01)
            self.assertLess(detail["width"], w * self.dpr + 33)
            self.assertLess(detail["height"], h * self.dpr + 33)
            info = self.inspect(id)
            self.assertEqual(info["natural"], list(expected), id)
            self.assertIn(f"/{expected[0]}x{expected[1]}/smart/", detail["url"])
        # Named aspects are requested exactly, so saved crops for them apply.
        for id, ratio in {"banner": 16 / 9, "card": 4 / 5, "story": 9 / 16, "square": 1}.items():
            d = self.events(id)[0]["detail"]
            self.assertAlmostEqual(d["width"] / d["height"], ratio, places=6, msg=id)
        # The page's own frameSize agrees with the one written here.
        self.assertEqual(self.driver.execute_script("const s = frameSize(301, 177, 2); return [s.width, s.height]"),
                         list(frame_size(301, 177, 2)))

    def test_load_event_carries_the_plan_and_accessible_name(self):
        self.make("smart", {"alt": "An astronaut"}, "width:300px;height:300px")
        self.make("plain", {"alt": "", "detect": "off"}, "width:300px;height:300px")
        detail = self.wait_loaded("smart")
        self.assertEqual(detail["strategy"], "faces")
        self.assertEqual(detail["plan"]["strategy"], "faces")
        self.assertEqual(len(detail["plan"]["crop"]), 4)
        self.assertEqual(detail["plan"]["image"], [512, 512])
        self.assertTrue(any(s["kind"] == "face" and s["confidence"] > 0.5 for s in detail["subjects"]))
        plain = self.wait_loaded("plain")
        self.assertEqual(plain["strategy"], "center")
        self.assertNotIn("/smart/", plain["url"])
        element = self.driver.find_element("id", "smart")
        self.assertEqual(element.accessible_name, "An astronaut")
        self.assertIn(element.aria_role, ("img", "image"))  # ARIA 1.3 calls it image
        self.assertEqual(self.driver.find_element("id", "plain").aria_role, "none")
        # Options become filters, in the order of the option table the server writes into the element.
        self.make("options", {"scheme": "largest", "padding": "24px", "accuracy": "fast", "focus": "250,180",
                              "format": "webp"}, "width:200px;height:100px")
        detail = self.wait_loaded("options")
        w, h = frame_size(200, 100, self.dpr)
        self.assertIn(f"/{w}x{h}/smart/filters:scheme(largest):padding(24px):focal(250,180):accuracy(fast):format(webp)/astronaut.png",
                      detail["url"])
        self.assertEqual(detail["type"], "image/webp", "a format attribute is kept as given")

    def test_thumbors_filters_as_attributes(self):
        """A switch attribute alone (`grayscale`) turns its filter on; the others take values."""
        self.make("filtered", {"grayscale": "", "round-corner": "12,255,255,255"}, "width:200px;height:100px")
        detail = self.wait_loaded("filtered")
        self.assertIn("grayscale():", detail["url"])
        self.assertIn("round_corner(12,255,255,255)", detail["url"])

    def test_a_preset_attribute_names_the_servers_preset(self):
        """`<focal-img preset="grey">` asks for the server's preset first, its own options after;
        the server reads it as the filters it stands for."""
        self.make("preset", {"preset": "grey", "kinds": "face"}, "width:200px;height:100px")
        detail = self.wait_loaded("preset")
        w, h = frame_size(200, 100, self.dpr)
        self.assertIn(f"/{w}x{h}/smart/filters:preset(grey):", detail["url"])
        self.assertIn("kinds(face)", detail["url"])
        self.assertEqual(detail["plan"]["strategy"], "faces")

    def test_the_crop_is_a_real_url_for_lcp_the_cache_and_copy_address(self):
        """The element alone shows its crop with the browser's own <img src> request: the page's
        largest paint names that URL, and the plan comes from the answer's Server-Timing."""
        self.make("real", {"fetchpriority": "high", "alt": "An astronaut"}, "width:420px;height:280px")
        detail = self.wait_loaded("real")
        shown = self.driver.execute_script(
            "return document.getElementById('real').querySelector(':scope > img.crop').src")
        self.assertEqual(shown, detail["url"])
        self.assertTrue(shown.startswith(self.env.origin + "/unsafe/"), shown)
        # In the page's DOM, with the element's alt: what a crawler that runs the script reads.
        img = self.driver.execute_script("const i = document.getElementById('real').querySelector(':scope > img.crop');"
                                         "return [i.alt, i.getRootNode() === document, i.getBoundingClientRect().width]")
        self.assertEqual(img, ["An astronaut", True, 420])
        self.driver.execute_script("document.getElementById('real').setAttribute('alt', 'Eileen Collins')")
        self.assertEqual(self.driver.execute_script(
            "return document.getElementById('real').querySelector(':scope > img.crop').alt"), "Eileen Collins")
        self.assertEqual((detail["plan"]["strategy"], detail["type"]), ("faces", "image/avif"))
        self.assertEqual(self.driver.execute_script("return window.fetches"), [], "no fetch() of its own")
        self.assertEqual(self.driver.execute_script("return window.objectURLs.created"), 0)
        w, h = frame_size(420, 280, self.dpr)
        self.assertEqual(len(self.env.proxy.requests(f"/{w}x{h}/")), 1)
        lcp = self.driver.execute_async_script("""const done = arguments[0];
            new PerformanceObserver((list) => done(list.getEntries().map((e) => e.url)))
              .observe({type: 'largest-contentful-paint', buffered: true});""")
        self.assertIn(shown, lcp, "the largest paint is the crop, by its URL")

    def test_a_newer_request_aborts_the_slow_older_one(self):
        a, b = frame_size(200, 120, self.dpr), frame_size(240, 120, self.dpr)
        self.env.proxy.delays[f"/{a[0]}x{a[1]}/"] = 2.5
        self.make("el", {}, "width:200px;height:120px")
        wait(self.driver, lambda d: self.env.proxy.requests(f"/{a[0]}x{a[1]}/"), 10, "request A not made")
        self.resize("el", 240, 120)
        detail = self.wait_loaded("el")
        self.assertEqual((detail["width"], detail["height"]), b)
        time.sleep(3)  # past the moment A's answer would have come
        self.assertEqual(len(self.events("el")), 1, "only the newest crop was shown")
        self.assertEqual(self.inspect("el")["natural"], list(b))
        older = self.env.proxy.requests(f"/{a[0]}x{a[1]}/")
        self.assertTrue(older[0]["aborted"], "the browser gave up request A")

    def test_a_late_answer_is_never_shown_even_when_nothing_aborts(self):
        """With abort() disabled, A's answer really arrives, while B is still in flight, and
        must be dropped: what is shown follows the order requests were made, not answered."""
        self.driver.execute_script("AbortController.prototype.abort = function () {};")
        a, b = frame_size(200, 120, self.dpr), frame_size(240, 120, self.dpr)
        self.env.proxy.delays[f"/{a[0]}x{a[1]}/"] = 1.5
        self.env.proxy.delays[f"/{b[0]}x{b[1]}/"] = 3.5
        self.make("el", {}, "width:200px;height:120px")
        wait(self.driver, lambda d: self.env.proxy.requests(f"/{a[0]}x{a[1]}/"), 10, "request A not made")
        self.resize("el", 240, 120)
        wait(self.driver, lambda d: self.env.proxy.requests(f"/{b[0]}x{b[1]}/"), 10, "request B not made")
        # A's answer comes first, and is complete ...
        wait(self.driver, lambda d: self.env.proxy.requests(f"/{a[0]}x{a[1]}/")[0]["status"] == 200, 10)
        time.sleep(0.5)
        self.assertEqual(self.events("el"), [], "A was answered after B was asked for: not shown")
        self.assertEqual(self.inspect("el")["layers"], 0)
        # ... then B's, which is shown.
        detail = self.wait_loaded("el", timeout=10)
        self.assertEqual((detail["width"], detail["height"]), b)
        older, newer = self.env.proxy.requests(f"/{a[0]}x{a[1]}/")[0], self.env.proxy.requests(f"/{b[0]}x{b[1]}/")[0]
        self.assertFalse(older["aborted"])
        self.assertLess(older["end"], newer["end"])
        time.sleep(0.5)
        self.assertEqual(len(self.events("el")), 1)
        self.assertEqual(self.inspect("el")["natural"], list(b))

    def test_resizing_quickly_many_times_ends_on_the_last_size(self):
        self.env.proxy.delays["/smart/"] = 0.4
        self.make("el", {}, "width:100px;height:100px")
        for width in range(120, 400, 20):
            self.resize("el", width, 150)
            time.sleep(0.05)
        last = frame_size(380, 150, self.dpr)
        wait(self.driver, lambda d: self.inspect("el")["natural"] == list(last), 20, "the last size is shown")
        time.sleep(1)
        self.assertEqual(self.inspect("el")["natural"], list(last))
        shown = [(e["detail"]["width"], e["detail"]["height"]) for e in self.events("el")]
        self.assertEqual(shown[-1], last)

    def test_placeholder_shows_while_loading_and_on_failure(self):
        self.env.proxy.delays["/smart/"] = 1.5
        self.make("slow", {"placeholder": "/favicon.svg"}, "width:200px;height:200px")
        wait(self.driver, lambda d: self.inspect("slow")["placeholderVisible"], 5, "placeholder while loading")
        self.assertEqual(self.inspect("slow")["state"], "loading")
        self.wait_loaded("slow")
        self.make("missing", {"src": "no-such-photo.png", "placeholder": "/favicon.svg"}, "width:200px;height:200px")
        error = wait(self.driver, lambda d: self.events("missing", "focal-error"), 10)[0]["detail"]
        self.assertEqual(error["status"], 404)
        self.assertTrue(error["code"])
        self.assertTrue(error["message"])
        info = self.inspect("missing")
        self.assertEqual(info["state"], "error")
        self.assertTrue(info["placeholderVisible"], "the placeholder shows on failure")
        self.assertEqual(self.events("missing"), [])

    def test_hidden_element_requests_nothing_until_shown(self):
        self.make("hidden", {"src": "camera.png"}, "width:200px;height:200px;display:none")
        time.sleep(1)
        self.assertEqual(self.env.proxy.requests("camera.png"), [])
        self.assertEqual(self.inspect("hidden")["state"], "empty")
        self.driver.execute_script("document.getElementById('hidden').style.display = 'block'")
        detail = self.wait_loaded("hidden")
        self.assertEqual((detail["width"], detail["height"]), frame_size(200, 200, self.dpr))

    def test_removal_aborts_and_lets_go_of_object_urls(self):
        self.make("kept", {}, "width:96px;height:96px")
        self.wait_loaded("kept")
        # A crop asked for past every cache (refresh) is the one shown from a blob: kept lets it go.
        self.driver.execute_script("document.getElementById('kept').refresh()")
        self.wait_loaded("kept", count=2)
        self.assertTrue(self.events("kept")[1]["detail"]["url"].startswith("http"))
        self.env.proxy.delays["/208x208/"] = 3
        self.make("gone", {}, "width:208px;height:208px")
        wait(self.driver, lambda d: self.env.proxy.requests("/208x208/"), 10)
        self.driver.execute_script("document.getElementById('gone').remove(); document.getElementById('kept').remove()")
        wait(self.driver, lambda d: self.env.proxy.requests("/208x208/")[0]["aborted"], 5, "the removed element's request was aborted")
        time.sleep(0.5)
        self.assertEqual(self.events("gone"), [])
        urls = self.driver.execute_script("return window.objectURLs")
        self.assertGreater(urls["created"], 0, "kept's refresh showed a blob")
        self.assertEqual(urls["created"], urls["revoked"], "every object URL made was revoked")

    def test_moving_an_element_keeps_its_image(self):
        self.make("moved", {}, "width:150px;height:150px")
        self.wait_loaded("moved")
        self.driver.execute_script("const el = document.getElementById('moved'); el.parentNode.prepend(el)")
        time.sleep(0.5)
        self.assertEqual(self.inspect("moved")["layers"], 1)
        self.assertEqual(len(self.env.proxy.requests("/smart/")), 1)

    def test_signer_endpoint_and_sign_property(self):
        self.make("signed", {"signer": "/__test/sign"}, "width:128px;height:128px")
        detail = self.wait_loaded("signed")
        self.assertNotIn("/unsafe/", detail["url"])
        self.assertEqual(len(self.env.proxy.requests("/__test/sign")), 1)
        # Elements laid out at once share one signing request.
        self.driver.execute_script("""for (let i = 0; i < 3; i++)
            window.make('batch' + i, {src: 'astronaut.png', signer: '/__test/sign'}, `width:${100 + 20 * i}px;height:100px`)""")
        for i in range(3):
            self.wait_loaded(f"batch{i}")
        self.assertEqual(len(self.env.proxy.requests("/__test/sign")), 2)
        # The property: a function of the path.
        self.driver.execute_script("""
            const el = document.createElement('focal-img');
            el.id = 'property'; el.style.cssText = 'width:96px;height:96px';
            el.sign = async (path) => { window.signedPath = path; return '/unsafe/' + path; };
            el.setAttribute('src', 'astronaut.png');
            document.getElementById('stage').append(el);""")
        self.wait_loaded("property")
        self.assertEqual(self.driver.execute_script("return window.signedPath"), "96x96/smart/filters:format(auto)/astronaut.png")

    def test_a_failing_signer_reports_an_error(self):
        self.make("unsigned", {"signer": "/__test/no-such-signer"}, "width:100px;height:100px")
        error = wait(self.driver, lambda d: self.events("unsigned", "focal-error"), 10)[0]["detail"]
        self.assertEqual(error["status"], 404)

    def test_cache_name_shares_one_request(self):
        for i in range(3):
            self.make(f"named{i}", {"cache-name": "astronaut-v1"}, "width:144px;height:144px")
        for i in range(3):
            self.wait_loaded(f"named{i}")
        self.assertEqual(len(self.env.proxy.requests("/144x144/")), 1)

    def test_the_same_url_at_the_same_moment_is_one_request(self):
        """Without cache-name too: concurrent fetches of one URL would each reach the network."""
        self.env.proxy.delays["/160x160/"] = 0.5  # so that the four are surely in flight together
        self.driver.execute_script("""for (let i = 0; i < 4; i++)
            window.make('same' + i, {src: 'coffee.png'}, 'width:160px;height:160px')""")
        for i in range(4):
            self.wait_loaded(f"same{i}")
        self.assertEqual(len(self.env.proxy.requests("/160x160/")), 1)
        # Removing one of the elements waiting does not abort the others' shared request.
        self.env.proxy.delays["/176x176/"] = 1
        # Both made in one script, so that the second surely asks while the first's request is in flight.
        self.driver.execute_script("""for (let i = 0; i < 2; i++)
            window.make('slow' + i, {src: 'coffee.png'}, 'width:176px;height:176px')""")
        wait(self.driver, lambda d: self.env.proxy.requests("/176x176/"), 10)
        self.driver.execute_script("document.getElementById('slow0').remove()")
        self.wait_loaded("slow1")
        self.assertEqual([r["aborted"] for r in self.env.proxy.requests("/176x176/")], [False])

    def test_refresh_asks_again_past_the_caches(self):
        self.make("el", {"cache-name": "astro"}, "width:112px;height:112px")
        self.wait_loaded("el")
        self.driver.execute_script("FocalImg.refresh('astronaut.png')")
        self.wait_loaded("el", count=2)
        self.assertEqual(len(self.env.proxy.requests("/112x112/")), 2)

    def test_aspect_attribute_sets_the_height(self):
        self.make("wide", {"aspect": "16:9"}, "width:320px")
        detail = self.wait_loaded("wide")
        self.assertEqual(self.inspect("wide")["box"], [320, 180])
        self.assertEqual((detail["width"], detail["height"]), frame_size(320, 180, self.dpr))

    def test_cross_origin_server(self):
        """The page is on one origin (the proxy) and Focal on another: CORS lets the plan through."""
        self.make("remote", {"server": self.env.focal.origin}, "width:180px;height:180px")
        detail = self.wait_loaded("remote")
        self.assertTrue(detail["url"].startswith(self.env.focal.origin + "/unsafe/"))
        self.assertEqual(detail["plan"]["strategy"], "faces")

    def test_an_unreachable_server_reports_status_0(self):
        self.make("away", {"server": f"http://127.0.0.1:{harness.free_port()}", "placeholder": "/favicon.svg"},
                  "width:100px;height:100px")
        error = wait(self.driver, lambda d: self.events("away", "focal-error"), 10)[0]["detail"]
        self.assertEqual((error["status"], error["code"]), (0, "network"))
        wait(self.driver, lambda d: self.inspect("away")["placeholderVisible"], 5, "the placeholder shows")

    def test_the_first_crop_shows_at_once_and_a_replacing_one_fades_in(self):
        last = "return [...document.getElementById(arguments[0]).querySelectorAll(':scope > img.crop')].at(-1).style.opacity"
        duration = "return getComputedStyle(document.getElementById(arguments[0]).querySelector(':scope > img.crop')).transitionDuration"
        self.make("first", {}, "width:100px;height:100px")
        self.make("on", {"fade": "on"}, "width:100px;height:100px")
        self.make("off", {"fade": "off"}, "width:100px;height:100px")
        for id in ("first", "on", "off"):
            self.wait_loaded(id)
        # No fade on first paint (the largest paint is the image's own load), unless fade="on".
        self.assertEqual(self.driver.execute_script(last, "first"), "")
        self.assertEqual(self.driver.execute_script(last, "off"), "")
        self.assertEqual(self.driver.execute_script(last, "on"), "1")
        self.assertEqual(self.driver.execute_script(duration, "on"), "0.24s")
        # A crop replacing a crop fades in; with fade="off" it never does.
        self.resize("first", 140, 100)
        self.resize("off", 140, 100)
        self.wait_loaded("first", count=2)
        self.wait_loaded("off", count=2)
        self.assertEqual(self.driver.execute_script(last, "first"), "1")
        self.assertEqual(self.driver.execute_script(last, "off"), "")
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
            "features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
        try:
            self.assertEqual(self.driver.execute_script(duration, "first"), "0s")
            self.resize("first", 160, 100)
            self.wait_loaded("first", count=3)
            self.assertEqual(self.driver.execute_script(last, "first"), "")
        finally:
            self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})

    def test_sized_by_a_grid_or_a_flex_row_without_layout_shift(self):
        self.driver.execute_script("""
            const grid = document.createElement('div');
            grid.style.cssText = 'display:grid;grid-template-columns:200px 120px;grid-auto-rows:100px;gap:4px;width:324px';
            grid.innerHTML = '<focal-img id="g1" src="astronaut.png"></focal-img><focal-img id="g2" src="astronaut.png"></focal-img>';
            const flex = document.createElement('div');
            flex.style.cssText = 'display:flex;width:300px;height:90px';
            flex.innerHTML = '<focal-img id="f1" src="chelsea.png" style="flex:1"></focal-img><focal-img id="f2" src="chelsea.png" style="flex:2"></focal-img>';
            document.getElementById('stage').append(grid, flex);""")
        boxes = {"g1": [200, 100], "g2": [120, 100], "f1": [100, 90], "f2": [200, 90]}
        for id, box in boxes.items():
            self.assertEqual(self.inspect(id)["box"], box, f"{id} before loading")
        for id, (w, h) in boxes.items():
            detail = self.wait_loaded(id)
            self.assertEqual((detail["width"], detail["height"]), frame_size(w, h, self.dpr))
            self.assertEqual(self.inspect(id)["box"], [w, h], f"{id}: the image did not change the box")

    def test_an_exact_simple_ratio_is_kept(self):
        """184×176 is exactly 23:22: requested as such, not as the first ratio within half a pixel (22:21)."""
        self.assertEqual(self.driver.execute_script("const s = frameSize(184, 176, 1); return [s.width, s.height]"),
                         [184, 176])
        self.assertEqual(harness.simple_ratio(184, 176), (23, 22))
        self.make("odd", {}, "width:184px;height:176px")
        detail = self.wait_loaded("odd")
        self.assertEqual((detail["width"], detail["height"]), frame_size(184, 176, self.dpr))
        self.assertEqual(detail["width"] * 22, detail["height"] * 23)

    def test_never_more_pixels_than_the_source_crop_holds(self):
        """astronaut.png is 512×512: once a plan said so, larger boxes get at most its crop region."""
        self.make("first", {}, "width:600px;height:600px")
        detail = self.wait_loaded("first")
        self.assertEqual((detail["width"], detail["height"]), frame_size(600, 600, self.dpr))  # not known yet
        self.assertEqual(detail["plan"]["image"], [512, 512])
        self.make("square", {}, "width:620px;height:620px")
        self.make("wide", {}, "width:800px;height:450px")
        self.make("small", {}, "width:160px;height:90px")
        square = self.wait_loaded("square")
        self.assertEqual((square["width"], square["height"]), (512, 512))
        wide = self.wait_loaded("wide")
        self.assertEqual((wide["width"], wide["height"]), (512, 288), "16:9 inside 512×512, the box's ratio kept")
        small = self.wait_loaded("small")
        self.assertEqual((small["width"], small["height"]), frame_size(160, 90, self.dpr), "below the limit: unchanged")

    def test_a_new_src_clears_to_the_placeholder_at_once(self):
        self.make("el", {"placeholder": "/favicon.svg", "alt": "An astronaut"}, "width:200px;height:200px")
        self.wait_loaded("el")
        self.assertEqual(self.inspect("el")["layers"], 1)
        self.env.proxy.delays["camera.png"] = 2
        self.driver.execute_script("const el = document.getElementById('el');"
                                   "el.setAttribute('src', 'camera.png'); el.setAttribute('alt', 'A camera')")
        time.sleep(0.3)  # far less than the new crop takes
        info = self.inspect("el")
        self.assertEqual(info["layers"], 0, "the astronaut is not shown under the camera's alt")
        self.assertTrue(info["placeholderVisible"])
        self.assertEqual(info["state"], "loading")
        # An alt given while the crop loads is the shown crop's.
        self.driver.execute_script("document.getElementById('el').setAttribute('alt', 'An old camera')")
        detail = self.wait_loaded("el", count=2)
        self.assertTrue(detail["url"].endswith("/camera.png"))
        self.assertEqual(self.driver.execute_script(
            "return [...document.getElementById('el').querySelectorAll(':scope > img.crop')].map((i) => i.alt)"), ["An old camera"])

    def test_preview_placeholder_is_a_tiny_blurred_crop_until_the_crop_shows(self):
        w, h = frame_size(240, 135, self.dpr)
        self.env.proxy.delays[f"/{w}x{h}/"] = 2  # the crop, not its preview
        self.make("el", {"placeholder": "preview", "alt": "An astronaut"}, "width:240px;height:135px")
        wait(self.driver, lambda d: self.inspect("el")["placeholderVisible"], 10, "the preview shows while the crop loads")
        preview = self.driver.execute_script(
            "const p = document.getElementById('el').shadowRoot.querySelector('img.placeholder');"
            "return {src: p.src, w: p.naturalWidth, h: p.naturalHeight, filter: getComputedStyle(p).filter}")
        # The same frame (16:9, smart, the same format) at most 24 px long on its short-rounded side.
        self.assertIn("/32x18/smart/filters:format(auto)/astronaut.png", preview["src"])
        self.assertEqual((preview["w"], preview["h"]), (32, 18))
        self.assertIn("blur", preview["filter"])
        self.assertEqual(self.inspect("el")["state"], "loading")
        self.driver.save_screenshot(str(self.env.screenshots / f"element-preview-{self.dpr:g}x.png"))
        detail = self.wait_loaded("el")
        self.assertEqual((detail["width"], detail["height"]), (w, h))
        wait(self.driver, lambda d: not d.execute_script(
            "return document.getElementById('el').shadowRoot.querySelector('img.placeholder').getAttribute('src')"),
            5, "the preview goes once the crop shows")
        # A new src: the new photo's preview, asked for once, while its crop is on the way.
        self.driver.execute_script("document.getElementById('el').setAttribute('src', 'camera.png')")
        wait(self.driver, lambda d: self.inspect("el")["placeholderVisible"], 10, "the camera's preview shows")
        self.assertEqual(self.inspect("el")["layers"], 0, "the astronaut went at once")
        self.assertEqual(len(self.env.proxy.requests("/32x18/smart/filters:format(auto)/camera.png")), 1)
        self.wait_loaded("el", count=2)
        self.assertEqual(len(self.env.proxy.requests("/32x18/smart/filters:format(auto)/astronaut.png")), 1)

    def test_an_enhanced_img_shows_a_preview_after_a_new_src(self):
        markup = self.markup({"src": "astronaut.png", "aspect": "16:9", "alt": "An astronaut", "sizes": "500px",
                              "loading": "eager"})
        self.enhance_page(markup.replace("<focal-img ", '<focal-img placeholder="preview" ', 1))
        wait_js(self.driver, "return window.events.length >= 1", message="focal-load from the enhanced <img>")
        self.assertEqual(self.env.proxy.requests("/32x18/"), [], "no preview while the markup's image is there")
        self.env.proxy.delays["camera.png"] = 2  # the crop and its preview: the preview's URL is set at once
        self.driver.execute_script("document.querySelector('focal-img').setAttribute('src', 'camera.png')")
        state = wait_js(self.driver, """
            const host = document.querySelector('focal-img'), p = host.shadowRoot?.querySelector('img.placeholder');
            return p?.getAttribute('src') && {src: p.src, hidden: host.querySelector('img').style.visibility,
              shown: getComputedStyle(p).display, filter: getComputedStyle(p).filter};""",
            message="the camera's preview under the hidden <img>")
        self.assertIn("/32x18/smart/filters:format(auto)/camera.png", state["src"])
        self.assertEqual(state["hidden"], "hidden")
        self.assertNotEqual(state["shown"], "none")
        self.assertIn("blur", state["filter"])
        wait_js(self.driver, "return window.events.length >= 2", timeout=20, message="the camera's crop")
        self.assertEqual(len(self.env.proxy.requests("/32x18/smart/filters:format(auto)/camera.png")), 1)
        self.assertFalse(self.driver.execute_script(
            "return document.querySelector('focal-img').shadowRoot.querySelector('img.placeholder').getAttribute('src')"))

    def test_fallback_is_the_error_image(self):
        self.make("missing", {"src": "no-such-photo.png", "placeholder": "/favicon.svg",
                              "fallback": "/__test/fallback.svg"}, "width:120px;height:120px")
        wait(self.driver, lambda d: self.events("missing", "focal-error"), 10)
        info = wait(self.driver, lambda d: self.inspect("missing")["fallbackVisible"] and self.inspect("missing"), 5,
                    "the fallback shows")
        self.assertEqual(info["state"], "error")
        # While loading, the placeholder and not the fallback.
        self.env.proxy.delays["/smart/"] = 1.5
        self.make("slow", {"placeholder": "/favicon.svg", "fallback": "/__test/fallback.svg"}, "width:120px;height:120px")
        wait(self.driver, lambda d: self.inspect("slow")["placeholderVisible"], 5)
        self.assertFalse(self.inspect("slow")["fallbackVisible"])
        self.wait_loaded("slow")
        self.assertFalse(self.inspect("slow")["fallbackVisible"])

    def test_path_tricks_in_src_are_refused(self):
        tricks = ["../secret.png", "photos/../../secret.png", "./astronaut.png", "a/./secret.png",
                  "photos\\..\\secret.png", "photos//secret.png", "secret\n.png"]
        self.driver.get_log("browser")
        for i, src in enumerate(tricks):
            self.make(f"t{i}", {"src": src}, "width:100px;height:100px")
        for i, src in enumerate(tricks):
            error = wait(self.driver, lambda d: self.events(f"t{i}", "focal-error"), 5, repr(src))[0]["detail"]
            self.assertEqual((error["status"], error["code"]), (0, "src.refused"), src)
        time.sleep(0.5)
        self.assertEqual([r["path"] for r in self.env.proxy.requests("/unsafe/")], [], "nothing was requested")
        warnings = [e["message"] for e in self.driver.get_log("browser") if e["level"] == "WARNING"]
        self.assertEqual(sum("refused" in w for w in warnings), len(tricks), warnings)
        # Encoded rather than refused: dots inside a name, %2e, spaces, ? and #.
        self.make("fine", {"src": "astronaut.png", "focus": "250,180"}, "width:100px;height:100px")
        self.wait_loaded("fine")
        self.make("odd", {"src": "%2e%2e/x?.png#y"}, "width:100px;height:100px")
        error = wait(self.driver, lambda d: self.events("odd", "focal-error"), 10)[0]["detail"]
        self.assertEqual(error["status"], 404)
        self.assertTrue(self.env.proxy.requests("/%252e%252e/x%3F.png%23y"), "encoded, so the parser kept it")

    def test_a_refusal_by_the_server_warns_with_its_message(self):
        self.driver.get_log("browser")
        self.make("missing", {"src": "no-such-photo.png"}, "width:100px;height:100px")
        error = wait(self.driver, lambda d: self.events("missing", "focal-error"), 10)[0]["detail"]
        self.assertEqual(error["status"], 404)
        self.assertTrue(error["message"])
        warnings = wait(self.driver, lambda d: [e["message"] for e in d.get_log("browser") if e["level"] == "WARNING"], 5)
        self.assertTrue(any(error["message"] in w and "no-such-photo.png" in w for w in warnings), warnings)

    def test_lazy_until_near_the_viewport_unless_eager(self):
        # 3800 px down a 900 px viewport: 2900 px below it, past the 2500 px margin.
        self.driver.execute_script("""
            const spacer = document.createElement('div'); spacer.style.cssText = 'height:3800px;width:100%';
            document.getElementById('stage').append(spacer);""")
        self.make("far", {"src": "camera.png"}, "width:200px;height:100px")
        self.make("eager", {"src": "chelsea.png", "loading": "eager"}, "width:200px;height:100px")
        self.wait_loaded("eager")
        time.sleep(1)
        self.assertGreater(self.driver.execute_script(
            "return document.getElementById('far').getBoundingClientRect().top"), 900 + 2500)
        self.assertEqual(self.env.proxy.requests("camera.png"), [], "farther than the margin: not yet")
        self.assertEqual(self.inspect("far")["state"], "empty")
        # Within the margin (2500 px) but not yet in view: loaded ahead of the scroll.
        top = self.driver.execute_script("return document.getElementById('far').getBoundingClientRect().top + scrollY")
        self.driver.execute_script("window.scrollTo(0, arguments[0])", top - 900 - 1000)
        self.wait_loaded("far")
        self.assertGreater(self.driver.execute_script(
            "return document.getElementById('far').getBoundingClientRect().top"), 900)
        # Setting loading on a loaded element asks for nothing again.
        self.driver.execute_script("document.getElementById('far').setAttribute('loading', 'eager')")
        time.sleep(0.5)
        self.assertEqual(len(self.env.proxy.requests("camera.png")), 1)
        # A lazy element made eager while far away loads at once.
        self.driver.execute_script(
            "const spacer = document.createElement('div'); spacer.style.cssText = 'height:6000px;width:100%';"
            "document.getElementById('stage').append(spacer);")
        self.make("later", {"src": "coffee.png"}, "width:200px;height:100px")
        time.sleep(0.5)
        self.assertEqual(self.env.proxy.requests("coffee.png"), [])
        self.driver.execute_script("document.getElementById('later').setAttribute('loading', 'eager')")
        self.wait_loaded("later")

    def test_fetchpriority_and_the_accept_header(self):
        self.make("hero", {"fetchpriority": "high"}, "width:200px;height:100px")
        self.make("plain", {"src": "camera.png"}, "width:200px;height:100px")
        self.wait_loaded("hero")
        self.wait_loaded("plain")
        # The crop is the browser's own <img> request, with the element's priority.
        priority = "return document.getElementById(arguments[0]).querySelector(':scope > img.crop').fetchPriority"
        self.assertEqual((self.driver.execute_script(priority, "hero"), self.driver.execute_script(priority, "plain")), ("high", "auto"))
        self.assertEqual(self.driver.execute_script("return window.fetches"), [], "no fetch() of its own")
        # The browser's own Accept header for images, on the wire (Chromium lists JPEG XL first,
        # which Focal does not write: AVIF is the best type it does).
        accept = self.env.proxy.requests("camera.png")[0]["headers"]["accept"]
        self.assertIn("image/avif,image/webp,", accept)
        # Without a format attribute: format(auto), so the server answers the best type listed.
        self.assertIn("/filters:format(auto)/camera.png", self.env.proxy.requests("camera.png")[0]["path"])
        self.assertEqual(self.events("plain")[0]["detail"]["type"], "image/avif")
        self.assertEqual(self.env.proxy.requests("camera.png")[0]["type"], "image/avif")
        self.assertEqual(self.env.proxy.requests("camera.png")[0]["method"], "GET", "no preflight")
        self.assertEqual([r for r in self.env.proxy.log if r["method"] == "OPTIONS"], [])

    def test_srcset_helpers(self):
        sources = self.driver.execute_script(
            "return focalSources({src: 'team/a b.jpg', aspect: '16:9', server: 'https://img.example/', widths: [1000, 320]})")
        self.assertEqual([(s["width"], s["height"]) for s in sources], [(320, 180), (1008, 567)])
        self.assertEqual(sources[0]["url"], "https://img.example/unsafe/320x180/smart/filters:format(auto)/team/a%20b.jpg")
        srcset = self.driver.execute_script(
            "return focalSrcset({src: 'a.jpg', aspect: 1.5, widths: [300], options: {zoom: 0.5, detect: 'off'}})")
        self.assertEqual(srcset, "/unsafe/300x200/filters:zoom(0.5):format(auto)/a.jpg 300w")
        # A switch is on with no value (thumbor's grayscale()); trim is a segment before the size.
        srcset = self.driver.execute_script(
            "return focalSrcset({src: 'a.jpg', aspect: 1.5, widths: [300], options: {grayscale: '', blur: 2, trim: 'top-left', detect: 'off'}})")
        self.assertEqual(srcset, "/unsafe/trim:top-left/300x200/filters:format(auto):grayscale():blur(2)/a.jpg 300w")
        self.assertIn("refused", self.driver.execute_script(
            "try { focalSrcset({src: '../a.jpg', aspect: 1}) } catch (e) { return e.message }"))
        markup = self.driver.execute_script(
            "return focalImgMarkup({src: 'a.jpg', aspect: '4:5', alt: 'A \"quoted\" <alt>', widths: [400, 800]})")
        self.assertEqual(markup, '<focal-img src="a.jpg" aspect="4:5" loading="lazy"><img src="/unsafe/800x1000/smart/filters:format(auto)/a.jpg" '
                         'srcset="/unsafe/400x500/smart/filters:format(auto)/a.jpg 400w, '
                         '/unsafe/800x1000/smart/filters:format(auto)/a.jpg 800w" sizes="100vw" '
                         'width="800" height="1000" loading="lazy" decoding="async" alt="A &#34;quoted&#34; &#60;alt&#62;"></focal-img>')

    # --- no layout shift, and the <img> markup ---

    CLS_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
        {css}
        <script>
          window.cls = 0; window.loads = 0;
          new PerformanceObserver((list) => { for (const e of list.getEntries()) if (!e.hadRecentInput) window.cls += e.value; })
            .observe({type: 'layout-shift', buffered: true});
          document.addEventListener('focal-load', () => window.loads++);
        </script></head>
        <body style="margin:0;font:16px sans-serif;width:600px">
        <h1>A page</h1>
        {body}
        <p id="after" style="height:400px;background:#eee">Text below the images, as tall as an article's first paragraphs.</p>
        <script>setTimeout(() => import('/focal-img.js'), DELAY);</script>
        </body></html>"""

    def cls_of(self, body, css=True, images=1, delay=800):
        self.env.proxy.pages["cls.html"] = (self.CLS_PAGE.replace("{css}", '<link rel="stylesheet" href="/focal-img.css">' if css else "")
                                            .replace("{body}", body).replace("DELAY", str(delay)))
        self.driver.get(self.env.origin + "/__test/cls.html")
        wait_js(self.driver, f"return window.loads >= {images}", message="the late module loaded the crops")
        time.sleep(0.5)
        return self.driver.execute_script("return window.cls")

    def test_the_stylesheet_reserves_the_box_before_the_module_runs(self):
        body = """<focal-img src="astronaut.png" aspect="16:9" alt="An astronaut"></focal-img>
                  <focal-img src="camera.png" style="width:300px;aspect-ratio:4/5" alt="A camera"></focal-img>"""
        with_css = self.cls_of(body, css=True, images=2)
        self.assertEqual(self.driver.execute_script("return document.getElementById('after').getBoundingClientRect().top")
                         > 600 * 9 / 16 + 300 * 5 / 4, True)
        self.driver.save_screenshot(str(self.env.screenshots / f"element-cls-css-{self.dpr:g}x.png"))
        without = self.cls_of(body, css=False, images=2)
        self.assertEqual(with_css, 0, "focal-img.css: nothing moved")
        self.assertGreater(without, 0.05, "without it the boxes appear when the module runs, and the text jumps")

    def markup(self, settings):
        return self.driver.execute_script("return focalImgMarkup(arguments[0])", settings)

    def enhance_page(self, markup, module=True, delay=300, width=500, before=""):
        self.env.proxy.clear()
        script = (f"<script>setTimeout(() => import('/focal-img.js'), {delay});</script>" if module else "")
        self.env.proxy.pages["enhance.html"] = f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
            <link rel="icon" href="data:,"><link rel="stylesheet" href="/focal-img.css">
            <script>window.events = []; window.imgLoads = 0;
              document.addEventListener('focal-load', (e) => window.events.push(e.detail));
              document.addEventListener('load', (e) => {{ if (e.target.matches?.('focal-img img')) window.imgLoads++; }}, true);
            </script></head>
            <body style="margin:0">{before}<div id="box" style="width:{width}px">{markup}</div>
            <p id="after">Below.</p>
            <script>window.before = document.querySelector('focal-img img');</script>
            {script}</body></html>"""
        self.driver.get(self.env.origin + "/__test/enhance.html")
        return markup

    def test_the_img_markup_works_without_javascript(self):
        markup = self.markup({"src": "astronaut.png", "aspect": "16:9", "alt": "An astronaut", "sizes": "500px",
                              "loading": "eager"})
        self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
        try:
            self.enhance_page(markup, module=False)
            img = wait(self.driver, lambda d: (lambda i: i if i.get_property("complete") and i.get_property("naturalWidth") else None)(
                d.find_element("css selector", "focal-img img")), 20, "the <img> loaded")
            self.assertEqual(self.driver.execute_script("return typeof window.before"), "undefined", "no script ran")
            current = img.get_property("currentSrc")
            self.assertRegex(current, r"/unsafe/\d+x\d+/smart/filters:format\(auto\)/astronaut\.png$")
            w = int(current.split("/unsafe/")[1].split("x")[0])
            self.assertGreaterEqual(w, 500 * self.dpr, "the srcset candidate covering the box")
            shown = [r for r in self.env.proxy.log if current.endswith(r["path"])]
            self.assertEqual(shown[0]["type"], "image/avif", "format(auto) and the browser's own Accept")
            self.assertEqual(img.rect["width"], 500)
            self.assertAlmostEqual(img.rect["height"], 500 * 9 / 16, delta=1)
            self.assertEqual(img.accessible_name, "An astronaut")
            self.assertFalse([r for r in self.env.proxy.log if r["path"].endswith("/focal-img.js")])
            self.driver.save_screenshot(str(self.env.screenshots / f"element-nojs-{self.dpr:g}x.png"))
        finally:
            self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})

    def test_the_module_keeps_a_fitting_img_and_upgrades_the_same_node_when_the_shape_changes(self):
        self.enhance_page(self.markup({"src": "astronaut.png", "aspect": "16:9", "alt": "An astronaut", "sizes": "500px",
                                       "loading": "eager"}))
        detail = wait_js(self.driver, "return window.events[0]", message="focal-load from the enhanced <img>")
        exact = frame_size(500, 500 * 9 / 16, self.dpr)
        # The markup's own candidate has the box's shape and enough pixels: it is kept, not
        # downloaded again at the exact size (a smart crop of the same shape is the same crop).
        state = self.driver.execute_script("""const img = document.querySelector('focal-img img');
            return {same: img === window.before, src: img.currentSrc, natural: [img.naturalWidth, img.naturalHeight],
                    box: [img.getBoundingClientRect().width, img.getBoundingClientRect().height],
                    visible: getComputedStyle(img).visibility}""")
        self.assertTrue(state["same"], "the <img> node is kept")
        self.assertEqual(detail["url"], state["src"])
        w, h = state["natural"]
        self.assertAlmostEqual(w / h, 16 / 9, delta=0.02)
        self.assertGreaterEqual(w, 0.9 * exact[0])
        self.assertEqual(state["box"], [500, 281.25])
        self.assertEqual(state["visible"], "visible")
        self.assertEqual(self.env.proxy.requests(f"/{exact[0]}x{exact[1]}/smart/filters:format(auto)/astronaut.png"), [],
                         "no second download of the same crop")
        # Another shape: the exact crop for the new box, into the same node, fetched by the
        # browser itself with its own Accept header.
        self.driver.execute_script("document.querySelector('focal-img').setAttribute('aspect', '1:1')")
        detail = wait_js(self.driver, "return window.events[1]", message="re-cropped for the square")
        square = frame_size(500, 500, self.dpr)
        self.assertEqual((detail["width"], detail["height"]), square)
        state = self.driver.execute_script("""const img = document.querySelector('focal-img img');
            return {same: img === window.before, src: img.currentSrc, srcset: img.getAttribute('srcset'),
                    natural: [img.naturalWidth, img.naturalHeight], loads: window.imgLoads}""")
        self.assertTrue(state["same"])
        self.assertTrue(state["src"].endswith(f"/unsafe/{square[0]}x{square[1]}/smart/filters:format(auto)/astronaut.png"), state["src"])
        self.assertEqual(state["srcset"], state["src"], "one candidate: the exact crop")
        self.assertEqual(state["natural"], list(square))
        self.assertGreaterEqual(state["loads"], 2, "the page's own load listener saw both images")
        crop = self.env.proxy.requests(f"/{square[0]}x{square[1]}/smart/filters:format(auto)/astronaut.png")
        self.assertTrue(crop and "image/avif" in crop[0]["headers"]["accept"])
        self.assertEqual(crop[0]["type"], "image/avif", "format(auto) answered the browser's own Accept")
        self.driver.save_screenshot(str(self.env.screenshots / f"element-enhanced-{self.dpr:g}x.png"))

    def test_a_lazy_img_out_of_view_is_downloaded_once_at_the_exact_size(self):
        """Below the fold the browser has fetched nothing yet: the element points the <img> at the
        exact crop directly, and the srcset candidate is never downloaded."""
        markup = self.markup({"src": "camera.png", "aspect": "4:3", "alt": "A camera", "sizes": "500px"})
        self.assertIn('sizes="500px"', markup, "the helpers write sizes as given")
        self.enhance_page(markup, before='<div style="height:3000px"></div>')  # within the element's margin, not in view
        wait_js(self.driver, "return customElements.get('focal-img') && document.querySelector('focal-img img').srcset"
                             ".split(',').length === 1", message="pointed at one URL before coming into view")
        time.sleep(0.5)
        self.assertEqual(self.env.proxy.requests("camera.png"), [], "nothing downloaded out of view")
        self.driver.execute_script("document.getElementById('box').scrollIntoView()")
        detail = wait_js(self.driver, "return window.events[0]", message="focal-load once in view")
        exact = frame_size(500, 375, self.dpr)
        self.assertEqual((detail["width"], detail["height"]), exact)
        time.sleep(0.5)
        self.assertEqual([r["path"] for r in self.env.proxy.requests("camera.png")],
                         [f"/unsafe/{exact[0]}x{exact[1]}/smart/filters:format(auto)/camera.png"], "one download")
        self.assertTrue(self.driver.execute_script(
            "const img = document.querySelector('focal-img img');"
            "return img === window.before && img.complete && img.naturalWidth === arguments[0]", exact[0]))

    def test_an_enhanced_img_follows_a_new_src_and_fails_to_the_fallback(self):
        markup = self.markup({"src": "astronaut.png", "aspect": "1:1", "alt": "A photo", "sizes": "500px",
                              "loading": "eager"})
        self.enhance_page(markup.replace("<focal-img ", '<focal-img fallback="/__test/fallback.svg" ', 1))
        wait_js(self.driver, "return window.events[0]", message="first crop")
        host = self.driver.find_element("css selector", "focal-img")
        img = self.driver.find_element("css selector", "focal-img img")
        self.assertEqual(img.accessible_name, "A photo")
        self.assertNotIn(host.aria_role, ("img", "image"), "the <img> is the image, not its wrapper")
        # A new src: the old photo is hidden at once (its box kept), then the new crop is shown.
        self.env.proxy.delays["camera.png"] = 1.5
        self.driver.execute_script("document.querySelector('focal-img').setAttribute('src', 'camera.png')")
        time.sleep(0.3)
        self.assertEqual(self.driver.execute_script(
            "const img = document.querySelector('focal-img img');"
            "return [getComputedStyle(img).visibility, img.getBoundingClientRect().height]"), ["hidden", 500])
        detail = wait_js(self.driver, "return window.events[1]", message="the new photo's crop")
        size = frame_size(500, 500, self.dpr)
        self.assertTrue(detail["url"].endswith(f"/{size[0]}x{size[1]}/smart/filters:format(auto)/camera.png"))
        self.assertEqual(self.driver.execute_script(
            "const img = document.querySelector('focal-img img');"
            "return [img === window.before, getComputedStyle(img).visibility, img.currentSrc === arguments[0]]",
            detail["url"]), [True, "visible", True])
        # A photo that does not exist: the markup's image and the exact crop both fail; the fallback shows.
        self.driver.execute_script("document.querySelector('focal-img').setAttribute('src', 'no-such-photo.png')")
        wait_js(self.driver, "return document.querySelector('focal-img').state === 'error'", message="error state")
        # The fallback is made when it is first needed (an enhanced <img> has no shadow root before).
        wait_js(self.driver, """const f = document.querySelector('focal-img').shadowRoot?.querySelector('img.fallback');
            return f && f.complete && f.naturalWidth > 0""", message="the fallback loads")
        self.assertEqual(self.driver.execute_script("""
            const el = document.querySelector('focal-img'), fallback = el.shadowRoot.querySelector('img.fallback');
            return [getComputedStyle(el.querySelector('img')).visibility, getComputedStyle(fallback).display,
                    fallback.complete && fallback.naturalWidth > 0]"""), ["hidden", "block", True])

    def test_no_console_errors(self):
        self.make("el", {"alt": "x"}, "width:200px;height:100px")
        self.wait_loaded("el")
        self.assertEqual(harness.console_errors(self.driver), [])


class ElementTestsAtPixelRatio2(ElementTests):
    """The same at devicePixelRatio 2: every request is twice the box."""
    dpr = 2.0


class ElementTestsAtPixelRatio3(ElementTests):
    """A 3x screen: requests stop at max-dpr (default 2)."""
    dpr = 3.0

    def test_max_dpr_caps_the_pixel_ratio(self):
        self.make("default", {}, "width:100px;height:100px")
        self.make("three", {"max-dpr": "3"}, "width:100px;height:100px")
        self.make("one", {"max-dpr": "1"}, "width:100px;height:100px")
        for id, dpr in {"default": 2, "three": 3, "one": 1}.items():
            detail = self.wait_loaded(id)
            self.assertEqual((detail["width"], detail["height"]), frame_size(100, 100, dpr, max_dpr=dpr), id)
        self.assertEqual(frame_size(100, 100, 3), (208, 208), "the harness caps at 2 by default, as the element does")


def load_tests(loader, tests, pattern):
    """All of ElementTests; at pixel ratio 2, the tests where the ratio matters."""
    suite = unittest.TestSuite()
    suite.addTests(loader.loadTestsFromTestCase(ElementTests))
    wanted = set(loader.getTestCaseNames(ElementTestsAtPixelRatio2))   # honours -k
    for name in ("test_size_follows_box_times_pixel_ratio", "test_aspect_attribute_sets_the_height",
                 "test_a_newer_request_aborts_the_slow_older_one", "test_the_img_markup_works_without_javascript",
                 "test_the_module_upgrades_the_same_img_to_the_exact_crop"):
        if name in wanted:
            suite.addTest(ElementTestsAtPixelRatio2(name))
    wanted = set(loader.getTestCaseNames(ElementTestsAtPixelRatio3))
    if "test_max_dpr_caps_the_pixel_ratio" in wanted:
        suite.addTest(ElementTestsAtPixelRatio3("test_max_dpr_caps_the_pixel_ratio"))
    return suite
