// savekit convert --from json|msgpack|base64 --to json|msgpack|base64 [FILE] [-o OUT]:
// a save between JSON, MessagePack and Base64 (of MessagePack), checked on the way.
#pragma once

#include <CLI/CLI.hpp>

namespace savekit_cli {

// Adds the command to app; when it runs, it leaves its exit code in exit_code.
void setup_convert_command(CLI::App& app, int& exit_code);

}  // namespace savekit_cli
