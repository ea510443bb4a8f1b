#!/usr/bin/env bash
# Two builds of codec_bench side by side: before a change and after it (each copied out of
# build/release/bench/ when it was built), run in turn ROUNDS times (3 repetitions each), the
# medians of each benchmark's medians printed with new ÷ old. What the CHANGELOG's
# "new ÷ old" figures come from; on a shared machine, alternating is what makes them fair.
#   bench/compare_builds.sh OLD_CODEC_BENCH NEW_CODEC_BENCH FILTER [ROUNDS]
#   bench/compare_builds.sh /tmp/old /tmp/new '^(SaveGame|Status)/(write|read|read-reuse)/savekit' 3
set -euo pipefail
if [ $# -lt 3 ]; then sed -n '2,7p' "$0"; exit 2; fi
old=$1 new=$2 filter=$3 rounds=${4:-3}
for ((i = 0; i < rounds; ++i)); do
  for way in old new; do
    binary=$old
    [ "$way" = new ] && binary=$new
    "$binary" --benchmark_filter="$filter" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
      --benchmark_format=csv 2>/dev/null | grep '_median' | sed "s/^/$way,/"
  done
done | python3 -c '
import collections, csv, statistics, sys
times = collections.defaultdict(list)
for row in csv.reader(sys.stdin):
    times[(row[1].replace("_median", ""), row[0])].append(float(row[3]))
for name in sorted({k[0] for k in times}):
    old, new = statistics.median(times[(name, "old")]), statistics.median(times[(name, "new")])
    print(f"{name:60} old {old:11.1f} new {new:11.1f}  new/old {new / old:5.2f}")
'
