#!/usr/bin/env bash
# How much of savekit each fuzz target's kept corpus (tests/fuzz/corpus/NAME) reaches: every
# input of the corpus run once (-runs=0) in a build with clang's source-based coverage, and
# the lines of savekit's own sources (src/, include/, server/) that ran, over the files the
# target reaches at all; and the same after ctest's fixed run (the working corpus it grew
# from the kept one, in WORK_DIR/NAME), where there is one. Prints a Markdown table;
# docs/testing.md holds the last one.
#   scripts/fuzz_coverage.sh [BUILD_DIR [WORK_DIR]]
#   (defaults build/fuzz-coverage and build/sanitize/tests/fuzz/corpus; a few minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/fuzz-coverage}
work=${2:-build/sanitize/tests/fuzz/corpus}
flags="-fprofile-instr-generate -fcoverage-mapping"
# The sanitize preset's configuration (clang, the fuzz targets), without its sanitizers on
# the library, with coverage everywhere.
cmake --preset sanitize -B "$build" -DSAVEKIT_SANITIZE=OFF -DSAVEKIT_BUILD_TESTS=OFF -DSAVEKIT_BUILD_EXAMPLES=OFF \
  -DSAVEKIT_BUILD_BENCH=OFF -DSAVEKIT_BUILD_TOOLS=OFF -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fprofile-instr-generate" >/dev/null
targets=$(ls tests/fuzz/corpus)
for t in $targets; do
  cmake --build "$build" -j 2 --target "fuzz_$t" >/dev/null
done
profiles="$build/coverage"
rm -rf "$profiles"
mkdir -p "$profiles"
# Runs fuzz_$1 once over the corpora after it; prints "files reached | lines run / lines in them".
coverage() {
  local t=$1 binary="$build/tests/fuzz/fuzz_$1" name="$2"
  shift 2
  LLVM_PROFILE_FILE="$profiles/$name.profraw" "$binary" -runs=0 -rss_limit_mb=2048 "$@" >"$profiles/$name.log" 2>&1
  llvm-profdata merge -sparse "$profiles/$name.profraw" -o "$profiles/$name.profdata"
  llvm-cov export -summary-only -instr-profile="$profiles/$name.profdata" "$binary" >"$profiles/$name.json"
  python3 - "$profiles/$name.json" "$PWD" <<'PY'
import json, sys
path, root = sys.argv[1], sys.argv[2]
files = json.load(open(path))["data"][0]["files"]
ours = [f for f in files
        if f["filename"].startswith(root + "/") and
        f["filename"][len(root) + 1:].split("/")[0] in ("src", "include", "server")]
reached = [f for f in ours if f["summary"]["lines"]["covered"] > 0]
covered = sum(f["summary"]["lines"]["covered"] for f in reached)
count = sum(f["summary"]["lines"]["count"] for f in reached)
print(f"{len(reached)} | {covered:,} / {count:,} ({100 * covered / max(count, 1):.0f}%)", end="")
PY
}
echo "| target | inputs kept | files reached | lines run / lines in them | after ctest's run: inputs | files | lines |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for t in $targets; do
  row="| fuzz_$t | $(ls "tests/fuzz/corpus/$t" | wc -l) | $(coverage "$t" "$t" "tests/fuzz/corpus/$t") |"
  if [ -d "$work/$t" ]; then
    row="$row $(ls "$work/$t" | wc -l) | $(coverage "$t" "$t-work" "$work/$t" "tests/fuzz/corpus/$t") |"
  else
    row="$row | | |"
  fi
  echo "$row"
done
