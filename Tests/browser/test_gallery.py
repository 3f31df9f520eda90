"""The gallery at `/`: every frame shows a crop of its box's size, frames reshape by their corner
and the crop follows, the plan is drawn over the original, uploads, and the crop editor —
dragging, zooming, and saved crops that survive a reload and a server restart until reset."""

import base64
import json
import time
import unittest
import urllib.request
from pathlib import Path

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import harness
from harness import frame_size, wait, wait_js

REPO = Path(__file__).resolve().parents[2]

# Every <focal-img> on the page with its box and what it shows.
FRAMES_JS = """
return [...document.querySelectorAll('focal-img')].map((el) => {
  const r = el.getBoundingClientRect();
  const card = el.closest('.card');
  return { frame: card ? card.dataset.frame : 'thumb', kind: el.classList.contains('centre') ? 'centre' : 'focal',
           width: r.width, height: r.height, state: el.state, natural: [el.naturalWidth, el.naturalHeight],
           plan: el.plan, src: el.getAttribute('src') };
});"""


def fetch(url, method="GET", data=None, headers=None):
    request = urllib.request.Request(url, method=method, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


class GalleryCase(unittest.TestCase):
    width, height, dpr, dark, mobile = 1440, 1000, 1.0, False, False

    @classmethod
    def setUpClass(cls):
        cls.env = harness.env
        cls.driver = harness.make_driver(cls.width, cls.height, dpr=cls.dpr, dark=cls.dark, mobile=cls.mobile)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()

    def open(self, photo="astronaut.png"):
        self.driver.get("about:blank")  # a new page, not a change of fragment
        self.driver.get(f"{self.env.origin}/#photo={photo}")
        return self.wait_frames()

    def wait_frames(self, timeout=60):
        """Waits until every element has shown a crop; returns them."""
        def done(d):
            frames = d.execute_script(FRAMES_JS)
            return frames if frames and all(f["state"] == "loaded" for f in frames) else None
        return wait(self.driver, done, timeout, "every <focal-img> shows a crop")

    def card(self, frame):
        return self.driver.find_element(By.CSS_SELECTOR, f'.card[data-frame="{frame}"]')

    def shown(self, frame, kind="focal"):
        return next(f for f in self.driver.execute_script(FRAMES_JS) if f["frame"] == frame and f["kind"] == kind)

    def screenshot(self, name, jpeg=False):
        """The viewport as NAME.png, and also as NAME.jpg (smaller, for docs/) when asked."""
        self.driver.save_screenshot(str(self.env.screenshots / f"{name}.png"))
        if jpeg:
            shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "jpeg", "quality": 82})
            (self.env.screenshots / f"{name}.jpg").write_bytes(base64.b64decode(shot["data"]))

    def assert_sizes(self, frames):
        for f in frames:
            expected = frame_size(f["width"], f["height"], self.dpr)
            self.assertEqual(tuple(f["natural"]), expected, f"{f['frame']}/{f['kind']} box {f['width']}x{f['height']}")

    def enter_token(self):
        wait_js(self.driver, "return document.getElementById('token-dialog').open", timeout=10)
        self.driver.find_element(By.ID, "token-input").send_keys(self.env.token)
        self.driver.find_element(By.CSS_SELECTOR, "#token-dialog button[value=ok]").click()


