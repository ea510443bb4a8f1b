#!/usr/bin/env bash
# Runs one Google Benchmark program in the release configuration (5 interleaved repetitions, 11 for
# the codecs; medians)
# and writes bench/results/NAME.{json,md}; the slots' tables and the codecs' summary beside
# glaze are also embedded in the README (the store's is linked from it).
#   bench/run.sh codecs [benchmark flags]    savekit's codecs next to the peers (codec_bench)
#   bench/run.sh store  [benchmark flags]    the store: per key vs object, commits, opens (store_bench)
#   bench/run.sh slots  [benchmark flags]    slots: list() against payload size, write vs write_async (slots_bench)
#   bench/run.sh seal   [benchmark flags]    sealed saves: zstd/zlib/lz4 ratios and speeds, seal costs (seal_bench)
#   bench/run.sh e2e    [benchmark flags]    prefs set/save and slots write/list beside their floors (e2e_bench)
#   bench/run.sh seal-wasm                   sealing's costs natively and as WebAssembly under node (seal_costs)
#   bench/run.sh browser-e2e                 saves and the slots' open in Chromium beside IndexedDB's own requests
#   bench/run.sh wasm-gap                    study A's compact round trip taken apart, native and wasm (wasm_gap)
#   bench/run.sh server [--seconds S]        savekit-server under load beside its database driver (server_load)
#   bench/run.sh cloud                       the cloud sync beside the same requests by libcurl alone (cloud_bench)
#   bench/run.sh cloud-model [SEEDS]         the sync's model-based test and kill test, many seeds (default 500)
#   bench/run.sh ha [SECONDS]                savekit-server on Patroni + etcd (scripts/cluster.sh): what a 2xx
#                                            promises through a cancelled standby wait, a replayed write id
#                                            and a failover (tests/server/test_cluster.sh), then the
#                                            Jepsen-style failover history for SECONDS (default 600), and
#                                            4 KB and 256 KB PUTs and the load menu at 64 players on the
#                                            cluster beside one PostgreSQL (server_load), and the time
#                                            from a primary's death to the next acknowledged write
#   bench/run.sh browser-soak                over a gigabyte of slots in Chromium's IndexedDB, opened again
#   bench/run.sh abi                         a call through the C ABI, C# (Mono) and Python beside C++ (abi_overhead);
#                                            study A from C# beside C++ (StudyA.cs, study_a_layers)
# (The seeds' studies, the main job, are scripts/run.sh.)
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:-}
# One source built natively (release) and for node (emscripten), the two run in turn for
# ROUNDS rounds; bench/report.py MODE turns their JSON lines into RESULT.md (medians per case).
#   native_and_wasm MODE RESULT NATIVE_TARGET WASM_TARGET SOURCE ROUNDS TITLE
native_and_wasm() {
  local mode=$1 result=$2 native=$3 wasm=$4 source=$5 rounds=$6 title=$7
  export NODE_PATH=/usr/share/nodejs
  # (One command per line: under set -e a failure on the left of && does not stop the script,
  # and a stale binary would be measured.)
  cmake --preset release >/dev/null
  cmake --build --preset release --target "$native"
  cmake --preset emscripten >/dev/null
  cmake --build --preset emscripten --target "$wasm"
  local compiler
  compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[^=]*=//p' build/release/CMakeCache.txt)  # the release preset's
  results=bench/results
  mkdir -p "$results"
  : >"$results/$result.jsonl"
  for round in $(seq 1 "$rounds"); do
    echo "round $round of $rounds"
    "build/release/bench/$native" >>"$results/$result.jsonl"
    node --no-experimental-fetch "build/wasm/bench/web/$wasm.js" >>"$results/$result.jsonl"
  done
  {
    echo "# $title"
    echo
    echo "Produced by \`bench/run.sh $mode\` on $(date -u +%Y-%m-%d): $source built with"
    echo "$("$compiler" --version | sed -n 1p) -O3 and with $(emcc --version | sed -n 1p | cut -d'(' -f1)-O3, run under node $(node --version);"
    echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'). Median of $rounds rounds, the two builds in turn."
    echo
    python3 bench/report.py "$mode" "$results/$result.jsonl"
  } >"$results/$result.md"
  echo "wrote $results/$result.md"
}
if [ "$name" = seal-wasm ]; then
  scripts/install-deps.sh
  scripts/build-wasm-deps.sh build/wasm-deps  # zstd and libsodium as WebAssembly
  native_and_wasm seal-wasm seal_wasm seal_costs seal_costs_node bench/seal_costs.cpp 5 \
    "Sealing natively and as WebAssembly"
  python3 scripts/embed_results.py README.md seal-wasm-bench bench/results/seal_wasm.md && echo "updated README.md"
  exit 0
