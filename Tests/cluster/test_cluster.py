"""The cluster under test: SeaweedFS for the originals and uploads, PostgreSQL, three `focal serve`
replicas (--auto-format) sharing both, and Varnish with deploy/varnish/focal.vcl in front, started on loopback by focalscripts.cluster (the
machinery `make cluster` uses) once for this module and stopped at its end.

    make test-cluster     (or: PYTHONPATH=scripts python3 -m unittest discover -s Tests/cluster -v)

FOCAL_BIN picks the focal binary (default .build/release/focal). Tests run in the order of their
names; the fault tests, which kill and restart a replica and then the store, run last.
"""
import concurrent.futures
import json
import os
import random
import re
import signal
import sys
import tempfile
import time
import unittest

from focalscripts import cluster, wrk
from focalscripts.web import get, metric_sum, request

CLUSTER = None
PHOTOS = []  # [(path, id)]


def report(message):
    print(f"\n  [cluster] {message}", file=sys.stderr, flush=True)


def setUpModule():
    global CLUSTER, PHOTOS
    CLUSTER = cluster.Cluster(replicas=3, focal_args=["--auto-format"])
    CLUSTER.start()
    status, _, body = get(CLUSTER.base + "/v1/photos")
    assert status == 200, f"/v1/photos answered {status}"
    PHOTOS = [(p["path"], p["id"]) for p in json.loads(body)["photos"]]
    assert len(PHOTOS) >= 4, f"need at least 4 photos under {CLUSTER.root}, found {len(PHOTOS)}"


def tearDownModule():
    left = CLUSTER.stop() if CLUSTER else []
    if left:
        raise AssertionError("processes left after stopping the cluster:\n" +
                             "\n".join(f"  {pid} {cmd}" for pid, cmd in left))


def plan(headers):
    return json.loads(headers.get("x-focal-plan", "{}"))


def image_requests(replica):
    """Image requests a replica has answered so far (any status)."""
    return metric_sum(replica.metrics(), "focal_http_requests_total", route="/**")


def snapshot():
    """{replica name: (image requests, detections, renders)}."""
    out = {}
    for r in CLUSTER.replicas:
        m = r.metrics()
        out[r.name] = (metric_sum(m, "focal_http_requests_total", route="/**"),
                       metric_sum(m, "focal_detections_total"), metric_sum(m, "focal_renders_total"))
    return out


def delta(before, after):
    return {name: tuple(a - b for a, b in zip(after[name], before[name])) for name in after}


class Test1Sharding(unittest.TestCase):
    """(b) Every size of one photo reaches one replica, which detects it once."""

    SIZES = ["400x400", "640x360", "360x640", "300x240", "200x200", "1200x630", "96x96", "meta/500x500"]  # meta/ last

    def test_all_sizes_of_a_photo_reach_one_replica(self):
        owners = {}
        for path, _ in PHOTOS:
            before = snapshot()
            backends = set()
            first = None
            for i, size in enumerate(self.SIZES):
                status, headers, body = get(f"{CLUSTER.base}/unsafe/{size}/smart/{path}")
                self.assertEqual(status, 200, f"{size} {path}: {body[:200]!r}")
                self.assertEqual(headers.get("x-cache"), "MISS")
                backends.add(headers.get("x-focal-backend"))
                if i == 0:
                    first = delta(before, snapshot())
                if i == len(self.SIZES) - 2:
                    images = delta(before, snapshot())
            after = delta(before, snapshot())
            self.assertEqual(len(backends), 1, f"{path} went to {backends}")
            owner = backends.pop()
            owners[path] = owner
            for name, (requests, detections, renders) in after.items():
                if name == owner:
                    # meta/ is served by the same catch-all route as the images (`/**`), and
                    # metrics label a request by the route it matched: every size counts.
                    self.assertEqual(requests, len(self.SIZES), f"{path} on {name}")
                    self.assertGreater(detections, 0, f"{path}: its replica did not detect")
                    # The first size detected; the other six image sizes reused it. (meta/, last,
                    # lists what every detector finds, so it may run the ones a crop skipped.)
                    self.assertEqual(images[name][1], first[name][1], f"{path}: detected again for another size")
                else:
                    self.assertEqual((requests, detections, renders), (0, 0, 0), f"{path} reached {name}")
        spread = {}
        for path, owner in owners.items():
            spread.setdefault(owner, []).append(path)
        report("photos per replica: " + "; ".join(f"{k}: {', '.join(sorted(v))}" for k, v in sorted(spread.items())))
        # With 8 photos and 3 replicas the hash ring spreads them (deterministic for these names).
        self.assertGreater(len(spread), 1)


