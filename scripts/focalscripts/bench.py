"""`make bench`: Focal against libvips's own smart crop, measured side by side in one run.

1. Per process: one crop of a 12 MP JPEG to 400x400, whole process (start-up and model loading
   included), for a portrait and for a pet photo: `focal crop` with the compiled models cached
   (warm: the usual case after the first run) and without a cache (cold: both models compiled),
   `focal crop --no-detect`, `vipsthumbnail --smartcrop attention`, `vipsthumbnail` (centre).
   Each command runs in turn, interleaved, so the machine's load falls on all alike; median wall
   time and peak memory.
2. In one process on all cores, over a mixed set of real photos enlarged to 12 MP (portraits and
   groups, pets, scenes with neither): crops per second and peak resident memory for Focal cold
   with detection, Focal with detection off, and libvips's thumbnail with crop=attention (a small
   C harness on the same libvips, Benchmarks/vips-attention). Rounds interleaved; medians.
   Focal with detection runs twice: each model in the precision chosen for this CPU (int8, bf16
   or fp32: `focal doctor`), and every model in fp32. Then where that time goes, step by step
   (`CropResult.timings`, as `Server-Timing` and `focal crop --timings` give them), as
   core-milliseconds per photo beside libvips attention's.
3. Detection alone, per stage, on one thread: milliseconds per image for faces, objects and the
   salient region over the mixed set, the detectors in every precision this CPU runs.
4. Focal's caches: memory hits by content and by cache name, disk hits after a restart.

Options: --runs N (per-process runs, default BENCH_RUNS or 9), --rounds N (throughput rounds,
default BENCH_ROUNDS or 3), --quick (2 runs, 1 round: a smoke run; `make bench BENCH_FLAGS=--quick`),
--against DIR (another checkout with its own `make bench-build`, e.g. a worktree of the previous
commit: its Focal rows run interleaved beside this one's, marked "(against)").
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

from . import images, measure, paths
from .cli import env_int, prog

ROOT = paths.ROOT
FOCAL = paths.RELEASE_FOCAL
BENCH = os.path.join(ROOT, ".build", "release", "focal-bench")
WORK = os.path.join(paths.CACHE, "bench")
DEV = paths.DEV
RUNS = 9
ROUNDS = 3
# (focal, focal-bench) of the checkout given with --against, measured beside this one's.
AGAINST = None

# The mixed set: (source, kind). Fixtures come from `make fixtures`; the dev photos are used when
# ../shared is beside the checkout.
MIXED = [
    ("Fixtures/grace_hopper.jpg", "portrait"), ("Fixtures/astronaut.png", "portrait"),
    ("Fixtures/camera.png", "portrait"), (f"{DEV}/dlib_2007_007763.jpg", "group"),
    (f"{DEV}/ultralytics_bus.jpg", "group"), (f"{DEV}/facerec_obama.jpg", "portrait"),
    ("Fixtures/chelsea.png", "pet"), (f"{DEV}/labelme_cls_0002_dog.jpg", "pet"),
    (f"{DEV}/pyglet_kitten.jpg", "pet"), (f"{DEV}/dlib_dogs.jpg", "pet"),
    ("Fixtures/coffee.png", "neither"), ("Fixtures/rocket.jpg", "neither"),
    ("Fixtures/motorcycle_left.png", "neither"), ("Fixtures/hubble_deep_field.jpg", "neither"),
]


def mixed_set():
    folder = os.path.join(WORK, "mixed")
    os.makedirs(folder, exist_ok=True)
    used = []
    for i, (source, kind) in enumerate(MIXED):
        path = source if os.path.isabs(source) else os.path.join(ROOT, source)
        if not os.path.exists(path):
            continue
        name = f"{i:02}-{kind}-{os.path.splitext(os.path.basename(path))[0]}.jpg"
        dest = os.path.join(folder, name)
        if not os.path.exists(dest):  # about 12 MP, JPEG quality 90
            images.enlarge(path, dest, 12, 90)
        used.append((name, kind))
    return folder, used


def run_one(cmd, env=None):
    """(wall seconds, peak MiB) of one command."""
    r = measure.run(cmd, stdout=subprocess.DEVNULL, env=env)
    if r["exit"] != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed (exit {r['exit']}, signal {r['signal']})")
    return r["seconds"], r["peak_mb"]


def per_process(photos):
    out = os.path.join(WORK, "out")
    os.makedirs(out, exist_ok=True)
    vipsthumbnail = shutil.which("vipsthumbnail")
    # The compiled models: a folder of the benchmark's own, filled by the warm-up run; "off" for
    # a process that compiles both models itself.
    warm = dict(os.environ, FOCAL_MODEL_CACHE=os.path.join(WORK, "compiled-models"))
    cold = dict(os.environ, FOCAL_MODEL_CACHE="off")
    for label, image in photos:
        environments = {"focal crop --size 400x400 (cold: no model cache)": cold}
        commands = {
            "focal crop --size 400x400": [FOCAL, "crop", image, "--size", "400x400", "-o", f"{out}/focal.jpg"],
            "focal crop --size 400x400 --precision fp32": [FOCAL, "crop", image, "--size", "400x400", "--precision", "fp32", "-o", f"{out}/focal-fp32.jpg"],
            "focal crop --size 400x400 (cold: no model cache)": [FOCAL, "crop", image, "--size", "400x400", "-o", f"{out}/focal-cold.jpg"],
            "focal crop --size 400x400 --no-detect": [FOCAL, "crop", image, "--size", "400x400", "--no-detect", "-o", f"{out}/centre.jpg"],
        }
        if AGAINST:
            for name in [n for n in commands if "--precision" not in n]:  # an older focal may not have it
                commands[name + " (against)"] = [AGAINST[0], *commands[name][1:-1], commands[name][-1] + ".against.jpg"]
                if name in environments:
                    environments[name + " (against)"] = environments[name]
        commands |= {
            "vipsthumbnail --smartcrop attention": [vipsthumbnail, image, "--size", "400x400", "--smartcrop", "attention", "-o", f"{out}/attention.jpg"],
            "vipsthumbnail (centre)": [vipsthumbnail, image, "--size", "400x400", "--smartcrop", "centre", "-o", f"{out}/vcentre.jpg"],
        }
        times = {k: [] for k in commands}
        rss = {k: 0.0 for k in commands}
        for name, cmd in commands.items():  # warm-up: page cache, model files, the model cache
            run_one(cmd, environments.get(name, warm))
        for _ in range(RUNS):
            for name, cmd in commands.items():
                t, m = run_one(cmd, environments.get(name, warm))
                times[name].append(t)
                rss[name] = max(rss[name], m)
        base = statistics.median(times["vipsthumbnail --smartcrop attention"])
        print(f"Per process: one crop of a 12 MP JPEG ({label}) to 400x400, median of {RUNS} interleaved runs")
        print(f"  {'command':50} {'median ms':>10} {'vs attention':>13} {'peak MB':>8}")
        for name in commands:
            m = statistics.median(times[name])
            print(f"  {name:50} {m * 1000:10.1f} {m / base:12.2f}x {rss[name]:8.1f}")
        print()
        sys.stdout.flush()


def harness():
    """Builds the libvips attention harness once."""
    binary = os.path.join(WORK, "vips-attention")
    source = os.path.join(ROOT, "Benchmarks", "vips-attention", "attention.c")
    if not os.path.exists(binary) or os.path.getmtime(binary) < os.path.getmtime(source):
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "vips"], capture_output=True, text=True, check=True).stdout.split()
        subprocess.run(["cc", "-O2", "-o", binary, source, *flags, "-lpthread"], check=True)
    return binary


def throughput(folder, used):
    env = dict(os.environ, FOCAL_MODELS=paths.MODELS, FOCAL_BENCH_WARMUP=os.path.join(paths.FIXTURES, "astronaut.png"))
    attention = harness()
    fp32 = dict(env, FOCAL_BENCH_PRECISION="fp32")
    phases = {"Focal, cold, with detection": [], "Focal, cold, with detection, fp32": [], "Focal, cold, detection off": [],
              "libvips thumbnail, crop=attention": []}
    peaks = {k: 0.0 for k in phases}
    detail = {}
    runs = [("Focal, cold, with detection", [BENCH, folder, "cold"], env),
            ("Focal, cold, with detection, fp32", [BENCH, folder, "cold"], fp32),
            ("Focal, cold, detection off", [BENCH, folder, "nodetect"], env)]
    if AGAINST:
        # An older focal-bench may not read FOCAL_BENCH_PRECISION: its fp32 row is left out.
        runs += [(name + " (against)", [AGAINST[1], *cmd[1:]], e) for name, cmd, e in runs if not name.endswith("fp32")]
        for name, _, _ in runs[3:]:  # the (against) rows
            phases[name], peaks[name] = [], 0.0
    for _ in range(ROUNDS):
        for name, cmd, run_env in runs:
            line = subprocess.run(cmd, capture_output=True, text=True, check=True, env=run_env).stdout.strip().splitlines()[-1]
            result = json.loads(line)
            phases[name].append(result["crops_per_second"])
            peaks[name] = max(peaks[name], result["peak_mb"])
            detail[name] = result
        line = subprocess.run([attention, folder, "1"], capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
        rate, peak = map(float, line.split())
        phases["libvips thumbnail, crop=attention"].append(rate)
        peaks["libvips thumbnail, crop=attention"] = max(peaks["libvips thumbnail, crop=attention"], peak)
    kinds = {}
    for _, kind in used:
        kinds[kind] = kinds.get(kind, 0) + 1
    mix = ", ".join(f"{n} {k}" for k, n in kinds.items())
    workers = detail["Focal, cold, with detection"]["workers"]
    print(f"In one process on {workers} cores: {len(used)} photos at 12 MP ({mix}) cropped to 400x400,")
    print(f"{2 * workers} requests in flight; median of {ROUNDS} interleaved rounds; peak = resident memory of the process")
    base = statistics.median(phases["libvips thumbnail, crop=attention"])
    print(f"  {'':40} {'crops/s':>8} {'vs attention':>13} {'peak MB':>8}")
    for name, rates in phases.items():
        m = statistics.median(rates)
        print(f"  {name:40} {m:8.1f} {m / base:12.2f}x {peaks[name]:8.0f}")
    cold = detail["Focal, cold, with detection"]
    print(f"  (Focal with detection: {cold['detections']} images detected, {cold['decodes']} decodes, {cold['renders']} renders from the decode)")
    print()
    breakdown(detail, phases, workers, base)
    sys.stdout.flush()
    return {"nodetect": statistics.median(phases["Focal, cold, detection off"]), "attention": base, "workers": workers}


def breakdown(detail, rates, workers, attention_rate):
    """Where a crop's time goes, step by step, beside libvips attention: each step's share of the
    steps' summed own time (`CropResult.timings`, the last round; the wait for a native thread
    left out) times the time a photo takes the process on all its cores (cores x 1000 / crops per
    second), so the rows add up to the row that compares with libvips's. The wait is printed
    apart, as wall milliseconds per crop."""
    rows = [(name, detail[name].get("steps_ms"), statistics.median(rates[name]))
            for name in ("Focal, cold, with detection", "Focal, cold, detection off")]
    rows = [(name, {k: v for k, v in steps.items() if k != "pool-wait"}, rate, steps.get("pool-wait", 0)) for name, steps, rate in rows if steps]
    if not rows:
        return
    photos = detail[rows[0][0]]["images"]
    names = []
    for _, steps, _, _ in rows:
        names += [n for n in steps if n not in names]
    names.sort(key=lambda n: -max(steps.get(n, 0) / sum(steps.values()) for _, steps, _, _ in rows))
    print(f"Where the time goes: core-milliseconds per photo on {workers} cores, each step's own share (CropResult.timings):")
    print(f"  {'step':22} " + " ".join(f"{'detection' if 'with' in n else 'no detection':>13}" for n, _, _, _ in rows))
    per_photo = [workers * 1000 / rate for _, _, rate, _ in rows]
    for step in names:
        values = [steps.get(step, 0) / sum(steps.values()) * total for (_, steps, _, _), total in zip(rows, per_photo)]
        if max(values) >= 0.05:
            print(f"  {step:22} " + " ".join(f"{v:13.1f}" for v in values))
    print(f"  {'a photo, all steps':22} " + " ".join(f"{v:13.1f}" for v in per_photo))
    print(f"  {'libvips attention':22} {workers * 1000 / attention_rate:13.1f}")
    print(f"  {'(waiting for a thread)':22} " + " ".join(f"{wait / photos:13.1f}" for _, _, _, wait in rows) + "   wall ms per crop, not in the rows above")
    print()
    sys.stdout.flush()


def stages(folder):
    env = dict(os.environ, FOCAL_MODELS=paths.MODELS, FOCAL_MODEL_CACHE=os.path.join(WORK, "compiled-models"))
    rounds = []
    for _ in range(ROUNDS):
        line = subprocess.run([BENCH, folder, "stages"], capture_output=True, text=True, check=True, env=env).stdout.strip().splitlines()[-1]
        rounds.append(json.loads(line))
    print(f"Detection alone, one thread, ms per image over the {rounds[0]['images']} photos (median of {ROUNDS} rounds; CPU: {rounds[0]['cpu']}):")
    for stage, what in (("faces", "YuNet, 512 px proxy"), ("objects", "YOLOv4-tiny, 288 px")):
        for precision in ("fp32", "bf16", "int8"):
            key = f"{stage}_{precision}_ms"
            if key in rounds[0]:
                print(f"  {stage:10} {what:28} {precision:5} {statistics.median(r[key] for r in rounds):8.1f} ms")
    print(f"  {'saliency':10} {'spectral residual, 256 px':28} {'':5} {statistics.median(r['saliency_ms'] for r in rounds):8.1f} ms")
    print()
    sys.stdout.flush()
    # The inference a default crop runs: each detector in the precision `auto` chose.
    return sum(statistics.median(r[f"{stage}_{rounds[0][stage + '_default']}_ms"] for r in rounds) for stage in ("faces", "objects"))


def ceiling(rates, inference_ms):
    """What detection could reach if it cost only its inference: the detection-off crop's CPU time
    per photo plus the default precisions' inference, against attention's."""
    per_photo = rates["workers"] / rates["nodetect"] * 1000 + inference_ms
    rate = rates["workers"] * 1000 / per_photo
    print(f"Ceiling of a detecting crop on this CPU: detection off {rates['workers'] / rates['nodetect'] * 1000:.1f} ms of CPU per photo")
    print(f"+ inference {inference_ms:.1f} ms = {per_photo:.1f} ms, {rate:.1f} crops/s on {rates['workers']} cores:"
          f" {rate / rates['attention']:.2f}x attention with nothing else added")
    print()
    sys.stdout.flush()


def cached(folder):
    env = dict(os.environ, FOCAL_MODELS=paths.MODELS)
    benches = [("", BENCH)] + ([(" (against)", AGAINST[1])] if AGAINST else [])
    results = {}
    for _ in range(max(1, ROUNDS) if AGAINST else 1):  # interleaved when there are two
        for label, bench in benches:
            line = subprocess.run([bench, folder, "cached"], capture_output=True, text=True, check=True, env=env).stdout.strip().splitlines()[-1]
            results.setdefault(label, []).append(json.loads(line))
    print("Focal's caches, same process (crops/s" + (", median of interleaved rounds" if AGAINST else "") + "):")
    for label, rounds in results.items():
        def m(key):
            return statistics.median(r[key] for r in rounds)
        for row, key in (("memory, identified by content (SHA-256 of each file)", "memory_by_content"),
                         ("memory, identified by cache name", "memory_by_name"), ("disk, a new pipeline (as after a restart)", "disk")):
            print(f"  {row + label:64} {m(key):10.0f}")
        print(f"  {'peak resident memory' + label:64} {max(r['peak_mb'] for r in rounds):10.0f} MB")


def main():
    global RUNS, ROUNDS, AGAINST
    parser = argparse.ArgumentParser(prog=prog(__spec__), description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=env_int("BENCH_RUNS", RUNS), help="per-process runs of each command")
    parser.add_argument("--rounds", type=int, default=env_int("BENCH_ROUNDS", ROUNDS), help="throughput rounds")
    parser.add_argument("--quick", action="store_true", help="2 runs and 1 round")
    parser.add_argument("--against", metavar="DIR", help="another checkout whose release build runs beside this one")
    args = parser.parse_args()
    RUNS, ROUNDS = (2, 1) if args.quick else (args.runs, args.rounds)
    if args.against:
        AGAINST = tuple(os.path.join(os.path.abspath(args.against), ".build", "release", name) for name in ("focal", "focal-bench"))
    for binary in (FOCAL, BENCH, *(AGAINST or ())):
        if not os.path.exists(binary):
            sys.exit(f"bench: no {paths.shown(binary)}; `make bench` builds it (FOCAL_BENCH=1 swift build -c release)")
    folder, used = mixed_set()
    portrait = os.path.join(folder, next(n for n, k in used if k == "portrait"))
    pet = os.path.join(folder, next(n for n, k in used if k == "pet"))
    per_process([("portrait", portrait), ("pet", pet)])
    rates = throughput(folder, used)
    ceiling(rates, stages(folder))
    cached(folder)


if __name__ == "__main__":
    main()