class GalleryTests(GalleryCase):
    def test_no_layout_shift_while_the_page_fills(self):
        """Cumulative layout shift from the first paint until every frame shows its crop."""
        script = self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            window.__cls = 0; window.__shifts = [];
            new PerformanceObserver((list) => { for (const e of list.getEntries()) if (!e.hadRecentInput) {
              window.__cls += e.value;
              window.__shifts.push([e.value, e.sources.map((s) => s.node?.id || s.node?.className || s.node?.nodeName || '?')]);
            } }).observe({type: 'layout-shift', buffered: true});"""})
        try:
            self.open("hubble_deep_field.jpg")
            time.sleep(0.5)
            cls, shifts = self.driver.execute_script("return [window.__cls, window.__shifts]")
            self.assertLess(cls, 0.01, f"layout shifts: {shifts}")
        finally:
            self.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})


    def test_every_frame_shows_a_crop_of_its_box(self):
        self.driver.get_log("browser")
        frames = self.open()
        self.assertEqual(len([f for f in frames if f["frame"] != "thumb"]), 10)
        self.assert_sizes(frames)
        for f in frames:
            if f["frame"] != "thumb":
                self.assertEqual(f["plan"]["strategy"], "center" if f["kind"] == "centre" else "faces", f["frame"])
        # The strategy shows on each card.
        self.assertEqual(self.card("banner").find_element(By.CSS_SELECTOR, ".strategy").text.lower(), "faces")
        self.assertEqual(harness.console_errors(self.driver), [])
        self.screenshot("gallery", jpeg=True)

    def test_dragging_a_corner_recrops_live(self):
        self.open()
        self.env.proxy.clear()
        before = self.shown("banner")
        grip = self.card("banner").find_element(By.CSS_SELECTOR, ".grip")
        chain = ActionChains(self.driver).click_and_hold(grip)
        for _ in range(8):
            chain.move_by_offset(-18, 9).pause(0.05)
        chain.release().perform()
        box = (before["width"] - 144, before["height"] + 72)
        self.assertEqual(self.card("banner").find_element(By.CSS_SELECTOR, ".size").text, f"{box[0]} × {box[1]} · free")
        expected = frame_size(*box, self.dpr)
        wait(self.driver, lambda d: tuple(self.shown("banner")["natural"]) == expected, 30, "the banner shows its new size")
        wait(self.driver, lambda d: tuple(self.shown("banner", "centre")["natural"]) == expected, 30, "so does its centre crop")
        # <focal-img> asks for format(auto) unless given a format.
        requested = [r["path"] for r in self.env.proxy.requests("/smart/filters:format(auto)/astronaut.png")]
        self.assertIn(f"/unsafe/{expected[0]}x{expected[1]}/smart/filters:format(auto)/astronaut.png", requested)
        self.assertGreater(len(requested), 1, "crops were asked for during the drag, not only at its end")
        time.sleep(1)
        self.assertEqual(tuple(self.shown("banner")["natural"]), expected, "nothing older replaced it")
        # Keyboard: arrows on the focused corner.
        grip.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
        box = (box[0] + 16, box[1])
        expected = frame_size(*box, self.dpr)
        wait(self.driver, lambda d: tuple(self.shown("banner")["natural"]) == expected, 30, "keyboard resize")
        # Restore brings back the named aspect.
        self.card("banner").find_element(By.CSS_SELECTOR, ".reset-size").click()
        wait(self.driver, lambda d: tuple(self.shown("banner")["natural"]) == frame_size(352, 198, self.dpr), 30)

    def test_what_focal_saw(self):
        self.open()
        plan = json.loads(fetch(self.env.focal.origin + "/v1/plan", "POST", json.dumps(
            {"source": {"path": "astronaut.png"}, "frames": [{"aspect": "16:9"}]}).encode(),
            {"Content-Type": "application/json"})[2])
        subjects = wait(self.driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#overlay .ov-subject"), 10)
        self.assertEqual(len(subjects), len(plan["subjects"]))
        tags = [t.text for t in self.driver.find_elements(By.CSS_SELECTOR, "#overlay .ov-tag")]
        self.assertTrue(any(t.startswith("Face ") and t.endswith("%") for t in tags), tags)
        # Pointing at a frame draws its crop, as the frame shows it now.
        for frame in ("card", "story"):
            ActionChains(self.driver).move_to_element(self.card(frame)).perform()
            wait(self.driver, lambda d: d.find_element(By.CSS_SELECTOR, "#overlay .ov-crop-label").text.startswith(
                frame.capitalize()), 5, f"the overlay shows the {frame}'s crop")
        crop = self.driver.execute_script("""const s = document.querySelector('#overlay .ov-crop').style;
            return [s.left, s.top, s.width, s.height].map(parseFloat)""")
        x, y, w, h = self.shown("story")["plan"]["crop"]
        self.assertAlmostEqual(crop[0], 100 * x / 512, places=2)
        self.assertAlmostEqual(crop[2], 100 * w / 512, places=2)
        self.screenshot("overlay")
        # No label covers another, nor the crop's own label.
        rects = self.driver.execute_script("""return [...document.querySelectorAll('#overlay .ov-tag:not([hidden]), #overlay .ov-crop-label')]
            .map((t) => { const r = t.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom, t.textContent]; })""")
        self.assertGreaterEqual(len(rects), 2)
        for i, a in enumerate(rects):
            for b in rects[i + 1:]:
                self.assertFalse(a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5, (a, b))
        # The panel shows a preview of its own size, not the whole original.
        src, natural, panel = self.driver.execute_script("""const img = document.getElementById('original');
            const r = document.getElementById('original-figure').getBoundingClientRect();
            return [img.currentSrc, img.naturalWidth, Math.max(r.width, r.height)]""")
        self.assertIn("/unsafe/fit-in/", src)
        self.assertIn("format(auto)", src)
        self.assertLessEqual(natural, max(panel, 400) * self.dpr + 200)
        self.driver.find_element(By.CSS_SELECTOR, ".switch").click()
        self.assertIn("plain", self.driver.find_element(By.ID, "original-figure").get_attribute("class"))

    def test_editor_moves_and_zooms_by_keys_and_pinch_and_keeps_the_opening_covered(self):
        self.open()
        self.card("card").find_element(By.CSS_SELECTOR, ".edit").click()
        stage = wait(self.driver, lambda d: d.find_element(By.ID, "stage") if d.execute_script(
            "return document.getElementById('editor').open") else None, 10)
        crop = lambda: json.loads(stage.get_attribute("data-crop"))
        start = crop()
        self.assertEqual(start["width"] * 5, start["height"] * 4, "4:5 exactly")
        stage.send_keys("+")
        zoomed = crop()
        self.assertLess(zoomed["width"], start["width"])
        stage.send_keys(Keys.ARROW_LEFT, Keys.ARROW_LEFT)  # the photo goes left: the crop goes right
        self.assertGreater(crop()["x"], zoomed["x"])
        before = crop()["width"]
        ActionChains(self.driver).scroll_from_origin(ScrollOrigin.from_element(stage), 0, -300).perform()
        wait(self.driver, lambda d: crop()["width"] < before, 5, "the wheel zooms in")
        before = crop()["width"]
        self.driver.find_element(By.ID, "zoom-out").click()
        self.assertGreater(crop()["width"], before, "the − button zooms out")
        # Pinch with two fingers moving apart: zooms in.
        r = self.driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.x, r.y, r.width, r.height]", stage)
        cx, cy = r[0] + r[2] / 2, r[1] + r[3] / 2
        before = crop()["width"]
        self.touch("touchStart", [(cx - 30, cy), (cx + 30, cy)])
        for d in range(1, 8):
            self.touch("touchMove", [(cx - 30 - 12 * d, cy), (cx + 30 + 12 * d, cy)])
        self.touch("touchEnd", [])
        self.assertLess(crop()["width"], before, "pinching out zooms in")
        # Zoomed out as far as it goes, the photo still covers the opening.
        for _ in range(40):
            stage.send_keys("-")
        covered = self.driver.execute_script("""
            const p = document.getElementById('stage-photo').getBoundingClientRect();
            const o = document.getElementById('opening').getBoundingClientRect();
            return p.left <= o.left + 0.5 && p.top <= o.top + 0.5 && p.right >= o.right - 0.5 && p.bottom >= o.bottom - 0.5;""")
        self.assertTrue(covered)
        self.assertEqual(crop()["height"], 510, "the largest 4:5 crop of a 512 px square photo")
        stage.send_keys(Keys.ESCAPE)
        wait_js(self.driver, "return !document.getElementById('editor').open", timeout=5)

    def test_portrait_photo_in_a_landscape_opening_and_the_reverse(self):
        for photo, frame, axis, fixed in (("grace_hopper.jpg", "banner", "y", "x"), ("chelsea.png", "story", "x", "y")):
            self.open(photo)
            self.card(frame).find_element(By.CSS_SELECTOR, ".edit").click()
            stage = wait(self.driver, lambda d: d.find_element(By.ID, "stage") if d.execute_script(
                "return document.getElementById('editor').open") else None, 10)
            start = json.loads(stage.get_attribute("data-crop"))
            chain = ActionChains(self.driver).move_to_element(stage).click_and_hold()
            # Drag towards the top left and back: the free axis moves, the other stays covered.
            chain.move_by_offset(-150, -150).move_by_offset(60, 60).release().perform()
            moved = json.loads(stage.get_attribute("data-crop"))
            self.assertNotEqual(moved[axis], start[axis], f"{photo}: the photo slides along {axis}")
            self.assertEqual(moved[fixed], start[fixed], f"{photo}: the photo fills the opening along {fixed}")
            self.screenshot(f"editor-{Path(photo).stem}-{frame}", jpeg=True)
            stage.send_keys(Keys.ESCAPE)
            wait_js(self.driver, "return !document.getElementById('editor').open", timeout=5)

    def touch(self, type, points):
        self.driver.execute_cdp_cmd("Input.dispatchTouchEvent", {
            "type": type, "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]})


class SavedCropTests(GalleryCase):
    """Save in the editor; the crop wins after a reload and a server restart; reset undoes it."""

    def test_saved_crop_survives_reload_and_restart_then_reset_restores_focal(self):
        self.driver.get_log("browser")
        self.open()
        automatic = self.shown("banner")["plan"]
        self.assertEqual(automatic["strategy"], "faces")
        self.card("banner").find_element(By.CSS_SELECTOR, ".edit").click()
        stage = wait(self.driver, lambda d: d.find_element(By.ID, "stage") if d.execute_script(
            "return document.getElementById('editor').open") else None, 10)
        self.assertEqual(json.loads(stage.get_attribute("data-crop")),
                         dict(zip(("x", "y", "width", "height"), automatic["crop"])), "the editor starts from Focal's crop")
        # Drag the photo up: the crop moves down the photo.
        ActionChains(self.driver).move_to_element(stage).click_and_hold().move_by_offset(0, -60) \
            .move_by_offset(0, -60).release().perform()
        chosen = json.loads(stage.get_attribute("data-crop"))
        self.assertGreater(chosen["y"], automatic["crop"][1])
        self.assertEqual(chosen["width"] * 9, chosen["height"] * 16)
        self.screenshot("editor", jpeg=True)
        self.driver.find_element(By.ID, "editor-save").click()
        self.enter_token()
        wait_js(self.driver, "return !document.getElementById('editor').open", timeout=15,
                message="the editor closes after saving: " + self.driver.find_element(By.ID, "editor-error").text)
        saved = [chosen["x"], chosen["y"], chosen["width"], chosen["height"]]

        def shows_saved(d):
            plan = self.shown("banner")["plan"]
            return plan and plan["strategy"] == "manual" and plan["crop"] == saved and plan.get("override")
        wait(self.driver, shows_saved, 30, "the frame shows the saved crop")
        self.assertEqual(self.card("banner").find_element(By.CSS_SELECTOR, ".strategy").text.lower(), "saved crop")
        # Other sizes of the same aspect use it too: a thumbor URL as any client makes it.
        status, headers, _ = fetch(self.env.focal.origin + "/unsafe/1600x900/smart/astronaut.png")
        self.assertEqual((status, headers.get("X-Focal-Strategy")), (200, "manual"))

        self.driver.refresh()
        self.wait_frames()
        self.assertTrue(shows_saved(self.driver), "after a reload")
        self.env.focal.restart()
        self.driver.refresh()
        self.wait_frames()
        self.assertTrue(shows_saved(self.driver), "after a server restart")

        # Reset: back to Focal's own crop.
        self.card("banner").find_element(By.CSS_SELECTOR, ".edit").click()
        wait_js(self.driver, "return document.getElementById('editor').open", timeout=10)
        self.assertIn("saved", self.driver.find_element(By.ID, "editor-origin").text)
        self.driver.find_element(By.ID, "editor-reset").click()
        wait_js(self.driver, "return !document.getElementById('editor').open", timeout=15)
        wait(self.driver, lambda d: self.shown("banner")["plan"]["strategy"] == "faces", 30, "automatic again")
        self.assertEqual(self.shown("banner")["plan"]["crop"], automatic["crop"])
        status, headers, _ = fetch(self.env.focal.origin + "/unsafe/1600x900/smart/astronaut.png")
        self.assertEqual(headers.get("X-Focal-Strategy"), "faces")
        self.assertEqual(harness.console_errors(self.driver), [])

        # Two editors, one new crop: this one opens with nothing saved, another saves first (as a
        # second tab would: PUT with If-None-Match: *). This save is then a 412, not an overwrite.
        self.card("banner").find_element(By.CSS_SELECTOR, ".edit").click()
        wait_js(self.driver, "return document.getElementById('editor').open", timeout=10)
        self.assertNotIn("saved", self.driver.find_element(By.ID, "editor-origin").text)
        image_id = "88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5"
        theirs = {"x": 0, "y": 0, "width": 512, "height": 288}
        status, _, body = fetch(f"{self.env.focal.origin}/v1/images/{image_id}/overrides/16x9", "PUT",
                                json.dumps(theirs).encode(), {"Authorization": f"Bearer {self.env.token}",
                                                             "Content-Type": "application/json", "If-None-Match": "*"})
        self.assertEqual(status, 201, body)
        self.driver.find_element(By.ID, "editor-save").click()
        wait(self.driver, lambda d: "Someone changed this crop" in d.find_element(By.ID, "editor-error").text, 15,
             "the second save is refused and said so")
        self.assertTrue(self.driver.execute_script("return document.getElementById('editor').open"))
        self.driver.find_element(By.ID, "editor").send_keys(Keys.ESCAPE)
        wait_js(self.driver, "return !document.getElementById('editor').open", timeout=10)
        status, _, body = fetch(f"{self.env.focal.origin}/v1/images/{image_id}/overrides/16x9")
        self.assertEqual(json.loads(body)["crop"] if status == 200 else None, theirs, "theirs was kept")
        fetch(f"{self.env.focal.origin}/v1/images/{image_id}/overrides/16x9", "DELETE",
              headers={"Authorization": f"Bearer {self.env.token}"})
        # The refused save is the only error the browser logged.
        errors = harness.console_errors(self.driver)
        self.assertEqual([("412" in e["message"] and "/overrides/16x9" in e["message"]) for e in errors], [True], errors)


class UploadTests(GalleryCase):
    def test_upload_asks_for_the_token_reports_a_wrong_one_and_shows_the_photo(self):
        self.open()
        # A photo the server does not have yet: a crop of one it has.
        status, _, data = fetch(self.env.focal.origin + "/unsafe/360x480/smart/filters:format(jpeg)/chelsea.png")
        self.assertEqual(status, 200)
        photo = self.env.workdir / "cat-portrait.jpg"
        photo.write_bytes(data)
        self.driver.find_element(By.ID, "upload-input").send_keys(str(photo))
        # A wrong token, sent with Enter: the server refuses it and the dialog comes back saying so.
        wait_js(self.driver, "return document.getElementById('token-dialog').open", timeout=10)
        self.assertFalse(self.driver.find_element(By.ID, "token-refused").is_displayed())
        self.driver.find_element(By.ID, "token-input").send_keys("not-the-token" + Keys.ENTER)
        wait_js(self.driver, "return document.getElementById('token-dialog').open && "
                "!document.getElementById('token-refused').hidden", timeout=15)
        self.assertTrue(self.driver.find_element(By.ID, "token-refused").is_displayed())
        self.screenshot("gallery-token-refused")
        # The right one, with Enter too (Enter continues; it used to cancel).
        self.driver.find_element(By.ID, "token-input").send_keys(self.env.token + Keys.ENTER)
        wait(self.driver, lambda d: "#id=" in d.current_url, 30, "the upload is selected")
        frames = self.wait_frames()
        self.assertTrue(all(f["src"].startswith("id:") for f in frames if f["frame"] != "thumb"))
        self.assertEqual(self.shown("avatar")["plan"]["strategy"], "pets")
        self.assertEqual(self.driver.execute_script("return sessionStorage.getItem('focal.token')"), self.env.token)


class PhotoRowTests(GalleryCase):
    def test_the_photo_row_is_one_tab_stop_moved_by_arrows(self):
        self.open("chelsea.png")
        stops = self.driver.execute_script(
            "return [...document.querySelectorAll('#photos button, #photos input')].filter((e) => e.tabIndex >= 0).map((e) => e.dataset.src || e.id)")
        self.assertEqual(stops, ["chelsea.png"], "one tab stop: the chosen photo")
        self.assertEqual(self.driver.find_element(By.ID, "photos").get_attribute("role"), "toolbar")
        # Tab from the control before the row lands on the chosen photo; the arrows move on.
        self.driver.execute_script("document.querySelector('.drop-hint').setAttribute('tabindex', '-1'); document.querySelector('.drop-hint').focus()")
        ActionChains(self.driver).send_keys(Keys.TAB).perform()
        focused = lambda: self.driver.execute_script("return document.activeElement.dataset.src || document.activeElement.id")
        self.assertEqual(focused(), "chelsea.png")
        ActionChains(self.driver).send_keys(Keys.ARROW_RIGHT).perform()
        after = focused()
        self.assertNotEqual(after, "chelsea.png")
        ActionChains(self.driver).send_keys(Keys.HOME).perform()
        self.assertEqual(focused(), "upload-input", "Home: the first control, the upload")
        ActionChains(self.driver).send_keys(Keys.END).perform()
        last = self.driver.execute_script("return [...document.querySelectorAll('.photo[data-src]')].at(-1).dataset.src")
        self.assertEqual(focused(), last)
        ActionChains(self.driver).send_keys(Keys.ENTER).perform()
        wait(self.driver, lambda d: self.driver.execute_script(
            "return document.querySelector('.photo[aria-pressed=true]').dataset.src") == last, 10, "Enter chooses it")
        # Tab leaves the row at once.
        ActionChains(self.driver).send_keys(Keys.TAB).perform()
        self.assertFalse(self.driver.execute_script("return document.getElementById('photos').contains(document.activeElement)"))

    def test_look_alike_names_stay_told_apart(self):
        """Long names that share their start keep their end: no two shown names are the same, and
        each button's accessible name is the whole name."""
        self.open()
        names = [f"Gnome Avalanche at the north ridge, take {n}" for n in (1, 2, 3)]
        for n, name in enumerate(names):
            # Three different photos (another size each), each uploaded as a person would.
            status, _, data = fetch(self.env.focal.origin + f"/unsafe/{300 + 20 * n}x400/smart/filters:format(jpeg)/chelsea.png")
            self.assertEqual(status, 200)
            path = self.env.workdir / f"{name}.jpg"
            path.write_bytes(data)
            self.driver.find_element(By.ID, "upload-input").send_keys(str(path))
            if n == 0:
                self.enter_token()
            wait(self.driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".photo[data-src^='id:']")) == n + 1, 30,
                 f"upload {n + 1} in the row")
        shown = self.driver.execute_script("""return [...document.querySelectorAll(".photo[data-src^='id:']")]
            .map((b) => [b.querySelector('.photo-name').textContent, b.querySelector('.photo-name').getBoundingClientRect().height,
                         b.querySelector('.photo-name').scrollHeight])""")
        texts = [t for t, *_ in shown]
        self.assertEqual(len(set(texts)), 3, texts)
        for text, height, scroll in shown:
            self.assertIn("…", text)
            self.assertLessEqual(scroll, height + 1, f"{text!r}: nothing clipped ({scroll} > {height})")
        labels = [b.accessible_name for b in self.driver.find_elements(By.CSS_SELECTOR, ".photo[data-src^='id:']")]
        self.assertEqual(sorted(labels), sorted(names))
        self.screenshot("gallery-look-alike-names")