class Test2Cache(unittest.TestCase):
    """(a) One request warms the cache for every replica; identical misses are coalesced."""

    def test_second_request_is_a_varnish_hit(self):
        url = f"{CLUSTER.base}/unsafe/333x222/smart/{PHOTOS[0][0]}"
        status, first, _ = get(url)
        self.assertEqual(status, 200)
        self.assertEqual(first["x-cache"], "MISS")
        self.assertEqual(len(first["x-varnish"].split()), 1)
        time.sleep(1.1)
        before = snapshot()
        status, second, body = get(url)
        self.assertEqual(status, 200)
        self.assertEqual(second["x-cache"], "HIT")
        self.assertEqual(len(second["x-varnish"].split()), 2, second["x-varnish"])
        self.assertGreaterEqual(int(second["age"]), 1)
        self.assertEqual(second["etag"], first["etag"])
        self.assertEqual(delta(before, snapshot()), {r.name: (0, 0, 0) for r in CLUSTER.replicas},
                         "a replica was asked again")

    def test_identical_misses_wait_for_one_fetch(self):
        url = f"{CLUSTER.base}/unsafe/777x444/smart/{PHOTOS[1][0]}"
        before = snapshot()
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda _: get(url), range(8)))
        self.assertEqual([a[0] for a in answers], [200] * 8)
        states = sorted(a[1]["x-cache"] for a in answers)
        self.assertEqual(states, ["HIT"] * 7 + ["MISS"], states)
        self.assertEqual(len({a[2] for a in answers}), 1)
        moved = delta(before, snapshot())
        self.assertEqual(sum(v[0] for v in moved.values()), 1, moved)
        self.assertEqual(sum(v[2] for v in moved.values()), 1, moved)

    def test_one_variant_per_format(self):
        url = f"{CLUSTER.base}/unsafe/300x300/smart/{PHOTOS[2][0]}"
        chrome = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
        # --auto-format: AVIF for browsers that take it, WebP for those that take only WebP, JPEG
        # for the rest; Varnish keeps one object per variant, whatever else each Accept says.
        s1, h1, b1 = get(url, headers={"Accept": chrome})
        s2, h2, b2 = get(url, headers={"Accept": "image/webp,image/avif,*/*"})
        s3, h3, b3 = get(url, headers={"Accept": "image/webp,*/*"})
        s4, h4, b4 = get(url, headers={"Accept": "image/avif;q=0,image/webp"})
        s5, h5, b5 = get(url, headers={"Accept": "text/html,*/*;q=0.8"})
        s6, h6, b6 = get(url)
        self.assertEqual([s1, s2, s3, s4, s5, s6], [200] * 6)
        types = [h["content-type"] for h in (h1, h2, h3, h4, h5, h6)]
        self.assertEqual(types, ["image/avif"] * 2 + ["image/webp"] * 2 + ["image/jpeg"] * 2)
        self.assertEqual([h["x-cache"] for h in (h1, h2, h3, h4, h5, h6)], ["MISS", "HIT", "MISS", "HIT", "MISS", "HIT"])
        self.assertEqual((b1, b3, b5), (b2, b4, b6))
        self.assertEqual(b1[4:12], b"ftypavif")
        self.assertEqual(b3[8:12], b"WEBP")
        self.assertEqual(b5[:3], b"\xff\xd8\xff")
        self.assertLess(len(b1), len(b5))
        self.assertEqual(h1.get("vary"), "Accept")

    def test_query_strings_share_one_object(self):
        url = f"{CLUSTER.base}/unsafe/222x111/smart/{PHOTOS[3][0]}"
        before = snapshot()
        s1, h1, b1 = get(url + "?cb=1")
        s2, h2, b2 = get(url + "?cb=2")
        self.assertEqual((s1, s2), (200, 200))
        self.assertEqual((h1["x-cache"], h2["x-cache"]), ("MISS", "HIT"))
        self.assertEqual(b1, b2)
        moved = delta(before, snapshot())
        self.assertEqual(sum(v[0] for v in moved.values()), 1, f"one backend fetch: {moved}")

    def test_varnish_refuses_what_focal_would(self):
        status, headers, body = get(CLUSTER.base + "/metrics")
        self.assertEqual(status, 404)
        self.assertEqual(json.loads(body)["code"], "request.not_found")
        self.assertEqual(headers.get("x-focal-backend"), None, "answered by Varnish, not a replica")
        status, _, body = request("PATCH", f"{CLUSTER.base}/unsafe/100x100/smart/{PHOTOS[0][0]}")
        self.assertEqual((status, json.loads(body)["code"]), (405, "request.invalid"))
        status, _, body = get(f"{CLUSTER.base}/unsafe/100x100/smart/{'a' * 9000}.png")
        self.assertEqual((status, json.loads(body)["code"]), (414, "request.too_large"))
        status, _, body = get(f"{CLUSTER.base}/unsafe/100x100/smart/a%00.png")
        self.assertEqual((status, json.loads(body)["code"]), (400, "request.invalid"))

    def test_errors_are_not_cached_but_404s_briefly(self):
        s1, h1, b1 = get(f"{CLUSTER.base}/unsafe/100x100/smart/no-such-photo.jpg")
        s2, h2, _ = get(f"{CLUSTER.base}/unsafe/100x100/smart/no-such-photo.jpg")
        self.assertEqual((s1, s2), (404, 404))
        self.assertEqual((h1["x-cache"], h2["x-cache"]), ("MISS", "HIT"))
        self.assertEqual(h2["cache-control"], "no-store")
        self.assertIn("code", json.loads(b1))
        bad = f"{CLUSTER.base}/unsafe/100x100/filters:nonsense(1)/{PHOTOS[0][0]}"
        s3, h3, _ = get(bad)
        s4, h4, _ = get(bad)
        self.assertEqual((s3, s4), (400, 400))
        self.assertEqual((h3["x-cache"], h4["x-cache"]), ("MISS", "MISS"))


