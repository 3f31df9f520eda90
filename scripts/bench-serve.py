#!/usr/bin/env python3
"""`make bench-serve`: `focal serve` against thumbor 7.8, side by side in one run, driven by wrk.

Both servers listen on loopback, read the same photos from the same folder, run on the same cores,
and each case starts each server afresh with a temporary folder of its own. Cases:

  cold    `WxH/smart/` crops with detection: every request names a different file (copies of the
          12 MP photos that differ only in a JPEG comment, so no cache keyed by content, path or
          URL can answer and every request decodes and detects) at one of several sizes.
  manual  `AxB:CxD/WxH/` crops, no detection: every request a different crop rectangle.
  cache   the same 8 `smart` URLs again and again after one request each: Focal's memory cache;
          thumbor's file result storage (its only built-in result cache), turned on for this case
          only.

thumbor runs as N single-process instances, N the number of cores, each on its own port, and wrk
thread i talks to instance i mod N (so wrk's threads are a multiple of N). thumbor handles one
image at a time per process. Its pre-fork mode (`--processes N`) shares one listening socket, and
with wrk's keep-alive connections the first worker to wake accepted nearly all of them (measured:
4.6 CPU seconds against 0.3 in the cache case), leaving a core idle; separate instances, as behind
a balancer, use every core. Its configuration: file loader, the OpenCV face detector
(`thumbor.detectors.face_detector`), no storage of originals or of detector results
(`no_storage`), JPEG quality 85 (Focal's default), signed URLs only. Focal runs with the flags of
`focal serve` at their defaults plus FOCAL_SERVE_ARGS. Both get the same signing key.

wrk rotates over the URL list with scripts/bench-serve.lua (threads never share a URL; a URL is
sent again only after its thread has sent all of its own, and such wraps are reported). Reported:
requests/s, p50 and p99 latency, peak resident memory (each process's VmHWM, summed over
thumbor's instances), socket errors and timeouts, and HTTP responses with a status of 400 or more.
Before wrk starts, each server answers warm-up requests (distinct from the measured ones, except
in the cache case, where they fill the cache), and each answer is checked: a 200 image of the
requested size.

Photos: the repository's real photos (Fixtures/, and ../shared/eval/dev/*.jpg when present)
enlarged to about 12 MP with `vips`, given a light grain so that their files are as large as a
camera's (1-3.5 MB rather than the 0.3-1 MB of a smooth enlargement), and saved at several JPEG
qualities: built once into .cache/bench-serve/photos/base/. Results are also written to .cache/bench-serve/results.json.

Options: --only thumbor|focal, --cases cold,manual,cache, --quick (3 s per case, for CI).
Environment: BENCH_THREADS (wrk threads, default 2), BENCH_CONNECTIONS (8), BENCH_COLD_SECONDS
(20), BENCH_MANUAL_SECONDS (20), BENCH_CACHE_SECONDS (10), BENCH_COLD_FILES (distinct cold
files, 800), BENCH_THUMBOR_INSTANCES (the number of cores), BENCH_THUMBOR_DETECTORS
(comma-separated modules, default thumbor.detectors.face_detector), FOCAL_BIN
(.build/release/focal), FOCAL_SERVE_ARGS (extra `focal serve` flags).
"""
import argparse
import concurrent.futures
import json
import math
import os
import random
import shlex
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import imageservers  # noqa: E402
from imageservers import ROOT, FocalServer, ThumborServer, get, image_size, signed  # noqa: E402

WORK = os.path.join(ROOT, ".cache", "bench-serve")
PHOTOS = os.path.join(WORK, "photos")
LUA = os.path.join(ROOT, "scripts", "bench-serve.lua")
DEV = os.path.join(ROOT, "..", "shared", "eval", "dev")
KEY = "focal-bench-serve-key"
MEGAPIXELS = 12
GRAIN = 5
RECIPE = f"{MEGAPIXELS} MP, srgb, grain {GRAIN}"  # the base photos are rebuilt when this changes
QUALITIES = [90, 80, 70, 95, 85, 75]
SIZES = [(400, 400), (640, 360), (360, 640), (800, 600), (600, 800), (300, 300), (1200, 630),
         (1080, 1080), (500, 500), (1024, 768), (320, 240), (720, 1280), (200, 200), (960, 540)]
