// --key-file and --player, for the commands that open sealed entries or payloads (get,
// export, verify, slots show). Without savekit::seal they are not offered.
#pragma once

#include <savekit/sealer.hpp>

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "cli_common.hpp"

namespace savekit_cli {

struct key_options {
  std::string key_file, player;
};

void add_key_options(CLI::App& command, key_options& keys, const char* what);
// The sealer the options name; none without --key-file.
savekit::result<std::shared_ptr<const savekit::payload_sealer>> sealer_of(const key_options& keys);

// Runs command with the sealer (as a pointer, null without --key-file); a key file that does
// not read is reported, and its exit code returned.
template <class Command>
int with_sealer(const key_options& keys, Command&& command) {
  auto sealer = sealer_of(keys);
  if (!sealer) return report(keys.key_file, sealer.error());
  return command(sealer->get());
}

}  // namespace savekit_cli
