// The grammar of the headers savekit-server's API reads, checked strictly before any
// storage is touched: the preconditions (If-Match, If-None-Match), entity tags, the slot
// metadata (Savekit-Meta), the write id (Savekit-Write-Id), and the dates of answers.
// Fuzzed with the routes (tests/fuzz/fuzz_server_rules.cpp).
#pragma once

#include <savekit/error.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace savekit::server {

// A write's precondition, from If-Match / If-None-Match.
struct precondition {
  std::optional<std::int64_t> version;  // replace exactly this version; nullopt: create only
};
// errc::missing_key when there is none (428), errc::invalid_value for a malformed or
// unsupported one (400: a list, a weak tag, If-Match: *, If-None-Match other than *).
result<precondition> parse_write_precondition(const std::optional<std::string>& if_match,
                                              const std::optional<std::string>& if_none_match);

// Whether a GET's If-None-Match (a list of tags, weak or strong, or *) names version.
bool if_none_match_names(std::string_view header, std::int64_t version);

std::string etag_of(std::int64_t version);  // "\"7\""

// Savekit-Meta: base64url (padded or not) of a JSON object of at most max_bytes, nested at
// most max_meta_depth deep (numbers within a double's range), returned as the client's
// own bytes: kept as spelled, it never grows (1E15 stays 4 bytes), so it always goes back
// in a header of the size it came in. A key given twice in one object is refused
// (errc::invalid_value): clients' JSON readers would not agree on its value.
// errc::value_too_large past max_bytes; the decoder's or the JSON reader's code otherwise.
// An absent header is the empty object.
inline constexpr std::uint32_t max_meta_depth = 32;
result<std::string> decode_meta(const std::optional<std::string>& header, std::size_t max_bytes);
std::string encode_meta(std::string_view json);
// The metadata as compact JSON (numbers as savekit writes them): what a write id's digest
// covers, so that one object spelled two ways is one write (and digests made before the
// metadata was kept as spelled still match). json is metadata decode_meta accepted.
std::string compact_meta(std::string_view json);
// The longest header value an answer can carry: Boost.Beast refuses a field over 65,533
// bytes (and the answer with it), so metadata whose base64url is longer cannot be sent back.
inline constexpr std::size_t max_answer_header_value = 65533;

// Savekit-Write-Id: 1..64 characters of [A-Za-z0-9._~-].
status check_write_id(std::string_view id);

// RFC 3339 in UTC with milliseconds, and the HTTP date (Last-Modified), of Unix microseconds.
std::string rfc3339_of(std::int64_t unix_micros);
std::string http_date_of(std::int64_t unix_micros);

}  // namespace savekit::server
