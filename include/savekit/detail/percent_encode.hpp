// A slot name as one URL path segment: every byte but RFC 3986's unreserved ones as %XX
// (uppercase hex), so "/" inside a name never splits it. What savekit-server decodes
// (server/routes.hpp) and the sync client sends (src/cloud/wire.cpp).
#pragma once

#include <string>
#include <string_view>

namespace savekit::detail {

inline std::string percent_encode(std::string_view text) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                            c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out += ch;
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace savekit::detail
