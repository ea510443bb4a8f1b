#!/usr/bin/env bash
# savekit's main job (for now): builds the release configuration and shows the seed
# studies' two objects in every format, each checked to load back equal.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target example_seed_objects
./build/release/examples/example_seed_objects
