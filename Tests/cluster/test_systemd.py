"""deploy/systemd: the units parse cleanly (`systemd-analyze verify`, when installed; it runs
offline, without systemd as PID 1) and keep the hardening the deployment relies on."""
import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SYSTEMD = os.path.join(ROOT, "deploy", "systemd")
FOCAL = os.path.join(ROOT, ".build", "release", "focal")


def settings(path):
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith(("#", "[")) and "=" in line:
                key, value = line.split("=", 1)
                out.setdefault(key, []).append(value)
    return out


class SystemdTests(unittest.TestCase):
    def test_hardening(self):
        unit = settings(os.path.join(SYSTEMD, "focal@.service"))
        for key, value in {"DynamicUser": "yes", "ProtectSystem": "strict", "ProtectHome": "yes",
                           "PrivateTmp": "yes", "NoNewPrivileges": "yes", "Restart": "on-failure",
                           "SystemCallFilter": "@system-service", "StateDirectory": "focal/%i",
                           "CacheDirectory": "focal/%i"}.items():
            self.assertIn(value, unit.get(key, []), key)
        for key in ("MemoryMax", "TasksMax", "RestrictAddressFamilies", "EnvironmentFile"):
            self.assertIn(key, unit)

    @unittest.skipUnless(shutil.which("systemd-analyze"), "systemd-analyze is not installed")
    def test_verify(self):
        with tempfile.TemporaryDirectory() as folder:
            # verify checks that ExecStart exists: point it at this checkout's build when there is one.
            binary = FOCAL if os.path.exists(FOCAL) else "/bin/true"
            with open(os.path.join(SYSTEMD, "focal@.service")) as f:
                text = f.read().replace("/usr/local/bin/focal", binary)
            with open(os.path.join(folder, "focal@.service"), "w") as f:
                f.write(text)
            units = [os.path.join(folder, "focal@8081.service")]
            varnish = "/lib/systemd/system/varnish.service"
            if os.path.exists(varnish):
                shutil.copy(varnish, folder)
                shutil.copytree(os.path.join(SYSTEMD, "varnish.service.d"), os.path.join(folder, "varnish.service.d"))
                units.append(os.path.join(folder, "varnish.service"))
            for unit in units:
                with self.subTest(unit=os.path.basename(unit)):
                    out = subprocess.run(["systemd-analyze", "verify", "--man=no", unit],
                                         capture_output=True, text=True,
                                         env=dict(os.environ, SYSTEMD_UNIT_PATH=folder + ":"))
                    self.assertEqual(out.returncode, 0, out.stderr)
                    self.assertEqual(out.stderr.strip(), "", "systemd-analyze has warnings")


if __name__ == "__main__":
    unittest.main()
