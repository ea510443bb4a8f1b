// The savekit program's commands on a store file (savekit/prefs.hpp over the file backend):
//   savekit list STORE [--json]              keys, types, sizes
//   savekit get STORE KEY [--raw] [--pretty] a value: objects as JSON, bytes as Base64
//   savekit set STORE KEY VALUE --type T     a value, committed
//   savekit delete STORE KEY                 a key, committed
//   savekit export STORE > dump.json         every entry, type tags and bytes included
//   savekit import STORE < dump.json         the reverse: a lossless round trip
//   savekit verify STORE|DIR [--json]        checksums, what is recoverable, what would be
//                                            lost (a folder: slots_commands.hpp)
#pragma once

#include <CLI/CLI.hpp>

namespace savekit_cli {

// Adds the commands to app; the one that runs leaves its exit code in exit_code.
void setup_store_commands(CLI::App& app, int& exit_code);

}  // namespace savekit_cli
