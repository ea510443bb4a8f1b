#!/usr/bin/env bash
# savekit's main job: the seeds' two studies reproduced with savekit and the C++ peers
# (bench/seed_studies), their tables on stdout and in bench/results/ (Markdown, CSV,
# JSON, charts as PNG and SVG), the README's tables regenerated; then the store demo:
# the seed's Status saved in one process and loaded in another.
#   scripts/run.sh            the full run (about a minute)
#   scripts/run.sh --quick    few iterations (what CI runs through ctest)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target seed_studies example_seed_objects example_prefs_status

results=bench/results
mkdir -p "$results"
build/release/bench/seed_studies "$@" --out "$results/seed_studies.json"
/usr/bin/python3 bench/report.py "$results/seed_studies.json" "$results"
if [ "${1:-}" != "--quick" ]; then
  python3 scripts/embed_results.py README.md seed-studies "$results/seed_studies_summary.md"
  echo "updated README.md and $results/" >&2
fi

echo
./build/release/examples/example_seed_objects
echo
store_dir=$(mktemp -d)
trap 'rm -rf "$store_dir"' EXIT
./build/release/examples/example_prefs_status save "$store_dir"
./build/release/examples/example_prefs_status load "$store_dir"
