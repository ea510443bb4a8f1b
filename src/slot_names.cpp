// Which slot names are valid (slots::check_name): UTF-8 that a load menu shows as it is.
#include <string>

#include "savekit/detail/utf8.hpp"
#include "savekit/slots.hpp"

namespace savekit {

namespace {

// The code point at name[i] (valid UTF-8, checked before), and its length in bytes.
char32_t code_point_at(std::string_view name, std::size_t i, std::size_t& length) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(name[i + k]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return length = 1, lead;
  if (lead < 0xE0) return length = 2, char32_t((lead & 0x1F) << 6 | (byte(1) & 0x3F));
  if (lead < 0xF0) return length = 3, char32_t((lead & 0x0F) << 12 | (byte(1) & 0x3F) << 6 | (byte(2) & 0x3F));
  return length = 4, char32_t((lead & 0x07) << 18 | (byte(1) & 0x3F) << 12 | (byte(2) & 0x3F) << 6 | (byte(3) & 0x3F));
}

// Characters that change how a name looks without being seen: a menu entry could pass for
// another (bidirectional overrides) or look empty.
bool invisible(char32_t c) {
  return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0xAD || (c >= 0x200B && c <= 0x200F) ||
         (c >= 0x2028 && c <= 0x202E) || (c >= 0x2060 && c <= 0x206F) || c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFB);
}

bool blank(char32_t c) {
  return c == 0x20 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

}  // namespace

status slots::check_name(std::string_view name) {
  if (name.empty() || name.size() > max_name_bytes)
    return error{
        errc::invalid_name, 0,
        "a slot name is 1 to " + std::to_string(max_name_bytes) + " bytes, not " + std::to_string(name.size())};
  if (std::size_t bad = detail::find_invalid_utf8(name.data(), name.size()); bad != name.size())
    return error{errc::invalid_name, bad, "a slot name is UTF-8; byte " + std::to_string(bad) + " is not"};
  bool all_blank = true;
  for (std::size_t i = 0, length = 0; i < name.size(); i += length) {
    const char32_t c = code_point_at(name, i, length);
    if (invisible(c))
      return error{errc::invalid_name, i,
                   "a slot name holds no control, format or bidirectional characters (byte " + std::to_string(i) + ")"};
    all_blank = all_blank && blank(c);
  }
  if (all_blank) return error{errc::invalid_name, 0, "a slot name is not only spaces"};
  return {};
}

}  // namespace savekit
