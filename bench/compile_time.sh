#!/usr/bin/env bash
# Compile time of the translation unit with the seed types (examples/seed_objects.cpp, g++
# -O2), this tree beside another revision's (a git worktree). Issue 10's budget: at most 25%
# over the commit before it (e2f6cba).
#   bench/compile_time.sh [BASE_REVISION] [N]          # CPU time: compiled in turn N times each
#                                                      # (default e2f6cba, 5); the best and the median
#   bench/compile_time.sh --instructions [BASE_REVISION]
#     the compiler's instructions (cc1plus, counted by valgrind's callgrind): the same on every
#     run, whatever else the machine is doing — on a shared 2-core machine CPU time varies by
#     20%, so this is the figure to compare with the budget. (Both trees at once; minutes.)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=time
if [ "${1:-}" = --instructions ]; then
  mode=instructions
  shift
fi
base=${1:-e2f6cba} n=${2:-5}
tree=$(mktemp -d) counts=$(mktemp -d)
trap 'git worktree remove --force "$tree" >/dev/null 2>&1 || true; rm -rf "$tree" "$counts"' EXIT
git worktree add -q --detach "$tree" "$base"
compile() {  # TREE [wrapper...]
  local at=$1
  shift
  "$@" g++ -O2 -std=c++20 -I"$at/include" -I"$at/examples" -isystem /usr/include/dragonbox-1.1.3 \
    -c "$at/examples/seed_objects.cpp" -o /dev/null
}
if [ "$mode" = instructions ]; then
  command -v valgrind >/dev/null || { echo "valgrind is needed (Debian: valgrind)" >&2; exit 2; }
  count() {  # TREE NAME: cc1plus's instructions into $counts/NAME
    compile "$1" valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$counts/$2.%p" 2>/dev/null
    local file
    for file in "$counts/$2".*; do  # the driver, cc1plus and as: the compiler is the one with the most
      awk '/^summary:/ {print $2}' "$file"
    done | sort -n | tail -1 >"$counts/$2"
  }
  count "$tree" base &
  count "$PWD" here
  wait
  python3 - "$base" "$(cat "$counts/base")" "$(cat "$counts/here")" <<'PY'
import sys
base, b, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
print(f"compiler instructions: {base} {b / 1e9:.2f} G, this tree {h / 1e9:.2f} G: {100 * (h / b - 1):+.1f}%")
PY
  exit 0
fi
python3 - "$base" "$tree" "$PWD" "$n" <<'PY'
import resource, statistics, subprocess, sys
base, base_tree, here, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def compile_seconds(tree):  # the compiler's CPU time (user + system): less swayed by other load than wall time
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["g++", "-O2", "-std=c++20", f"-I{tree}/include", f"-I{tree}/examples",
                    "-isystem", "/usr/include/dragonbox-1.1.3", "-c", f"{tree}/examples/seed_objects.cpp",
                    "-o", "/dev/null"], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
times = {base_tree: [], here: []}
for _ in range(n):
    for tree in times:
        times[tree].append(compile_seconds(tree))
for what, pick in (("best", min), ("median", statistics.median)):
    b, h = pick(times[base_tree]), pick(times[here])
    print(f"{what} of {n}: {base} {b:.2f} s, this tree {h:.2f} s (CPU time): {100 * (h / b - 1):+.1f}%")
PY