CACHE_URLS = 8
MANUAL_URLS = 10000


def say(message):
    print(f"bench-serve: {message}", file=sys.stderr, flush=True)


def env_int(name, default):
    value = os.environ.get(name)
    return int(value) if value else default


def cores():
    return len(os.sched_getaffinity(0))


def as_root(cmd):
    if os.geteuid() == 0:
        return cmd
    if shutil.which("sudo"):
        return ["sudo"] + cmd
    sys.exit(f"bench-serve: need root to run {' '.join(cmd)} (install sudo, or run as root)")


def ensure_tools():
    missing = [pkg for tool, pkg in (("wrk", "wrk"), ("vips", "libvips-tools"),
                                      ("vipsheader", "libvips-tools")) if not shutil.which(tool)]
    if missing:
        packages = sorted(set(missing))
        say(f"installing {' '.join(packages)}")
        subprocess.run(as_root(["apt-get", "update", "-qq"]), check=True)
        subprocess.run(as_root(["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y",
                                "-qq", "--no-install-recommends"] + packages),
                       check=True, stdout=subprocess.DEVNULL)


# Photos ---------------------------------------------------------------------------------------

def vips_size(path):
    out = subprocess.run(["vipsheader", "-f", "width", path], capture_output=True, text=True, check=True)
    height = subprocess.run(["vipsheader", "-f", "height", path], capture_output=True, text=True, check=True)
    return int(out.stdout), int(height.stdout)


def sources(limit=None):
    found = []
    fixtures = os.path.join(ROOT, "Fixtures")
    for folder, exts in ((fixtures, (".png", ".jpg")), (DEV, (".jpg",))):
        if os.path.isdir(folder):
            found += [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.lower().endswith(exts)]
    if not found:
        sys.exit("bench-serve: no photos: run `make fixtures` first")
    return found[:limit] if limit else found


def enlarge(src, dest, quality):
    """`src` resized to about MEGAPIXELS, with a light grain, as an sRGB JPEG of `quality`."""
    width, height = vips_size(src)
    scale = math.sqrt(MEGAPIXELS * 1e6 / (width * height))
    parts = {k: f"{dest}.{k}.v" for k in ("big", "srgb", "noise", "sum", "out")}
    try:
        subprocess.run(["vips", "resize", src, parts["big"], f"{scale:.6f}"], check=True)
        # sRGB, so that grey photos are decoded the same way by both servers.
        subprocess.run(["vips", "colourspace", parts["big"], parts["srgb"], "srgb"], check=True)
        w, h = vips_size(parts["srgb"])
        # An enlarged photo is smooth and compresses to a third of a camera's file; grain
        # (Gaussian, sigma GRAIN) brings the size and the decoder's work back to a camera's.
        subprocess.run(["vips", "gaussnoise", parts["noise"], str(w), str(h), "--sigma", str(GRAIN),
                        "--mean", "0"], check=True)
        subprocess.run(["vips", "add", parts["srgb"], parts["noise"], parts["sum"]], check=True)
        subprocess.run(["vips", "cast", parts["sum"], parts["out"], "uchar"], check=True)
        subprocess.run(["vips", "copy", parts["out"], f"{dest}.part.jpg[Q={quality},strip]"], check=True)
        os.replace(f"{dest}.part.jpg", dest)
    finally:
        for path in parts.values():
            if os.path.exists(path):
                os.remove(path)