fi
if [ "$name" = browser-soak ]; then
  # Over a gigabyte of acknowledged slots in Chromium's IndexedDB, opened again in a fresh
  # page (tests/web/run_browser_tests.mjs, 'a gigabyte'): minutes, and a gigabyte of disk.
  scripts/test.sh wasm
  SAVEKIT_BROWSER_LONG=1 SAVEKIT_BROWSER_TEST='a gigabyte' NODE_PATH=/usr/share/nodejs \
    node tests/web/run_browser_tests.mjs build/wasm
  exit 0
fi
if [ "$name" = browser-e2e ]; then
  # Saves in Chromium beside the same IndexedDB requests made by the page's JavaScript, and
  # the slots' open (50 slots x 3 generations of 1 MB) beside a getAll of the same records.
  scripts/install-deps.sh
  npm ci --prefix tests/web --no-audit --no-fund --loglevel=error
  export NODE_PATH=/usr/share/nodejs
  scripts/build-wasm-deps.sh build/wasm-deps
  cmake --preset emscripten >/dev/null
  cmake --build --preset emscripten --target browser_e2e_web
  mkdir -p bench/results
  node bench/web/run_browser_e2e.mjs build/wasm bench/results/browser_e2e.json "${@:2}"
  {
    echo "# In the browser: savekit's saves and its slots' open beside IndexedDB's own requests"
    echo
    echo "Produced by \`bench/run.sh browser-e2e\` on $(date -u +%Y-%m-%d) (bench/web/run_browser_e2e.mjs)."
    echo
    /usr/bin/python3 bench/report.py browser-e2e bench/results/browser_e2e.json
  } >bench/results/browser_e2e.md
  echo "wrote bench/results/browser_e2e.md"
  exit 0
fi
if [ "$name" = wasm-gap ]; then
  scripts/install-deps.sh
  native_and_wasm wasm-gap wasm_gap wasm_gap wasm_gap_node bench/wasm_gap.cpp 7 \
    "Study A's compact round trip taken apart, natively and as WebAssembly"
  exit 0
