#!/usr/bin/env python3
"""Side-by-side timings for `make bench`: one crop of a 12 MP JPEG to 400x400, then throughput.

Runs each command in turn, interleaved, so that the machine's load falls on all of them alike,
and prints the median wall time and the peak memory (max RSS) of each. Commands:
  focal crop (faces, pets, people, saliency), focal crop --no-detect (centre crop, the
  decode/resize/encode floor), vipsthumbnail --smartcrop attention, vipsthumbnail (centre).
Then focal-bench: crops per second in one process on all cores, cold and cached, with peak memory.
"""
import os, resource, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOCAL = os.path.join(ROOT, ".build", "release", "focal")
WORK = os.path.join(ROOT, ".build", "bench")
RUNS = int(os.environ.get("BENCH_RUNS", "15"))


def sh(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def make_input():
    """A 4000x3000 (12 MP) JPEG made from the Grace Hopper fixture, enlarged and re-encoded."""
    os.makedirs(WORK, exist_ok=True)
    path = os.path.join(WORK, "12mp.jpg")
    if not os.path.exists(path):
        src = os.path.join(ROOT, "Fixtures", "grace_hopper.jpg")
        sh("vips", "resize", src, os.path.join(WORK, "big.v"), "8")  # 4096x4800
        sh("vips", "crop", os.path.join(WORK, "big.v"), path + "[Q=90]", "48", "900", "4000", "3000")
        os.remove(os.path.join(WORK, "big.v"))
    return path


def make_variants(image, count=16):
    """`count` copies of the 12 MP JPEG at different qualities: the same picture, distinct bytes,
    so that no cache can serve one from another."""
    folder = os.path.join(WORK, "variants")
    os.makedirs(folder, exist_ok=True)
    for i in range(count):
        path = os.path.join(folder, f"v{i:02}.jpg")
        if not os.path.exists(path):
            sh("vips", "copy", image, f"{path}[Q={80 + i}]")
    return folder


def run_one(cmd):
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = status
    elapsed = time.perf_counter() - start
    if status != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed with status {status}")
    return elapsed, usage.ru_maxrss / 1024.0


def main():
    image = make_input()
    out = os.path.join(WORK, "out")
    os.makedirs(out, exist_ok=True)
    vipsthumbnail = subprocess.run(["sh", "-c", "command -v vipsthumbnail"], capture_output=True, text=True).stdout.strip()
    commands = {
        "focal crop --size 400x400": [FOCAL, "crop", image, "--size", "400x400", "-o", f"{out}/focal.jpg"],
        "focal crop --size 400x400 --no-detect": [FOCAL, "crop", image, "--size", "400x400", "--no-detect", "-o", f"{out}/centre.jpg"],
        "vipsthumbnail --smartcrop attention": [vipsthumbnail, image, "--size", "400x400", "--smartcrop", "attention", "-o", f"{out}/attention.jpg"],
        "vipsthumbnail --smartcrop centre": [vipsthumbnail, image, "--size", "400x400", "--smartcrop", "centre", "-o", f"{out}/vcentre.jpg"],
    }
    times = {k: [] for k in commands}
    rss = {k: 0.0 for k in commands}
    for name, cmd in commands.items():  # warm-up: page cache, model files
        run_one(cmd)
    for _ in range(RUNS):
        for name, cmd in commands.items():
            t, m = run_one(cmd)
            times[name].append(t)
            rss[name] = max(rss[name], m)
    base = statistics.median(times["vipsthumbnail --smartcrop attention"])
    print(f"One crop of a 12 MP JPEG (4000x3000) to 400x400, whole process, median of {RUNS} interleaved runs")
    print(f"{'command':42} {'median ms':>10} {'vs attention':>13} {'peak MB':>8}")
    for name in commands:
        m = statistics.median(times[name])
        print(f"{name:42} {m * 1000:10.1f} {m / base:12.2f}x {rss[name]:8.1f}")
    print(f"(a full 12 MP decode would hold {4000 * 3000 * 3 / 1e6:.0f} MB of pixels)")
    print()
    sys.stdout.flush()
    bench = os.path.join(ROOT, ".build", "release", "focal-bench")
    env = dict(os.environ, FOCAL_MODELS=os.path.join(ROOT, "models"))
    subprocess.run([bench, make_variants(image), os.environ.get("BENCH_ROUNDS", "3")], check=True, env=env)


if __name__ == "__main__":
    main()
