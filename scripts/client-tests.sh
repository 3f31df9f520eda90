#!/usr/bin/env bash
# Client compatibility: starts a server on a free loopback port over Fixtures/ with two random
# signing keys and a temporary folder, waits until it is ready, runs Tests/clients/libthumbor_test.py
# (libthumbor from PyPI, in .cache/libthumbor-venv), and always stops the server. Exits with the
# test's status.
#   scripts/client-tests.sh [focal] [unittest options, e.g. -v]   `focal serve` (FOCAL_BIN, default
#                                                                  .build/debug/focal, else release)
#   scripts/client-tests.sh thumbor [-v]                           thumbor 7.8 itself (.cache/thumbor-venv)
set -euo pipefail
cd "$(dirname "$0")/.."

NAME=client-tests
DIE_STATUS=2
. scripts/common.sh

server=focal
case "${1:-}" in focal|thumbor) server=$1; shift ;; esac

if [ "$server" = focal ]; then
    bin=${FOCAL_BIN:-}
    if [ -z "$bin" ]; then
        bin=.build/debug/focal
        [ -x "$bin" ] || bin=.build/release/focal
    fi
    [ -x "$bin" ] || die "no focal executable (${FOCAL_BIN:-.build/debug/focal or .build/release/focal}): build it first (make build)"
    if ! help=$("$bin" serve --help 2>&1) || ! grep -q -- --root <<<"$help"; then
        die "$bin has no \`serve\` command yet (\`$bin serve --help\` does not offer --root): no server to test"
    fi
    [ -f models/yunet-2023mar-512x384.onnx ] || scripts/setup.sh models
fi
command -v vipsheader >/dev/null && command -v vips >/dev/null || scripts/setup.sh deps
[ -f Fixtures/grace_hopper.jpg ] && [ -f Fixtures/astronaut.png ] && [ -f Fixtures/chelsea.png ] \
    || scripts/setup.sh fixtures
if [ "$server" = thumbor ]; then venv=$(scripts/thumbor-env.sh thumbor); else venv=$(scripts/thumbor-env.sh client); fi
python=$venv/bin/python

tmp=$(mktemp -d "${TMPDIR:-/tmp}/focal-client-tests.XXXXXX")
pid=
trap stop_server_and_clean EXIT
trap 'exit 130' INT TERM

port=$(python3 -m focalscripts.ports)
key=$(random_token 24) other=$(random_token 24) token=$(random_token 18)
root=$PWD/Fixtures

if [ "$server" = focal ]; then
    # Keys on the command line only: no FOCAL_* setting from the caller's environment leaks in.
    env -u FOCAL_KEYS -u FOCAL_ROOT -u FOCAL_PORT TMPDIR="$tmp" "$bin" serve --host 127.0.0.1 \
        --port "$port" --root "$root" --key="$key" --key="$other" --cache-dir "$tmp/cache" \
        --token="$token" --data "$tmp/data" >"$tmp/server.log" 2>&1 &
    pid=$!
    ready=/readyz
    export FOCAL_TEST_OTHER_KEYS=$other FOCAL_TEST_TOKEN=$token
else
    cat >"$tmp/thumbor.conf" <<CONF
LOADER = 'thumbor.loaders.file_loader'
FILE_LOADER_ROOT_PATH = '$root'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
DETECTORS = ['thumbor.detectors.face_detector']
SECURITY_KEY = '$key'
ALLOW_UNSAFE_URL = False
CONF
    TMPDIR="$tmp" "$venv/bin/thumbor" --ip 127.0.0.1 --port "$port" --conf "$tmp/thumbor.conf" \
        >"$tmp/server.log" 2>&1 &
    pid=$!
    ready=/healthcheck
    unset FOCAL_TEST_OTHER_KEYS FOCAL_TEST_TOKEN
fi

if ! python3 -m focalscripts.web wait "http://127.0.0.1:$port$ready" --pid "$pid" --timeout 120; then
    say "$server did not start; its log:"
    tail -n 30 "$tmp/server.log" >&2
    exit 1
fi
say "$server is ready on 127.0.0.1:$port"

status=0
FOCAL_TEST_BASE=http://127.0.0.1:$port FOCAL_TEST_KEY=$key FOCAL_TEST_ROOT=$root \
    "$python" Tests/clients/libthumbor_test.py --server "$server" "$@" || status=$?
if [ "$status" -ne 0 ]; then
    say "failed; the last lines of the $server log:"
    tail -n 20 "$tmp/server.log" >&2
fi
exit "$status"
