#!/usr/bin/env bash
# Prints the CMake option that gives the benchmarks glaze (not packaged by Debian), when
# its pinned read-only copy is beside the project; otherwise an empty one, and says so:
# glaze's rows are then skipped. Never copy glaze into the project.
glaze=$(cd "$(dirname "$0")/../.." && pwd)/shared/peers/glaze-6.4.0/include
if [ -f "$glaze/glaze/glaze.hpp" ]; then
  echo "-DSAVEKIT_GLAZE_INCLUDE_DIR=$glaze"
else
  echo "glaze not found at $glaze: its benchmark rows are skipped" >&2
  echo "-DSAVEKIT_GLAZE_INCLUDE_DIR="
fi