def base_photos(quick):
    """[(relative path, width, height)] of the enlarged photos, built once."""
    srcs = sources(8 if quick else None)
    count = 2 if quick else max(2, math.ceil(48 / len(srcs)))
    folder = os.path.join(PHOTOS, "base")
    os.makedirs(folder, exist_ok=True)
    manifest_path = os.path.join(folder, "manifest.json")
    try:
        with open(manifest_path) as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        manifest = {}
    if manifest.get("recipe") != RECIPE:
        manifest = {"recipe": RECIPE, "photos": {}}
    made = manifest["photos"]
    photos, todo = [], []
    for src in srcs:
        stem = os.path.splitext(os.path.basename(src))[0]
        for quality in QUALITIES[:count]:
            name = f"{stem}-q{quality}.jpg"
            if name not in made or not os.path.exists(os.path.join(folder, name)):
                todo.append((src, name, quality))
            photos.append(name)
    if todo:
        say(f"enlarging {len(todo)} photos to {MEGAPIXELS} MP into {os.path.relpath(folder, ROOT)}/ (once)")
    for n, (src, name, quality) in enumerate(todo):
        dest = os.path.join(folder, name)
        enlarge(src, dest, quality)
        made[name] = vips_size(dest)
        with open(manifest_path, "w") as f:
            json.dump(manifest, f, indent=0, sort_keys=True)
        if (n + 1) % 10 == 0:
            say(f"  {n + 1}/{len(todo)}")
    return [(f"base/{name}", *made[name]) for name in photos]


def with_comment(data, text):
    """The JPEG `data` with a comment segment added after SOI (and JFIF APP0 when present):
    different bytes, the same pixels."""
    assert data[:2] == b"\xff\xd8", "not a JPEG"
    pos = 2
    if data[2:4] == b"\xff\xe0":
        pos = 4 + int.from_bytes(data[4:6], "big")
    payload = text.encode()
    segment = b"\xff\xfe" + (len(payload) + 2).to_bytes(2, "big") + payload
    return data[:pos] + segment + data[pos:]


def make_copies(photos, folder, count, prefix):
    """`count` distinct files in PHOTOS/folder, copy i of photos[i % len]; [(path, w, h)]."""
    os.makedirs(os.path.join(PHOTOS, folder), exist_ok=True)
    cache, made = {}, []
    for i in range(count):
        rel, width, height = photos[i % len(photos)]
        if rel not in cache:
            with open(os.path.join(PHOTOS, rel), "rb") as f:
                cache[rel] = f.read()
        name = f"{folder}/{prefix}{i:05}-{os.path.basename(rel)}"
        with open(os.path.join(PHOTOS, name), "wb") as f:
            f.write(with_comment(cache[rel], f"focal bench-serve {prefix}{i}"))
        made.append((name, width, height))
    return made


# URL lists ------------------------------------------------------------------------------------

def smart_paths(files):
    """One `WxH/smart/` path per file, the sizes in rotation: [(path, (w, h))]."""
    out = []
    for i, (rel, _, _) in enumerate(files):
        w, h = SIZES[i % len(SIZES)]
        out.append((f"{w}x{h}/smart/{rel}", (w, h)))
    return out


