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

// A MessagePack integer (negative: v is its two's complement) as JSON digits.
inline void transcode_integer(json_writer& w, std::uint64_t v, bool negative) {
  char* p = w.out.reserve(24);
  char* e = negative ? write_integer(p, static_cast<std::int64_t>(v)) : write_unsigned(p, v);
  w.out.advance(static_cast<std::size_t>(e - p));
}

inline bool transcode_msgpack_key(msgpack_cursor& c, json_writer& w) {
  const unsigned char* at = c.p;
  std::string_view text;
  payload_kind kind{};
  if (probe found = read_msgpack_payload(c, text, kind); found != probe::other_type) {
    if (found == probe::failed) return false;
    if (kind != payload_kind::str) return c.fail(errc::unsupported_type, at, "binary map keys have no JSON form");
    if (find_invalid_utf8(text.data(), text.size()) != text.size())
      return c.fail(errc::invalid_utf8, at, "map key is not valid UTF-8");
    write_json_string(w.out, text.data(), text.size());
    return true;
  }
  std::uint64_t v = 0;
  bool negative = false;
  if (probe found = c.integer(v, negative); found != probe::other_type) {
    if (found == probe::failed) return false;
    w.out.put('"');
    transcode_integer(w, v, negative);
    w.out.put('"');
    return true;
  }
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
  bool negative = false;
  if (probe found = c.integer(v, negative); found != probe::other_type) {
    if (found == probe::read) transcode_integer(w, v, negative);
    return found == probe::read;
  }
  double d = 0;
  bool single = false;
  if (probe found = c.floating(d, single); found != probe::other_type) {
    // A float32 is printed as the double it equals: float-shortest digits ("2147483600.0"
    // for 2^31) name another number to every double-based JSON reader.
    return found == probe::read && transcode_float(c, w, d, at);
  }
  std::string_view payload;
  payload_kind payload_type{};
  if (probe found = read_msgpack_payload(c, payload, payload_type); found != probe::other_type) {
    if (found == probe::failed) return false;
    if (payload_type == payload_kind::bin) {
      write_json_base64(w.out, payload.data(), payload.size());
      return true;
    }
    std::size_t bad = find_invalid_utf8(payload.data(), payload.size());
    if (bad != payload.size())
      return c.fail(errc::invalid_utf8, reinterpret_cast<const unsigned char*>(payload.data()) + bad,
                    "string is not valid UTF-8");
    write_json_string(w.out, payload.data(), payload.size());
    return true;
  }
  std::uint64_t count = 0;
  container_kind kind{};
  if (probe found = c.container(count, kind); found != probe::read)
    return found == probe::failed ? false
                                  : c.fail(errc::unsupported_type, at, "MessagePack ext types have no JSON form");
  bool map = kind == container_kind::map;
  if (!c.enter(at)) return false;
  w.out.put(map ? '{' : '[');
  for (std::uint64_t i = 0; i < count; ++i) {
    w.separator(i == 0);
    if (map) {
      if (!c.more() || !transcode_msgpack_key(c, w)) return false;
      w.out.put(':');
    }
    if (!transcode_msgpack_value(c, w)) {
      c.err.prepend_path(path_index(i));
      return false;
    }
  }
  w.out.put(map ? '}' : ']');
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
    if (integral) {  // an integer that fits 64 bits stays an integer
      bool negative = *start == '-';
      std::uint64_t magnitude = 0;
      if (read_decimal_magnitude(start + (negative ? 1 : 0), c.p, magnitude) == c.p) {
        std::int64_t signed_value = 0;
        if (!negative) {
          w.unsigned_integer(magnitude);
          return true;
        }
        if (integer_from_magnitude(true, magnitude, signed_value) == integer_fit::fits) {
          w.signed_integer(signed_value);
          return true;
        }
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

// The two conversions' bodies, their inputs as a pointer and a length and their options by
// reference (see read_msgpack_document in msgpack.hpp: WebAssembly copies a span or a
// struct passed by value through memory, and the copy stalls the call).
inline status msgpack_to_json_text(const std::byte* data, std::size_t size, std::string& out,
                                   const json_options& options) {
  msgpack_cursor c{data, size, options.max_depth};
  std::string compact;
  std::string& text = options.pretty ? compact : out;  // pretty: re-indented from the compact text
  json_writer writer{text, options};
  bool ok = transcode_msgpack_value(c, writer) && c.finish();
  writer.out.finish();
  if (!ok) {
    out.clear();
    return std::move(c.err).take();
  }
  if (options.pretty) indent_json(compact, options.indent_width, out);
  return {};
}

inline status json_text_to_msgpack(const char* text, std::size_t size, std::vector<std::byte>& out,
                                   const json_options& options) {
  json_cursor c{std::string_view(text, size), options.max_depth};
  msgpack_writer<> writer{output<std::vector<std::byte>>{out}};
  json_transcoder transcoder{c, writer, {}};
  bool ok = c.next_token() && transcoder.value() && c.finish();
  writer.out.finish();
  if (!ok) return std::move(c.err).take();
  return {};
}

}  // namespace detail

// Converts any MessagePack document to JSON, into out (content replaced, capacity reused).
SAVEKIT_ALWAYS_INLINE status msgpack_to_json(std::span<const std::byte> bytes, std::string& out,
                                             json_options options = {}) {
  return detail::msgpack_to_json_text(bytes.data(), bytes.size(), out, options);
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
SAVEKIT_ALWAYS_INLINE status json_to_msgpack(std::string_view text, std::vector<std::byte>& out,
                                             json_options options = {}) {
  return detail::json_text_to_msgpack(text.data(), text.size(), out, options);
}

inline result<std::vector<std::byte>> json_to_msgpack(std::string_view text, json_options options = {}) {
  std::vector<std::byte> out;
  status converted = json_to_msgpack(text, out, options);
  if (!converted) return std::move(converted).error();
  return out;
}

}  // namespace savekit
