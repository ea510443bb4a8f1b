#!/usr/bin/env bash
# Instructions (callgrind's Ir) per codec operation, savekit beside glaze, into
# bench/results/instructions.md: each case runs N operations and 0 operations (the
# difference is the operations' own cost), in the release build (g++ -O3).
#   bench/instructions.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
command -v valgrind >/dev/null || { echo "valgrind is needed (Debian: valgrind)" >&2; exit 2; }
cmake --preset release "$(scripts/glaze_option.sh)" >/dev/null
cmake --build --preset release --target codec_instructions
program=build/release/bench/codec_instructions
libraries=(savekit)
"$program" glaze status_json 0 2>/dev/null && libraries+=(glaze) || echo "glaze not found: its column is skipped"
instructions() {  # library case n
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$program" "$@" 2>&1 | awk '/Collected/ {print $4}'
}
per_operation() {
  local with without
  with=$(instructions "$1" "$2" "$3")
  without=$(instructions "$1" "$2" 0)
  echo $(((with - without) / $3))
}
out=bench/results/instructions.md
{
  echo "# Instructions per codec operation"
  echo
  echo "Produced by \`bench/instructions.sh\` on $(date -u +%Y-%m-%d); compiler: $(c++ --version | sed -n 1p); flags: -O3 -DNDEBUG."
  echo "Callgrind's count of instructions executed per operation (reads into one reused object,"
  echo "writes into one reused buffer): exact and repeatable, unlike time on a shared machine, but"
  echo "not time. ratio = glaze ÷ savekit (above 1.00: savekit executes fewer)."
  echo
  if [ ${#libraries[@]} -eq 2 ]; then
    echo "| object | operation | savekit | glaze | ratio |"
    echo "|---|---|---:|---:|---:|"
  else
    echo "| object | operation | savekit |"
    echo "|---|---|---:|"
  fi
  for object in status save big world; do
    case $object in status | save) n=20000 ;; big) n=10 ;; world) n=2 ;; esac
    for operation in json compact map jsonwrite compactwrite mapwrite; do
      s=$(per_operation savekit "${object}_$operation" $n)
      if [ ${#libraries[@]} -eq 2 ]; then
        g=$(per_operation glaze "${object}_$operation" $n)
        echo "| $object | $operation | $s | $g | $(python3 -c "print(f'{$g / $s:.2f}')") |"
      else
        echo "| $object | $operation | $s |"
      fi
    done
  done
  echo
  echo "Objects: status and save are the seeds' Status and SaveGame, big is SaveGame with 10,000"
  echo "items, world the World of bench/world.hpp. compact is savekit's compact MessagePack beside"
  echo "glaze's MessagePack arrays; map beside glaze's MessagePack with a meta object."
} >"$out"
echo "wrote $out"
