// The server's answers as the sync reads them (docs/server.md, "The HTTP contract"), and
// the metadata it sends with each save. Pure functions over bytes: fuzzed
// (tests/fuzz/fuzz_cloud_answers.cpp). Nothing a server sends is trusted: every field is
// checked, and a bad answer is an error, never a guess.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "savekit/cloud.hpp"

namespace savekit::cloud::detail {

// A slot as the server lists it, with what the sync's own metadata says of it.
struct remote_entry {
  std::string name;
  std::int64_t version = 0;
  bool deleted = false;
  std::string write_id;
  std::int64_t bytes = 0;
  std::int64_t saved_at_us = 0;  // the server's clock at the write
  // From the metadata a savekit device wrote ("sk"); empty for a save another client made.
  std::string device, device_id, content;
  std::int64_t local_saved_at_us = 0;  // the device's clock when the game saved it
  bool sealed = false;
  std::string title;
  std::int64_t playtime_s = 0;
  double progress = 0;
  std::map<std::string, std::string> user;
};

struct slot_listing {
  std::vector<remote_entry> live, deleted;
  bool lists_deleted = false;  // the server answered ?deleted=true (an older one does not)
};

result<slot_listing> parse_listing(std::string_view body);
// The slot in an error answer (a 412's or 409's "error":{"slot":…}); nullopt if none.
struct error_answer {
  std::string code, message;
  std::optional<remote_entry> slot;
};
result<error_answer> parse_error_answer(std::string_view body);
// A slot's kept versions (GET /v1/slots/NAME/versions: {"versions":[{"version":N,…}]}),
// newest first, as entries of that name.
result<std::vector<remote_entry>> parse_versions(std::string_view body, std::string_view name);
// The slot's entry a write's 2xx answers with ({"name":…,"version":N,…}).
result<remote_entry> parse_entry(std::string_view body);
// An ETag: "N" with N a positive decimal version.
std::optional<std::int64_t> parse_etag(std::string_view etag);
// RFC 3339 in UTC as the server writes it ("2026-12-01T20:00:00.000Z"): Unix microseconds.
std::optional<std::int64_t> parse_rfc3339(std::string_view text);

// The metadata sent with a save (Savekit-Meta, base64url of a JSON object): what another
// device's load menu shows without downloading it, and "sk", what the sync needs.
struct sent_meta {
  const slot_info* info = nullptr;
  std::string_view device, device_id, content;
};
std::string encode_meta(const sent_meta& m);
// The entry's fields from a metadata object's text (the list's "meta"); unknown or
// malformed members are left empty (another client's metadata is not an error).
void read_meta(std::string_view meta_json, remote_entry& into);

// A slot name in a URL path: percent-encoded as one segment ("." and ".." as %2E: a dot
// segment would be removed from the path by the client or a proxy).
std::string slot_target(std::string_view name);

}  // namespace savekit::cloud::detail
