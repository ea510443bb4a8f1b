// The savekit program's commands for cloud sync (savekit/cloud.hpp):
//   savekit cloud status DIR [--json]                    where each slot stands (no request)
//   savekit cloud sync DIR [SLOT] [--policy P] [--url URL] [--token-file FILE] [--device NAME] [--json]
//   savekit cloud resolve DIR SLOT --keep local|remote|both
// --url and --token-file are remembered per folder (the token file's path only, never the
// token), so they are given once. Exit codes beside the program's: 8 a conflict was met
// (settled by the policy) or is still open; 9 the server could not be reached or refused
// (the changes stay in the outbox for the next sync). A local failure (1) outranks 9, and
// 9 outranks 8.
#pragma once

#include <CLI/CLI.hpp>

namespace savekit_cli {

inline constexpr int conflict_met = 8;
inline constexpr int network_failed = 9;

void setup_cloud_commands(CLI::App& app, int& exit_code);

}  // namespace savekit_cli
