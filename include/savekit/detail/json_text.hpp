// JSON text primitives shared by the typed codec (json.hpp) and the transcoder:
// string escaping on output; a cursor that parses strings, keys and numbers, skips
// (and validates) whole values, and records the first error with its byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "savekit/base64.hpp"
#include "savekit/detail/config.hpp"
#include "savekit/detail/numbers.hpp"
#include "savekit/detail/output.hpp"
#include "savekit/detail/path.hpp"
#include "savekit/detail/small_stack.hpp"
#include "savekit/detail/utf8.hpp"
#include "savekit/error.hpp"

namespace savekit::detail {

// ---- output -----------------------------------------------------------------------------

// 0: copy as is; 1: escape; 2: start of a multi-byte UTF-8 sequence to check.
inline constexpr auto json_escape_class = [] {
  struct table {
    std::uint8_t values[256];
  } t{};
  for (int c = 0; c < 0x20; ++c) t.values[c] = 1;
  t.values[static_cast<unsigned char>('"')] = 1;
  t.values[static_cast<unsigned char>('\\')] = 1;
  for (int c = 0x80; c < 0x100; ++c) t.values[c] = 2;
  return t;
}();

// True if any of the 8 bytes is a control character, '"', '\\' or >= 0x80.
inline bool block_needs_attention(std::uint64_t block) {
  constexpr std::uint64_t ones = 0x0101010101010101ull;
  constexpr std::uint64_t high = 0x8080808080808080ull;
  auto has_zero_byte = [](std::uint64_t v) { return (v - ones) & ~v & high; };
  std::uint64_t control = (block - ones * 0x20) & ~block & high;
  return (control | has_zero_byte(block ^ (ones * '"')) | has_zero_byte(block ^ (ones * '\\')) | (block & high)) != 0;
}

// Writes s as a JSON string literal. Text is written as raw UTF-8; only '"', '\\' and
// control characters are escaped. Bytes that are not valid UTF-8 cannot be represented
// in JSON and become U+FFFD (use MessagePack for byte-exact strings).
template <class Container>
void write_json_string(output<Container>& out, const char* s, std::size_t n) {
  // Valid text is copied byte for byte, so n + 2 is enough until an escape or a
  // replacement makes the output longer than the input.
  char* dst = out.reserve(n + 2);
  std::size_t written = 0;
  std::size_t room = n + 2;
  auto grow_for_rest = [&](std::size_t i) {
    out.advance(written);
    room = (n - i) * 6 + 2;
    dst = out.reserve(room);
    written = 0;
  };
  dst[written++] = '"';
  std::size_t i = 0;
  while (i < n) {
    // Extend a run over plain ASCII and valid multi-byte UTF-8, then copy it at once.
    std::size_t run = i;
    for (;;) {
      while (n - i >= 8) {
        std::uint64_t block = 0;
        std::memcpy(&block, s + i, 8);
        if (block_needs_attention(block)) break;
        i += 8;
      }
      while (i < n && json_escape_class.values[static_cast<unsigned char>(s[i])] == 0) ++i;
      if (i == n || json_escape_class.values[static_cast<unsigned char>(s[i])] != 2) break;
      auto* at = reinterpret_cast<const unsigned char*>(s + i);
      auto* past = skip_utf8_multibyte(at, reinterpret_cast<const unsigned char*>(s + n));
      if (past == at) break;
      i += static_cast<std::size_t>(past - at);
    }
    std::memcpy(dst + written, s + run, i - run);
    written += i - run;
    if (i == n) break;
    // One byte that does not copy as is: an escape, or a byte that is not UTF-8.
    auto c = static_cast<unsigned char>(s[i]);
    if (room - written < 7 + (n - i)) grow_for_rest(i);
    if (c >= 0x80) {
      std::memcpy(dst + written, "\xEF\xBF\xBD", 3);  // U+FFFD
      written += 3;
      ++i;
      continue;
    }
    dst[written++] = '\\';
    switch (c) {
      case '"':
        dst[written++] = '"';
        break;
      case '\\':
        dst[written++] = '\\';
        break;
      case '\n':
        dst[written++] = 'n';
        break;
      case '\r':
        dst[written++] = 'r';
        break;
      case '\t':
        dst[written++] = 't';
        break;
      case '\b':
        dst[written++] = 'b';
        break;
      case '\f':
        dst[written++] = 'f';
        break;
      default:
        std::memcpy(dst + written, "u00", 3);
        dst[written + 3] = "0123456789abcdef"[c >> 4];
        dst[written + 4] = "0123456789abcdef"[c & 15];
        written += 5;
    }
    ++i;
  }
  dst[written++] = '"';
  out.advance(written);
}

// Bytes as a quoted Base64 string (standard alphabet): how JSON carries binary data.
template <class Container>
void write_json_base64(output<Container>& out, const void* data, std::size_t n) {
  std::size_t length = base64_encoded_size(n, base64_alphabet::standard);
  char* p = out.reserve(length + 2);
  p[0] = '"';
  base64_encode_to(static_cast<const unsigned char*>(data), n, p + 1, base64_alphabet::standard);
  p[length + 1] = '"';
  out.advance(length + 2);
}

inline bool is_json_whitespace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Compact JSON re-indented (json_options::pretty): after each '{' or '[' that opens a
// non-empty container and after each ',', a newline and indent_width spaces per level; a
// space after each ':'. Empty containers stay "{}" and "[]". Whitespace outside strings is
// dropped, so a raw_json member's own layout gives way to the indentation around it.
inline void indent_json(std::string_view compact, std::uint8_t indent_width, std::string& out) {
  out.clear();
  out.reserve(compact.size() + compact.size() / 2);
  std::size_t level = 0;
  auto newline = [&] { out.append(1, '\n').append(level * indent_width, ' '); };
  const char* p = compact.data();
  const char* end = p + compact.size();
  while (p != end) {
    const char c = *p++;
    switch (c) {
      case '"': {  // a string, escapes and all, as it is
        const char* start = p - 1;
        while (p != end && *p != '"') p += *p == '\\' && end - p > 1 ? 2 : 1;
        if (p != end) ++p;
        out.append(start, static_cast<std::size_t>(p - start));
        break;
      }
      case '{':
      case '[':
        out.push_back(c);
        while (p != end && is_json_whitespace(*p)) ++p;
        if (p != end && (*p == '}' || *p == ']')) {
          out.push_back(*p++);
        } else {
          ++level;
          newline();
        }
        break;
      case '}':
      case ']':
        if (level != 0) --level;
        newline();
        out.push_back(c);
        break;
      case ',':
        out.push_back(c);
        newline();
        break;
      case ':':
        out.append(": ", 2);
        break;
      case ' ':
      case '\n':
      case '\r':
      case '\t':
        break;
      default:
        out.push_back(c);
    }
  }
}

// ---- input ------------------------------------------------------------------------------

inline int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

struct json_cursor {
  const char* begin;
  const char* p;
  const char* end;
  std::uint32_t depth = 0;
  std::uint32_t max_depth = 256;
  pending_error err;
  std::string key_scratch;  // unescaped keys that contained escapes

