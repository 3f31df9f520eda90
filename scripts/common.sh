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