class PhoneTests(GalleryCase):
    width, height, dpr, mobile = 390, 844, 3.0, True

    def test_phone_layout(self):
        # A photo larger than any frame at 2x: <focal-img> never asks for more pixels than the
        # source has, and the 512-px astronaut would make the sizes depend on answers' order.
        frames = self.open("hubble_deep_field.jpg")
        self.assert_sizes(frames)
        overflow = self.driver.execute_script("return document.scrollingElement.scrollWidth - innerWidth")
        self.assertLessEqual(overflow, 0, "nothing wider than the screen")
        self.screenshot("gallery-phone")
        self.driver.execute_script("document.getElementById('frames-title').scrollIntoView()")
        time.sleep(0.5)
        self.screenshot("gallery-phone-frames")

    def test_the_first_screen_shows_a_frame(self):
        """On a phone the frames come before the original: the first screen shows a crop."""
        self.open("chelsea.png")
        top, shown = self.driver.execute_script("""const card = document.querySelector('#frames .card focal-img');
            const box = card.getBoundingClientRect(); return [box.top, card.state]""")
        self.assertLess(top, self.height - 120, "a frame starts on the first screen, with room to see it")
        self.assertEqual(shown, "loaded")
        self.screenshot("gallery-phone-first-screen")

    def test_hidden_controls_stay_hidden_on_a_touch_screen(self):
        """The touch rule that sizes buttons (`.button{display:inline-flex}`) does not show a
        hidden one: each card's Restore appears only once its frame was reshaped."""
        self.open("chelsea.png")
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "pointer", "value": "coarse"}]})
        coarse = self.driver.execute_script("return matchMedia('(pointer: coarse)').matches")
        self.assertTrue(coarse, "the touch rules apply")
        shown = self.driver.execute_script("""return [...document.querySelectorAll('[hidden]')]
            .filter((e) => getComputedStyle(e).display !== 'none').map((e) => e.className || e.tagName)""")
        self.assertEqual(shown, [], "hidden controls shown on a touch screen")
        restores = self.driver.execute_script("return document.querySelectorAll('.reset-size').length")
        self.assertGreater(restores, 0)


