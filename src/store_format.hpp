// The store file format (docs/format.md): a header, then checksummed commit records.
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
inline constexpr std::uint8_t record_kind_commit = 1;
inline constexpr std::uint8_t op_put = 1;
inline constexpr std::uint8_t op_erase = 2;
inline constexpr std::uint8_t flag_clear_all = 1;

std::string encode_store_header();

// Appends one commit record for changes to out.
void encode_commit_record(std::string& out, std::uint64_t sequence, const change_set& changes);
// Appends one commit record holding a whole state (what compaction writes).
void encode_snapshot_record(std::string& out, std::uint64_t sequence,
                            const std::map<std::string, stored_value, std::less<>>& state);

struct parse_outcome {
  std::map<std::string, stored_value, std::less<>> state;
  std::uint64_t commits = 0;
  std::uint64_t last_sequence = 0;
  std::size_t valid_end = 0;  // bytes up to the end of the last intact record
  bool torn_tail = false;     // an incomplete last record (an interrupted append)
  bool damaged = false;       // a complete record that fails its checksum or does not parse
  std::string problem;        // what was wrong, if anything
};

// Parses a whole store file. Fails (corrupt_store / unsupported_version) only when the
// header itself is unusable; damaged records end the intact prefix and are reported.
result<parse_outcome> parse_store(std::string_view content);

// Bytes the state takes in a snapshot record (to decide when to compact).
std::uint64_t encoded_entry_size(std::string_view key, std::string_view value);

}  // namespace savekit::detail