class Test3Overrides(unittest.TestCase):
    """(c) A crop saved through any replica is what every replica and Varnish serve at once;
    deleting it restores the automatic crop."""

    def urls(self, path):
        return [f"/unsafe/{s}/smart/{path}" for s in ("320x180", "640x360", "1280x720")]

    def through_varnish(self, urls):
        out = []
        for u in urls:
            status, headers, body = get(CLUSTER.base + u)
            self.assertEqual(status, 200, f"{u}: {body[:200]!r}")
            out.append((plan(headers), headers.get("x-cache")))
        return out

    def at_each_replica(self, urls):
        return [(r.name, plan(get(r.base + u)[1])) for r in CLUSTER.replicas for u in urls]

    def write(self, method, base, image, crop=None, extra=None):
        headers = {"Authorization": f"Bearer {CLUSTER.token}", "Content-Type": "application/json"}
        headers.update(extra or {})
        body = json.dumps(crop).encode() if crop else None
        return request(method, f"{base}/v1/images/{image}/overrides/16x9", body=body, headers=headers)

    def test_saved_crop_everywhere_at_once(self):
        path, image = next(p for p in PHOTOS if p[0] == "astronaut.png") if any(
            p[0] == "astronaut.png" for p in PHOTOS) else PHOTOS[0]
        urls = self.urls(path)
        square = f"/unsafe/400x400/smart/{path}"
        # Cached, automatic.
        self.through_varnish(urls + [square])
        cached = self.through_varnish(urls + [square])
        self.assertTrue(all(p["strategy"] != "manual" and c == "HIT" for p, c in cached), cached)

        # Saved through Varnish (which sends it to one replica): purged, and manual at once.
        status, headers, body = self.write("PUT", CLUSTER.base, image.upper(), {"x": 0, "y": 100, "width": 512, "height": 288})
        self.assertIn(status, (200, 201), body)
        revision = json.loads(body)["revision"]
        self.assertGreaterEqual(int(headers.get("x-focal-purged", "0")), 4, headers)
        after = self.through_varnish(urls)
        self.assertEqual([(p["strategy"], p.get("override"), c) for p, c in after],
                         [("manual", revision, "MISS")] * 3)
        self.assertEqual([p["crop"] for p, _ in after][0], [0, 100, 512, 288])
        for name, p in self.at_each_replica(urls):
            self.assertEqual((p["strategy"], p.get("override")), ("manual", revision), name)
        # Another aspect of the same image was purged too (one tag per image), and stays automatic.
        status, sq, _ = get(CLUSTER.base + square)
        self.assertEqual((plan(sq)["strategy"] != "manual", sq["x-cache"]), (True, "MISS"))

        # Saved directly on a replica, bypassing Varnish: every replica has it at once (one
        # database), Varnish still holds the previous result until someone purges the tag.
        replica = CLUSTER.replicas[-1]
        status, _, body = self.write("PUT", replica.base, image, {"x": 0, "y": 0, "width": 512, "height": 288},
                                     {"If-Match": f'"{revision}"'})
        self.assertEqual(status, 200, body)
        newer = json.loads(body)["revision"]
        for name, p in self.at_each_replica(urls):
            self.assertEqual(p.get("override"), newer, name)
        self.assertEqual({p.get("override") for p, _ in self.through_varnish(urls)}, {revision})
        status, headers, body = request("PURGE", CLUSTER.base + "/", headers={"xkey": image})
        self.assertEqual(status, 200, body)
        self.assertEqual([(p.get("override"), p["crop"][1]) for p, _ in self.through_varnish(urls)], [(newer, 0)] * 3)

        # A stale write (old revision) is refused and purges nothing.
        status, headers, _ = self.write("PUT", CLUSTER.base, image, {"x": 0, "y": 50, "width": 512, "height": 288},
                                        {"If-Match": f'"{revision}"'})
        self.assertEqual(status, 412)
        self.assertNotIn("x-focal-purged", headers)
        self.assertEqual({c for _, c in self.through_varnish(urls)}, {"HIT"})

        # Deleted through Varnish: automatic again everywhere, at once.
        status, headers, _ = self.write("DELETE", CLUSTER.base, image)
        self.assertEqual(status, 204)
        self.assertGreaterEqual(int(headers.get("x-focal-purged", "0")), 3)
        restored = self.through_varnish(urls)
        self.assertTrue(all(p["strategy"] != "manual" and "override" not in p and c == "MISS" for p, c in restored), restored)
        for name, p in self.at_each_replica(urls):
            self.assertNotEqual(p["strategy"], "manual", name)