class DarkTests(GalleryCase):
    dark = True

    def test_dark_scheme(self):
        self.open("chelsea.png")
        background = self.driver.execute_script("return getComputedStyle(document.body).backgroundColor")
        self.assertEqual(background, "rgb(17, 18, 20)")
        self.screenshot("gallery-dark", jpeg=True)


class SignedOnlyServerTests(unittest.TestCase):
    """A server without --allow-unsafe: the page signs every image URL through /v1/sign and reads
    the JSON API and the originals with the token (asked for once), and the frames show."""

    def test_gallery_signs_its_urls(self):
        env = harness.env
        focal = harness.Focal(env.focal.binary, env.focal.root, str(env.workdir / "signed-data"), env.token,
                              env.focal.key, str(env.workdir / "focal-signed.log"), env.focal.cwd, allow_unsafe=False)
        (env.workdir / "signed-data").mkdir(exist_ok=True)
        focal.start()
        driver = harness.make_driver(1280, 900)
        try:
            driver.get(focal.origin + "/#photo=coffee.png")
            wait_js(driver, "return document.getElementById('token-dialog').open", timeout=15)
            driver.find_element(By.ID, "token-input").send_keys(env.token)
            driver.find_element(By.CSS_SELECTOR, "#token-dialog button[value=ok]").click()

            def loaded(d):
                frames = d.execute_script(FRAMES_JS)
                return frames if frames and all(f["state"] == "loaded" for f in frames) else None
            frames = wait(driver, loaded, 60, "every frame shows a signed crop")
            urls = driver.execute_script("return [...document.querySelectorAll('focal-img')].map((el) => el.currentSrc)")
            self.assertTrue(all(not u.startswith("/unsafe/") and u.count("/") >= 3 for u in urls), urls)
            self.assertEqual(len(frames), 10 + 8)
            self.assertEqual(fetch(focal.origin + "/unsafe/100x100/coffee.png")[0], 403)
            # Signed-only means signed everything: the page reads the API with the token, a
            # visitor without it reads nothing of the photos.
            self.assertEqual(fetch(focal.origin + "/v1/photos")[0], 401)
            overlay = wait(driver, lambda d: d.execute_script(
                "return document.getElementById('original').naturalWidth || null"), 30, "the original shows (fetched with the token)")
            self.assertGreater(overlay, 0)
        finally:
            driver.quit()
            focal.stop()