  json_cursor(std::string_view text, std::uint32_t depth_limit)
      : begin(text.data()), p(text.data()), end(text.data() + text.size()), max_depth(depth_limit) {}

  std::size_t offset(const char* at) const { return static_cast<std::size_t>(at - begin); }

  SAVEKIT_COLD bool fail(errc code, const char* at, const char* message) {
    err = savekit::error{code, offset(at), message};
    return false;
  }
  SAVEKIT_COLD bool fail_end() { return fail(errc::unexpected_end, end, "unexpected end of input"); }

  // Memory the elements of arrays and maps may still take (json_options::max_memory).
  std::uint64_t memory_left = ~std::uint64_t{0};
  // Counts an element's memory: false past the budget, so that a small input cannot make
  // a reader allocate without bound ("[{},{},...]" into elements of kilobytes each).
  SAVEKIT_ALWAYS_INLINE bool spend(std::uint64_t bytes, const char* at) {
    if (SAVEKIT_UNLIKELY(bytes > memory_left))
      return fail(errc::value_too_large, at, "the value would take more memory than max_memory allows");
    memory_left -= bytes;
    return true;
  }

  SAVEKIT_ALWAYS_INLINE void skip_whitespace() {
    // Minified JSON has none: one comparison in the common case.
    while (p < end && static_cast<unsigned char>(*p) <= ' ' && is_json_whitespace(*p)) ++p;
  }

