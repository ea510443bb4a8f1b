// The slot generation file (docs/slot-format.md) and how slot names become file
// names. Pure functions over bytes, so that the parser can be fuzzed on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "savekit/slots.hpp"

namespace savekit::detail {

inline constexpr char slot_magic[8] = {'\x89', 'S', 'K', 'S', 'L', 'O', 'T', '\n'};
inline constexpr std::uint32_t slot_format_version = 1;
inline constexpr std::size_t slot_header_size = 84;
inline constexpr std::size_t max_slot_header_size = 64u << 10;  // what a newer version's header may grow to
// Generation numbers stop here (2^53 - 1): a file named past it is not a generation, so a
// planted huge number cannot make the next one wrap around.
inline constexpr std::uint64_t max_slot_generation = (std::uint64_t{1} << 53) - 1;
inline constexpr std::uint32_t max_slot_meta_bytes = 1u << 20;        // title and the game's fields
inline constexpr std::uint32_t max_slot_meta_entries = 10000;         // the game's fields, in slot_meta::user
inline constexpr std::uint32_t max_slot_thumbnail_bytes = 64u << 20;  // a picture, not a video
inline constexpr std::uint8_t slot_flag_sealed = 1;                   // the payload is a sealed save

// The fixed part at the start of a generation file; the sections follow in this order.
struct slot_header {
  std::uint64_t generation = 0;
  std::int64_t saved_at_us = 0;  // microseconds since the Unix epoch, UTC
  std::uint64_t restored_from = 0;
  std::uint32_t schema_version = 0;
  object_encoding encoding = object_encoding::msgpack;
  std::uint8_t flags = 0;  // slot_flag_sealed
  std::uint32_t name_bytes = 0;
  std::uint32_t meta_bytes = 0;
  std::uint32_t thumbnail_bytes = 0;
  std::uint64_t payload_bytes = 0;
  std::uint32_t head_crc = 0;  // CRC-32C of the name and metadata sections
  std::uint32_t thumbnail_crc = 0;
  std::uint32_t payload_crc = 0;

  std::uint64_t meta_at() const { return slot_header_size + name_bytes; }
  std::uint64_t thumbnail_at() const { return meta_at() + meta_bytes; }
  std::uint64_t payload_at() const { return thumbnail_at() + thumbnail_bytes; }
  std::uint64_t file_bytes() const { return payload_at() + payload_bytes; }
};

// The header, name, metadata and thumbnail of a generation file: everything before the
// payload, whose size and checksum the header carries. Fills the header's checksums.
std::string encode_slot_head(slot_header& header, std::string_view name, std::string_view meta,
                             std::string_view thumbnail, std::string_view payload);

// How a generation file's bytes are judged.
enum class slot_damage {
  none,
  damaged,  // the bytes are not what savekit wrote (torn, flipped, truncated, replaced)
  newer,    // intact, but a format version or flags from a newer savekit
};
struct slot_check {
  slot_damage damage = slot_damage::none;
  std::string problem;
};

// How many bytes of a file of file_bytes bytes parse_slot_header needs, judged from its first
// slot_header_size: this version's header size, or a newer version's (whose checksum, the
// header's last four bytes in every version, must be checked before the version is believed).
std::size_t slot_header_bytes_to_check(std::string_view first, std::uint64_t file_bytes);
// Parses the header of a file of file_bytes bytes from its first
// slot_header_bytes_to_check(...) bytes.
slot_check parse_slot_header(std::string_view bytes, std::uint64_t file_bytes, slot_header& header);
// Checks a section (name and metadata together, the thumbnail, the payload) against its checksum.
slot_check check_slot_section(std::string_view bytes, std::uint32_t crc, const char* section);

// The metadata section: slot_meta without the thumbnail, and for a compact-form payload its
// layout (detail::compact_layout), as a MessagePack map.
std::string encode_slot_meta(const slot_meta& meta, const std::vector<std::string>& compact_layout = {});
result<slot_meta> decode_slot_meta(std::string_view bytes, std::vector<std::string>* compact_layout = nullptr);
// What a sealed payload's seal covers beside it (seal_context::binding): everything outside
// the seal that decides how the opened bytes are read — the encoding byte and the compact
// layout (docs/slot-format.md, "Sealed payloads").
std::string slot_seal_binding(object_encoding encoding, const std::vector<std::string>& compact_layout);

// ---- file names ----
// A slot name as a file name: "s-" and its bytes with everything but a-z, 0-9 and '-'
// written as '_' and two hex digits — lowercase only (case-insensitive file systems), no
// dot, slash or reserved name. A name whose form would be long ends in '~' and a hash.
std::string slot_file_base(std::string_view name);
// The name a base was made from; nullopt for a hashed base (the name is in the files only).
std::optional<std::string> slot_name_of_base(std::string_view base);

enum class slot_file_kind { generation, temporary, damaged };
struct slot_file_name {
  std::string base;
  std::uint64_t generation = 0;
  slot_file_kind kind = slot_file_kind::generation;
};
// BASE.GENERATION.slot, .tmp or .damaged; nullopt for any other file.
std::optional<slot_file_name> parse_slot_file_name(std::string_view file);
// The same in two steps, so that a folder scan checks each base once, not once per file:
// the file name's syntax alone (base points into file), then, for a base without '~' (not
// hashed), that it is the one spelling of a valid name — which is returned.
struct slot_file_name_parts {
  std::string_view base;
  std::uint64_t generation = 0;
  slot_file_kind kind = slot_file_kind::generation;
};
std::optional<slot_file_name_parts> split_slot_file_name(std::string_view file);
std::optional<std::string> canonical_slot_name_of_base(std::string_view base);
std::string slot_file_name_of(std::string_view base, std::uint64_t generation, slot_file_kind kind);
void append_slot_file_name(std::string& out, std::string_view base, std::uint64_t generation, slot_file_kind kind);

}  // namespace savekit::detail
