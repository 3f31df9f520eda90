"""`make bench-cluster`: requests/s through Varnish for 1, 2 and 3 `focal serve` replicas, cold and
cached, with peak memory per replica, in one run, printed as a table.

Each configuration starts a fresh cluster with focalscripts.cluster (PostgreSQL, N replicas with
their default --workers, Varnish with deploy/varnish/focal.vcl and malloc storage), so no cache of
an earlier configuration helps, and stops it afterwards. wrk (focalscripts/wrk.lua: threads never
share a URL, repeats are reported as wraps) drives Varnish on loopback:

  cold    every request a different 12 MP JPEG (copies of the enlarged photos that
          `make bench-serve` builds, differing only in a JPEG comment), `WxH/smart/` at one of 14
          sizes: Varnish misses, the replica decodes, detects and renders.
  cached  a set of `smart` URLs requested once through Varnish first, then again and again: every
          request a Varnish hit; the replicas are not asked.

Reported per configuration: requests/s, p50 and p99 latency, Varnish's hit ratio in the case (from
varnishstat), CPU seconds the replicas (cold) or Varnish (cached) used per request, and each
replica's peak resident memory (VmHWM); and, with the cold results and the cached set stored,
Varnish's storage per cached result (SMA bytes / objects), the xkey index per object, and how much
the cache process grew per object.

Options: --quick (short cases, few files), --replicas 1,2,3.
Environment: BENCH_THREADS (wrk threads, 2), BENCH_CONNECTIONS (cold, 8), BENCH_CACHED_CONNECTIONS
(32), BENCH_COLD_SECONDS (20), BENCH_CACHED_SECONDS (10), BENCH_COLD_FILES (500), BENCH_CACHED_URLS
(200), FOCAL_BIN (.build/release/focal). Results also go to .cache/bench-cluster/results.json.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess

from . import cluster, images, paths, photos, processes, wrk
from .cli import env_int, prog, sayer
from .processes import cpu_seconds, status_kib
from .web import get, metric_sum

WORK = os.path.join(paths.CACHE, "bench-cluster")

say = sayer("bench-cluster")


def checked(base, path, size):
    status, headers, body = get(f"{base}/unsafe/{path}", timeout=120)
    if status != 200 or not headers.get("content-type", "").startswith("image/"):
        raise RuntimeError(f"{path}: {status} {headers.get('content-type')} {body[:200]!r}")
    got = images.image_size(body)
    if got != size:
        raise RuntimeError(f"{path}: a {got[0]}x{got[1]} image, not {size[0]}x{size[1]}")
    return len(body)


def run_wrk(base, urls, seconds, threads, connections, folder):
    return wrk.run(base, [f"/unsafe/{p}" for p, _ in urls], seconds, threads, connections, folder)


def varnish_cache_pid(c):
    """The Varnish cache (child) process: the one of its processes with the most memory."""
    pids = c.varnish.child_pids()
    return max(pids, key=lambda p: status_kib(p, "VmRSS")) if pids else None


def hit_ratio(before, after):
    hits = after.get("MAIN.cache_hit", 0) - before.get("MAIN.cache_hit", 0)
    misses = after.get("MAIN.cache_miss", 0) - before.get("MAIN.cache_miss", 0)
    return hits / (hits + misses) if hits + misses else 0.0


def measure(n, args, cold, warm, cached):
    say(f"{n} replica(s): starting the cluster")
    c = cluster.Cluster(replicas=n, root=photos.PHOTOS, storage=args.storage)
    c.start()
    row = {"replicas": n}
    try:
        folder = c.folder
        for path, size in warm:
            checked(c.base, path, size)
        vpid = varnish_cache_pid(c)
        start = (c.varnish.stats(), {r.name: cpu_seconds(r.pid) for r in c.replicas}, status_kib(vpid, "VmRSS"))
        say(f"{n} replica(s): cold, {args.cold_seconds} s over {len(cold)} distinct photos")
        r = run_wrk(c.base, cold, args.cold_seconds, args.threads, args.connections, folder)
        stats = c.varnish.stats()
        cpu = sum(cpu_seconds(x.pid) - start[1][x.name] for x in c.replicas)
        row["cold"] = dict(r, hit_ratio=hit_ratio(start[0], stats), cpu_per_request=cpu / max(1, r["requests"]),
                           replica_cpu=cpu)
        served = {}
        for x in c.replicas:
            m = x.metrics()
            served[x.name] = metric_sum(m, "focal_http_requests_total", route="/**")
        row["cold"]["served"] = served
        say(f"{n} replica(s): cached, filling Varnish with {len(cached)} URLs, then {args.cached_seconds} s")
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            bodies = list(pool.map(lambda ps: checked(c.base, *ps), cached))
        before = (c.varnish.stats(), cpu_seconds(vpid))
        # What the cold results and the cached set take in Varnish: storage, xkey index, and the
        # cache process's growth since start-up (storage plus per-object structures).
        objects = before[0].get("MAIN.n_object", 0) - start[0].get("MAIN.n_object", 0)
        row["objects"] = {
            "objects": before[0].get("MAIN.n_object", 0), "new_objects": objects,
            "sma_bytes": before[0].get("SMA.s0.g_bytes", 0), "xkey_bytes": before[0].get("XKEY.g_bytes", 0),
            "cached_body_bytes": sum(bodies) / max(1, len(bodies)),
            "rss_delta_kib": status_kib(vpid, "VmRSS") - start[2],
        }
        r = run_wrk(c.base, cached, args.cached_seconds, args.threads, args.cached_connections, folder)
        after = c.varnish.stats()
        row["cached"] = dict(r, hit_ratio=hit_ratio(before[0], after),
                             varnish_cpu_per_request=(cpu_seconds(vpid) - before[1]) / max(1, r["requests"]))
        row["peak_mib"] = {x.name: x.hwm_kib() / 1024 for x in c.replicas}
        row["varnish_rss_mib"] = status_kib(vpid, "VmRSS") / 1024
    except BaseException:
        for x in c.replicas:
            tail = x.process.log_tail(10) if x.process else ""
            if tail:
                say(f"{x.name} log:\n{tail}")
        raise
    finally:
        left = c.stop()
        if left:
            say("processes left: " + ", ".join(str(p) for p, _ in left))
    return row


def print_table(rows, setup):
    print()
    for line in setup:
        print(line)
    print()
    header = (f"{'replicas':>8} | {'cold req/s':>10} {'p50 ms':>7} {'p99 ms':>7} {'hits':>5} {'CPU s/req':>9} | "
              f"{'cached req/s':>12} {'p50 ms':>7} {'p99 ms':>7} {'hits':>5} | {'peak RSS per replica (MiB)':<27}")
    print(header)
    print("-" * len(header))
    for row in rows:
        cold, cached = row["cold"], row["cached"]
        peaks = " ".join(f"{v:.0f}" for _, v in sorted(row["peak_mib"].items()))
        print(f"{row['replicas']:>8} | {cold['rps']:>10.1f} {cold['p50_us'] / 1000:>7.0f} {cold['p99_us'] / 1000:>7.0f} "
              f"{cold['hit_ratio'] * 100:>4.0f}% {cold['cpu_per_request']:>9.3f} | {cached['rps']:>12.0f} "
              f"{cached['p50_us'] / 1000:>7.2f} {cached['p99_us'] / 1000:>7.2f} {cached['hit_ratio'] * 100:>4.0f}% | {peaks:<27}")
    print()
    print("cold: every request a different photo (decode, detect, render on one replica); CPU s/req: "
          "CPU seconds of all replicas per answered request. cached: every request a Varnish hit. "
          "hits: Varnish's hit ratio in the case (varnishstat). peak RSS: VmHWM of each replica.")
    for row in rows:
        cold = row["cold"]
        served = ", ".join(f"{k} {v:.0f}" for k, v in sorted(cold["served"].items()))
        print(f"{row['replicas']} replica(s): cold requests per replica: {served}; errors "
              f"{cold['errors']}/{row['cached']['errors']} (cold/cached sockets+timeouts), 4xx/5xx "
              f"{cold['http_errors']}/{row['cached']['http_errors']}; Varnish CPU per hit "
              f"{row['cached']['varnish_cpu_per_request'] * 1e6:.0f} us; wraps {cold['wraps']}")
    for row in rows:
        o = row["objects"]
        if o["objects"]:
            print(f"{row['replicas']} replica(s): Varnish held {o['objects']} objects (the cold results and the "
                  f"cached set): storage {o['sma_bytes'] / 2**20:.1f} MiB = {o['sma_bytes'] / o['objects'] / 1024:.1f} "
                  f"KiB per object (cached-set bodies average {o['cached_body_bytes'] / 1024:.1f} KiB); xkey index "
                  f"{o['xkey_bytes'] / o['objects']:.0f} bytes per object; the cache process grew "
                  f"{o['rss_delta_kib'] / 1024:.1f} MiB = {o['rss_delta_kib'] / max(1, o['new_objects']):.1f} KiB per object")
    for row in rows:
        for case in ("cold", "cached"):
            if row[case]["errors"] or row[case]["http_errors"]:
                print(f"warning: {row['replicas']} replica(s), {case}: {row[case]['errors']} socket errors, "
                      f"{row[case]['http_errors']} answers of 400 or more")
        if row["cold"]["wraps"]:
            print(f"warning: {row['replicas']} replica(s): the cold list wrapped; raise BENCH_COLD_FILES")


def main():
    parser = argparse.ArgumentParser(prog=prog(__spec__), description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="short cases and few files")
    parser.add_argument("--replicas", default="1,2,3", help="comma-separated replica counts")
    args = parser.parse_args()
    args.threads = env_int("BENCH_THREADS", 2)
    args.connections = env_int("BENCH_CONNECTIONS", 8)
    args.cached_connections = env_int("BENCH_CACHED_CONNECTIONS", 32)
    args.cold_seconds = env_int("BENCH_COLD_SECONDS", 4 if args.quick else 20)
    args.cached_seconds = env_int("BENCH_CACHED_SECONDS", 3 if args.quick else 10)
    args.storage = os.environ.get("BENCH_VARNISH_STORAGE", "1g")
    counts = [int(x) for x in args.replicas.split(",") if x]
    load = os.getloadavg()[0]
    binary = paths.focal_binary()
    processes.ensure_commands({**wrk.TOOLS, **photos.TOOLS}, say)

    base = photos.base_photos(args.quick)
    # Built once: every copy has its own content hash.
    cold = photos.copies(base, "cluster-cold", env_int("BENCH_COLD_FILES", 120 if args.quick else 500), "c",
                         "focal bench-cluster")
    cold_paths = photos.smart_paths(cold)
    # Checked before each case, and different from every measured URL.
    warm = [(f"123x77/smart/{rel}", (123, 77)) for rel, _, _ in base[:2]]
    cached = [(f"{w}x{h}/smart/{rel}", (w, h)) for i, (rel, _, _) in enumerate(base)
              for w, h in photos.SIZES[i % 3::3][:4]][:env_int("BENCH_CACHED_URLS", 60 if args.quick else 200)]

    rows = [measure(n, args, cold_paths, warm, cached) for n in counts]
    os.makedirs(WORK, exist_ok=True)
    with open(os.path.join(WORK, "results.json"), "w") as f:
        json.dump(rows, f, indent=1, sort_keys=True)
    version = subprocess.run(["varnishd", "-V"], capture_output=True, text=True).stderr.splitlines()[0]
    print_table(rows, [
        f"bench-cluster: {len(os.sched_getaffinity(0))} cores (shared by wrk, Varnish, PostgreSQL and the "
        f"replicas), load average {load:.1f} before the run and {os.getloadavg()[0]:.1f} after; {version}; "
        f"{paths.shown(binary)}",
        f"wrk {args.threads} threads; cold: {args.connections} connections, {args.cold_seconds} s, {len(cold)} "
        f"distinct {photos.MEGAPIXELS} MP JPEGs; cached: {args.cached_connections} connections, "
        f"{args.cached_seconds} s over {len(cached)} URLs; each replica with focal serve's default workers",
    ])


if __name__ == "__main__":
    main()