  // Skips whitespace; false (with errc::unexpected_end) if the input ends.
  SAVEKIT_ALWAYS_INLINE bool next_token() {
    skip_whitespace();
    return SAVEKIT_LIKELY(p < end) || fail_end();
  }

  SAVEKIT_ALWAYS_INLINE bool expect(char c, const char* message) {
    if (!next_token()) return false;
    if (*p != c) return fail(errc::syntax_error, p, message);
    ++p;
    return true;
  }

  bool enter(const char* at) {
    if (++depth > max_depth) return fail(errc::depth_exceeded, at, "nesting deeper than max_depth");
    return true;
  }
  void leave() { --depth; }

  bool literal(const char* word, std::size_t n) {
    if (static_cast<std::size_t>(end - p) < n) {
      if (std::memcmp(p, word, static_cast<std::size_t>(end - p)) == 0) return fail_end();
      return fail(errc::syntax_error, p, "invalid literal");
    }
    if (std::memcmp(p, word, n) != 0) return fail(errc::syntax_error, p, "invalid literal");
    p += n;
    return true;
  }

  // After a ',' or the opening bracket: true and *p is the next element, false on error.
  // 'more' tells whether another element follows (false at the closing bracket).
  SAVEKIT_ALWAYS_INLINE bool next_element(char close, bool first, bool& more) {
    if (!next_token()) return false;
    if (first) {
      if (*p == close) {
        ++p;
        more = false;
        return true;
      }
      more = true;
      return true;
    }
    if (*p == ',') {
      ++p;
      more = true;
      return next_token();
    }
    if (*p == close) {
      ++p;
      more = false;
      return true;
    }
    return fail(errc::syntax_error, p, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
  }

  // Reads one \uXXXX (p after the 'u'); false on error.
  bool read_hex4(std::uint32_t& value) {
    if (end - p < 4) {
      for (const char* q = p; q < end; ++q)
        if (hex_value(*q) < 0) return fail(errc::invalid_escape, q, "invalid \\u escape");
      return fail_end();
    }
    value = 0;
    for (int i = 0; i < 4; ++i) {
      int h = hex_value(p[i]);
      if (h < 0) return fail(errc::invalid_escape, p + i, "invalid \\u escape");
      value = value * 16 + static_cast<std::uint32_t>(h);
    }
    p += 4;
    return true;
  }

  // p at a backslash. Appends the unescaped character(s) to out (if not null).
  bool read_escape(std::string* out) {
    const char* at = p;
    ++p;
    if (p == end) return fail_end();
    char c = *p++;
    char simple = 0;
    switch (c) {
      case '"':
        simple = '"';
        break;
      case '\\':
        simple = '\\';
        break;
      case '/':
        simple = '/';
        break;
      case 'b':
        simple = '\b';
        break;
      case 'f':
        simple = '\f';
        break;
      case 'n':
        simple = '\n';
        break;
      case 'r':
        simple = '\r';
        break;
      case 't':
        simple = '\t';
        break;
      case 'u':
        break;
      default:
        return fail(errc::invalid_escape, at, "invalid escape");
    }
    if (simple != 0) {
      if (out) out->push_back(simple);
      return true;
    }
    std::uint32_t cp = 0;
    if (!read_hex4(cp)) return false;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return fail(errc::invalid_escape, at, "lone low surrogate");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (p == end) return fail_end();
      if (*p != '\\') return fail(errc::invalid_escape, at, "lone high surrogate");
      if (end - p < 2) return fail_end();
      if (p[1] != 'u') return fail(errc::invalid_escape, at, "lone high surrogate");
      p += 2;
      std::uint32_t low = 0;
      if (!read_hex4(low)) return false;
      if (low < 0xDC00 || low > 0xDFFF) return fail(errc::invalid_escape, at, "lone high surrogate");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    if (out) {
      char buffer[4];
      out->append(buffer, static_cast<std::size_t>(encode_utf8(cp, buffer)));
    }
    return true;
  }

  // p at the opening quote. Appends the string's content to out (if not null).
  bool read_string(std::string* out) {
    ++p;
    for (;;) {
      // One run of plain text (ASCII and valid multi-byte UTF-8), appended at once.
      const char* run = p;
      for (;;) {
        while (end - p >= 8) {
          std::uint64_t block = 0;
          std::memcpy(&block, p, 8);
          if (block_needs_attention(block)) break;
          p += 8;
        }
        while (p < end && json_escape_class.values[static_cast<unsigned char>(*p)] == 0) ++p;
        if (p == end || static_cast<unsigned char>(*p) < 0x80) break;
        auto* at = reinterpret_cast<const unsigned char*>(p);
        auto* past = skip_utf8_multibyte(at, reinterpret_cast<const unsigned char*>(end));
        if (past == at) return fail(errc::invalid_utf8, p, "invalid UTF-8 in string");
        p += past - at;
      }
      if (out) out->append(run, static_cast<std::size_t>(p - run));
      if (p == end) return fail_end();
      if (*p == '"') {
        ++p;
        return true;
      }
      if (*p != '\\') return fail(errc::syntax_error, p, "control character in string");
      if (!read_escape(out)) return false;
    }
  }

  // p at the opening quote of a key. The key's text, without copying unless it has escapes.
  bool read_key(std::string_view& key) {
    const char* start = ++p;
    while (p < end && json_escape_class.values[static_cast<unsigned char>(*p)] == 0) ++p;
    if (p < end && *p == '"') {
      key = std::string_view(start, static_cast<std::size_t>(p - start));
      ++p;
      return true;
    }
    p = start - 1;
    key_scratch.clear();
    if (!read_string(&key_scratch)) return false;
    key = key_scratch;
    return true;
  }

  // Re-reads the key that starts at `at` (for error paths: the view read_key returned
  // may point into key_scratch, which later keys overwrite).
  std::string key_text_at(const char* at) const {
    json_cursor again{std::string_view(at, static_cast<std::size_t>(end - at)), max_depth};
    std::string_view key;
    if (!again.read_key(key)) return {};
    return std::string{key};
  }

  // Reads `"key" :` with p at the token before the key.
  bool read_member_key(std::string_view& key) {
    if (*p != '"') return fail(errc::syntax_error, p, "expected a string key");
    if (!read_key(key)) return false;
    return expect(':', "expected ':' after key");
  }

  // Validates a JSON number starting at p; on success p is past it.
  // integral: no fraction and no exponent.
  bool scan_number(bool& integral) {
    const char* start = p;
    if (*p == '-') ++p;
    if (p == end) return fail_end();
    if (*p == '0') {
      ++p;
      if (p < end && *p >= '0' && *p <= '9') return fail(errc::invalid_number, start, "leading zero in number");
    } else if (*p >= '1' && *p <= '9') {
      while (p < end && *p >= '0' && *p <= '9') ++p;
    } else {
      return fail(errc::invalid_number, start, "invalid number");
    }
    integral = true;
    if (p < end && *p == '.') {
      integral = false;
      ++p;
      if (p == end) return fail_end();
      if (*p < '0' || *p > '9') return fail(errc::invalid_number, start, "expected a digit after '.'");
      while (p < end && *p >= '0' && *p <= '9') ++p;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
      integral = false;
      ++p;
      if (p < end && (*p == '+' || *p == '-')) ++p;
      if (p == end) return fail_end();
      if (*p < '0' || *p > '9') return fail(errc::invalid_number, start, "expected a digit in exponent");
      while (p < end && *p >= '0' && *p <= '9') ++p;
    }
    return true;
  }

  // scan_number's grammar, keeping the digits: the number's decimal parts for a float.
  // Every digit goes into the mantissa (any 19 fit 64 bits); more than 19 leave it
  // inexact, for fast_float to convert from the text.
  bool scan_decimal(decimal_parts& d) {
    const char* start = p;
    auto digit = [](char c) { return static_cast<unsigned>(static_cast<unsigned char>(c) - '0'); };
    std::uint64_t mantissa = 0;
    d.negative = *p == '-';
    if (d.negative) ++p;
    if (p == end) return fail_end();
    const char* digits = p;
    if (*p == '0') {
      ++p;
      if (p < end && digit(*p) < 10) return fail(errc::invalid_number, start, "leading zero in number");
    } else if (digit(*p) < 10) {
      for (; p < end && digit(*p) < 10; ++p) mantissa = mantissa * 10 + digit(*p);
    } else {
      return fail(errc::invalid_number, start, "invalid number");
    }
    std::int64_t exponent = 0;
    std::ptrdiff_t digit_count = p - digits;
    if (p < end && *p == '.') {
      ++p;
      if (p == end) return fail_end();
      if (digit(*p) >= 10) return fail(errc::invalid_number, start, "expected a digit after '.'");
      const char* fraction = p;
      for (; p < end && digit(*p) < 10; ++p) mantissa = mantissa * 10 + digit(*p);
      exponent = fraction - p;
      digit_count += p - fraction;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
      ++p;
      bool negative_exponent = p < end && *p == '-';
      if (p < end && (*p == '+' || *p == '-')) ++p;
      if (p == end) return fail_end();
      if (digit(*p) >= 10) return fail(errc::invalid_number, start, "expected a digit in exponent");
      std::int64_t e = 0;
      for (; p < end && digit(*p) < 10; ++p)
        if (e < 1'000'000) e = e * 10 + digit(*p);  // beyond any float: the exact value no longer matters
      exponent += negative_exponent ? -e : e;
    }
    d.mantissa = mantissa;
    d.exponent = exponent;
    d.exact = digit_count <= 19;
    return true;
  }

  // Skips one whole value (validating it) with p at its first character. Iterative — a
  // stack of the open brackets — so that any depth max_depth allows is skipped without
  // recursion.
  bool skip_value() {
    small_stack<char, 64> open;  // '{' or '[' for each container the value is inside
    for (;;) {
      // p is at a value.
      switch (*p) {
        case '{':
        case '[': {
          if (!enter(p)) return false;
          char bracket = *p++;
          bool more = false;
          if (!next_element(bracket == '{' ? '}' : ']', true, more)) return false;
          if (more) {
            open.push(bracket);
            if (bracket == '{' && !skip_member_key()) return false;
            continue;
          }
          leave();
          break;
        }
        case '"':
          if (!read_string(nullptr)) return false;
          break;
        case 't':
          if (!literal("true", 4)) return false;
          break;
        case 'f':
          if (!literal("false", 5)) return false;
          break;
        case 'n':
          if (!literal("null", 4)) return false;
          break;
        default: {
          if (*p != '-' && (*p < '0' || *p > '9')) return fail(errc::syntax_error, p, "expected a value");
          bool integral = false;
          if (!scan_number(integral)) return false;
        }
      }
      // A value is complete: close the containers it completes, or go on to the next element.
      for (;;) {
        if (open.empty()) return true;
        char bracket = open.top();
        bool more = false;
        if (!next_element(bracket == '{' ? '}' : ']', false, more)) return false;
        if (more) {
          if (bracket == '{' && !skip_member_key()) return false;
          break;
        }
        open.pop();
        leave();
      }
    }
  }

  // A member's key and the whitespace after its colon, p left at the value.
  bool skip_member_key() {
    std::string_view key;
    return read_member_key(key) && next_token();
  }

  // After the top-level value: only whitespace may follow.
  bool finish() {
    skip_whitespace();
    if (p != end) return fail(errc::trailing_data, p, "unexpected data after the document");
    return true;
  }
};

// Whether text is one JSON value, with whitespace around it or none: what indent_json
// reads correctly (a raw_json's text is written as it is, unvalidated).
inline bool is_one_json_value(std::string_view text) {
  json_cursor c{text, std::numeric_limits<std::uint32_t>::max()};
  return c.next_token() && c.skip_value() && c.finish();
}

// The input holds a value of another kind than the target wants.
inline bool json_mismatch(json_cursor& c, const char* expected) {
  char first = *c.p;
  bool starts_value = first == '"' || first == '{' || first == '[' || first == 't' || first == 'f' || first == 'n' ||
                      first == '-' || (first >= '0' && first <= '9');
  if (!starts_value) return c.fail(errc::syntax_error, c.p, "expected a value");
  return c.fail(errc::type_mismatch, c.p, expected);
}

template <class Int>
bool read_json_any_integer(json_cursor& c, Int& value) {
  // Works on local copies of the cursor: stores through char pointers could alias it.
  const char* start = c.p;
  const char* p = start;
  const char* end = c.end;
  bool negative = *p == '-';
  if (negative && ++p == end) return c.fail_end();
  if (!is_decimal_digit(*p)) {
    if (negative) return c.fail(errc::invalid_number, start, "invalid number");
    return json_mismatch(c, "expected an integer");
  }
  std::uint64_t magnitude = 0;
  if (*p == '0') {
    ++p;
    if (p < end && is_decimal_digit(*p)) return c.fail(errc::invalid_number, start, "leading zero in number");
  } else if (const char* digits_end = read_decimal_magnitude(p, end, magnitude)) {
    p = digits_end;
  } else {
    bool integral = false;
    if (!c.scan_number(integral)) return false;
    return c.fail(errc::number_out_of_range, start, "integer out of range");
  }
  if (p < end && (*p == '.' || (*p | 0x20) == 'e')) {
    bool integral = false;
    if (!c.scan_number(integral)) return false;
    return c.fail(errc::not_an_integer, start, "expected an integer, found a fraction or exponent");
  }
  if (integer_fit fit = integer_from_magnitude(negative, magnitude, value); fit != integer_fit::fits)
    return c.fail(errc::number_out_of_range, start, integer_fit_message(fit));
  c.p = p;
  return true;
}

// An integer at the cursor (a byte is there). What most are — up to nine digits, no sign,
// ending where a number ends — read inline; a sign, more digits, a fraction, an exponent,
// a value too large for Int and every error out of line, with the same checks.
template <class Int>
SAVEKIT_ALWAYS_INLINE bool read_json_integer(json_cursor& c, Int& value) {
  const char* p = c.p;
  const char* end = c.end;
  auto digit = [](char ch) { return static_cast<unsigned>(static_cast<unsigned char>(ch) - '0'); };
  if (p < end && digit(*p) < 10) {
    std::uint32_t v = digit(*p++);
    if (v != 0) {  // a leading zero followed by digits is an error, out of line
      for (int more = 0; more < 8 && p < end && digit(*p) < 10; ++more, ++p) v = v * 10 + digit(*p);
    }
    bool number_ends = p == end || (digit(*p) >= 10 && *p != '.' && (*p | 0x20) != 'e');
    if (number_ends && v <= static_cast<std::uint64_t>(std::numeric_limits<Int>::max())) {
      value = static_cast<Int>(v);
      c.p = p;
      return true;
    }
  }
  return read_json_any_integer(c, value);
}

}  // namespace savekit::detail
