// Sealed payloads in a slots folder (slot_folder.hpp, invariant 7): opening one to read it,
// sealing one again for a new name, and what a plain generation may be read as.
#include "slot_folder.hpp"

namespace savekit::detail {

result<std::string> slot_folder::sealed_for(const inspected& file, std::string payload, std::string_view from,
                                            std::string_view to) {
  const slot_header& header = file.header;
  if (!file.sealed() || from == to) return payload;
  result<std::string> opened = open_sealed(file, payload, from);
  if (!opened) return std::move(opened).error();
  result<std::string> sealed =
      options.sealer->seal(*opened, to, header.schema_version, slot_seal_binding(header.encoding, file.compact_layout));
  if (!sealed) return error{sealed.error().code(), 0, quoted(to) + ": sealing it failed: " + sealed.error().message()};
  return sealed;
}

// Only one the game can read is copied — a sealed one opens (a forgery is never put in
// place as the newest), a plain one only where plain ones are read — and it is sealed for
// `to` where the sealer proves who wrote a save (a plain one too: a migration step, as a
// write is).
result<std::string> slot_folder::payload_for_copy(const inspected& file, slot_header& header, std::string_view from,
                                                  std::string_view to) {
  result<std::string> readable = readable_payload(file, file.payload, from);
  if (!readable) return std::move(readable).error();
  const bool sealed = (header.flags & slot_flag_sealed) != 0;
  if (sealed && from == to) return file.payload;  // opened above: its seal holds for this name
  if (!sealed && !(options.sealer && options.sealer->authenticates())) return std::move(*readable);
  result<std::string> resealed = options.sealer->seal(*readable, to, header.schema_version,
                                                      slot_seal_binding(header.encoding, file.compact_layout));
  if (!resealed)
    return error{resealed.error().code(), 0, quoted(to) + ": sealing it failed: " + resealed.error().message()};
  header.flags |= slot_flag_sealed;
  return resealed;
}

// errc::key_not_held without a sealer; the seal's own error else. The seal covers how the
// payload is read (its encoding and compact layout), so that a changed header or layout
// cannot send a value into another member.
result<std::string> slot_folder::open_sealed(const inspected& file, std::string_view payload, std::string_view name) {
  const slot_header& header = file.header;
  if (!options.sealer)
    return error{errc::key_not_held, 0,
                 quoted(name) + " generation " + std::to_string(header.generation) +
                     " is sealed: open the slots with a sealer (slots_options::sealer, savekit::make_slot_sealer)"};
  result<std::string> opened = options.sealer->unseal(payload, name, header.schema_version,
                                                      slot_seal_binding(header.encoding, file.compact_layout));
  if (!opened) {
    error e = std::move(opened).error();
    return error{e.code(), e.offset(),
                 quoted(name) + " generation " + std::to_string(header.generation) + ": " + e.message()};
  }
  return opened;
}

// A sealed one opened; a plain one refused where the sealer proves who wrote a save (anyone
// can write a plain generation with the public format), unless accept_unsealed lets old
// plain saves migrate — and then only in a slot that holds no sealed one: a save made
// before sealing is in a slot the sealing game has not written yet; a plain one beside
// sealed ones was planted since.
result<std::string> slot_folder::readable_payload(const inspected& file, std::string payload, std::string_view name) {
  if (file.sealed()) return open_sealed(file, payload, name);
  if (!options.sealer || !options.sealer->authenticates()) return payload;
  const std::string which = quoted(name) + " generation " + std::to_string(file.header.generation);
  if (!options.accept_unsealed)
    return error{errc::tampered, 0,
                 which +
                     " is not sealed, and these slots open sealed saves only (slots_options::accept_unsealed "
                     "reads unsealed ones, to migrate saves made before sealing)"};
  if (holds_a_sealed_generation(name))
    return error{errc::tampered, 0,
                 which + " is not sealed, and the slot holds sealed saves: only a slot sealed nowhere migrates"};
  return payload;
}

bool slot_folder::holds_a_sealed_generation(std::string_view name) {
  const std::string base = slot_file_base(name);
  result<slot_files> files = scan_slot(name, base);
  if (!files) return true;  // cannot tell: not migrated
  for (std::uint64_t g : files->generations) {
    result<inspected> head = inspect(base, g, sections::head, name);
    if (!head || head->other_name) continue;
    if (head->sealed()) return true;
  }
  return false;
}

}  // namespace savekit::detail
