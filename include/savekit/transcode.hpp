// savekit/transcode.hpp — MessagePack <-> JSON with no C++ type at hand.
//
// How a binary save is inspected, edited by hand and written back:
//   savekit::result<std::string> text = savekit::msgpack_to_json(bytes);
//   savekit::result<std::vector<std::byte>> again = savekit::json_to_msgpack(*text);
//
// MessagePack -> JSON: bin becomes a Base64 string (as std::vector<std::byte> does in
// to_json), integer map keys become strings, float32 is printed as the exact double it
// equals (so a double-based JSON reader reads the same number).
// Values JSON cannot hold are errors, not guesses: ext types, NaN/Infinity, strings that
// are not UTF-8 (errc::unsupported_type / errc::invalid_utf8).
// JSON -> MessagePack: integers that fit 64 bits become integers, other numbers float64,
// everything in the smallest encoding. Any JSON document survives JSON -> MessagePack ->
// JSON with the same values.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fast_float/fast_float.h>

#include "savekit/base64.hpp"
#include "savekit/detail/json_text.hpp"
#include "savekit/detail/msgpack_wire.hpp"
#include "savekit/detail/numbers.hpp"
#include "savekit/json.hpp"
#include "savekit/msgpack.hpp"

namespace savekit {
namespace detail {

// ---- MessagePack -> JSON ------------------------------------------------------------------

inline bool transcode_msgpack_value(msgpack_cursor& c, json_writer& w);

template <class Float>
bool transcode_float(msgpack_cursor& c, json_writer& w, Float value, const unsigned char* at) {
  if (!std::isfinite(value)) return c.fail(errc::unsupported_type, at, "NaN and infinity have no JSON form");
  char* p = w.out.reserve(max_float_chars);
  w.out.advance(static_cast<std::size_t>(write_float(p, value) - p));
  return true;
}

inline bool transcode_msgpack_key(msgpack_cursor& c, json_writer& w) {
  const unsigned char* at = c.p;
  const unsigned char* data = nullptr;
  std::uint64_t length = 0;
  char kind = 0;
  if (c.string_or_binary(data, length, kind)) {
    if (kind != 's') return c.fail(errc::unsupported_type, at, "binary map keys have no JSON form");
    if (find_invalid_utf8(reinterpret_cast<const char*>(data), length) != length)
      return c.fail(errc::invalid_utf8, at, "map key is not valid UTF-8");
    write_json_string(w.out, reinterpret_cast<const char*>(data), static_cast<std::size_t>(length));
    return true;
  }
  if (kind != 0) return false;
  std::uint64_t v = 0;
  bool negative = false, is_integer = false;
  if (c.integer(v, negative, is_integer)) {
    w.out.put('"');
    char* p = w.out.reserve(24);
    char* e = negative ? write_integer(p, static_cast<std::int64_t>(v)) : write_unsigned(p, v);
    w.out.advance(static_cast<std::size_t>(e - p));
    w.out.put('"');
    return true;
  }
  if (is_integer) return false;
  return c.fail(errc::unsupported_type, at, "only string and integer map keys have a JSON form");
}

inline bool transcode_msgpack_value(msgpack_cursor& c, json_writer& w) {
  if (!c.more()) return false;
  const unsigned char* at = c.p;
  std::uint8_t b = *c.p;
  if (b == mp::nil || b == mp::true_ || b == mp::false_) {
    ++c.p;
    if (b == mp::nil)
      w.out.append_literal("null");
    else if (b == mp::true_)
      w.out.append_literal("true");
    else
      w.out.append_literal("false");
    return true;
  }
  if (b == mp::never_used) return c.fail(errc::invalid_msgpack, at, "byte 0xc1 is never used in MessagePack");
  std::uint64_t v = 0;
  bool negative = false, is_integer = false;
  if (c.integer(v, negative, is_integer)) {
    char* p = w.out.reserve(24);
    char* e = negative ? write_integer(p, static_cast<std::int64_t>(v)) : write_unsigned(p, v);
    w.out.advance(static_cast<std::size_t>(e - p));
    return true;
  }
  if (is_integer) return false;
  if (b == mp::float32 || b == mp::float64) {
    if (!c.field(b == mp::float32 ? 4 : 8, v)) return false;
    if (b == mp::float32) {
      auto bits = static_cast<std::uint32_t>(v);
      float f = 0;
      std::memcpy(&f, &bits, 4);
      // Printed as the double it equals: float-shortest digits ("2147483600.0" for 2^31)
      // name another number to every double-based JSON reader.
      return transcode_float(c, w, static_cast<double>(f), at);
    }
    double d = 0;
    std::memcpy(&d, &v, 8);
    return transcode_float(c, w, d, at);
  }
  const unsigned char* data = nullptr;
  char kind = 0;
  if (c.string_or_binary(data, v, kind)) {
    const char* text = reinterpret_cast<const char*>(data);
    auto length = static_cast<std::size_t>(v);
    if (kind == 's') {
      std::size_t bad = find_invalid_utf8(text, length);
      if (bad != length) return c.fail(errc::invalid_utf8, data + bad, "string is not valid UTF-8");
      write_json_string(w.out, text, length);
    } else {
      std::size_t n = base64_encoded_size(length, base64_alphabet::standard);
      char* p = w.out.reserve(n + 2);
      p[0] = '"';
      base64_encode_to(data, length, p + 1, base64_alphabet::standard);
      p[n + 1] = '"';
      w.out.advance(n + 2);
    }
    return true;
  }
  if (kind != 0) return false;
  std::uint64_t count = 0;
  if (!c.container(count, kind)) {
    if (kind != 0) return false;
    return c.fail(errc::unsupported_type, at, "MessagePack ext types have no JSON form");
  }
  if (!c.enter(at)) return false;
  w.open(kind == 'a' ? '[' : '{');
  for (std::uint64_t i = 0; i < count; ++i) {
    w.separator(i == 0);
    if (kind == 'm') {
      if (!c.more() || !transcode_msgpack_key(c, w)) return false;
      w.colon();
    }
    if (!transcode_msgpack_value(c, w)) {
      c.err.prepend_path(path_index(i));
      return false;
    }
  }
  w.close(kind == 'a' ? ']' : '}', count == 0);
  c.leave();
  return true;
}

// ---- JSON -> MessagePack ------------------------------------------------------------------

struct json_transcoder {
  json_cursor& c;
  msgpack_writer<>& w;
  std::string scratch;

