// The grammar of the headers the API reads (header_grammar.hpp).
#include "header_grammar.hpp"

#include "routes.hpp"

#include <savekit/base64.hpp>
#include <savekit/document.hpp>
#include <savekit/slots.hpp>

#include <charconv>
#include <cstdio>
#include <ctime>
#include <vector>

namespace savekit::server {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// One entity tag: "N" (strong) or W/"N" (weak) with N a version.
struct entity_tag {
  std::int64_t version = 0;
  bool weak = false;
};
std::optional<entity_tag> parse_tag(std::string_view text) {
  entity_tag tag;
  if (text.substr(0, 2) == "W/") {
    tag.weak = true;
    text.remove_prefix(2);
  }
  if (text.size() < 3 || text.front() != '"' || text.back() != '"') return std::nullopt;
  auto v = parse_version(text.substr(1, text.size() - 2));
  if (!v) return std::nullopt;
  tag.version = *v;
  return tag;
}

error bad_header(std::string what) { return error{errc::invalid_value, 0, std::move(what)}; }

}  // namespace

result<precondition> parse_write_precondition(const std::optional<std::string>& if_match,
                                              const std::optional<std::string>& if_none_match) {
  if (if_match && if_none_match) return bad_header("give If-Match or If-None-Match, not both");
  if (if_none_match) {
    if (trim(*if_none_match) != "*") return bad_header("a write's If-None-Match is * (create only)");
    return precondition{std::nullopt};
  }
  if (!if_match)
    return error{errc::missing_key, 0,
                 "a write needs a precondition: If-None-Match: * to create, If-Match: \"N\" to replace version N"};
  const std::string_view value = trim(*if_match);
  if (value == "*")
    return error{errc::missing_key, 0, "If-Match: * does not say which version it replaces: give If-Match: \"N\""};
  auto tag = parse_tag(value);
  if (!tag || tag->weak) return bad_header("If-Match is one strong tag, \"N\", with N the version it replaces");
  return precondition{tag->version};
}

bool if_none_match_names(std::string_view header, std::int64_t version) {
  for (std::string_view rest = header;;) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    if (item == "*") return true;
    if (auto tag = parse_tag(item); tag && tag->version == version) return true;
    if (comma == std::string_view::npos) return false;
    rest.remove_prefix(comma + 1);
  }
}

std::string etag_of(std::int64_t version) { return "\"" + std::to_string(version) + "\""; }

namespace {

bool json_whitespace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The keys of a valid JSON text, counted on the text: each string followed by ':'.
std::size_t keys_in(std::string_view json) {
  std::size_t keys = 0;
  for (std::size_t i = 0; i < json.size(); ++i) {
    if (json[i] != '"') continue;
    for (++i; i < json.size() && json[i] != '"';) i += json[i] == '\\' ? 2 : 1;  // past escapes
    std::size_t next = i + 1;
    while (next < json.size() && json_whitespace(json[next])) ++next;
    if (next < json.size() && json[next] == ':') ++keys;
  }
  return keys;
}

// The members of every object in a document (where a key given twice is one member).
std::size_t members_in(const document& d) {
  std::size_t n = d.members().size();
  for (const auto& member : d.members()) n += members_in(member.second);
  for (const document& element : d.elements()) n += members_in(element);
  return n;
}

result<document> parse_meta(std::string_view json, std::size_t max_bytes) {
  return document::from_json(json, {.max_depth = max_meta_depth, .max_memory = 64 * max_bytes + 4096});
}

}  // namespace

result<std::string> decode_meta(const std::optional<std::string>& header, std::size_t max_bytes) {
  if (!header) return std::string{"{}"};
  const std::string_view text = trim(*header);
  // Base64 holds 3 bytes in 4 characters: refuse a long header before decoding it.
  if (text.size() > (max_bytes + 2) / 3 * 4)
    return error{errc::value_too_large, 0, "Savekit-Meta holds more than " + std::to_string(max_bytes) + " bytes"};
  std::vector<std::byte> decoded;
  if (status ok = base64_decode(text, decoded, base64_alphabet::url); !ok)
    return error{ok.error().code(), ok.error().offset(), "Savekit-Meta is not base64url: " + ok.error().message()};
  if (decoded.size() > max_bytes)
    return error{errc::value_too_large, 0, "Savekit-Meta holds more than " + std::to_string(max_bytes) + " bytes"};
  std::string json(reinterpret_cast<const char*>(decoded.data()), decoded.size());
  auto parsed = parse_meta(json, max_bytes);
  if (!parsed)
    return error{parsed.error().code(), parsed.error().offset(),
                 "Savekit-Meta is not a JSON object: " + parsed.error().message()};
  if (!parsed->is_object()) return error{errc::type_mismatch, 0, "Savekit-Meta is JSON, but not an object"};
  // Kept as the client spelled it. Re-spelled (1E15 as 1000000000000000.0) it grew up to
  // four times, past what a header can carry back: a save acknowledged that no GET could
  // return. The reader checked it is JSON (UTF-8, numbers, depth), so it can be embedded
  // in the list's JSON as it is.
  if (keys_in(json) != members_in(*parsed))
    return error{errc::invalid_value, 0, "Savekit-Meta gives a key twice in one object"};
  return json;
}

std::string compact_meta(std::string_view json) {
  auto parsed = parse_meta(json, json.size());
  if (!parsed) return std::string{json};  // not metadata decode_meta accepted: as it is
  auto compact = parsed->to_json();
  return compact ? std::move(*compact) : std::string{json};
}

std::string encode_meta(std::string_view json) { return base64_encode(json, base64_alphabet::url); }

status check_write_id(std::string_view id) {
  if (id.empty() || id.size() > 64) return error{errc::invalid_value, 0, "Savekit-Write-Id is 1 to 64 characters"};
  for (std::size_t i = 0; i < id.size(); ++i) {
    const auto c = static_cast<unsigned char>(id[i]);
    const bool allowed = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                         c == '.' || c == '_' || c == '~';
    if (!allowed) return error{errc::invalid_value, i, "Savekit-Write-Id holds only A-Z a-z 0-9 . _ ~ -"};
  }
  return {};
}

std::string rfc3339_of(std::int64_t unix_micros) {
  const std::time_t seconds = static_cast<std::time_t>(unix_micros / 1000000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + n, sizeof text - n, ".%03dZ", static_cast<int>(unix_micros % 1000000 / 1000));
  return text;
}

std::string http_date_of(std::int64_t unix_micros) {
  const std::time_t seconds = static_cast<std::time_t>(unix_micros / 1000000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &utc);
  return text;
}

}  // namespace savekit::server
