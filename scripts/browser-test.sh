#!/bin/sh
# make test-browser: installs Chromium, chromedriver and Selenium when missing, builds focal, and
# runs Tests/browser against a live `focal serve` on a free loopback port with a temporary --data
# folder. run.py starts and stops the server (also on SIGINT/SIGTERM); this script's trap stops it
# too should run.py die without doing so. Arguments go to run.py (-k PATTERN, -v).
# Screenshots land in .cache/screenshots/. Exits non-zero when a test fails.
set -eu
cd "$(dirname "$0")/.."

python=$(scripts/browser-deps.sh)
${SWIFT:-swift} build --product focal ${LINK:-}

mkdir -p .cache
pidfile=.cache/browser-test-focal.pid
rm -f "$pidfile"
runner=""
cleanup() {
    [ -n "$runner" ] && kill "$runner" 2>/dev/null && wait "$runner" 2>/dev/null
    if [ -s "$pidfile" ]; then kill "$(cat "$pidfile")" 2>/dev/null || true; fi
    rm -f "$pidfile"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$python" Tests/browser/run.py --focal .build/debug/focal --root Fixtures --screenshots .cache/screenshots \
    --pidfile "$pidfile" "$@" &
runner=$!
status=0
wait "$runner" || status=$?
runner=""
exit "$status"
