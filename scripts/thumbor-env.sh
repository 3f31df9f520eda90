#!/usr/bin/env bash
# The Python side of the thumbor comparison, in virtual environments under .cache/:
#   scripts/thumbor-env.sh thumbor   thumbor 7.8.0 with its OpenCV face detector, in .cache/thumbor-venv
#   scripts/thumbor-env.sh client    libthumbor alone (for Tests/clients), in .cache/libthumbor-venv
#   scripts/thumbor-env.sh check     the thumbor venv, then starts thumbor on a loopback port and
#                                    checks that /unsafe/300x300/smart/... runs its face detector
#   scripts/thumbor-env.sh lock      rewrites the pinned requirement files from PyPI (maintainers)
# Every package is pinned by version and sha256 (pip --require-hashes) in
# scripts/thumbor-requirements.txt, scripts/thumbor-build-requirements.txt and
# scripts/libthumbor-requirements.txt. A venv is rebuilt only when its requirement files change.
# Prints the venv's path on stdout; progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

NAME=thumbor-env
. scripts/common.sh


# The pinned wheels are CPython 3.11 builds (what Debian 12 ships as python3).
python311() {
    local candidate
    for candidate in "${PYTHON:-}" python3 python3.11 /usr/bin/python3; do
        [ -n "$candidate" ] && command -v "$candidate" >/dev/null || continue
        if "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
            echo "$candidate"; return
        fi
    done
    if [ ! -x /usr/bin/python3 ] && command -v apt-get >/dev/null; then
        apt_install python3 python3-venv
        echo /usr/bin/python3; return
    fi
    die "the pinned wheels need CPython 3.11 (Debian 12's python3); set PYTHON=/path/to/python3.11"
}

# make_venv DIR REQUIREMENTS... : builds DIR from the hashed requirement files, once.
make_venv() {
    local dir=$1; shift
    local stamp="$dir/.focal-requirements"
    local want
    want=$(cat "$@" | sha256sum | cut -d' ' -f1)
    if [ -x "$dir/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
        return
    fi
    local py
    py=$(python311)
    if ! "$py" -c 'import ensurepip' 2>/dev/null; then
        [ "$(command -v "$py")" = /usr/bin/python3 ] || die "$py has no ensurepip (venv support)"
        apt_install python3-venv
    fi
    say "creating $dir (pip, pinned by sha256)"
    rm -rf "$dir"
    "$py" -m venv "$dir"
    local pip=("$dir/bin/python" -m pip --quiet --disable-pip-version-check --no-input)
    local req build=()
    for req in "$@"; do
        case "$req" in *build-requirements.txt) build+=("$req") ;; esac
    done
    # setuptools first: derpconf (a thumbor dependency) is published only as a source archive,
    # built here without build isolation so that its build tool is hash-checked too.
    for req in "${build[@]}"; do
        "${pip[@]}" install --require-hashes --no-deps --only-binary=:all: -r "$req" \
            || die "pip could not install $req"
    done
    for req in "$@"; do
        case "$req" in *build-requirements.txt) continue ;; esac
        "${pip[@]}" install --require-hashes --no-build-isolation --use-pep517 -r "$req" \
            || die "pip could not install $req"
    done
    echo "$want" > "$stamp"
}

THUMBOR_VENV=.cache/thumbor-venv
CLIENT_VENV=.cache/libthumbor-venv

thumbor() {
    make_venv "$THUMBOR_VENV" scripts/thumbor-build-requirements.txt scripts/thumbor-requirements.txt
    "$THUMBOR_VENV/bin/python" -c 'import thumbor, cv2, numpy, libthumbor' \
        || die "$THUMBOR_VENV is broken; remove it and run again"
    say "thumbor $("$THUMBOR_VENV/bin/thumbor" --version | cut -d' ' -f2) ready in $THUMBOR_VENV"
    echo "$THUMBOR_VENV"
}

client() {
    make_venv "$CLIENT_VENV" scripts/libthumbor-requirements.txt
    "$CLIENT_VENV/bin/python" -c 'import libthumbor' || die "$CLIENT_VENV is broken; remove it and run again"
    echo "$CLIENT_VENV"
}

check() {
    thumbor >/dev/null
    [ -f Fixtures/grace_hopper.jpg ] || scripts/setup.sh fixtures
    python3 -m focalscripts.thumbor_check --thumbor "$THUMBOR_VENV/bin/thumbor" --root Fixtures
}

# Pins the newest release of each top-level package (or the version named below) and every
# dependency, with the sha256 of the file pip chooses for this machine.
lock() {
    local py tmp
    py=$(python311)
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    lock_file "$py" "$tmp/thumbor" scripts/thumbor-requirements.txt "thumbor[opencv]==7.8.0" libthumbor
    lock_file "$py" "$tmp/build" scripts/thumbor-build-requirements.txt setuptools
    lock_file "$py" "$tmp/client" scripts/libthumbor-requirements.txt libthumbor
}

lock_file() {
    local py=$1 dir=$2 out=$3; shift 3
    say "locking $out: $*"
    "$py" -m pip download --quiet --disable-pip-version-check -d "$dir" "$@" >/dev/null \
        || die "pip could not download $*"
    "$py" - "$dir" "$out" "$*" <<'PY'
import hashlib, os, re, sys
folder, out, specs = sys.argv[1:]
lines = []
for name in sorted(os.listdir(folder), key=str.lower):
    if name.endswith(".whl"):
        project, version = name.split("-")[:2]
    elif name.endswith(".tar.gz"):
        project, version = name[: -len(".tar.gz")].rsplit("-", 1)
    else:
        sys.exit(f"unexpected file {name}")
    project = re.sub(r"[-_.]+", "-", project).lower()
    with open(os.path.join(folder, name), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    lines.append(f"{project}=={version} \\\n    --hash=sha256:{digest}  # {name}")
with open(out, "w") as f:
    f.write(f"# Generated by `scripts/thumbor-env.sh lock` from: {specs}\n")
    f.write("# CPython 3.11 on Linux x86_64 (Debian 12). Installed with pip --require-hashes.\n")
    f.write("\n".join(lines) + "\n")
PY
}

case "${1:-thumbor}" in
    thumbor) thumbor ;;
    client) client ;;
    check) check ;;
    lock) lock ;;
    *) die "unknown step '$1' (thumbor, client, check, lock)" ;;
esac
