#!/usr/bin/env bash
# make serve: the shortest way from a fresh clone to a first crop, then the release build.
#  1. The Debian packages and OpenVINO's C API (the build needs their headers), while the Swift
#     packages resolve.
#  2. A debug build of `focal` (half the time of a release build from nothing), while the model
#     files and sample photos are fetched, converted and quantized beside it.
#  3. `focal serve` on that build, then the release build at low priority beside it; once it is
#     done the server moves to it (stopped gracefully, started again on the same port: a second
#     or two without answers). Both builds are the same code: every crop is the same, only faster.
# A checkout with a release build already goes straight to it (brought up to date first). Each step
# prints its seconds; the setup's own output is in .cache/serve-setup.log and printed after it.
# Arguments go to `focal serve`. Environment: SWIFT (default swift), LINK (the Makefile's rpath flags).
set -euo pipefail
cd "$(dirname "$0")/.."

NAME=serve
. scripts/common.sh

swift=${SWIFT:-swift}
started=$(date +%s)
since() { echo $(( $(date +%s) - $1 )); }
setup_pid="" server_pid="" build_pid=""
stop_all() {
    local p
    for p in "$build_pid" "$setup_pid" "$server_pid"; do
        if [ -n "$p" ]; then kill "$p" 2>/dev/null || true; fi
    done
}
trap stop_all EXIT
trap 'exit 130' INT TERM

step=$(date +%s)
mkdir -p .cache
# The packages of the mirror resolve (a network-free git fetch) while apt and pip work.
$swift package resolve > .cache/serve-resolve.log 2>&1 &
resolve_pid=$!
scripts/setup.sh deps
wait "$resolve_pid" || { cat .cache/serve-resolve.log >&2; die "the Swift packages did not resolve"; }
say "packages, OpenVINO and the Swift dependencies ready: $(since "$step") s"

setup_started=$(date +%s)
log=.cache/serve-setup.log
# setup.sh itself in the background (its status is what `wait` reads, and a stop reaches it).
scripts/setup.sh models > "$log" 2>&1 &
setup_pid=$!

# build CONFIGURATION: builds the focal product, printing its seconds.
build() {
    local t
    t=$(date +%s)
    # shellcheck disable=SC2086
    $swift build -c "$1" --product focal ${LINK:-}
    say "$1 build: $(since "$t") s"
}

# Waits for the models and photos; stops with their log when they failed.
models_ready() {
    local t
    t=$(date +%s)
    if ! wait "$setup_pid"; then
        setup_pid=""
        cat "$log" >&2
        die "the model files or sample photos could not be set up (above)"
    fi
    setup_pid=""
    cat "$log" >&2
    # Its last line's time is when it finished.
    say "models and sample photos: $(( $(stat -c %Y "$log") - setup_started )) s beside the build, $(since "$t") s waited for after it"
}

if [ -x .build/release/focal ]; then
    build release
    models_ready
    say "serving the release build $(since "$started") s after make serve started"
    trap - EXIT
    exec .build/release/focal serve "$@"
fi

build debug
models_ready
.build/debug/focal serve "$@" &
server_pid=$!
say "serving the debug build $(since "$started") s after make serve started; the release build follows beside it"

step=$(date +%s)
# shellcheck disable=SC2086
nice -n 15 $swift build -c release --product focal ${LINK:-} > .cache/serve-release.log 2>&1 &
build_pid=$!
status=0
wait "$build_pid" || status=$?
build_pid=""
if [ "$status" -ne 0 ]; then
    say "the release build failed (.cache/serve-release.log); the debug build keeps serving"
    status=0
    wait "$server_pid" || status=$?
    exit "$status"
fi
say "release build: $(since "$step") s beside the server; moving the server to it"
kill -TERM "$server_pid" 2>/dev/null || true
wait "$server_pid" 2>/dev/null || true
server_pid=""
trap - EXIT
exec .build/release/focal serve "$@"