  // Containers are written before their length is known: one header byte is reserved
  // and widened (moving the content) only when the count does not fit a fix form.
  void patch_header(std::size_t header_at, std::uint64_t count, bool map) {
    auto& out = w.out;
    std::uint8_t fix = map ? 0x80 : 0x90;
    if (count < 16) {
      out.data()[header_at] = static_cast<char>(fix | count);
      return;
    }
    int extra = count <= 0xFFFF ? 2 : 4;
    out.reserve(static_cast<std::size_t>(extra));
    char* base = out.data();
    std::memmove(base + header_at + 1 + extra, base + header_at + 1, out.size() - header_at - 1);
    out.advance(static_cast<std::size_t>(extra));
    base[header_at] = static_cast<char>(extra == 2 ? (map ? mp::map16 : mp::array16) : (map ? mp::map32 : mp::array32));
    store_big_endian(base + header_at + 1, count, extra);
  }

  bool number() {
    const char* start = c.p;
    bool integral = false;
    if (!c.scan_number(integral)) return false;
    if (integral) {
      bool negative = *start == '-';
      std::uint64_t magnitude = 0;
      bool fits = true;
      for (const char* q = start + (negative ? 1 : 0); q < c.p; ++q) {
        auto digit = static_cast<std::uint64_t>(*q - '0');
        if (magnitude > (UINT64_MAX - digit) / 10) {
          fits = false;
          break;
        }
        magnitude = magnitude * 10 + digit;
      }
      if (fits && (!negative || magnitude <= std::uint64_t{1} << 63)) {
        if (negative)
          w.signed_integer(static_cast<std::int64_t>(0 - magnitude));
        else
          w.unsigned_integer(magnitude);
        return true;
      }
    }
    double value = 0;
    auto parsed = fast_float::from_chars(start, c.p, value);
    if (parsed.ptr != c.p || std::isinf(value)) return c.fail(errc::number_out_of_range, start, "number out of range");
    w.float64(value);
    return true;
  }

