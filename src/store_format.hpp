// The store file format (docs/store-format.md): a header, then checksummed commit records.
// Encoding and a parser that recovers the newest intact committed state.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "savekit/backend.hpp"

namespace savekit::detail {

inline constexpr char store_magic[8] = {'S', 'K', 'P', 'R', 'E', 'F', 'S', '\0'};
inline constexpr std::uint32_t store_format_version = 1;
inline constexpr std::size_t store_header_size = 16;
inline constexpr std::size_t record_header_size = 8;  // u32 payload length, u32 CRC-32C
// The smallest payload: kind, sequence number, flags, an operation count of zero.
inline constexpr std::size_t minimum_payload_size = 1 + 8 + 1 + 1;
inline constexpr std::uint64_t max_record_payload = 0xFFFFFFFFu;  // the length field is a u32
inline constexpr std::uint8_t record_kind_commit = 1;
inline constexpr std::uint8_t op_put = 1;
inline constexpr std::uint8_t op_erase = 2;
inline constexpr std::uint8_t flag_clear_all = 1;
inline constexpr std::uint8_t known_flags = flag_clear_all;

std::string encode_store_header();

// Appends one commit record for changes to out.
void encode_commit_record(std::string& out, std::uint64_t sequence, const change_set& changes);
// Appends one commit record holding a whole state (what compaction writes).
void encode_snapshot_record(std::string& out, std::uint64_t sequence, const committed_state& state);

// Payload bytes of the commit record encode_commit_record would write.
std::uint64_t commit_payload_size(const change_set& changes);

struct parse_outcome {
  committed_state state;
  std::uint64_t commits = 0;
  std::uint64_t last_sequence = 0;
  std::size_t valid_end = 0;       // bytes up to the end of the last intact record
  std::size_t last_record_at = 0;  // where the last intact record starts (0: none)
  // What follows the intact records, if anything:
  bool torn_tail = false;  // provably an interrupted last append (or the zeros a file system leaves of one)
  bool damaged = false;    // anything else: a copy must be kept before the store is rewritten
  std::uint64_t intact_records_after_damage = 0;  // found past the damage (they survive only in the copy)
  std::string problem;                            // what was wrong, if anything
};

// Parses a whole store file. Fails only when nothing can be read safely: a bad header
// (corrupt_store), a newer format version, or an intact record using kinds, flags,
// operations or value types this savekit does not know — written by a newer savekit,
// which must not be mistaken for damage and rewritten (unsupported_version). Damaged
// records end the intact prefix and are reported.
result<parse_outcome> parse_store(std::string_view content);

// Bytes the state takes in a snapshot record (to decide when to compact).
std::uint64_t encoded_entry_size(std::string_view key, std::string_view value);

}  // namespace savekit::detail
