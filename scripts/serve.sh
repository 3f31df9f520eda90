#!/usr/bin/env bash
# make serve: the shortest way from a fresh clone to a first crop. Installs the Debian packages
# and OpenVINO's C API (the build needs their headers), then builds the release while the model
# files and sample photos are fetched, converted and quantized beside it (none of that is needed
# to compile), then serves. Each step prints its seconds; the setup's own output is in
# .cache/serve-setup.log and printed after the build. Arguments go to `focal serve`.
# Environment: SWIFT (default swift), LINK (the Makefile's rpath flags).
set -euo pipefail
cd "$(dirname "$0")/.."

NAME=serve
. scripts/common.sh

started=$(date +%s)
since() { echo $(( $(date +%s) - $1 )); }
setup_pid=""
stop_setup() { if [ -n "$setup_pid" ]; then kill "$setup_pid" 2>/dev/null || true; fi; }
trap stop_setup EXIT
trap 'exit 130' INT TERM

step=$(date +%s)
# The packages of the mirror resolve (a network-free git fetch) while apt and pip work.
mkdir -p .cache
${SWIFT:-swift} package resolve > .cache/serve-resolve.log 2>&1 &
resolve_pid=$!
scripts/setup.sh deps
wait "$resolve_pid" || { cat .cache/serve-resolve.log >&2; die "the Swift packages did not resolve"; }
say "packages, OpenVINO and the Swift dependencies ready: $(since "$step") s"

setup_started=$(date +%s)
log=.cache/serve-setup.log
(scripts/setup.sh models > "$log" 2>&1; echo "$(since "$setup_started")" > "$log.seconds") &
setup_pid=$!

step=$(date +%s)
# shellcheck disable=SC2086
${SWIFT:-swift} build -c release --product focal ${LINK:-}
say "release build: $(since "$step") s"

step=$(date +%s)
if ! wait "$setup_pid"; then
    setup_pid=""
    cat "$log" >&2
    die "the model files or sample photos could not be set up (above)"
fi
setup_pid=""
cat "$log" >&2
say "models and sample photos: $(cat "$log.seconds") s beside the build, $(since "$step") s waited for after it"
say "ready to serve $(since "$started") s after make serve started"
trap - EXIT
exec .build/release/focal serve "$@"