  bool value() {
    switch (*c.p) {
      case '"':
        scratch.clear();
        if (!c.read_string(&scratch)) return false;
        w.str(scratch.data(), scratch.size());
        return true;
      case 't':
        w.byte(mp::true_);
        return c.literal("true", 4);
      case 'f':
        w.byte(mp::false_);
        return c.literal("false", 5);
      case 'n':
        w.byte(mp::nil);
        return c.literal("null", 4);
      case '[':
      case '{': {
        bool map = *c.p == '{';
        char close = map ? '}' : ']';
        if (!c.enter(c.p)) return false;
        ++c.p;
        std::size_t header_at = w.out.size();
        w.byte(0);
        std::uint64_t count = 0;
        bool more = false;
        for (bool first = true;; first = false) {
          if (!c.next_element(close, first, more)) return false;
          if (!more) break;
          if (map) {
            const char* key_at = c.p;
            std::string_view key;
            if (!c.read_member_key(key) || !c.next_token()) return false;
            w.str(key.data(), key.size());
            if (!value()) {
              c.err.prepend_path(path_key(c.key_text_at(key_at)));
              return false;
            }
          } else if (!value()) {
            c.err.prepend_path(path_index(count));
            return false;
          }
          ++count;
        }
        c.leave();
        patch_header(header_at, count, map);
        return true;
      }
      default:
        if (*c.p != '-' && (*c.p < '0' || *c.p > '9')) return c.fail(errc::syntax_error, c.p, "expected a value");
        return number();
    }
  }
};

}  // namespace detail

// Converts any MessagePack document to JSON, into out (content replaced, capacity reused).
inline status msgpack_to_json(std::span<const std::byte> bytes, std::string& out, json_options options = {}) {
  detail::msgpack_cursor c{bytes.data(), bytes.size(), options.max_depth};
  detail::json_writer writer{detail::output<std::string>{out}, options};
  bool ok = detail::transcode_msgpack_value(c, writer) && c.finish();
  writer.out.finish();
  if (!ok) return std::move(c.err);
  return {};
}

inline result<std::string> msgpack_to_json(std::span<const std::byte> bytes, json_options options = {}) {
  std::string out;
  status converted = msgpack_to_json(bytes, out, options);
  if (!converted) return std::move(converted).error();
  return out;
}

inline result<std::string> msgpack_to_json(std::string_view bytes, json_options options = {}) {
  return msgpack_to_json(detail::as_byte_span(bytes), options);
}

// Converts any JSON document to MessagePack, into out (content replaced, capacity reused).
inline status json_to_msgpack(std::string_view text, std::vector<std::byte>& out, json_options options = {}) {
  detail::json_cursor c{text, options.max_depth};
  detail::msgpack_writer<> writer{detail::output<std::vector<std::byte>>{out}};
  detail::json_transcoder transcoder{c, writer, {}};
  bool ok = c.next_token() && transcoder.value() && c.finish();
  writer.out.finish();
  if (!ok) return std::move(c.err);
  return {};
}

inline result<std::vector<std::byte>> json_to_msgpack(std::string_view text, json_options options = {}) {
  std::vector<std::byte> out;
  status converted = json_to_msgpack(text, out, options);
  if (!converted) return std::move(converted).error();
  return out;
}

}  // namespace savekit
