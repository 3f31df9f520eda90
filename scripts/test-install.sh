#!/usr/bin/env bash
# `make test-install`: installs Focal into a temporary PREFIX and checks it as a user would, from
# a folder outside the checkout and with no FOCAL_* setting: a crop that finds its models with no
# --models, --version, the bash completion, the manual page, the web page served from the
# installed files; then a DESTDIR install; then `make uninstall` must leave no file behind.
# The Makefile builds first (release, man, models, fixtures); this script rebuilds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

NAME=test-install
. scripts/common.sh

checkout=$PWD
version=$(sed -n 's/.*static let string = "\(.*\)".*/\1/p' Sources/FocalCore/Support/FocalVersion.swift)
[ -n "$version" ] || die "no version in Sources/FocalCore/Support/FocalVersion.swift"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/focal-test-install.XXXXXX")
prefix=$tmp/p
pid=
trap stop_server_and_clean EXIT
trap 'exit 130' INT TERM

# make VARIABLES... TARGET: the Makefile's install or uninstall, its build steps taken as done.
run_make() {
    "${MAKE:-make}" --no-print-directory -C "$checkout" -o models -o release -o man "$@" >"$tmp/make.log" 2>&1 \
        || { cat "$tmp/make.log" >&2; die "make $* failed"; }
}
# Fails unless the folder holds no file or link.
assert_empty() {
    local left
    left=$(find "$1" ! -type d 2>/dev/null || true)
    [ -z "$left" ] || die "make uninstall left: $left"
}

run_make install PREFIX="$prefix"
mkdir -p "$tmp/elsewhere"
cd "$tmp/elsewhere"
# No FOCAL_* setting from the caller's environment; env execs focal, so $! below is focal itself.
clean_env=(env -u FOCAL_MODELS -u FOCAL_ROOT -u FOCAL_PORT -u FOCAL_KEYS -u FOCAL_DATA -u FOCAL_CACHE_DIR)
focal() { "${clean_env[@]}" "$prefix/bin/focal" "$@"; }

got=$(focal --version)
[ "$got" = "$version" ] || die "focal --version printed '$got', expected '$version'"
say "--version: $got"

json=$(focal crop "$checkout/Fixtures/grace_hopper.jpg" --aspect 1:1 -o out --json) \
    || die "the installed focal could not crop from $PWD: $json"
[ -f out/grace_hopper.jpg ] || die "no out/grace_hopper.jpg after the crop"
grep -q '"strategy":"faces"' <<<"$json" || grep -q '"strategy": "faces"' <<<"$json" \
    || die "the crop found no face (were the installed models used?): $json"
say "crop from $PWD with the installed models: $json"

# OpenVINO's libraries: the installed ones, not the checkout's. focal opens them with dlopen on
# the first detecting crop (through its RUNPATH), so ask the loader which file it initialised.
runtime=$(LD_DEBUG=libs focal crop "$checkout/Fixtures/grace_hopper.jpg" --aspect 1:1 -o out-ov 2>&1 \
    | awk '/calling init: .*libopenvino_c\.so/ {found = $NF} END {print found}')
[ -n "$runtime" ] || die "the installed focal did not open libopenvino_c for a detecting crop"
[ "$(realpath -m "$runtime")" = "$(realpath -m "$prefix/lib/focal/libopenvino_c.so.2641")" ] \
    || die "the installed focal loads OpenVINO from '$runtime', not $prefix/lib/focal"
say "OpenVINO from $prefix/lib/focal"

# The installed int8 object model is found and chosen where the CPU runs int8 (x86-64 with AVX2).
doctor=$(focal doctor --json) || die "focal doctor failed: $doctor"
if grep -q AVX2 <<<"$doctor"; then
    grep -q '"precision_objects":"int8"' <<<"$doctor" || die "the installed focal does not run the int8 object model: $doctor"
fi
say "doctor: $doctor"

bash -c "source '$prefix/share/bash-completion/completions/focal' && complete -p focal" >/dev/null \
    || die "the bash completion does not register itself for focal"
[ -s "$prefix/share/zsh/site-functions/_focal" ] && [ -s "$prefix/share/fish/vendor_completions.d/focal.fish" ] \
    || die "a zsh or fish completion is missing or empty"
say "completions: bash registers focal; zsh and fish present"

page=$prefix/share/man/man1/focal.1
if command -v man >/dev/null; then text=$(MANPAGER=cat MANWIDTH=80 man -l "$page" 2>/dev/null)
else text=$(groff -mandoc -Tascii "$page" 2>/dev/null); fi
grep -q "crop" <<<"$text" && grep -q "serve" <<<"$text" || die "focal.1 does not render or names no subcommand"
say "manual page: $(grep -m1 -i focal <<<"$text" | tr -s ' ')"

# The web page: `focal serve` reads it through Bundle.module, beside the installed executable.
[ -f "$prefix/bin/Focal_FocalServer.resources/Web/index.html" ] || die "the web page's files are not installed"
port=$(python3 -m focalscripts.ports)
"${clean_env[@]}" "$prefix/bin/focal" serve --host 127.0.0.1 --port "$port" --root "$checkout/Fixtures" \
    --allow-unsafe --data "$tmp/data" --cache-dir "$tmp/cache" >"$tmp/serve.log" 2>&1 &
pid=$!
python3 -m focalscripts.web wait "http://127.0.0.1:$port/" --pid "$pid" --timeout 60 --contains '<title>Focal' \
    || { tail -n 20 "$tmp/serve.log" >&2; die "the installed focal serve did not serve its page"; }
kill -TERM "$pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && die "focal serve (pid $pid) did not stop within 10 s of SIGTERM"
wait "$pid" 2>/dev/null || true
pid=
say "focal serve: the page at / from the installed files"

cd "$checkout"
run_make uninstall PREFIX="$prefix"
assert_empty "$prefix"

# DESTDIR: staged under it, with paths (the systemd unit's) for PREFIX itself.
stage=$tmp/stage
run_make install DESTDIR="$stage" PREFIX=/opt/focal
[ -x "$stage/opt/focal/bin/focal" ] || die "DESTDIR install put no bin/focal under $stage/opt/focal"
grep -q '^ExecStart=/opt/focal/bin/focal serve' "$stage/opt/focal/lib/systemd/system/focal@.service" \
    || die "the installed unit does not run /opt/focal/bin/focal"
run_make uninstall DESTDIR="$stage" PREFIX=/opt/focal
assert_empty "$stage"
say "uninstall left no file, in PREFIX and in DESTDIR"
