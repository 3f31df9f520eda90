#!/usr/bin/env bash
# `make docs`: swift-symbolgraph-extract with the modules `import Focal` re-exports allowed into
# Focal's symbol graph (Sources/Focal/Exports.swift), so that the reference documents FocalCore's
# types (CropPlan, CropTarget, Subject, FocalError...) and those picked from FocalImaging,
# FocalDetection, FocalRuntime and FocalFetch as Focal's, the way a library user names them.
# Without the flag the graph holds only what Focal declares itself. SwiftPM runs this script in
# place of the tool when SWIFT_SYMBOLGRAPH_EXTRACT names it (the Makefile's docs target does);
# the tool itself is the one beside `swift` ($SWIFT, else the one on PATH).
set -euo pipefail
NAME=docs
. "$(dirname "$0")/common.sh"

swift=$(command -v "${SWIFT:-swift}") || die "no ${SWIFT:-swift} on PATH"
tool=$(dirname "$(readlink -f "$swift")")/swift-symbolgraph-extract
[ -x "$tool" ] || tool=$(command -v swift-symbolgraph-extract) || die "no swift-symbolgraph-extract beside $swift"
exec "$tool" "$@" -experimental-allowed-reexported-modules=FocalCore,FocalImaging,FocalDetection,FocalRuntime,FocalFetch
