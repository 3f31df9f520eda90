#!/usr/bin/env bash
# make package-element: the <focal-img> package folder, as a site vendors it or a registry takes
# it: focal-img.js and focal-img.css exactly as `focal serve` serves them (as checked in: their
# option and format tables are generated files, `make generated`), the TypeScript declarations and package.json of
# packages/focal-img/ (version: `focal --version`), in .build/package/focal-img/.
# With --check (make check-element) it also compiles packages/focal-img/check.ts against the
# declarations with Debian's tsc (node-typescript, installed when missing) and checks that the
# module's exports are exactly the names the declarations give.
set -euo pipefail
cd "$(dirname "$0")/.."

NAME=package-element
. scripts/common.sh

check=false
[ "${1:-}" = "--check" ] && check=true
focal=${FOCAL_BIN:-.build/debug/focal}
[ -x "$focal" ] || die "$focal is missing: run make build first"
out=.build/package/focal-img
rm -rf "$out"
mkdir -p "$out"

tmp=$(mktemp -d /tmp/focal-package.XXXXXX)
pid=""
trap stop_server_and_clean EXIT
port=$(python3 -m focalscripts.ports)
"$focal" serve --host 127.0.0.1 --port "$port" --allow-unsafe --data "$tmp/data" --models models >"$tmp/serve.log" 2>&1 &
pid=$!
fetch() {  # fetch URL FILE: the body of a 200, else a failure
    python3 -c 'import sys, urllib.request; open(sys.argv[2], "wb").write(urllib.request.urlopen(sys.argv[1], timeout=10).read())' "$1" "$2" 2>/dev/null
}
for _ in $(seq 300); do
    fetch "http://127.0.0.1:$port/healthz" "$tmp/health" && break
    kill -0 "$pid" 2>/dev/null || { cat "$tmp/serve.log" >&2; die "focal serve stopped"; }
    sleep 0.1
done
for file in focal-img.js focal-img.css; do
    fetch "http://127.0.0.1:$port/$file" "$out/$file" || die "focal serve did not serve $file"
done
cp packages/focal-img/focal-img.d.ts "$out/"
version=$("$focal" --version)
python3 - "$out/package.json" "$version" <<'PY'
import json, sys
path, version = sys.argv[1], sys.argv[2]
package = json.load(open("packages/focal-img/package.json"))
package["version"] = version
open(path, "w").write(json.dumps(package, indent=2) + "\n")
PY
cmp -s "$out/focal-img.js" Sources/FocalServer/Web/focal-img.js || die "focal serve served a focal-img.js other than the checked-in one"
say "wrote $out (version $version): $(cd "$out" && ls | tr '\n' ' ')"
$check || exit 0

command -v tsc >/dev/null 2>&1 || apt_install node-typescript
command -v tsc >/dev/null 2>&1 || die "tsc did not install (node-typescript)"
cp packages/focal-img/check.ts "$out/"
(cd "$out" && tsc --strict --noEmit --target es2022 --module es2022 --moduleResolution node --lib es2022,dom check.ts) \
    || die "check.ts does not compile against focal-img.d.ts"
say "tsc $(tsc --version | awk '{print $2}'): check.ts compiles against the declarations"
declared=$(grep -oE '^export declare (function|class) [A-Za-z]+' "$out/focal-img.d.ts" | awk '{print $4}' | sort | tr '\n' ' ')
exported=$(node --input-type=module -e "
const m = await import('$(realpath "$out/focal-img.js")');
console.log(Object.keys(m).sort().join(' '));" | tr '\n' ' ')
[ "$(echo $declared)" = "$(echo $exported)" ] || die "the declarations name '$declared', the module exports '$exported'"
say "the module's exports are the declared ones: $exported"
rm "$out/check.ts"
