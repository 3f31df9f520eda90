"""`make bench-serve`: `focal serve` against thumbor 7.8, side by side in one run, driven by wrk.

Both servers listen on loopback, read the same photos from the same folder, run on the same cores,
and each case starts each server afresh with a temporary folder of its own. Cases:

  cold    `WxH/smart/` crops with detection: every request names a different file (copies of the
          12 MP photos that differ only in a JPEG comment, so no cache keyed by content, path or
          URL can answer and every request decodes and detects) at one of several sizes. Focal
          runs it twice: from the folder, and from a bucket (`focal-s3`: the same files in
          SeaweedFS on loopback, `--root s3://photos/site`), so the two differ by the transfer.
  ladder  a page's `srcset` ladder: each original (a cold file of its own) asked at the 5 widths
          `focalSources` writes for its aspect (320, 640, 1024, 1600 and 1920 px wide; one of
          16:9, 4:3, 1:1 and 3:4 per original), the widths of an original one after another.
          Focal detects once per original and keeps the decoded working copy for the smaller
          widths; thumbor decodes and detects for each request. Reported beside it: Focal's
          detections per request (from its /metrics).
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

wrk rotates over the URL list with focalscripts/wrk.lua (threads never share a URL; a URL is
sent again only after its thread has sent all of its own, and such wraps are reported). Reported:
requests/s, p50 and p99 latency, peak resident memory (each process's VmHWM, summed over
thumbor's instances), socket errors and timeouts, and HTTP responses with a status of 400 or more.
Before wrk starts, each server answers warm-up requests (distinct from the measured ones, except
in the cache case, where they fill the cache), and each answer is checked: a 200 image of the
requested size.

Photos: the repository's real photos (Fixtures/, and ../shared/eval/dev/*.jpg when present)
enlarged to about 12 MP with `vips`, given a light grain so that their files are as large as a
camera's (1-3.5 MB rather than the 0.3-1 MB of a smooth enlargement), and saved at several JPEG
qualities: built once into .cache/bench-serve/photos/base/ (focalscripts.photos). Results are
also written to .cache/bench-serve/results.json.

Options: --only thumbor|focal, --cases cold,ladder,manual,cache, --quick (3 s per case, for CI).
Environment: BENCH_THREADS (wrk threads, default 2), BENCH_CONNECTIONS (8), BENCH_COLD_SECONDS
(20), BENCH_LADDER_SECONDS (20), BENCH_MANUAL_SECONDS (20), BENCH_CACHE_SECONDS (10),
BENCH_COLD_FILES (distinct cold files, 800; the ladder case has a fifth as many originals), BENCH_THUMBOR_INSTANCES (the number of cores), BENCH_THUMBOR_DETECTORS
(comma-separated modules, default thumbor.detectors.face_detector), FOCAL_BIN
(.build/release/focal), FOCAL_SERVE_ARGS (extra `focal serve` flags).
"""
import argparse
import concurrent.futures
import json
import os
import shlex
import shutil
import sys

from . import images, paths, photos, processes, wrk
from .cli import cores, env_int, prog, sayer
from .photos import LADDER_WIDTHS, MEGAPIXELS, PHOTOS, SIZES
from .cluster import SeaweedFS
from .servers import FocalServer, ThumborServer, focal_serve_support, thumbor_executable
from .web import get, metric_sum, signed

WORK = os.path.join(paths.CACHE, "bench-serve")
KEY = "focal-bench-serve-key"
CACHE_URLS = 8
MANUAL_URLS = 10000

say = sayer("bench-serve")


# URL lists ------------------------------------------------------------------------------------

def cache_paths(base):
    return [(f"400x400/smart/{rel}", (400, 400)) for rel, _, _ in base[:CACHE_URLS]]


# Running a case -------------------------------------------------------------------------------

