#!/usr/bin/env bash
# Builds the release configuration, runs the store benchmark (3 repetitions, median) and
# writes bench/results/store.{json,md}. The store files go to build/release/store-bench.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target store_bench
mkdir -p bench/results
SAVEKIT_BENCH_DIR=build/release/store-bench build/release/bench/store_bench --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_out=bench/results/store.json --benchmark_out_format=json "$@"
{
  echo "# Store benchmark"
  echo
  echo "Produced by \`bench/run_store.sh\` on $(date -u +%Y-%m-%d); compiler: $(c++ --version | head -1);"
  echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores; disk: $(df -T build | awk 'NR==2 {print $2}'); flags: -O3 -DNDEBUG."
  echo "Median of 3 repetitions."
  echo
  python3 bench/report_store.py bench/results/store.json
} > bench/results/store.md
echo "wrote bench/results/store.md"
python3 scripts/embed_results.py README.md store-bench bench/results/store.md && echo "updated README.md"
