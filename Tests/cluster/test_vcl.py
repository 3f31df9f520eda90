"""The VCL on its own: it compiles (varnishd -C); its regex takes the IMAGE part of thumbor's
grammar the way focal serve's parser does, so that every size of one photo has one shard key; and
varnishtest runs Tests/cluster/vcl/*.vtc, where scripted backends answer exactly as the test needs
(purges by xkey after a saved crop, a fetch crossing a purge, what is cached, Accept, retries).

    PYTHONPATH=scripts python3 -m unittest discover -s Tests/cluster -p 'test_vcl.py' -v

(the Makefile puts scripts/ on PYTHONPATH: focalscripts.cluster compiles the VCL.)
"""
import glob
import os
import re
import subprocess
import unittest

from focalscripts import cluster

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def shard_regex():
    """The pattern of the regsub() in vcl_recv that sets X-Focal-Shard for image URLs."""
    with open(cluster.VCL) as f:
        text = f.read()
    m = re.search(r'set req\.http\.X-Focal-Shard = regsub\(req\.url,\s*"([^"]+)",\s*"\\1"\);', text)
    assert m, "focal.vcl has no regsub() setting X-Focal-Shard from req.url"
    return re.compile(m.group(1))


class VCLTests(unittest.TestCase):
    def test_compiles_with_generated_backends(self):
        ok, output = cluster.vcl_compile()
        self.assertTrue(ok, f"varnishd -C failed:\n{output[-3000:]}")
        self.assertIn("VGC_function_vcl_recv", output)

    def test_compiles_with_the_example_backends(self):
        ok, output = cluster.vcl_compile(backends=os.path.join(ROOT, "deploy", "varnish", "backends.example.vcl"))
        self.assertTrue(ok, f"varnishd -C failed:\n{output[-3000:]}")

    def test_compiles_with_one_backend(self):
        ok, output = cluster.vcl_compile(ports=(8081,))
        self.assertTrue(ok, f"varnishd -C failed:\n{output[-3000:]}")

    def test_image_part(self):
        pattern = shard_regex()
        sig = "AbCdEfGhIjKlMnOpQrStUvWxYz0="
        cases = {
            "/unsafe/400x400/smart/astronaut.png": "astronaut.png",
            "/unsafe/1600x900/smart/astronaut.png": "astronaut.png",
            "/unsafe/astronaut.png": "astronaut.png",
            "/unsafe/meta/300x200/smart/astronaut.png": "astronaut.png",
            "/unsafe/10x20:300x400/200x0/astronaut.png?v=2": "astronaut.png",
            "/unsafe/fit-in/-300x-200/left/top/smart/astronaut.png": "astronaut.png",
            "/unsafe/adaptive-full-fit-in/origxorig/astronaut.png": "astronaut.png",
            "/unsafe/x/center/middle/astronaut.png": "astronaut.png",
            f"/{sig}/300x300/smart/filters:quality(80):format(webp)/photos/2024/cat.jpg": "photos/2024/cat.jpg",
            f"/{sig}/300x300/filters:watermark(http://x.example/w.png,0,0,0)/photos/cat.jpg": "photos/cat.jpg",
            "/unsafe/300x300/smart/filters:focal(10x10:50x50)/id:" + "a" * 64: "id:" + "a" * 64,
            "/unsafe/300x300/smart/https%3A%2F%2Fcdn.example.com%2Fp.jpg": "https%3A%2F%2Fcdn.example.com%2Fp.jpg",
            "/unsafe/300x300/https://cdn.example.com/a/p.jpg": "https://cdn.example.com/a/p.jpg",
        }
        for url, image in cases.items():
            with self.subTest(url=url):
                self.assertEqual(pattern.sub(r"\1", url), image)


class VarnishtestTests(unittest.TestCase):
    def test_vtc(self):
        files = sorted(glob.glob(os.path.join(HERE, "vcl", "*.vtc")))
        self.assertTrue(files)
        for path in files:
            with self.subTest(vtc=os.path.basename(path)):
                out = subprocess.run(["varnishtest", "-t", "120", "-D",
                                      f"focal={os.path.dirname(cluster.VCL)}", path],
                                     capture_output=True, text=True)
                self.assertEqual(out.returncode, 0, f"{os.path.basename(path)} failed:\n"
                                 + "\n".join(l for l in (out.stdout + out.stderr).splitlines()
                                             if l.startswith(("----", "*    top", "#"))))


if __name__ == "__main__":
    unittest.main()
