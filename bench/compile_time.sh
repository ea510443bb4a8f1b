#!/usr/bin/env bash
# Compile time of the translation unit with the seed types (examples/seed_objects.cpp, g++
# -O2), this tree beside another revision's (a git worktree), compiled in turn N times each,
# in CPU time: the best and the median of each (on a shared 2-core machine single runs vary
# by 20%; the two together say how far to trust the ratio).
# Issue 10's budget: at most 25% over the commit before it (e2f6cba).
#   bench/compile_time.sh [BASE_REVISION] [N]        # default e2f6cba, 5
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-e2f6cba} n=${2:-5}
tree=$(mktemp -d)
trap 'git worktree remove --force "$tree" >/dev/null 2>&1 || true; rm -rf "$tree"' EXIT
git worktree add -q --detach "$tree" "$base"
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
