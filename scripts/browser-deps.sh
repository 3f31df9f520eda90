#!/bin/sh
# Installs what the browser tests need when it is missing: Chromium, its driver and Selenium,
# all from Debian (apt-get, through sudo when not root). Prints the Python that has Selenium.
set -eu

python=/usr/bin/python3
missing=""
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
command -v chromedriver >/dev/null 2>&1 || missing="$missing chromium-driver"
"$python" -c 'import selenium' >/dev/null 2>&1 || missing="$missing python3-selenium"

if [ -n "$missing" ]; then
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    echo "browser-deps: installing$missing" >&2
    $sudo apt-get update -qq >&2
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >&2
fi

"$python" -c 'import selenium' >/dev/null 2>&1 || { echo "browser-deps: python3-selenium did not install" >&2; exit 1; }
echo "$python"
