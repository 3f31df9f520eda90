#!/usr/bin/env bash
# `make bench-lock`: the libvips shim's reader-writer lock against a plain mutex around every call.
# Builds Benchmarks/vips-lock/lockbench.c twice against the shim (as shipped, and with
# FOCAL_VIPS_SERIALIZE_CALLS), then runs both, interleaved, on 1, 2 and 4 threads, on files that all
# decode and on a mix where half fail (each failure re-runs alone to read its own error text).
# Prints calls per second, the median of ROUNDS (3) runs of SECONDS (3) each.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}
OUT=.build/lockbench
mkdir -p "$OUT"
flags=(-O2 -std=gnu11 -pthread -I Sources/CFocalVips/include $(pkg-config --cflags vips))
libs=($(pkg-config --libs vips))
cc "${flags[@]}" Benchmarks/vips-lock/lockbench.c Sources/CFocalVips/focal_vips.c "${libs[@]}" -o "$OUT/rwlock"
cc "${flags[@]}" -DFOCAL_VIPS_SERIALIZE_CALLS Benchmarks/vips-lock/lockbench.c Sources/CFocalVips/focal_vips.c "${libs[@]}" -o "$OUT/mutex"

C=.cache/corpus
good=(Fixtures/grace_hopper.jpg Fixtures/coffee.png Fixtures/chelsea.png "$C/ok-jpeg-progressive.jpg" "$C/ok-webp-lossy.webp"
      "$C/ok-gif.gif" "$C/ok-tiff-strips.tif" "$C/ok-png-rgba.png")
bad=("$C/trunc-jpeg-baseline-50pct.jpg" "$C/trunc-png-50pct.png" "$C/trunc-webp-lossy-75pct.webp" "$C/trunc-gif-50pct.gif"
     "$C/trunc-tiff-strips-75pct.tif" "$C/jpeg-half-eoi.jpg" "$C/trunc-jpeg-progressive-50pct.jpg" "$C/png-bad-crc.png")
mixed=()
for i in "${!good[@]}"; do mixed+=("${good[$i]}" "${bad[$i]}"); done

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '%-8s %-8s %12s %12s %8s\n' workload threads rwlock/s mutex/s ratio
for workload in ok mixed; do
    if [ "$workload" = ok ]; then set -- "${good[@]}"; else set -- "${mixed[@]}"; fi
    for threads in 1 2 4; do
        rw=() mu=()
        for _ in $(seq "$ROUNDS"); do
            rw+=("$("$OUT/rwlock" "$threads" "$SECONDS_PER_RUN" "$@" | cut -d' ' -f1)")
            mu+=("$("$OUT/mutex" "$threads" "$SECONDS_PER_RUN" "$@" | cut -d' ' -f1)")
        done
        r=$(printf '%s\n' "${rw[@]}" | median)
        m=$(printf '%s\n' "${mu[@]}" | median)
        printf '%-8s %-8s %12s %12s %8s\n' "$workload" "$threads" "$r" "$m" "$(awk -v r="$r" -v m="$m" 'BEGIN {printf "%.2f", r / m}')"
    done
done