class Test9Fault(unittest.TestCase):
    """(d) Under wrk load through Varnish, the replica with the most photos is SIGKILLed, then
    restarted: no request fails (Varnish retries the killed replica's requests on the next one on
    the ring), and traffic returns to it once its probe is healthy again."""

    SECONDS = int(os.environ.get("CLUSTER_FAULT_SECONDS", "32"))

    def test_kill_and_restart_a_replica_under_load(self):
        rng = random.Random(12)
        # Many distinct URLs (each a miss that a replica renders), every photo in rotation.
        paths = [f"/unsafe/{w}x{w * 3 // 4}/smart/{p}" for w in range(48, 1048) for p, _ in PHOTOS]
        rng.shuffle(paths)
        owners = {}
        for p, _ in PHOTOS:
            status, headers, _ = get(f"{CLUSTER.base}/unsafe/40x30/smart/{p}")
            self.assertEqual(status, 200)
            owners.setdefault(headers["x-focal-backend"], []).append(p)
        victim_name = max(owners, key=lambda n: len(owners[n]))
        victim = next(r for r in CLUSTER.replicas if r.name == victim_name)

        with tempfile.TemporaryDirectory() as folder:
            # focalscripts/wrk.lua, counting every answer by status, replica, cache state and retry.
            load = wrk.Run(CLUSTER.base, paths, self.SECONDS, 2, 8, folder, count=True, timeout=30)
            start = time.monotonic()
            try:
                time.sleep(6)
                served_before = image_requests(victim)
                retries_before = CLUSTER.varnish.stats().get("MAIN.fetch_failed", 0)
                victim.kill(signal.SIGKILL)
                killed = time.monotonic()
                sick_at = CLUSTER.wait_health(victim_name, False)
                time.sleep(max(0, 13 - (time.monotonic() - start)))
                restarted = time.monotonic()
                victim.start()
                ready = time.monotonic()
                healthy_at = CLUSTER.wait_health(victim_name, True)
                time.sleep(4)
                served_after = image_requests(victim)
            finally:
                out, err = load.popen.communicate(timeout=self.SECONDS + 60)
        self.assertEqual(load.popen.returncode, 0, err)
        result = wrk.parse(out, err)
        stats = CLUSTER.varnish.stats()
        report(
            f"fault: {victim_name} (photos {', '.join(owners[victim_name])}) served {served_before:.0f} image "
            f"requests, SIGKILL at {killed - start:.1f} s, marked sick {sick_at - killed:.1f} s later; "
            f"restarted at {restarted - start:.1f} s, ready in {ready - restarted:.1f} s, healthy in Varnish "
            f"{healthy_at - restarted:.1f} s after the restart, then served {served_after:.0f} in 4 s. wrk: "
            f"{result['requests']} requests in {result['duration_us'] / 1e6:.1f} s, statuses {result['statuses']}, "
            f"errors connect/read/write/timeout {result['connect_errors']}/{result['read_errors']}/"
            f"{result['write_errors']}/{result['timeouts']}, non-2xx {result['http_errors']}; answered after a "
            f"retry on another replica: {result['retried']}; backend fetches that failed and were retried: "
            f"{stats.get('MAIN.fetch_failed', 0) - retries_before:.0f}; by replica {result['backends']}; "
            f"cache {result['caches']}; p50 {result['p50_us'] / 1000:.0f} ms, p99 {result['p99_us'] / 1000:.0f} ms")
        self.assertGreater(result["requests"], 100)
        self.assertEqual(result["answers"], result["requests"])
        self.assertEqual((result["connect_errors"], result["read_errors"], result["write_errors"],
                          result["timeouts"], result["http_errors"]), (0, 0, 0, 0, 0))
        self.assertEqual(set(result["statuses"]), {"200"})
        # The kill did hit requests: some were answered only after a retry elsewhere.
        self.assertGreater(result["retried"], 0)
        # Traffic came back to the restarted replica (its counters started again at zero).
        self.assertGreater(served_after, 0)


