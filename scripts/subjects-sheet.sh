#!/usr/bin/env bash
# docs/options.md's picture of issue 47's features, made by Focal itself: a default crop beside
# kinds(motorbike), centred beside placement(thirds), and a tight crop, each captioned.
# Usage: scripts/subjects-sheet.sh [OUT] (default docs/subjects.jpg); needs a built focal and vips.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/subjects.jpg}
focal=${FOCAL_BIN:-.build/debug/focal}
dev=../shared/eval/dev
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tile() { # NAME CAPTION INPUT ARGS...
    local name=$1 caption=$2 input=$3
    shift 3
    "$focal" crop "$input" "$@" -o "$work/$name.png" > /dev/null
    vips text "$work/$name-t.png" "$caption" --font "sans 13" --dpi 72
    vips invert "$work/$name-t.png" "$work/$name-i.png"
    vips embed "$work/$name-i.png" "$work/$name-c.png" 6 4 "$(vipsheader -f width "$work/$name.png")" 24 --extend white
    vips join "$work/$name.png" "$work/$name-c.png" "$work/$name-j.png" vertical --background 255
}
tile a "default: faces (a false one)" Fixtures/motorcycle_left.png --size 240x240
tile b "kinds(motorbike)" Fixtures/motorcycle_left.png --size 240x240 --kinds motorbike
tile c "centred" "$dev/rmagick_Ballerina3.jpg" --size 240x240 --zoom 0.4
tile d "placement(thirds)" "$dev/rmagick_Ballerina3.jpg" --size 240x240 --zoom 0.4 --placement thirds
tile e "tight(height)" Fixtures/grace_hopper.jpg --size 240x240 --tight height
vips arrayjoin "$work/a-j.png $work/b-j.png $work/c-j.png $work/d-j.png $work/e-j.png" "$out[Q=85,strip]" --shim 8 --background 255 --valign low
echo "wrote $out"