class PublicPhotosServerTests(unittest.TestCase):
    """`--key --public-photos`, with and without `--token`: a visitor sees every photo, frame and
    preview without being asked for anything; the page's URLs are signed by /v1/page-urls, which
    signs nothing else; a server without a token shows no write controls."""

    def visit(self, token):
        env = harness.env
        name = "public-token" if token else "public-no-token"
        (env.workdir / name).mkdir(exist_ok=True)
        focal = harness.Focal(env.focal.binary, env.focal.root, str(env.workdir / name), token, env.focal.key,
                              str(env.workdir / f"focal-{name}.log"), env.focal.cwd, allow_unsafe=False,
                              extra_args=["--public-photos"])
        focal.start()
        driver = harness.make_driver(1280, 900)
        try:
            driver.get(focal.origin + "/#photo=chelsea.png")

            def loaded(d):
                frames = d.execute_script(FRAMES_JS)
                return frames if frames and all(f["state"] == "loaded" for f in frames) else None
            frames = wait(driver, loaded, 60, "every frame shows a signed crop, no token asked")
            self.assertFalse(driver.execute_script("return document.getElementById('token-dialog').open"))
            self.assertEqual(len(frames), 10 + 8)
            urls = driver.execute_script("return [...document.querySelectorAll('focal-img')].map((el) => el.currentSrc)")
            self.assertTrue(all("/unsafe/" not in u for u in urls), urls)
            preview = wait(driver, lambda d: d.execute_script(
                "const i = document.getElementById('original'); return i.naturalWidth ? i.currentSrc : null"), 30,
                "the original's preview shows")
            self.assertIn("/fit-in/", preview)
            self.assertNotIn("/unsafe/", preview)
            # What the page shows is signed for anyone; nothing else is.
            status, _, body = fetch(focal.origin + "/v1/page-urls", "POST", json.dumps(
                {"paths": ["300x300/smart/filters:quality(5)/chelsea.png"]}).encode(), {"Content-Type": "application/json"})
            self.assertEqual(status, 400, body)
            self.assertEqual(fetch(focal.origin + "/unsafe/100x100/chelsea.png")[0], 403)
            sample = driver.find_element(By.ID, "sample-url")
            wait(driver, lambda d: sample.get_attribute("href"), 15, "the sample URL is a signed one")
            self.assertEqual(fetch(sample.get_attribute("href"))[0], 200)
            self.assertIn("signer=", driver.find_element(By.ID, "snippet").text)
            writes = [e.is_displayed() for e in driver.find_elements(By.CSS_SELECTOR, ".photo.upload, .card .edit")]
            self.assertEqual(len(writes), 1 + 5)
            self.assertEqual(writes, [bool(token)] * 6, "write controls show only where the server has a token")
            driver.save_screenshot(str(env.screenshots / f"gallery-{name}.png"))
            self.assertEqual(harness.console_errors(driver), [])
        finally:
            driver.quit()
            focal.stop()

    def test_without_a_token(self):
        self.visit(None)

    def test_with_a_token(self):
        self.visit(harness.env.token)


