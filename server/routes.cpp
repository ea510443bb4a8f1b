// The route table's matcher and the slot names in targets (routes.hpp).
#include "routes.hpp"

#include <savekit/detail/percent_encode.hpp>
#include <savekit/slots.hpp>

#include <charconv>
#include <vector>

namespace savekit::server {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A path's segments, split on '/' before decoding (an encoded '/' stays inside its segment).
std::vector<std::string_view> segments_of(std::string_view path) {
  std::vector<std::string_view> out;
  for (std::string_view rest = path.substr(1);;) {
    const std::size_t slash = rest.find('/');
    out.push_back(rest.substr(0, slash));
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  return out;
}

}  // namespace

std::optional<std::int64_t> parse_version(std::string_view text) {
  if (text.empty() || text.size() > 15 || text[0] == '0') return std::nullopt;
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || v <= 0) return std::nullopt;
  return v;
}

const route_row& row_of(route_kind kind) {
  for (const route_row& row : route_table)
    if (row.kind == kind) return row;
  return route_table[0];  // every kind has a row (tests/server/test_server_rules.cpp)
}

bool answers(const route_row& row, std::string_view method) {
  for (std::string_view rest = row.methods;;) {
    const std::size_t comma = rest.find(", ");
    if (rest.substr(0, comma) == method) return true;
    if (comma == std::string_view::npos) return false;
    rest.remove_prefix(comma + 2);
  }
}

std::string player_route_methods() {
  std::string out;
  for (std::string_view method : {"GET", "HEAD", "PUT", "DELETE", "POST", "PATCH"}) {
    bool any = false;
    for (const route_row& row : route_table) any = any || (row.player_route && answers(row, method));
    if (any) out += (out.empty() ? "" : ", ") + std::string{method};
  }
  return out;
}

status check_slot_name(std::string_view name) {
  if (name == "." || name == "..") return error{errc::invalid_name, 0, "a slot name is not \".\" or \"..\""};
  return slots::check_name(name);
}

result<std::string> percent_decode(std::string_view segment) {
  std::string out;
  out.reserve(segment.size());
  for (std::size_t i = 0; i < segment.size(); ++i) {
    if (segment[i] != '%') {
      out += segment[i];
      continue;
    }
    const int high = i + 2 < segment.size() ? hex_value(segment[i + 1]) : -1;
    const int low = i + 2 < segment.size() ? hex_value(segment[i + 2]) : -1;
    if (high < 0 || low < 0)
      return error{errc::invalid_name, i, "a '%' in the slot name is not followed by two hex digits"};
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

std::string percent_encode(std::string_view name) { return savekit::detail::percent_encode(name); }

result<route> parse_target(std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  if (path.empty() || path.front() != '/') return error{errc::not_found, 0, "no such path"};
  const std::vector<std::string_view> given = segments_of(path);
  for (const route_row& row : route_table) {
    const std::vector<std::string_view> wanted = segments_of(row.pattern);
    route out{row.kind, {}, 0};
    bool matches = true;
    for (std::size_t i = 0; matches && i < std::min(given.size(), wanted.size()); ++i) {
      // A placeholder is judged once the segments before it match, unless the target runs
      // on past a pattern that ends with it (then another, longer route may be meant).
      const bool placeholder = wanted[i].front() == '{';
      if (placeholder && given.size() > wanted.size() && i + 1 == wanted.size()) {
        matches = false;
      } else if (wanted[i] == "{name}") {
        auto name = percent_decode(given[i]);
        if (!name) return std::move(name).error();
        if (status valid = check_slot_name(*name); !valid) return std::move(valid).error();
        out.name = std::move(*name);
      } else if (wanted[i] == "{version}") {
        auto version = parse_version(given[i]);
        if (!version) return error{errc::invalid_value, 0, "a version is a positive decimal number"};
        out.version = *version;
      } else {
        matches = given[i] == wanted[i];
      }
    }
    if (matches && given.size() == wanted.size()) return out;
  }
  return error{errc::not_found, 0, "no such path"};
}

}  // namespace savekit::server