class TestStoreFault(unittest.TestCase):
    """The originals and uploads live in SeaweedFS (the replicas' --root is s3://photos/site):
    an upload through one replica is served by another at once; under load through Varnish the
    store is SIGKILLed, then restarted: every answer meanwhile is an image (cached, or a photo
    whose result a replica holds) or a clear 503 storage.unavailable, none hangs, and once the
    store is back the same replicas serve new crops again, without a restart."""

    SECONDS = int(os.environ.get("CLUSTER_STORE_FAULT_SECONDS", "20"))

    def test_uploads_are_shared_and_a_store_outage_is_a_clear_503(self):
        store = CLUSTER.seaweedfs
        self.assertIsNotNone(store, "the cluster runs on SeaweedFS")
        first, second = CLUSTER.replicas[0], CLUSTER.replicas[1]
        with open(os.path.join(CLUSTER.root, "coffee.png"), "rb") as f:
            upload = f.read()
        status, _, body = request("POST", first.base + "/v1/images", body=upload,
                                  headers={"Authorization": f"Bearer {CLUSTER.token}"})
        self.assertEqual(status, 201, body)
        image = json.loads(body)["id"]
        status, _, original = get(f"{second.base}/v1/images/{image}")
        self.assertEqual((status, original == upload), (200, True), "the other replica has it at once")
        status, _, _ = get(f"{second.base}/unsafe/150x150/smart/id:{image}")
        self.assertEqual(status, 200)

        cached = [f"/unsafe/{w}x{w}/smart/{p}" for w in (64, 96) for p, _ in PHOTOS]
        for path in cached:
            self.assertEqual(get(CLUSTER.base + path)[0], 200, path)
        misses = [f"/unsafe/{w}x{w * 2 // 3}/smart/{p}" for w in range(120, 900, 3) for p, _ in PHOTOS]
        random.Random(7).shuffle(misses)
        with tempfile.TemporaryDirectory() as folder:
            load = wrk.Run(CLUSTER.base, cached + misses, self.SECONDS, 2, 8, folder, count=True, timeout=30)
            start = time.monotonic()
            try:
                time.sleep(4)
                store.kill()
                killed = time.monotonic()
                status, headers, body = get(f"{CLUSTER.base}/unsafe/333x222/smart/{PHOTOS[0][0]}")
                down = (status, headers.get("retry-after"), json.loads(body or b"{}").get("code"), time.monotonic() - killed)
                time.sleep(max(0, 11 - (time.monotonic() - start)))
                store.start()
                back = time.monotonic()
            finally:
                out, err = load.popen.communicate(timeout=self.SECONDS + 60)
        self.assertEqual(load.popen.returncode, 0, err)
        result = wrk.parse(out, err)
        status, _, _ = get(f"{CLUSTER.base}/unsafe/321x214/smart/{PHOTOS[1][0]}")
        report(
            f"store fault: SeaweedFS SIGKILLed at {killed - start:.1f} s (a new crop then: {down[0]} "
            f"{down[2]}, Retry-After {down[1]}, in {down[3] * 1000:.0f} ms), restarted at {back - start:.1f} s; wrk: "
            f"{result['requests']} requests, statuses {result['statuses']}, errors connect/read/write/timeout "
            f"{result['connect_errors']}/{result['read_errors']}/{result['write_errors']}/{result['timeouts']}, "
            f"cache {result['caches']}, p99 {result['p99_us'] / 1000:.0f} ms; after the restart a new crop: {status}")
        self.assertEqual(down[:3], (503, "1", "storage.unavailable"))
        self.assertLess(down[3], 10, "a clear answer, not a hang")
        self.assertGreater(result["requests"], 50)
        self.assertEqual(result["answers"], result["requests"])
        self.assertEqual((result["connect_errors"], result["read_errors"], result["write_errors"], result["timeouts"]), (0, 0, 0, 0))
        self.assertLessEqual(set(result["statuses"]), {"200", "503"}, result["statuses"])
        self.assertIn("503", result["statuses"], "the outage was seen")
        self.assertEqual(status, 200, "served again with the same replicas")


if __name__ == "__main__":
    unittest.main()
