#!/usr/bin/env bash
# savekit's main job (for now): builds the release configuration, shows the seed studies'
# two objects in every format (each checked to load back equal), then saves the seed's
# Status through the store and loads it back in a second process.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target example_seed_objects example_prefs_status
./build/release/examples/example_seed_objects
echo
store_dir=$(mktemp -d)
trap 'rm -rf "$store_dir"' EXIT
./build/release/examples/example_prefs_status save "$store_dir"
./build/release/examples/example_prefs_status load "$store_dir"
