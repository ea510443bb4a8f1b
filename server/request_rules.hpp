// What the server reads out of a request itself, before any storage is touched: the route
// and slot name in the target, the preconditions, the write id and the slot metadata. Each
// is checked strictly, and each is fuzzed (tests/fuzz/fuzz_server_rules.cpp).
#pragma once

#include <savekit/error.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace savekit::server {

enum class route_kind { health, metrics, list, slot, versions, version };

struct route {
  route_kind kind = route_kind::health;
  std::string name;          // the slot name, percent-decoded (slot, versions, version)
  std::int64_t version = 0;  // version routes
  // The route's pattern, for logs and metrics (never the name itself there).
  std::string_view pattern() const;
};

// The route of a request target (the query, if any, is ignored): errc::not_found when no
// route matches, errc::invalid_name when the slot name is not one (bad percent-encoding,
// not UTF-8, control characters, too long, "." or ".."), errc::invalid_value for a
// version that is not a positive decimal number.
result<route> parse_target(std::string_view target);

// A slot name: slots::check_name (1..128 bytes of UTF-8, no control, format or
// bidirectional characters, not only spaces), and not "." or "..".
status check_slot_name(std::string_view name);

// Percent-decoding of one path segment: "%2F" is a '/' inside the name, never a separator.
result<std::string> percent_decode(std::string_view segment);
std::string percent_encode(std::string_view name);  // what a client puts in a URL

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
