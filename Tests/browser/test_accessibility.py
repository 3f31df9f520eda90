"""axe-core 4.12.1 (`scripts/setup.sh axe`) over the gallery and the open crop editor, on a desktop
and on a phone; and the phone layout: nothing wider than the screen, the editor's controls on it."""

import json
import unittest
from pathlib import Path

from selenium.webdriver.common.by import By

import harness
from harness import wait

AXE = Path(__file__).resolve().parents[2] / ".cache" / "axe" / "axe-4.12.1.min.js"
# Every WCAG 2.x A and AA rule, and axe's best practices.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


class AccessibilityTests(unittest.TestCase):
    width, height, dpr, mobile = 1280, 900, 1.0, False

    @classmethod
    def setUpClass(cls):
        cls.env = harness.env
        cls.driver = harness.make_driver(cls.width, cls.height, dpr=cls.dpr, mobile=cls.mobile)
        cls.axe = AXE.read_text()

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()

    def open_gallery(self):
        self.driver.get("about:blank")
        self.driver.get(f"{self.env.origin}/#photo=hubble_deep_field.jpg")
        states = "return [...document.querySelectorAll('focal-img')].map((e) => [e.closest('[data-frame]')?.dataset.frame || e.className, e.state, e.getBoundingClientRect().width, e.getBoundingClientRect().height])"
        try:
            # The photo row first (at the top), then, on a narrow phone, the last cards, which are
            # beyond the element's lazy margin until scrolled to.
            wait(self.driver, lambda d: d.execute_script(
                "const row = [...document.querySelectorAll('.photos focal-img')];"
                "return row.length > 0 && row.every((e) => e.state === 'loaded')"), 60, "the photo row shows")
            self.driver.execute_script("document.querySelector('.card:last-of-type')?.scrollIntoView()")
            wait(self.driver, lambda d: all(s[1] == "loaded" for s in d.execute_script(states) or [None]), 60, "every frame shows its crop")
            self.driver.execute_script("window.scrollTo(0, 0)")
        except Exception:
            self.driver.save_screenshot(str(self.env.screenshots / f"gallery-{self.width}-not-loaded.png"))
            raise AssertionError(f"not every frame shows its crop: {self.driver.execute_script(states)}")

    def violations(self, context="document"):
        """axe's violations on the page as it is now: [(rule, impact, [targets])]."""
        self.driver.execute_script(self.axe)
        result = self.driver.execute_async_script(f"""
            const done = arguments[arguments.length - 1];
            axe.run({context}, {{runOnly: {{type: 'tag', values: {json.dumps(TAGS)}}}, resultTypes: ['violations']}})
              .then((r) => done(r.violations.map((v) => [v.id, v.impact, v.nodes.map((n) => n.target.join(' ')).slice(0, 5),
                                                         v.nodes[0]?.failureSummary || ''])))
              .catch((e) => done([['axe-failed', 'critical', [String(e)], '']]));""")
        return [tuple(v) for v in result]

    def open_editor(self):
        self.driver.find_element(By.CSS_SELECTOR, '.card[data-frame="card"] .edit').click()
        wait(self.driver, lambda d: d.execute_script("return document.getElementById('editor').open"), 10, "the editor opens")
        wait(self.driver, lambda d: d.execute_script(
            "const s = document.getElementById('stage'); return s && s.dataset.crop"), 10, "the editor shows a crop")

    def test_the_gallery_has_no_violations(self):
        self.open_gallery()
        found = self.violations()
        self.assertEqual(found, [], "\n".join(f"{rule} ({impact}): {targets}\n  {summary}" for rule, impact, targets, summary in found))

    def test_the_open_editor_has_no_violations_and_its_controls_are_on_screen(self):
        self.open_gallery()
        self.open_editor()
        found = self.violations("document.getElementById('editor')")
        self.assertEqual(found, [], "\n".join(f"{rule} ({impact}): {targets}\n  {summary}" for rule, impact, targets, summary in found))
        # Every button of the editor within the screen, and no page wider than it.
        outside = self.driver.execute_script("""
            return [...document.querySelectorAll('#editor button')].filter((b) => b.offsetParent).map((b) => {
              const r = b.getBoundingClientRect();
              return [b.textContent.trim() || b.getAttribute('aria-label'), r.left, r.top, r.right, r.bottom];
            }).filter(([, l, t, r, bottom]) => l < 0 || t < 0 || r > innerWidth || bottom > innerHeight);""")
        self.assertEqual(outside, [], "editor controls off the screen")
        self.assertLessEqual(self.driver.execute_script("return document.scrollingElement.scrollWidth - innerWidth"), 0)
        self.driver.save_screenshot(str(self.env.screenshots / f"editor-{self.width}x{self.height}.png"))


class AccessibilityOnAPhone(AccessibilityTests):
    width, height, dpr, mobile = 390, 844, 3.0, True

    def test_the_gallery_is_no_wider_than_the_screen_and_its_touch_targets_are_44_px(self):
        self.open_gallery()
        self.driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")  # the footer too
        self.assertLessEqual(self.driver.execute_script("return document.scrollingElement.scrollWidth - innerWidth"), 0,
                             "nothing wider than the screen")
        # Links inside a sentence are exempt (WCAG 2.5.8's inline exception); an input hidden behind
        # its styled label is reached through the label.
        small = self.driver.execute_script("""
            return [...document.querySelectorAll('button, a[href], input, select, summary, [role=button]')]
              .filter((e) => e.offsetParent && getComputedStyle(e).visibility !== 'hidden')
              .filter((e) => !(e.localName === 'a' && getComputedStyle(e).display === 'inline'))
              .map((e) => e.localName === 'input' && e.labels?.length ? e.labels[0] : e).map((e) => {
                const r = e.getBoundingClientRect();
                return [e.id || e.className || e.textContent.trim().slice(0, 20), Math.round(r.width), Math.round(r.height)];
              }).filter(([, w, h]) => w < 44 || h < 44);""")
        self.assertEqual(small, [], "touch targets under 44 px")
        self.driver.save_screenshot(str(self.env.screenshots / "gallery-phone-footer.png"))


class NarrowestPhone(AccessibilityOnAPhone):
    """320 px, the narrowest phone still sold: the same layout checks."""
    width, height, dpr, mobile = 320, 640, 2.0, True


def load_tests(loader, tests, pattern):
    suite = unittest.TestSuite()
    for case in (AccessibilityTests, AccessibilityOnAPhone):
        suite.addTests(loader.loadTestsFromTestCase(case))
    wanted = set(loader.getTestCaseNames(NarrowestPhone))   # honours -k
    for name in ("test_the_gallery_is_no_wider_than_the_screen_and_its_touch_targets_are_44_px",
                 "test_the_open_editor_has_no_violations_and_its_controls_are_on_screen"):
        if name in wanted:
            suite.addTest(NarrowestPhone(name))
    return suite
