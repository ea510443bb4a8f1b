// UTF-8 validation and encoding (RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF).
#pragma once

#include <cstdint>
#include <cstring>

#include "savekit/detail/config.hpp"

namespace savekit::detail {

// Length (2..4) of the valid multi-byte sequence at p, or 0 if it is invalid or cut short.
// p[0] must be >= 0x80.
inline int utf8_sequence_length(const unsigned char* p, const unsigned char* end) {
  unsigned lead = p[0];
  auto available = end - p;
  auto continuation = [](unsigned c) { return (c & 0xC0) == 0x80; };
  switch (lead >> 4) {
    case 0xC:
    case 0xD:
      return lead >= 0xC2 && available >= 2 && continuation(p[1]) ? 2 : 0;
    case 0xE: {  // most text past Latin: kana, CJK
      if (available < 3 || !continuation(p[1]) || !continuation(p[2])) return 0;
      if (lead == 0xE0 && p[1] < 0xA0) return 0;  // overlong
      if (lead == 0xED && p[1] > 0x9F) return 0;  // surrogate
      return 3;
    }
    case 0xF:
      if (lead > 0xF4 || available < 4 || !continuation(p[1]) || !continuation(p[2]) || !continuation(p[3])) return 0;
      if (lead == 0xF0 && p[1] < 0x90) return 0;  // overlong
      if (lead == 0xF4 && p[1] > 0x8F) return 0;  // past U+10FFFF
      return 4;
    default:
      return 0;
  }
}

// Past the valid multi-byte sequences that follow each other from p: a run of non-ASCII
// text is checked without going back to the ASCII scan between its characters. Stops at
// end, at an ASCII byte or at the first invalid sequence (p itself if that is the first).
SAVEKIT_ALWAYS_INLINE const unsigned char* skip_utf8_multibyte(const unsigned char* p, const unsigned char* end) {
  while (p < end && *p >= 0x80) {
    int length = utf8_sequence_length(p, end);
    if (length == 0) break;
    p += length;
  }
  return p;
}

// Offset of the first byte that is not valid UTF-8, or n if all of [data, data+n) is.
inline std::size_t find_invalid_utf8(const char* data, std::size_t n) {
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  const auto* end = p + n;
  while (p < end) {
    // Eight ASCII bytes at a time.
    while (end - p >= 8) {
      std::uint64_t block;
      std::memcpy(&block, p, 8);
      if (block & 0x8080808080808080ull) break;
      p += 8;
    }
    if (p == end) break;
    if (*p < 0x80) {
      ++p;
      continue;
    }
    const unsigned char* past = skip_utf8_multibyte(p, end);
    if (past == p) return static_cast<std::size_t>(p - reinterpret_cast<const unsigned char*>(data));
    p = past;
  }
  return n;
}

// Writes code point cp (<= 0x10FFFF, not a surrogate) as UTF-8; returns the byte count.
inline int encode_utf8(std::uint32_t cp, char* out) {
  if (cp < 0x80) {
    out[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<char>(0xC0 | (cp >> 6));
    out[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (cp >> 12));
    out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (cp >> 18));
  out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

}  // namespace savekit::detail
