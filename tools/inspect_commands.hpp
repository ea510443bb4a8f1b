// The savekit program's commands that look inside a save (savekit/inspect.hpp and its
// siblings), on any value value_sources.hpp can name — a MessagePack or JSON file, a store
// entry, a slot or one of its generations, a lone generation file:
//   savekit show FILE [KEY|SLOT] [--path P] [--json]   the typed tree: formats, offsets, sizes
//   savekit diff A B [--key K] [--id-field F] [--ignore P]...   exit 0 same, 1 different
//   savekit edit STORE KEY | SLOTS_DIR SLOT [--schema S]   in $EDITOR, types kept, a new commit
//                                                          or generation
//   savekit schema SCHEMA FILE [KEY|SLOT]               a value against a JSON Schema
#pragma once

#include <CLI/CLI.hpp>

namespace savekit_cli {

void setup_inspect_commands(CLI::App& app, int& exit_code);

}  // namespace savekit_cli
