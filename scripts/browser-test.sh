#!/usr/bin/env bash
# make test-browser: installs Chromium, chromedriver and Selenium when missing (all from Debian:
# chromium, chromium-driver, python3-selenium for /usr/bin/python3) and axe-core (scripts/setup.sh
# axe), builds focal, and runs
# Tests/browser against a live `focal serve` on a free loopback port with a temporary --data
# folder. run.py starts and stops the server (also on SIGINT/SIGTERM); this script's trap stops it
# too should run.py die without doing so. Arguments go to run.py (-k PATTERN, -v).
# Screenshots land in .cache/screenshots/. Exits non-zero when a test fails.
set -euo pipefail
cd "$(dirname "$0")/.."

NAME=browser-test
. scripts/common.sh

python=/usr/bin/python3
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
"$python" -c 'import selenium' >/dev/null 2>&1 || missing+=(python3-selenium)
apt_install ${missing[@]+"${missing[@]}"}
"$python" -c 'import selenium' >/dev/null 2>&1 || die "python3-selenium did not install"

scripts/setup.sh axe

# shellcheck disable=SC2086
${SWIFT:-swift} build --product focal ${LINK:-}

mkdir -p .cache
pidfile=.cache/browser-test-focal.pid
rm -f "$pidfile"
runner=""
cleanup() {
    if [ -n "$runner" ]; then kill "$runner" 2>/dev/null && wait "$runner" 2>/dev/null; fi
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
