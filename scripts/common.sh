# Shared by the shell scripts (sourced, not run, by bash): messages, Debian package installs, the
# Python tools, random tokens, and stopping a server on exit.
# The script sets NAME (its prefix in messages) before sourcing this file.

# The Python tools are the package scripts/focalscripts, run as `python3 -m focalscripts.NAME`:
# its folder goes on PYTHONPATH (once), for this script and what it starts.
FOCAL_SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case ":${PYTHONPATH:-}:" in
    *":$FOCAL_SCRIPTS:"*) ;;
    *) export PYTHONPATH="$FOCAL_SCRIPTS${PYTHONPATH:+:$PYTHONPATH}" ;;
esac

say() { printf '%s: %s\n' "${NAME:-focal}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${NAME:-focal}" "$*" >&2; exit "${DIE_STATUS:-1}"; }

# Runs a command as root: directly when root, through sudo otherwise.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null; then sudo "$@"
    else die "need root to run: $* (install sudo, or run this as root)"; fi
}

# Installs Debian packages, without recommends and without questions.
apt_install() {
    [ $# -gt 0 ] || return 0
    say "installing $*"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# A random URL-safe token of about 4/3 x $1 characters (default 24 random bytes: 32 characters).
random_token() { head -c "${1:-24}" /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '='; }

# An EXIT trap for scripts that start a server: stops the process $pid (SIGTERM, then SIGKILL
# after 10 s), removes the folder $tmp, and exits with the script's status.
stop_server_and_clean() {
    local status=$?
    if [ -n "${pid:-}" ] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    [ -n "${tmp:-}" ] && rm -rf "$tmp"
    exit "$status"
}

# Python venvs of pinned wheels (thumbor for comparison, NNCF for the int8 models): the wheels are
# CPython 3.11 builds, checked by sha256 (pip --require-hashes).
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