class PrivateSignedServerTests(unittest.TestCase):
    """`--key` alone (no --public-photos, no --token): nothing can be shown to anyone, and there is
    no token to ask for: the page says so, and asks nothing."""

    def test_the_page_says_why_it_shows_nothing(self):
        env = harness.env
        (env.workdir / "private").mkdir(exist_ok=True)
        focal = harness.Focal(env.focal.binary, env.focal.root, str(env.workdir / "private"), None, env.focal.key,
                              str(env.workdir / "focal-private.log"), env.focal.cwd, allow_unsafe=False)
        focal.start()
        driver = harness.make_driver(1280, 900)
        try:
            driver.get(focal.origin + "/")
            notice = wait(driver, lambda d: d.find_element(By.ID, "private-notice")
                          if d.find_element(By.ID, "private-notice").is_displayed() else None, 15, "the notice shows")
            self.assertIn("--public-photos", notice.text)
            self.assertFalse(driver.execute_script("return document.getElementById('token-dialog').open"))
            self.assertEqual(driver.find_elements(By.CSS_SELECTOR, ".photo[data-src]"), [])
            driver.save_screenshot(str(env.screenshots / "gallery-private.png"))
            self.assertEqual(harness.console_errors(driver), [])
        finally:
            driver.quit()
            focal.stop()


