#include "slot_format.hpp"

#include <charconv>
#include <cstring>
#include <map>

#include "crc32c.hpp"
#include "little_endian.hpp"
#include "savekit/msgpack.hpp"

namespace savekit::detail {

namespace {

// The metadata section's MessagePack map: members may be added; readers skip unknown ones.
struct stored_slot_meta {
  std::string title;
  std::int64_t playtime_seconds = 0;
  double progress = 0;
  std::map<std::string, std::string> user;
  std::vector<std::string> compact_layout;  // only for a payload in the compact form
};

constexpr std::uint8_t known_slot_flags = slot_flag_sealed;
// The encoding byte is object_encoding's value: docs/slot-format.md lists them.
static_assert(static_cast<int>(object_encoding::msgpack) == 0 &&
              static_cast<int>(object_encoding::msgpack_compact) == 1 && static_cast<int>(object_encoding::json) == 2 &&
              static_cast<int>(object_encoding::bytes) == 3);

bool known_encoding(std::uint8_t e) { return e <= static_cast<std::uint8_t>(object_encoding::bytes); }

slot_check damaged(std::string problem) { return {slot_damage::damaged, std::move(problem)}; }

}  // namespace

std::string encode_slot_head(slot_header& h, std::string_view name, std::string_view meta, std::string_view thumbnail,
                             std::string_view payload) {
  h.name_bytes = static_cast<std::uint32_t>(name.size());
  h.meta_bytes = static_cast<std::uint32_t>(meta.size());
  h.thumbnail_bytes = static_cast<std::uint32_t>(thumbnail.size());
  h.payload_bytes = payload.size();
  h.head_crc = crc32c(meta.data(), meta.size(), crc32c(name.data(), name.size()));
  h.thumbnail_crc = crc32c(thumbnail.data(), thumbnail.size());
  h.payload_crc = crc32c(payload.data(), payload.size());
  std::string out;
  out.reserve(slot_header_size + name.size() + meta.size() + thumbnail.size());
  out.append(slot_magic, sizeof slot_magic);
  put_u32(out, slot_format_version);
  put_u32(out, static_cast<std::uint32_t>(slot_header_size));
  put_u64(out, h.generation);
  put_u64(out, static_cast<std::uint64_t>(h.saved_at_us));
  put_u64(out, h.restored_from);
  put_u32(out, h.schema_version);
  out.push_back(static_cast<char>(h.encoding));
  out.push_back(static_cast<char>(h.flags));
  put_u16(out, 0);  // reserved
  put_u32(out, h.name_bytes);
  put_u32(out, h.meta_bytes);
  put_u32(out, h.thumbnail_bytes);
  put_u64(out, h.payload_bytes);
  put_u32(out, h.head_crc);
  put_u32(out, h.thumbnail_crc);
  put_u32(out, h.payload_crc);
  put_u32(out, crc32c(out.data(), out.size()));
  out.append(name);
  out.append(meta);
  out.append(thumbnail);
  return out;
}

std::size_t slot_header_bytes_to_check(std::string_view first, std::uint64_t file_bytes) {
  if (first.size() < 16) return slot_header_size;
  const std::uint32_t version = get_u32(first.data() + 8), header_size = get_u32(first.data() + 12);
  if (version > slot_format_version && header_size > slot_header_size && header_size <= max_slot_header_size &&
      header_size <= file_bytes)
    return header_size;
  return slot_header_size;
}

slot_check parse_slot_header(std::string_view bytes, std::uint64_t file_bytes, slot_header& h) {
  if (bytes.size() < slot_header_size || file_bytes < slot_header_size)
    return damaged("the file is shorter than a slot header (" + std::to_string(file_bytes) + " bytes)");
  const char* p = bytes.data();
  if (std::memcmp(p, slot_magic, sizeof slot_magic) != 0) return damaged("not a slot file (bad magic)");
  // Bytes 0-15 (magic, version, header size) keep their meaning in every version, and every
  // version ends its header with a CRC-32C of the bytes before it. A newer version is
  // believed only once that checksum holds: a flipped bit in the version is damage (the
  // slot falls back to an older generation), not a save this savekit must leave alone.
  const std::uint32_t version = get_u32(p + 8), header_size = get_u32(p + 12);
  if (version > slot_format_version && header_size >= slot_header_size && header_size <= max_slot_header_size &&
      header_size <= file_bytes) {
    if (bytes.size() < header_size) return damaged("the header was not read whole");
    if (crc32c(p, header_size - 4) != get_u32(p + header_size - 4))
      return damaged("the header fails its checksum (it claims slot format " + std::to_string(version) + ")");
    return {slot_damage::newer, "written by a newer savekit (slot format " + std::to_string(version) + ")"};
  }
  if (version != slot_format_version || header_size != slot_header_size)
    return damaged("slot format " + std::to_string(version) + " with a " + std::to_string(header_size) +
                   "-byte header is not one savekit wrote");
  if (crc32c(p, slot_header_size - 4) != get_u32(p + slot_header_size - 4))
    return damaged("the header fails its checksum");
  h.generation = get_u64(p + 16);
  h.saved_at_us = static_cast<std::int64_t>(get_u64(p + 24));
  h.restored_from = get_u64(p + 32);
  h.schema_version = get_u32(p + 40);
  const auto encoding = static_cast<std::uint8_t>(p[44]);
  h.flags = static_cast<std::uint8_t>(p[45]);
  h.name_bytes = get_u32(p + 48);
  h.meta_bytes = get_u32(p + 52);
  h.thumbnail_bytes = get_u32(p + 56);
  h.payload_bytes = get_u64(p + 60);
  h.head_crc = get_u32(p + 68);
  h.thumbnail_crc = get_u32(p + 72);
  h.payload_crc = get_u32(p + 76);
  // A checksummed header with values savekit never writes came from a newer savekit.
  if (!known_encoding(encoding) || (h.flags & ~known_slot_flags) != 0 || get_u16(p + 46) != 0)
    return {slot_damage::newer, "an encoding or flags from a newer savekit"};
  h.encoding = static_cast<object_encoding>(encoding);
  if (h.name_bytes == 0 || h.name_bytes > slots::max_name_bytes || h.meta_bytes > max_slot_meta_bytes ||
      h.thumbnail_bytes > max_slot_thumbnail_bytes || h.generation == 0)
    return damaged("the header's sizes are out of range");
  // Sizes are bounded above, so the sum cannot overflow.
  if (h.payload_bytes > file_bytes || h.file_bytes() != file_bytes)
    return damaged("the file holds " + std::to_string(file_bytes) + " bytes; its header says " +
                   std::to_string(h.file_bytes()));
  return {};
}

slot_check check_slot_section(std::string_view bytes, std::uint32_t crc, const char* section) {
  if (crc32c(bytes.data(), bytes.size()) != crc) return damaged(std::string{"the "} + section + " fails its checksum");
  return {};
}

std::string slot_seal_binding(object_encoding encoding, const std::vector<std::string>& compact_layout) {
  std::string out;
  out.push_back(static_cast<char>(encoding));
  put_u32(out, static_cast<std::uint32_t>(compact_layout.size()));
  for (const std::string& entry : compact_layout) {  // each within the metadata's 1 MiB
    put_u32(out, static_cast<std::uint32_t>(entry.size()));
    out.append(entry);
  }
  return out;
}

std::string encode_slot_meta(const slot_meta& meta, const std::vector<std::string>& compact_layout) {
  stored_slot_meta stored{meta.title, static_cast<std::int64_t>(meta.playtime.count()), meta.progress, meta.user,
                          compact_layout};
  std::string out;
  savekit::to_msgpack(stored, out);
  return out;
}

result<slot_meta> decode_slot_meta(std::string_view bytes, std::vector<std::string>* compact_layout) {
  stored_slot_meta stored;
  // Memory: 1 MiB of text, and the map's nodes (about 100 bytes each) on top.
  constexpr std::uint64_t memory = max_slot_meta_bytes * 2ull + max_slot_meta_entries * 256ull;
  if (status read = savekit::from_msgpack(bytes, stored, {.max_depth = 8, .max_memory = memory}); !read)
    return std::move(read).error();
  if (stored.user.size() > max_slot_meta_entries)
    return error{errc::value_too_large, 0, "more than " + std::to_string(max_slot_meta_entries) + " fields", "$.user"};
  result<slot_meta> meta{std::in_place};
  meta->title = std::move(stored.title);
  meta->playtime = std::chrono::seconds{stored.playtime_seconds};
  meta->progress = stored.progress;
  meta->user = std::move(stored.user);
  if (compact_layout) *compact_layout = std::move(stored.compact_layout);
  return meta;
}

// ---- file names ----

namespace {

constexpr char hex_digits[] = "0123456789abcdef";
constexpr std::size_t max_readable_base = 120;  // longer: a cut form and a hash
constexpr std::size_t cut_base = 96;

bool kept_as_is(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }

// FNV-1a, 64 bits: stable across runs and platforms. Names are checked against the name
// stored in each file, so a collision is never a misread.
std::uint64_t name_hash(std::string_view name) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string_view suffix_of(slot_file_kind kind) {
  switch (kind) {
    case slot_file_kind::generation:
      return ".slot";
    case slot_file_kind::temporary:
      return ".tmp";
    case slot_file_kind::damaged:
      return ".damaged";
  }
  return ".slot";
}

}  // namespace

std::string slot_file_base(std::string_view name) {
  std::string out = "s-";
  std::size_t cut = 0;  // the length of the encoded form once it passed cut_base
  for (char ch : name) {
    auto c = static_cast<unsigned char>(ch);
    if (kept_as_is(c)) {
      out += ch;
    } else {
      out += '_';
      out += hex_digits[c >> 4];
      out += hex_digits[c & 15];
    }
    if (cut == 0 && out.size() >= cut_base) cut = out.size();
  }
  if (out.size() <= max_readable_base) return out;
  out.resize(cut);
  std::uint64_t h = name_hash(name);
  out += '~';
  for (int shift = 60; shift >= 0; shift -= 4) out += hex_digits[(h >> shift) & 15];
  return out;
}

std::optional<std::string> slot_name_of_base(std::string_view base) {
  if (base.substr(0, 2) != "s-" || base.find('~') != std::string_view::npos) return std::nullopt;
  std::string name;
  for (std::size_t i = 2; i < base.size(); ++i) {
    if (base[i] != '_') {
      name += base[i];
      continue;
    }
    if (i + 2 >= base.size()) return std::nullopt;
    unsigned value = 0;
    auto [end, ec] = std::from_chars(base.data() + i + 1, base.data() + i + 3, value, 16);
    if (ec != std::errc{} || end != base.data() + i + 3) return std::nullopt;
    name += static_cast<char>(value);
    i += 2;
  }
  return name;
}

void append_slot_file_name(std::string& out, std::string_view base, std::uint64_t generation, slot_file_kind kind) {
  char digits[20];
  const auto written = std::to_chars(std::begin(digits), std::end(digits), generation).ptr;
  const std::string_view suffix = suffix_of(kind);
  out.reserve(out.size() + base.size() + 1 + static_cast<std::size_t>(written - digits) + suffix.size());
  out += base;
  out += '.';
  out.append(digits, written);
  out += suffix;
}

std::string slot_file_name_of(std::string_view base, std::uint64_t generation, slot_file_kind kind) {
  std::string out;
  append_slot_file_name(out, base, generation, kind);
  return out;
}

std::optional<slot_file_name_parts> split_slot_file_name(std::string_view file) {
  slot_file_name_parts parsed;
  std::string_view rest;
  bool matched = false;
  for (slot_file_kind kind : {slot_file_kind::generation, slot_file_kind::temporary, slot_file_kind::damaged}) {
    std::string_view suffix = suffix_of(kind);
    if (file.size() > suffix.size() && file.substr(file.size() - suffix.size()) == suffix) {
      parsed.kind = kind;
      rest = file.substr(0, file.size() - suffix.size());
      matched = true;
      break;
    }
  }
  if (!matched || rest.substr(0, 2) != "s-") return std::nullopt;
  std::size_t dot = rest.rfind('.');
  if (dot == std::string_view::npos || dot + 1 == rest.size()) return std::nullopt;
  std::string_view digits = rest.substr(dot + 1);
  if (digits.front() == '0') return std::nullopt;  // one spelling per number
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), parsed.generation);
  if (ec != std::errc{} || end != digits.data() + digits.size() || parsed.generation > max_slot_generation)
    return std::nullopt;
  parsed.base = rest.substr(0, dot);
  for (char c : parsed.base.substr(2))
    if (!kept_as_is(static_cast<unsigned char>(c)) && c != '_' && c != '~') return std::nullopt;
  return parsed;
}

std::optional<std::string> canonical_slot_name_of_base(std::string_view base) {
  std::optional<std::string> name = slot_name_of_base(base);
  if (!name || !slots::check_name(*name) || slot_file_base(*name) != base) return std::nullopt;
  return name;
}

std::optional<slot_file_name> parse_slot_file_name(std::string_view file) {
  std::optional<slot_file_name_parts> parts = split_slot_file_name(file);
  if (!parts) return std::nullopt;
  // One spelling per name too: the base a valid name maps to (a hashed one cannot be checked
  // here; its files carry the name).
  if (parts->base.find('~') == std::string_view::npos && !canonical_slot_name_of_base(parts->base)) return std::nullopt;
  return slot_file_name{std::string{parts->base}, parts->generation, parts->kind};
}

}  // namespace savekit::detail
