# Shared by the setup scripts (sourced, not run): messages and Debian package installs.
# The script sets NAME (its prefix in messages) before sourcing this file.

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
