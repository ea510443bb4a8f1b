#!/usr/bin/env bash
# Compile time of the translation unit with the seed types (examples/seed_objects.cpp, g++
# -O2), this tree beside another revision's (a git worktree), compiled in turn; the best of N
# each, in CPU time.
# Issue 10's budget: at most 25% over the commit before it (e2f6cba).
#   bench/compile_time.sh [BASE_REVISION] [N]        # default e2f6cba, 5
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-e2f6cba} n=${2:-5}
tree=$(mktemp -d)
trap 'git worktree remove --force "$tree" >/dev/null 2>&1 || true; rm -rf "$tree"' EXIT
git worktree add -q --detach "$tree" "$base"
python3 - "$base" "$tree" "$PWD" "$n" <<'PY'
import resource, subprocess, sys
base, base_tree, here, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def compile_seconds(tree):  # the compiler's CPU time (user + system): less swayed by other load than wall time
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["g++", "-O2", "-std=c++20", f"-I{tree}/include", f"-I{tree}/examples",
                    "-isystem", "/usr/include/dragonbox-1.1.3", "-c", f"{tree}/examples/seed_objects.cpp",
                    "-o", "/dev/null"], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
best = {base_tree: float("inf"), here: float("inf")}
for _ in range(n):
    for tree in best:
        best[tree] = min(best[tree], compile_seconds(tree))
b, h = best[base_tree], best[here]
print(f"{base} {b:.2f} s, this tree {h:.2f} s (CPU time, best of {n}): {100 * (h / b - 1):+.1f}%")
PY
