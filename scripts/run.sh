#!/usr/bin/env bash
# savekit's main job: the seeds' two studies reproduced with savekit and the C++ peers
# (bench/seed_studies), study A also as WebAssembly under node and in headless Chromium, in
# turn with the same code built natively (bench/web/run_study_a.mjs), their tables on
# stdout and in bench/results/ (Markdown, CSV,
# JSON, charts as PNG and SVG), the README's tables regenerated; then the store demo:
# the seed's Status saved in one process and loaded in another; then the cloud demo: the
# Status saved to savekit-server (SQLite, 127.0.0.1) with curl, loaded back, the server stopped.
#   scripts/run.sh            the full run (two to three minutes with its builds)
#   scripts/run.sh --quick    few iterations (what CI runs through ctest)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release "$(scripts/glaze_option.sh)" >/dev/null
cmake --build --preset release --target seed_studies study_a_native example_seed_objects example_prefs_status \
  savekit_server savekit_cli

results=bench/results
mkdir -p "$results"
build/release/bench/seed_studies "$@" --out "$results/seed_studies.json"

# Study A in memory natively and as WebAssembly under node and in headless Chromium, run in
# turn round by round (the ratios are taken within each round), then Chromium through IndexedDB.
export NODE_PATH=/usr/share/nodejs
npm ci --prefix tests/web --no-audit --no-fund --loglevel=error
cmake --preset emscripten >/dev/null
cmake --build --preset emscripten --target study_a_node study_a_web web_inspector
if [ "${1:-}" = "--quick" ]; then wasm_args=(200 1 10); else wasm_args=(10000 7 200); fi
node bench/web/run_study_a.mjs build/release build/wasm "$results" "${wasm_args[@]}"

/usr/bin/python3 bench/report.py studies "$results/seed_studies.json" "$results" \
  "$results/study_a_wasm_node.json" "$results/study_a_wasm_chromium.json" "$results/study_a_native.json"
if [ "${1:-}" != "--quick" ]; then
  python3 scripts/embed_results.py README.md seed-studies "$results/seed_studies_headline.md"
  echo "updated README.md and $results/" >&2
fi

echo
./build/release/examples/example_seed_objects
echo
store_dir=$(mktemp -d)
trap 'rm -rf "$store_dir"' EXIT
./build/release/examples/example_prefs_status save "$store_dir"
./build/release/examples/example_prefs_status load "$store_dir"
echo
scripts/cloud_demo.sh build/release
echo
echo "The save inspector page is built: build/wasm/examples/web/inspector.html. To use it, serve"
echo "that folder with any static server and open it, e.g.:"
echo "  python3 -m http.server -b 127.0.0.1 8000 -d build/wasm/examples/web   # then http://127.0.0.1:8000/inspector.html"