class ShowcaseTests(unittest.TestCase):
    """Without a photo in the address, the gallery opens on a photo where Focal's crop differs
    visibly from the centre crop, not merely on the first one."""

    def test_the_gallery_opens_on_a_photo_focal_changes(self):
        env = harness.env
        root = env.workdir / "showcase-root"
        root.mkdir(exist_ok=True)
        fixtures = REPO / "Fixtures"
        # Sorted first: a still life whose smart crops lie close to the centre (every frame
        # overlaps its centre crop by more than 0.7); then a portrait whose centre banner cuts
        # through the eyes.
        (root / "a-coffee.png").write_bytes((fixtures / "coffee.png").read_bytes())
        (root / "b-astronaut.png").write_bytes((fixtures / "astronaut.png").read_bytes())
        (env.workdir / "showcase-data").mkdir(exist_ok=True)
        focal = harness.Focal(env.focal.binary, str(root), str(env.workdir / "showcase-data"), env.token, env.focal.key,
                              str(env.workdir / "focal-showcase.log"), env.focal.cwd)
        focal.start()
        driver = harness.make_driver(1280, 900)
        try:
            driver.get(focal.origin + "/")
            wait(driver, lambda d: "photo=" in d.current_url, 30, "a photo is chosen")
            self.assertTrue(driver.current_url.endswith("#photo=b-astronaut.png"), driver.current_url)
            pressed = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '.photo[aria-pressed="true"]'), 10)
            self.assertEqual(pressed[0].get_attribute("data-src"), "b-astronaut.png")
            # The choice, recomputed from the plans: coffee's crops stay near the centre,
            # the astronaut's banner does not.
            overlaps = driver.execute_async_script("""
                const done = arguments[arguments.length - 1];
                const frames = [[16, 9], [1, 1], [4, 5], [9, 16]];
                const iou = (a, b) => { const w = Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x));
                  const h = Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));
                  return w * h / (a.width * a.height + b.width * b.height - w * h); };
                Promise.all(['a-coffee.png', 'b-astronaut.png'].map(async (path) => {
                  const plan = await (await fetch('/v1/plan', {method: 'POST', headers: {'Content-Type': 'application/json'},
                    body: JSON.stringify({source: {path}, frames: frames.map(([p, q]) => ({aspect: `${p}:${q}`}))})})).json();
                  return Math.min(...plan.frames.map((f, i) => { const [p, q] = frames[i], W = plan.image.width, H = plan.image.height;
                    const w = Math.min(W, H * p / q), h = Math.min(H, W * q / p);
                    return iou(f.crop, {x: (W - w) / 2, y: (H - h) / 2, width: w, height: h}); }));
                })).then(done);""")
            self.assertGreater(overlaps[0], 0.7, "coffee: every frame close to the centre")
            self.assertLess(overlaps[1], 0.7, "astronaut: a frame far from the centre")
            # With the photo in the address, that photo and no other.
            driver.get("about:blank")
            driver.get(focal.origin + "/#photo=a-coffee.png")
            pressed = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '.photo[aria-pressed="true"]'), 30)
            self.assertEqual(pressed[0].get_attribute("data-src"), "a-coffee.png")
            self.assertEqual(harness.console_errors(driver), [])
        finally:
            driver.quit()
            focal.stop()
