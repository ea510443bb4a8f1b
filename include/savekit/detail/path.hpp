// Segments of an error's field path (a JSONPath: $.Inventory[1].Id), shared by every
// codec: each reader that fails inside a member or element prepends the segment naming it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace savekit::detail {

// Path segment for a key: ".name" when it is an identifier, ["..."] otherwise.
inline std::string path_key(std::string_view key) {
  bool identifier = !key.empty() && !(key[0] >= '0' && key[0] <= '9');
  for (char c : key)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) identifier = false;
  if (identifier) return "." + std::string{key};
  std::string segment = "[\"";
  for (char c : key) {
    if (c == '"' || c == '\\') segment += '\\';
    segment += c;
  }
  return segment + "\"]";
}

inline std::string path_index(std::size_t index) { return "[" + std::to_string(index) + "]"; }

}  // namespace savekit::detail