def fetch_checked(base, path, size):
    """GET one signed path; raises unless it is a 200 image of `size`."""
    status, headers, body = get(base + signed(KEY, path), timeout=120)
    kind = headers.get("content-type", "")
    if status != 200 or not kind.startswith("image/"):
        raise RuntimeError(f"{base} answered {status} {kind} to {path}: {body[:300]!r}")
    got = images.image_size(body)
    if got != size:
        raise RuntimeError(f"{base} answered a {got[0]}x{got[1]} image to {path}, not {size[0]}x{size[1]}")


def warm(group, urls, connections, everywhere=False):
    """Sends `urls` (each checked) with `connections` requests at a time, in turn to each
    instance of the group, or to every instance when `everywhere`."""
    jobs = [(base, p, s) for i, (p, s) in enumerate(urls)
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


def run_wrk(group, urls, seconds, threads, connections):
    ports = [s.port for s in group.servers] if len(group.servers) > 1 else None
    return wrk.run(group.bases[0], [signed(KEY, p) for p, _ in urls], seconds, threads, connections,
                   group.workdir, ports=ports)


def measure(group, case, warmup, urls, seconds, args):
    """Starts the group, warms it up, runs wrk, stops it: a result dict."""
    group.start()
    try:
        start_cpu = group.cpu()
        warm(group, warmup, args.connections, everywhere=(case == "cache"))
        result = run_wrk(group, urls, seconds, args.threads, args.connections)
        end_cpu = group.cpu()
        # Focal counts the detections it ran: what a ladder's shared detection saves.
        if all(hasattr(s, "metrics") for s in group.servers):
            counted = [s.metrics() for s in group.servers]
            result["detections"] = sum(metric_sum(m, "focal_detections_total") for m in counted)
            result["renders"] = sum(metric_sum(m, "focal_renders_total") for m in counted)
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
    result.update(server=group.name, case=case, distinct=len(urls))
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


def bucket_group(args, case):
    """Focal with the cold files in SeaweedFS (`args.store`) as its root."""
    workdir = os.path.join(args.run_dir, f"focal-s3-{case}")
    return Group("focal-s3", [FocalServer(args.focal, args.store.root, keys=[KEY], extra_args=args.focal_args,
                                          workdir=workdir, extra_env=args.store.environment())], workdir)


def fill_bucket(store, paths_and_sizes):
    """Copies the files the cold URLs name into the store, by the same relative paths."""
    names = sorted({p.split("/smart/", 1)[1] for p, _ in paths_and_sizes})
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        def put(relative):
            with open(os.path.join(PHOTOS, relative), "rb") as f:
                store.put(relative, f.read())
        for future in [pool.submit(put, n) for n in names]:
            future.result()
    return len(names)


def print_table(results, servers, setup_lines):
    print()
    for line in setup_lines:
        print(line)
    print()
    header = (f"{'case':<12} {'server':<8} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} "
              f"{'peak RSS MiB':>12} {'requests':>9} {'errors':>7} {'4xx/5xx':>8}")
    print(header)
    print("-" * len(header))
    titles = {"cold": "cold smart", "ladder": "srcset ladder", "manual": "manual crop", "cache": "cache hit"}
    for case in ("cold", "ladder", "manual", "cache"):
        rows = [r for r in results if r["case"] == case]
        for i, r in enumerate(rows):
            errors = r["connect_errors"] + r["read_errors"] + r["write_errors"] + r["timeouts"]
            print(f"{titles[case] if i == 0 else '':<12} {r['server']:<8} {r['rps']:>8.1f} "
                  f"{r['p50_us'] / 1000:>8.1f} {r['p99_us'] / 1000:>8.1f} {r['peak_rss_mib']:>12.0f} "
                  f"{r['requests']:>9} {errors:>7} {r['http_errors']:>8}")
        by = {r["server"]: r for r in rows}
        if case in ("cold", "ladder") and "focal" in by and "detections" in by["focal"]:
            f = by["focal"]
            # Every answer of these cases is rendered afresh (warm-ups and the answers wrk stopped
            # waiting for included), so renders count the crops the detections served.
            print(f"{'':<12} {'focal detections':<19} {f['detections']:.0f} for {f['renders']:.0f} crops "
                  f"({f['detections'] / max(1, f['renders']):.2f} per crop)")
        if "focal" in by and "thumbor" in by and by["thumbor"]["rps"] > 0:
            print(f"{'':<12} {'focal/thumbor req/s':<19} {by['focal']['rps'] / by['thumbor']['rps']:.2f}x")
        if "focal" in by and "focal-s3" in by and by["focal"]["rps"] > 0:
            print(f"{'':<12} {'bucket/folder req/s':<19} {by['focal-s3']['rps'] / by['focal']['rps']:.2f}x"
                  f"   (CPU s per request: folder {by['focal']['cpu_seconds'] / max(1, by['focal']['requests']):.3f}, "
                  f"bucket {by['focal-s3']['cpu_seconds'] / max(1, by['focal-s3']['requests']):.3f}, Focal's own; "
                  f"SeaweedFS shares the cores)")
    print("errors: socket errors and timeouts (60 s); 4xx/5xx: answers with a status of 400 or more; "
          "peak RSS: VmHWM summed over the server's processes")
    for r in results:
        if r["case"] in ("cold", "ladder", "manual") and r["wraps"]:
            remedy = "raise MANUAL_URLS" if r["case"] == "manual" else "raise BENCH_COLD_FILES"
            print(f"warning: {r['server']} {r['case']}: {r['requests']} requests over {r['distinct']} "
                  f"distinct URLs, so some were sent twice and may have been cached; {remedy} "
                  f"or shorten the case")
        if r["server"] == "thumbor" and len(r["cpu_split"]) > 1:
            print(f"note: thumbor {r['case']}: CPU seconds per instance {r['cpu_split']}")


def main():
    parser = argparse.ArgumentParser(prog=prog(__spec__), description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["thumbor", "focal"], help="measure one server alone")
    parser.add_argument("--cases", default="cold,ladder,manual,cache", help="comma-separated: cold, ladder, manual, cache")
    parser.add_argument("--quick", action="store_true", help="a few seconds per case (CI)")
    parser.add_argument("--no-bucket", action="store_true", help="no cold case from SeaweedFS")
    args = parser.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    for c in cases:
        if c not in ("cold", "ladder", "manual", "cache"):
            parser.error(f"unknown case {c!r}")
    servers = [args.only] if args.only else ["thumbor", "focal"]

    args.threads = env_int("BENCH_THREADS", 2)
    args.connections = env_int("BENCH_CONNECTIONS", 8)
    durations = {"cold": env_int("BENCH_COLD_SECONDS", 3 if args.quick else 20),
                 "ladder": env_int("BENCH_LADDER_SECONDS", 3 if args.quick else 20),
                 "manual": env_int("BENCH_MANUAL_SECONDS", 3 if args.quick else 20),
                 "cache": env_int("BENCH_CACHE_SECONDS", 3 if args.quick else 10)}
    cold_files = env_int("BENCH_COLD_FILES", 200 if args.quick else 800)
    args.thumbor_instances = env_int("BENCH_THUMBOR_INSTANCES", cores())
    if "thumbor" in servers and args.threads % args.thumbor_instances:
        # wrk thread i talks to instance i mod n: as many threads per instance, or it idles.
        args.threads += args.thumbor_instances - args.threads % args.thumbor_instances
        say(f"wrk threads raised to {args.threads}, a multiple of the {args.thumbor_instances} thumbor instances")
    args.thumbor_detectors = os.environ.get("BENCH_THUMBOR_DETECTORS", "thumbor.detectors.face_detector").split(",")
    args.focal = paths.focal_binary()
    args.focal_args = shlex.split(os.environ.get("FOCAL_SERVE_ARGS", ""))

    if "focal" in servers:
        ok, why = focal_serve_support(args.focal)
        if not ok:
            say(f"cannot measure Focal: {why}.")
            say("to measure thumbor alone: make bench-serve BENCH_SERVE_FLAGS='--only thumbor'")
            return 2
    processes.ensure_commands({**wrk.TOOLS, **photos.TOOLS}, say)
    if "thumbor" in servers:
        args.thumbor = thumbor_executable()

    base = photos.base_photos(args.quick)
    args.run_dir = os.path.join(WORK, f"run-{os.getpid()}")
    cold_dir = f"cold-{os.getpid()}"
    os.makedirs(args.run_dir)
    results = []
    load_before = os.getloadavg()
    try:
        plans = {}
        if "cold" in cases:
            say(f"writing {cold_files} distinct cold files (comment-only copies) for this run")
            files = photos.copies(base, cold_dir, cold_files + 2 * args.connections, "c", "focal bench-serve")
            cold = photos.smart_paths(files)
            plans["cold"] = (cold[:2 * args.connections], cold[2 * args.connections:])
        if "ladder" in cases:
            # A fifth as many originals as cold files, each asked at every width of the ladder;
            # the warm-up originals are others than the measured ones.
            originals = max(2, cold_files // len(LADDER_WIDTHS))
            warm_originals = max(1, 2 * args.connections // len(LADDER_WIDTHS))
            say(f"writing {originals} distinct originals for the srcset ladder")
            files = photos.copies(base, cold_dir, originals + warm_originals, "l", "focal bench-serve ladder")
            plans["ladder"] = (photos.ladder_paths(files[:warm_originals]), photos.ladder_paths(files[warm_originals:]))
        if "manual" in cases:
            manual = photos.manual_paths(base, MANUAL_URLS + 2 * args.connections, seed=12)
            plans["manual"] = (manual[:2 * args.connections], manual[2 * args.connections:])
        if "cache" in cases:
            hits = cache_paths(base)
            plans["cache"] = (hits, hits)
        args.store = None
        if "cold" in cases and "focal" in servers and not args.no_bucket:
            args.store = SeaweedFS(args.run_dir).start()
            say(f"copying the cold files into SeaweedFS ({args.store.endpoint}, {args.store.root})")
            fill_bucket(args.store, plans["cold"][0] + plans["cold"][1])
        makers = {"thumbor": thumbor_group, "focal": focal_group, "focal-s3": bucket_group}
        for case in cases:
            warmup, urls = plans[case]
            for name in servers + (["focal-s3"] if case == "cold" and args.store else []):
                say(f"{case}: {name}, {durations[case]} s, wrk -t{args.threads} -c{args.connections}")
                group = makers[name](args, case)
                results.append(measure(group, case, warmup, urls, durations[case], args))
    except RuntimeError as error:
        say(f"error: {error}")
        return 1
    finally:
        if getattr(args, "store", None):
            args.store.stop()
        shutil.rmtree(args.run_dir, ignore_errors=True)
        shutil.rmtree(os.path.join(PHOTOS, cold_dir), ignore_errors=True)
    load_after = os.getloadavg()

    thumbor_detail = (f"thumbor 7.8.0: {args.thumbor_instances} instances (one process each), detectors "
                      f"{','.join(d.rsplit('.', 1)[-1] for d in args.thumbor_detectors)}, no_storage, "
                      f"result storage (file) in the cache case only, quality 85")
    focal_detail = (f"focal serve: {paths.shown(args.focal)} (commit {paths.commit()}) "
                    f"{' '.join(args.focal_args) or '(default flags)'}")
    setup_lines = [
        f"bench-serve: {len(base)} photos of ~{MEGAPIXELS} MP, {len(SIZES)} sizes; wrk -t{args.threads} "
        f"-c{args.connections}; cold {durations['cold']} s, ladder {durations['ladder']} s, manual {durations['manual']} s, cache "
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