fi
if [ "$name" = abi ]; then
  # The four layers in turn, 5 rounds, each process taking the median of its own 5 repetitions.
  scripts/install-deps.sh
  cmake --preset release >/dev/null
  cmake --build --preset release --target abi_overhead study_a_layers savekit_c csharp_binding
  results=bench/results
  mkdir -p "$results"
  : >"$results/abi_overhead.jsonl"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mcs -nologo -optimize+ -out:"$work/AbiOverhead.exe" -r:build/release/tests/csharp/Savekit.Runtime.dll \
    bench/bindings/AbiOverhead.cs
  mcs -nologo -optimize+ -out:"$work/StudyA.exe" -r:build/release/tests/csharp/Savekit.Runtime.dll \
    -r:System.Runtime.Serialization bench/bindings/StudyA.cs
  cp build/release/tests/csharp/Savekit.Runtime.dll "$work/"
  for round in 1 2 3 4 5; do
    echo "round $round of 5"
    rm -f "$work"/*.prefs*
    build/release/bench/abi_overhead "$work" >>"$results/abi_overhead.jsonl"
    LD_LIBRARY_PATH=build/release mono "$work/AbiOverhead.exe" "$work" >>"$results/abi_overhead.jsonl"
    SAVEKIT_LIBRARY=build/release/libsavekit_c.so PYTHONPATH=bindings/python \
      /usr/bin/python3 bench/bindings/abi_overhead.py "$work" >>"$results/abi_overhead.jsonl"
  done
  {
    echo "# A call through the C ABI and the bindings, beside C++"
    echo
    echo "Produced by \`bench/run.sh abi\` on $(date -u +%Y-%m-%d): bench/abi_overhead.cpp (g++ -O3),"
    echo "bench/bindings/AbiOverhead.cs under $(mono --version | sed -n 1p | cut -d'(' -f1)and"
    echo "bench/bindings/abi_overhead.py under $(/usr/bin/python3 --version), all over build/release/libsavekit_c.so."
    echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'). Median of 5 rounds, the layers in turn."
    echo
    python3 bench/report.py abi "$results/abi_overhead.jsonl"
  } >"$results/abi_overhead.md"
  echo "wrote $results/abi_overhead.md"
  # Study A from C#, beside the same from C++ (3 runs each, as the seed).
  : >"$results/study_a_csharp.jsonl"
  build/release/bench/study_a_layers "$work" 10000 3 1000 >>"$results/study_a_csharp.jsonl"
  LD_LIBRARY_PATH=build/release mono "$work/StudyA.exe" "$work" 10000 3 1000 >>"$results/study_a_csharp.jsonl"
  {
    echo "# Study A from C# (Mono), beside C++"
    echo
    echo "Produced by \`bench/run.sh abi\` on $(date -u +%Y-%m-%d): bench/bindings/StudyA.cs under"
    echo "$(mono --version | sed -n 1p | cut -d'(' -f1)over SavekitPrefs, and bench/study_a_layers.cpp (g++ -O3), each store a"
    echo "file on $(df --output=fstype "$work" | tail -1) (a temporary folder). CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'). Mean of 3 runs."
    echo
    python3 bench/report.py study-a-layers "$results/study_a_csharp.jsonl"
  } >"$results/study_a_csharp.md"
  echo "wrote $results/study_a_csharp.md"
  exit 0
fi
if [ "$name" = cloud ]; then
  scripts/install-deps.sh
  cmake --preset release >/dev/null
  cmake --build --preset release --target cloud_bench savekit_server
  results=bench/results
  mkdir -p "$results"
  build/release/bench/cloud_bench --rounds 5 | tee "$results/cloud.jsonl"
  {
    echo "# The cloud sync beside libcurl alone"
    echo
    echo "Produced by \`bench/run.sh cloud\` on $(date -u +%Y-%m-%d): build/release (g++ -O3); savekit-server on SQLite and"
    echo "the client on one machine over 127.0.0.1 — CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'),"
    echo "$(nproc) cores; disk: $(df -T build | awk 'NR==2 {print $2}'). Median of 5 rounds, the cases in turn."
    echo
    python3 bench/report.py cloud "$results/cloud.jsonl"
  } >"$results/cloud.md"
  echo "wrote $results/cloud.md"
  exit 0
fi
if [ "$name" = cloud-model ]; then
  # Hundreds of random histories of three devices (test_cloud_model) on SQLite and PostgreSQL.
  scripts/install-deps.sh
  cmake --preset release >/dev/null
  cmake --build --preset release --target test_cloud_model test_cloud_kill
  SAVEKIT_CLOUD_MODEL_SEEDS=${2:-500} build/release/tests/cloud/test_cloud_model
  build/release/tests/cloud/test_cloud_kill
  exit 0
fi
if [ "$name" = ha ]; then
  # Three PostgreSQL nodes, three etcd members; the test command runs both with a 60 s history.
  scripts/install-deps.sh
  cmake --preset release >/dev/null
  cmake --build --preset release --target savekit_server server_load
  results=bench/results
  mkdir -p "$results"
  work=$(mktemp -d)
  chmod 755 "$work"  # (PostgreSQL runs as postgres, in folders below)
  status=0
  # Throughput and p99 on the cluster (Patroni's default 20 s lease) beside one PostgreSQL.
  scripts/cluster.sh start "$work/load" 0 "$PWD/build/release/server/savekit-server" >"$work/load.log" 2>&1 ||
    { cat "$work/load.log"; exit 1; }
  db=$(. "$work/load/cluster.env" && echo "$SAVEKIT_CLUSTER_DB")
  build/release/bench/server_load --backends postgresql,replicated --replicated-db "$db" --players 64 \
    --seconds 5 | tee "$results/ha_load.jsonl" || status=1
  scripts/cluster.sh stop "$work/load" >/dev/null
  {
    echo "# savekit-server on a replicated PostgreSQL, beside one PostgreSQL"
    echo
    echo "Produced by \`bench/run.sh ha\` on $(date -u +%Y-%m-%d): build/release, scripts/cluster.sh (three etcd"
    echo "members, three PostgreSQL nodes under Patroni, synchronous_mode_strict), the server and its clients on"
    echo "one machine over 127.0.0.1 — $(nproc) cores shared by all of them. Each case runs for 5 s."
    echo
    python3 bench/report.py server "$results/ha_load.jsonl"
  } >"$results/ha_load.md"
  echo "wrote $results/ha_load.md"
  bash tests/server/test_cluster.sh "$PWD/build/release/server/savekit-server" "$work/checks" || status=1
  # Failover times: SIGKILLed primaries on cluster.sh's own 20 s lease, then every fault on the
  # history's 10 s lease.
  : >"$results/ha_failover.jsonl"
  SAVEKIT_CLUSTER_TTL=20 python3 tests/server/cluster_history.py "$PWD/build/release/server/savekit-server" \
    "$work/failover" --faults kill-primary --seconds 240 --times "$results/ha_failover.jsonl" || status=1
  python3 tests/server/cluster_history.py "$PWD/build/release/server/savekit-server" "$work/history" \
    --seconds "${2:-600}" --times "$results/ha_failover.jsonl" | tee "$results/ha.txt" || status=1
  echo "wrote $results/ha.txt"
  {
    echo "# savekit-server's failovers: from the primary's death to the first acknowledged write"
    echo
    echo "Produced by \`bench/run.sh ha\` on $(date -u +%Y-%m-%d) (tests/server/cluster_history.py --times): eight"
    echo "clients writing through two servers; a write sent after the death, acknowledged by the new primary."
    echo "\`isolate-primary\` counts from the primary's kill, after its replication link was cut."
    echo
    python3 bench/report.py failover "$results/ha_failover.jsonl"
  } >"$results/ha_failover.md"
  echo "wrote $results/ha_failover.md"
  exit $status
fi
if [ "$name" = server ]; then
  # savekit-server under load (bench/server_load.cpp): SQLite, then a PostgreSQL it starts.
  scripts/install-deps.sh
  cmake --preset release >/dev/null
  cmake --build --preset release --target server_load savekit_server
  results=bench/results
  mkdir -p "$results"
  build/release/bench/server_load "${@:2}" | tee "$results/server.jsonl"
  {
    echo "# savekit-server under load"
    echo
    echo "Produced by \`bench/run.sh server\` on $(date -u +%Y-%m-%d): build/release (g++ -O3), savekit-server and"
    echo "its clients on one machine over 127.0.0.1 — CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'),"
    echo "$(nproc) cores shared by the server, the database and the clients; disk: $(df -T build | awk 'NR==2 {print $2}');"
    echo "PostgreSQL $(/usr/lib/postgresql/*/bin/postgres --version | awk '{print $3}'), SQLite $(sqlite3 --version 2>/dev/null | cut -d' ' -f1 || echo '3')."
    echo "Each case runs for 3 s (\`--seconds\`)."
    echo
    /usr/bin/python3 bench/report.py server "$results/server.jsonl"
  } >"$results/server.md"
  echo "wrote $results/server.md"
  python3 scripts/embed_results.py README.md server-bench "$results/server.md" && echo "updated README.md"
  exit 0
