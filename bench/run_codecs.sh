#!/usr/bin/env bash
# Builds the release configuration, runs the codec benchmark (3 repetitions, median) and
# writes bench/results/codecs.{json,md}.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target codec_bench
mkdir -p bench/results
build/release/bench/codec_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_out=bench/results/codecs.json --benchmark_out_format=json "$@"
{
  echo "# Codec benchmark"
  echo
  echo "Produced by \`bench/run_codecs.sh\` on $(date -u +%Y-%m-%d); compiler: $(c++ --version | head -1);"
  echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores; flags: -O3 -DNDEBUG."
  echo
  python3 bench/report_codecs.py bench/results/codecs.json
} > bench/results/codecs.md
echo "wrote bench/results/codecs.md"
