"""A mutation loop over the hostile corpus and the fixtures: `make fuzz-mutate`.

Usage: python3 -m focalscripts.mutate [--count N] [--seed S] [--jobs J] [--focal PATH] [--max-mb MB] [--timeout S]

Takes the files of .cache/corpus/ and Fixtures/ (three mutants in four from files that decode),
mutates their bytes (bit flips, interesting
byte values, truncations, splices of two files, repeated or inserted runs, and edits of the size
fields in JPEG, PNG, GIF, TIFF and WebP headers), and runs each mutant through
`focal crop FILE --size 200x200 -o OUT --json` in a process of its own (focalscripts.measure), J at
a time. Prints how many ran, how many succeeded, errors by code, the slowest and the peak memory.
A mutant that ends by a signal, exits with another code than 0 or 1, prints no JSON line, runs
past the time limit or peaks over --max-mb is a finding: it is kept in .cache/mutate-findings/
and the exit code is 1. Deterministic for a seed. Not a test: figures move with the machine.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import random
import shutil
import struct
import sys
import tempfile
import time

from . import measure, paths, processes
from .cli import prog

ROOT = paths.ROOT

INTERESTING = [0, 1, 2, 0x7F, 0x80, 0xFF]
SIZES = [0, 1, 2, 255, 256, 4096, 16383, 16384, 32767, 65535, 65536, 100000, 0x7FFFFFFF, 0xFFFFFFFF]


def sources():
    """(name, bytes, decodes) of every corpus file and fixture; `decodes` when the file is one
    that gives a picture (a fixture, or a corpus file whose manifest allows "ok")."""
    found = []
    corpus = os.path.join(paths.CACHE, "corpus")
    try:
        with open(os.path.join(corpus, "manifest.json")) as f:
            manifest = json.load(f)["files"]
    except (OSError, ValueError, KeyError):
        manifest = {}
    for folder in (corpus, paths.FIXTURES):
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if name == "manifest.json" or not os.path.isfile(path):
                continue
            decodes = folder != corpus or "ok" in manifest.get(name, {}).get("expect", [])
            with open(path, "rb") as f:
                found.append((name, f.read(), decodes))
    return found


def size_fields(data):
    """(offset, byte count, endianness) of header fields that hold a width or a height."""
    fields = []
    if data[:3] == b"\xff\xd8\xff":
        i = 2
        while i + 9 < len(data) and data[i] == 0xFF:
            marker, length = data[i + 1], data[i + 2] << 8 | data[i + 3]
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                fields += [(i + 5, 2, ">"), (i + 7, 2, ">")]
                break
            if marker == 0xDA or length < 2:
                break
            i += 2 + length
    elif data[:8] == b"\x89PNG\r\n\x1a\n":
        fields += [(16, 4, ">"), (20, 4, ">")]
    elif data[:4] in (b"GIF8",):
        fields += [(6, 2, "<"), (8, 2, "<")]
        at = data.find(b"\x2c", 13)
        if at > 0:
            fields += [(at + 5, 2, "<"), (at + 7, 2, "<")]
    elif data[:4] == b"II*\x00":
        ifd = struct.unpack_from("<I", data, 4)[0] if len(data) >= 8 else 0
        if 0 < ifd < len(data) - 2:
            count = struct.unpack_from("<H", data, ifd)[0]
            for k in range(min(count, 40)):
                entry = ifd + 2 + 12 * k
                if entry + 12 <= len(data) and struct.unpack_from("<H", data, entry)[0] in (256, 257, 278, 322, 323):
                    fields.append((entry + 8, 4, "<"))
    elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        if data[12:16] == b"VP8X":
            fields += [(24, 3, "<"), (27, 3, "<")]
        at = data.find(b"VP8 ")
        if at > 0:
            fields += [(at + 14, 2, "<"), (at + 16, 2, "<")]
    return [f for f in fields if f[0] + f[1] <= len(data)]


def mutate(rng, data, other):
    """One mutant of `data` (`other` is a second file for splices) and how it was made."""
    data = bytearray(data)
    kind = rng.choice(["flip", "flip", "byte", "truncate", "splice", "repeat", "insert", "size", "size"])
    if not data:
        return bytes(other[: rng.randrange(1, max(2, len(other)))]), "empty+prefix"
    if kind == "flip":
        for _ in range(rng.randint(1, 16)):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
    elif kind == "byte":
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.choice(INTERESTING)
    elif kind == "truncate":
        data = data[: rng.randrange(len(data))]
    elif kind == "splice":
        cut = rng.randrange(len(data))
        data = data[:cut] + other[rng.randrange(len(other)) if other else 0:]
    elif kind == "repeat":
        start = rng.randrange(len(data))
        piece = data[start:start + rng.randint(1, 4096)]
        data = data[:start] + piece * rng.randint(2, 200) + data[start:]
    elif kind == "insert":
        at = rng.randrange(len(data))
        data = data[:at] + bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 64))) + data[at:]
    elif kind == "size":
        fields = size_fields(bytes(data))
        if not fields:
            return mutate(rng, bytes(data), other)
        offset, count, order = rng.choice(fields)
        value = rng.choice(SIZES + [rng.getrandbits(8 * count)]) % (1 << (8 * count))
        data[offset:offset + count] = value.to_bytes(count, "big" if order == ">" else "little")
    return bytes(data[: 64 << 20]), kind


def main():
    parser = argparse.ArgumentParser(prog=prog(__spec__), description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--focal", default=paths.DEBUG_FOCAL)
    parser.add_argument("--max-mb", type=float, default=512)
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()
    inputs = sources()
    if not inputs:
        sys.exit("mutate: no corpus: run `make corpus` first")
    if not os.access(args.focal, os.X_OK):
        sys.exit(f"mutate: {args.focal} is missing: run `make build` first")
    findings = os.path.join(paths.CACHE, "mutate-findings")
    work = tempfile.mkdtemp(prefix="focal-mutate-")
    # Mostly mutants of files that decode: they reach the decoders' insides, not only their headers.
    decoding = [i for i in inputs if i[2]] or inputs

    def make(n):
        """Mutant `n`, made when it runs (so that they are not all held at once), from a generator
        of its own: the same seed and number always give the same bytes."""
        rng = random.Random(f"{args.seed}-{n}")
        name, data, _ = rng.choice(decoding if rng.random() < 0.75 else inputs)
        _, other, _ = rng.choice(inputs)
        mutant, kind = mutate(rng, data, other)
        return f"{n:05}-{kind}-{name}", mutant

    child_env = processes.module_env()

    def run(n):
        label, mutant = make(n)
        path = os.path.join(work, label)
        with open(path, "wb") as f:
            f.write(mutant)
        size = len(mutant)
        del mutant
        out_path, err_path, report = path + ".stdout", path + ".stderr", path + ".report"
        # Through focalscripts.measure, a small process: Linux carries a parent's peak memory
        # across exec, so focal started from this process (which holds every input file) would
        # report ours.
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            measure.run(processes.module_command("measure", "--timeout", args.timeout, "--report", report, "--",
                                                 args.focal, "crop", path, "--size", "200x200", "-o", path + ".out.jpg",
                                                 "--json"), stdout=out, stderr=err, cwd=ROOT, env=child_env)
        with open(report) as f:
            result = json.load(f)
        os.remove(report)
        with open(out_path, "rb") as f:
            lines = f.read().decode(errors="replace").strip().splitlines()
        with open(err_path, "rb") as f:
            result["stderr"] = f.read().decode(errors="replace")[-500:]
        try:
            line = json.loads(lines[-1]) if lines else None
        except ValueError:
            line = None
        result["code"] = ("ok" if result["exit"] == 0 else line.get("code")) if isinstance(line, dict) else None
        for leftover in (out_path, err_path, path + ".out.jpg"):
            if os.path.exists(leftover):
                os.remove(leftover)
        return label, path, size, result

    started = time.monotonic()
    codes = collections.Counter()
    problems = []
    slowest = ("", 0.0)
    peak = ("", 0.0)
    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for done, (label, path, size, r) in enumerate(pool.map(run, range(args.count)), 1):
                codes[r["code"] or "no JSON line"] += 1
                if r["seconds"] > slowest[1]:
                    slowest = (label, r["seconds"])
                if r["peak_mb"] > peak[1]:
                    peak = (label, r["peak_mb"])
                why = []
                if r["signal"] is not None:
                    why.append(f"signal {r['signal']}")
                elif r["exit"] not in (0, 1):
                    why.append(f"exit {r['exit']}")
                if r["timed_out"]:
                    why.append(f"killed after {args.timeout} s")
                if r["code"] is None:
                    why.append("no JSON line")
                if r["peak_mb"] > args.max_mb:
                    why.append(f"peak {r['peak_mb']} MiB")
                if why:
                    os.makedirs(findings, exist_ok=True)
                    shutil.copy(path, os.path.join(findings, label))
                    problems.append((label, ", ".join(why), r["stderr"].strip().splitlines()[-1:] or [""]))
                os.remove(path)
                if done % 50 == 0:
                    print(f"mutate: {done}/{args.count}", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    elapsed = time.monotonic() - started
    ran = sum(codes.values())
    print(f"mutants run:   {ran} from {len(inputs)} files (seed {args.seed}) in {elapsed:.0f} s, {args.jobs} at a time")
    print(f"succeeded:     {codes.get('ok', 0)}")
    print(f"errored:       {ran - codes.get('ok', 0)}")
    for code, count in sorted(codes.items(), key=lambda c: -c[1]):
        if code != "ok":
            print(f"  {code:24} {count}")
    print(f"slowest:       {slowest[1]:.2f} s ({slowest[0]})")
    print(f"peak memory:   {peak[1]:.0f} MiB ({peak[0]})")
    print(f"findings:      {len(problems)}" + (f" (kept in {findings})" if problems else ""))
    for label, why, last in problems:
        print(f"  {label}: {why}: {last[0]}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
