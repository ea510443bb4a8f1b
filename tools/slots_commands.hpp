// The savekit program's commands on a slots folder (savekit/slots.hpp):
//   savekit slots list DIR [--json]              the load menu as a table
//   savekit slots show DIR SLOT [--pretty]       metadata, history and payload as JSON
//   savekit slots restore DIR SLOT GENERATION    an older generation becomes the newest
//   savekit verify DIR                           every generation of every slot checked
// Reading commands open the folder read-only (no lock: beside a running game). Given a
// sealer (--key-file), show opens sealed payloads and verify checks their seals.
#pragma once

#include <savekit/sealer.hpp>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace savekit_cli {

// Adds `slots list|show|restore` to app; the one that runs leaves its exit code in exit_code.
// (verify DIR is store_commands.hpp's, which calls cmd_verify_slots.)
void setup_slots_commands(CLI::App& app, int& exit_code);

int cmd_slots_list(const std::string& folder, bool json);
int cmd_slots_show(const std::string& folder, const std::string& slot, bool pretty,
                   std::shared_ptr<const savekit::payload_sealer> sealer = nullptr);
int cmd_slots_restore(const std::string& folder, const std::string& slot, std::uint64_t generation);
int cmd_verify_slots(const std::string& folder, bool json,
                     std::shared_ptr<const savekit::payload_sealer> sealer = nullptr);

}  // namespace savekit_cli