fi
case "$name" in
  codecs) program=codec_bench title="Codec benchmark" ;;
  store) program=store_bench title="Store benchmark" ;;
  slots) program=slots_bench title="Slots benchmark" ;;
  e2e) program=e2e_bench title="From the game's call to durable: each step beside its floor" ;;
  seal) program=seal_bench title="Sealed saves benchmark" ;;
  *) echo "usage: bench/run.sh codecs|store|slots|e2e|seal|seal-wasm|wasm-gap|browser-e2e|browser-soak|ha|server [benchmark flags]" >&2; exit 2 ;;
esac
shift
scripts/install-deps.sh
cmake --preset release "$(scripts/glaze_option.sh)" >/dev/null
cmake --build --preset release --target "$program"
results=bench/results
mkdir -p "$results"
# Repetitions in random order (interleaved), medians reported.
# Codecs: 11 repetitions, since ratios near 1.00 flip between runs at 5 on a shared machine.
repetitions=5
[ "$name" = codecs ] && repetitions=11
[ "$name" = e2e ] && repetitions=9  # (fsync times on this disk vary more than the gaps measured)
SAVEKIT_BENCH_DIR=build/release/store-bench "build/release/bench/$program" --benchmark_repetitions=$repetitions \
  --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true --benchmark_out="$results/$name.json" --benchmark_out_format=json "$@"
{
  echo "# $title"
  echo
  echo "Produced by \`bench/run.sh $name\` on $(date -u +%Y-%m-%d); compiler: $(c++ --version | sed -n 1p);"
  echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores;" \
    "disk: $(df -T build | awk 'NR==2 {print $2}'); flags: -O3 -DNDEBUG. Median of $repetitions repetitions in random order."
  echo
  /usr/bin/python3 bench/report.py "$name" "$results/$name.json"
} >"$results/$name.md"
echo "wrote $results/$name.md"
if [ "$name" = slots ] || [ "$name" = seal ]; then
  python3 scripts/embed_results.py README.md "$name-bench" "$results/$name.md" && echo "updated README.md"
fi
if [ "$name" = codecs ]; then  # and SaveGame's write as a plain loop calls it, as C++20 and C++23
  cmake --build --preset release --target plain_loop_caller_cxx20 plain_loop_caller_cxx23
  : >"$results/codecs_plain_loop.jsonl"
  for round in 1 2 3; do  # the two programs in turn: the machine's moments fall on both
    for standard in 20 23; do
      "build/release/bench/plain_loop_caller_cxx$standard" --rounds 3 >>"$results/codecs_plain_loop.jsonl"
    done
  done
  {
    echo
    echo "### SaveGame — write, from a plain loop"
    echo
    /usr/bin/python3 bench/report.py plain-loop "$results/codecs_plain_loop.jsonl"
  } >>"$results/$name.md"
fi
if [ "$name" = codecs ]; then  # savekit beside glaze: the geometric means and the cases behind
  python3 scripts/embed_results.py README.md codecs-vs-glaze "$results/codecs_headline.md" && echo "updated README.md"
fi