def manual_paths(photos, count, seed):
    """`count` distinct manual crops (`AxB:CxD/WxH/`) over the photos: [(path, (w, h))]."""
    rng = random.Random(seed)
    out, seen = [], set()
    while len(out) < count:
        rel, width, height = photos[len(out) % len(photos)]
        cw = rng.randint(width // 4, width * 9 // 10)
        ch = rng.randint(height // 4, height * 9 // 10)
        left, top = rng.randint(0, width - cw), rng.randint(0, height - ch)
        w, h = SIZES[len(out) % len(SIZES)]
        path = f"{left}x{top}:{left + cw}x{top + ch}/{w}x{h}/{rel}"
        if path not in seen:
            seen.add(path)
            out.append((path, (w, h)))
    return out


def cache_paths(photos):
    return [(f"400x400/smart/{rel}", (400, 400)) for rel, _, _ in photos[:CACHE_URLS]]


# Running a case -------------------------------------------------------------------------------

def fetch_checked(base, path, size):
    """GET one signed path; raises unless it is a 200 image of `size`."""
    status, headers, body = get(base + signed(KEY, path), timeout=120)
    kind = headers.get("Content-Type", "")
    if status != 200 or not kind.startswith("image/"):
        raise RuntimeError(f"{base} answered {status} {kind} to {path}: {body[:300]!r}")
    got = image_size(body)
    if got != size:
        raise RuntimeError(f"{base} answered a {got[0]}x{got[1]} image to {path}, not {size[0]}x{size[1]}")


def warm(group, paths, connections, everywhere=False):
    """Sends `paths` (each checked) with `connections` requests at a time, in turn to each
    instance of the group, or to every instance when `everywhere`."""
    jobs = [(base, p, s) for i, (p, s) in enumerate(paths)
            for j, base in enumerate(group.bases) if everywhere or j == i % len(group.bases)]
    with concurrent.futures.ThreadPoolExecutor(connections) as pool:
        for future in [pool.submit(fetch_checked, *job) for job in jobs]:
            future.result()


class Group:
    """One or more instances of a server, measured as one."""

    def __init__(self, name, servers, workdir):
        self.name, self.servers, self.workdir = name, servers, workdir
        self.bases = [s.base for s in servers]

    def start(self):
        try:
            for s in self.servers:
                s.start()
        except BaseException:
            self.stop()
            raise

    def stop(self):
        for s in self.servers:
            s.stop()

    def pids(self):
        return [p for s in self.servers for p in s.pids()]

    def hwm_kib(self):
        return sum(s.hwm_kib() for s in self.servers)

    def cpu(self):
        return {p: c for s in self.servers for p, c in s.cpu().items()}


def run_wrk(group, paths, seconds, threads, connections):
    list_path = os.path.join(group.workdir, "paths.txt")
    with open(list_path, "w") as f:
        f.write("".join(signed(KEY, p) + "\n" for p, _ in paths))
    env = dict(os.environ)
    env.pop("BENCH_SERVE_PORTS", None)
    if len(group.servers) > 1:
        env["BENCH_SERVE_PORTS"] = ",".join(str(s.port) for s in group.servers)
    cmd = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s", "--timeout", "60s",
           "--latency", "-s", LUA, group.bases[0], "--", list_path, str(threads)]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise RuntimeError(f"wrk failed ({out.returncode}): {out.stderr.strip()}")
    for line in reversed(out.stdout.splitlines()):
        if line.startswith('{"bench_serve"'):
            return json.loads(line)
    raise RuntimeError(f"wrk printed no result:\n{out.stdout}\n{out.stderr}")


def measure(group, case, warmup, paths, seconds, args):
    """Starts the group, warms it up, runs wrk, stops it: a result dict."""
    group.start()
    try:
        start_cpu = group.cpu()
        warm(group, warmup, args.connections, everywhere=(case == "cache"))
        result = run_wrk(group, paths, seconds, args.threads, args.connections)
        end_cpu = group.cpu()
        result["peak_rss_mib"] = group.hwm_kib() / 1024
        result["processes"] = len(group.pids())
        busy = {p: end_cpu.get(p, 0) - start_cpu.get(p, 0) for p in end_cpu}
        result["cpu_seconds"] = round(sum(busy.values()), 1)
        result["cpu_split"] = sorted((round(v, 1) for v in busy.values()), reverse=True)
    except BaseException:
        for s in group.servers:
            tail = s.log_tail(15)
            if tail:
                say(f"{s.name} log ({s.log_path}):\n{tail}")
        raise
    finally:
        group.stop()
    seconds_run = result["duration_us"] / 1e6
    result.update(server=group.name, case=case, rps=result["requests"] / seconds_run,
                  distinct=len(paths))
    return result


def thumbor_group(args, case):
    """`instances` single-process thumbors, one per core, each on its own port and folder; in the
    cache case they share one result storage folder, as instances behind a balancer would."""
    workdir = os.path.join(args.run_dir, f"thumbor-{case}")
    servers = [ThumborServer(args.thumbor, PHOTOS, key=KEY, processes=1, result_storage=(case == "cache"),
                             detectors=args.thumbor_detectors, result_dir=os.path.join(workdir, "result_storage"),
                             workdir=os.path.join(workdir, f"instance-{i}"))
               for i in range(args.thumbor_instances)]
    return Group("thumbor", servers, workdir)


def focal_group(args, case):
    workdir = os.path.join(args.run_dir, f"focal-{case}")
    return Group("focal", [FocalServer(args.focal, PHOTOS, keys=[KEY], extra_args=args.focal_args,
                                       workdir=workdir)], workdir)


def print_table(results, servers, setup_lines):
    print()
    for line in setup_lines:
        print(line)
    print()
    header = (f"{'case':<12} {'server':<8} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} "
              f"{'peak RSS MiB':>12} {'requests':>9} {'errors':>7} {'4xx/5xx':>8}")
    print(header)
    print("-" * len(header))
    titles = {"cold": "cold smart", "manual": "manual crop", "cache": "cache hit"}
    for case in ("cold", "manual", "cache"):
        rows = [r for r in results if r["case"] == case]
        for i, r in enumerate(rows):
            errors = r["connect_errors"] + r["read_errors"] + r["write_errors"] + r["timeouts"]
            print(f"{titles[case] if i == 0 else '':<12} {r['server']:<8} {r['rps']:>8.1f} "
                  f"{r['p50_us'] / 1000:>8.1f} {r['p99_us'] / 1000:>8.1f} {r['peak_rss_mib']:>12.0f} "
                  f"{r['requests']:>9} {errors:>7} {r['http_errors']:>8}")
        by = {r["server"]: r for r in rows}
        if "focal" in by and "thumbor" in by and by["thumbor"]["rps"] > 0:
            print(f"{'':<12} {'focal/thumbor req/s':<19} {by['focal']['rps'] / by['thumbor']['rps']:.2f}x")
    print("errors: socket errors and timeouts (60 s); 4xx/5xx: answers with a status of 400 or more; "
          "peak RSS: VmHWM summed over the server's processes")
    for r in results:
        if r["case"] in ("cold", "manual") and r["wraps"]:
            remedy = "raise BENCH_COLD_FILES" if r["case"] == "cold" else "raise MANUAL_URLS"
            print(f"warning: {r['server']} {r['case']}: {r['requests']} requests over {r['distinct']} "
                  f"distinct URLs, so some were sent twice and may have been cached; {remedy} "
                  f"or shorten the case")
        if r["server"] == "thumbor" and len(r["cpu_split"]) > 1:
            print(f"note: thumbor {r['case']}: CPU seconds per instance {r['cpu_split']}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["thumbor", "focal"], help="measure one server alone")
    parser.add_argument("--cases", default="cold,manual,cache", help="comma-separated: cold, manual, cache")
    parser.add_argument("--quick", action="store_true", help="a few seconds per case (CI)")
    args = parser.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    for c in cases:
        if c not in ("cold", "manual", "cache"):
            parser.error(f"unknown case {c!r}")
    servers = [args.only] if args.only else ["thumbor", "focal"]

    args.threads = env_int("BENCH_THREADS", 2)
    args.connections = env_int("BENCH_CONNECTIONS", 8)
    durations = {"cold": env_int("BENCH_COLD_SECONDS", 3 if args.quick else 20),
                 "manual": env_int("BENCH_MANUAL_SECONDS", 3 if args.quick else 20),
                 "cache": env_int("BENCH_CACHE_SECONDS", 3 if args.quick else 10)}
    cold_files = env_int("BENCH_COLD_FILES", 200 if args.quick else 800)
    args.thumbor_instances = env_int("BENCH_THUMBOR_INSTANCES", cores())
    if "thumbor" in servers and args.threads % args.thumbor_instances:
        # wrk thread i talks to instance i mod n: as many threads per instance, or it idles.
        args.threads += args.thumbor_instances - args.threads % args.thumbor_instances
        say(f"wrk threads raised to {args.threads}, a multiple of the {args.thumbor_instances} thumbor instances")
    args.thumbor_detectors = os.environ.get("BENCH_THUMBOR_DETECTORS", "thumbor.detectors.face_detector").split(",")
    args.focal = os.path.abspath(os.environ.get("FOCAL_BIN", os.path.join(ROOT, ".build", "release", "focal")))
    args.focal_args = shlex.split(os.environ.get("FOCAL_SERVE_ARGS", ""))

    if "focal" in servers:
        ok, why = imageservers.focal_serve_support(args.focal)
        if not ok:
            print(f"bench-serve: cannot measure Focal: {why}.", file=sys.stderr)
            print("bench-serve: to measure thumbor alone: python3 scripts/bench-serve.py --only thumbor",
                  file=sys.stderr)
            return 2
    ensure_tools()
    if "thumbor" in servers:
        venv = subprocess.run([os.path.join(ROOT, "scripts", "thumbor-env.sh"), "thumbor"],
                              stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
        args.thumbor = os.path.join(ROOT, venv, "bin", "thumbor")

    photos = base_photos(args.quick)
    args.run_dir = os.path.join(WORK, f"run-{os.getpid()}")
    cold_dir = f"cold-{os.getpid()}"
    os.makedirs(args.run_dir)
    results = []
    load_before = os.getloadavg()
    try:
        plans = {}
        if "cold" in cases:
            say(f"writing {cold_files} distinct cold files (comment-only copies) for this run")
            files = make_copies(photos, cold_dir, cold_files + 2 * args.connections, "c")
            cold = smart_paths(files)
            plans["cold"] = (cold[:2 * args.connections], cold[2 * args.connections:])
        if "manual" in cases:
            manual = manual_paths(photos, MANUAL_URLS + 2 * args.connections, seed=12)
            plans["manual"] = (manual[:2 * args.connections], manual[2 * args.connections:])
        if "cache" in cases:
            hits = cache_paths(photos)
            plans["cache"] = (hits, hits)
        for case in cases:
            warmup, paths = plans[case]
            for name in servers:
                say(f"{case}: {name}, {durations[case]} s, wrk -t{args.threads} -c{args.connections}")
                group = (thumbor_group if name == "thumbor" else focal_group)(args, case)
                results.append(measure(group, case, warmup, paths, durations[case], args))
    except RuntimeError as error:
        print(f"bench-serve: error: {error}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(args.run_dir, ignore_errors=True)
        shutil.rmtree(os.path.join(PHOTOS, cold_dir), ignore_errors=True)
    load_after = os.getloadavg()

    thumbor_detail = (f"thumbor 7.8.0: {args.thumbor_instances} instances (one process each), detectors "
                      f"{','.join(d.rsplit('.', 1)[-1] for d in args.thumbor_detectors)}, no_storage, "
                      f"result storage (file) in the cache case only, quality 85")
    shown = os.path.relpath(args.focal, ROOT) if args.focal.startswith(ROOT + os.sep) else args.focal
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip() or "unknown"
    focal_detail = (f"focal serve: {shown} (commit {commit}) "
                    f"{' '.join(args.focal_args) or '(default flags)'}")
    setup_lines = [
        f"bench-serve: {len(photos)} photos of ~{MEGAPIXELS} MP, {len(SIZES)} sizes; wrk -t{args.threads} "
        f"-c{args.connections}; cold {durations['cold']} s, manual {durations['manual']} s, cache "
        f"{durations['cache']} s per server; {cores()} cores; load average {load_before[0]:.1f} "
        f"before, {load_after[0]:.1f} after (a shared machine: compare within a run)",
    ]
    if "thumbor" in servers:
        setup_lines.append(thumbor_detail)
    if "focal" in servers:
        setup_lines.append(focal_detail)
    print_table(results, servers, setup_lines)
    os.makedirs(WORK, exist_ok=True)
    with open(os.path.join(WORK, "results.json"), "w") as f:
        json.dump({"setup": setup_lines, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
