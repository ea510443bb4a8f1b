// What the cloud sync (src/cloud/) needs of a slots folder beyond the public API: a slot's
// newest generation as one whole file (what is uploaded), a downloaded generation file
// written as the slot's next generation only if the slot has not moved meanwhile, and a
// slot removed only if it has not. Generation files travel as they are on disk (their
// sections checksummed), so a sealed save syncs without its key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "savekit/slots.hpp"
#include "slot_format.hpp"

namespace savekit::detail {

// A generation file, parsed and every section checked (a download: nothing trusted).
struct parsed_generation {
  slot_header header;
  std::string name;
  slot_meta meta;  // thumbnail included
  std::vector<std::string> compact_layout;
  std::string payload;  // as stored (sealed if the header says so)
  bool sealed() const { return (header.flags & slot_flag_sealed) != 0; }
};
result<parsed_generation> parse_generation_file(std::string_view file);

// What a save is, whatever generation, time or device wrote it: a SHA-256 (hex) of its
// encoding, schema version, flags, metadata (thumbnail included) and payload. Equal on
// every device for the same save; the name is left out (it is the slot's).
std::string content_of(const slot_header& header, const slot_meta& meta, const std::vector<std::string>& layout,
                       std::string_view payload);

// A slot's newest intact generation, whole.
struct slot_snapshot {
  slot_info info;
  std::string file;     // the generation file as uploaded (its own checksums)
  std::string content;  // content_of
};

struct slot_sync_access {
  // nullopt: no such slot (nothing intact: a damaged slot is an error, never "absent").
  static result<std::optional<slot_snapshot>> newest(slots& s, std::string_view name);
  // One kept generation, whole (errc::not_found, damaged, ... as slots::read_generation).
  static result<slot_snapshot> generation(slots& s, std::string_view name, std::uint64_t generation);
  // The generation number of the slot's newest intact generation, 0 if there is no slot.
  static result<std::uint64_t> newest_generation(slots& s, std::string_view name);
  // Writes file (a parsed generation, perhaps of another slot name) as slot name's next
  // generation, keeping its saved_at — only if the slot's newest intact generation is still
  // expected_newest (0: no slot), else errc::already_exists (the game saved meanwhile).
  // A sealed payload of another name is sealed again for this one (which needs the key).
  // Returns the generation written.
  static result<std::uint64_t> write_if_unmoved(slots& s, std::string_view name, const parsed_generation& file,
                                                std::uint64_t expected_newest);
  // Removes the slot (every generation) only if its newest intact generation is still
  // expected_newest, else errc::already_exists.
  static status remove_if_unmoved(slots& s, std::string_view name, std::uint64_t expected_newest);
  // Whether a plain (unsealed) save would be refused by these slots' sealer.
  static bool refuses_unsealed(slots& s);
  static std::uint32_t keep_generations(slots& s);
  static file_system& fs(slots& s);
  static const std::string& folder(slots& s);
  static bool read_only(slots& s);
};

}  // namespace savekit::detail
