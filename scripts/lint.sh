#!/usr/bin/env bash
# `make lint`: the code's style as it is, checked without rewriting anything.
#
# Swift (Sources, Tests, Fuzz, Benchmarks): `swift format lint` with .swift-format. Its rules are
# chosen there; its layout findings cannot be switched off in a configuration, so three of them are
# set aside here because the hand-wrapped code would need rewriting in many files to meet them:
#   Indentation    continuation lines and argument tables aligned by hand (343 findings, 36 files)
#   AddLines       breaks swift-format would add, e.g. around a trailing closure (194, 52 files)
#   TrailingComma  a multi-line collection without a comma after its last element (8 files)
# and RemoveLine only where it asks to drop a blank line at the end of a file (4 files). Everything
# else it reports fails: line length, spacing, trailing whitespace, extra blank lines, the rules.
# Also no tab in the indentation of a Swift line.
#
# C (Sources/CFocalVips, Sources/CFocalInference): clang-format --dry-run --Werror with
# .clang-format (clang-format comes from Debian: `scripts/setup.sh deps` installs it).
#
# Python (scripts/, Tests/), with python3 alone: every file compiles, and every module of the
# package scripts/focalscripts imports (a misspelt or missing import fails here, not mid-benchmark).
#
# Exit status 1 when anything is reported, with every finding on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=lint
. scripts/common.sh

swift_dirs=(Sources Tests Fuzz Benchmarks)
set_aside='Indentation|AddLines|TrailingComma'
failed=0

# Whether line $2 of file $1 is followed only by blank lines.
ends_file() { awk -v n="$2" 'NR > n && NF { more = 1 } END { exit more ? 1 : 0 }' "$1"; }

report=$(swift format lint --configuration .swift-format --recursive --parallel "${swift_dirs[@]}" 2>&1) || {
    printf '%s\n' "$report" >&2
    die "swift format lint could not check the files"
}
findings=()
while IFS= read -r line; do
    [ -n "$line" ] || continue
    if [[ $line =~ \ warning:\ \[($set_aside)\]\  ]]; then continue; fi
    if [[ $line =~ ^(.+):([0-9]+):[0-9]+:\ warning:\ \[RemoveLine\]\  ]] && ends_file "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"; then
        continue
    fi
    findings+=("$line")
done <<< "$report"
while IFS= read -r line; do
    findings+=("$line: warning: [Tabs] indent with spaces, not tabs")
done < <(grep -rnP --include='*.swift' '^ *\t' "${swift_dirs[@]}" | cut -d: -f1,2 || true)
if [ ${#findings[@]} -gt 0 ]; then
    printf '%s\n' "${findings[@]}" >&2
    say "swift: ${#findings[@]} findings (.swift-format; scripts/lint.sh says which are set aside)"
    failed=1
else
    say "swift: clean ($(find "${swift_dirs[@]}" -name '*.swift' | wc -l) files)"
fi

command -v clang-format >/dev/null || die "clang-format is missing: run scripts/setup.sh deps"
c_files=()
while IFS= read -r file; do c_files+=("$file"); done < <(find Sources/CFocalVips Sources/CFocalInference -type f \( -name '*.c' -o -name '*.cpp' -o -name '*.h' \) | sort)
if clang-format --dry-run --Werror "${c_files[@]}"; then
    say "C/C++: clean (${#c_files[@]} files, $(clang-format --version | sed 's/.*version \([0-9.]*\).*/clang-format \1/'))"
else
    say "C/C++: clang-format would change the files above (.clang-format)"
    failed=1
fi

if report=$(python3 - <<'PY' 2>&1
import importlib, pathlib, sys
files = sorted(p for top in ("scripts", "Tests") for p in pathlib.Path(top).rglob("*.py"))
problems = []
for path in files:
    try:
        compile(path.read_bytes(), str(path), "exec")
    except SyntaxError as error:
        problems.append(f"{path}:{error.lineno}: {error.msg}")
modules = sorted(p.stem for p in pathlib.Path("scripts/focalscripts").glob("*.py") if p.stem != "__init__")
for name in modules:
    try:
        importlib.import_module(f"focalscripts.{name}")
    except Exception as error:  # noqa: BLE001 - every failure is a finding
        problems.append(f"scripts/focalscripts/{name}.py: does not import: {error!r}")
print("\n".join(problems) if problems else f"{len(files)} files compile, {len(modules)} modules of focalscripts import")
sys.exit(1 if problems else 0)
PY
); then
    say "Python: clean ($report)"
else
    printf '%s\n' "$report" >&2
    say "Python: the files above do not compile or import"
    failed=1
fi
exit "$failed"
