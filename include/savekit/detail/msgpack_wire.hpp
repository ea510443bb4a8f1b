// MessagePack wire primitives shared by the typed codec (msgpack.hpp) and the
// transcoder: a writer that always picks the smallest encoding, and a bounds-checked
// cursor that accepts every valid encoding and rejects lengths larger than the input
// before anything is allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "savekit/detail/output.hpp"
#include "savekit/detail/small_stack.hpp"
#include "savekit/error.hpp"

namespace savekit::detail {

namespace mp {
inline constexpr std::uint8_t nil = 0xc0, never_used = 0xc1, false_ = 0xc2, true_ = 0xc3;
inline constexpr std::uint8_t bin8 = 0xc4, bin16 = 0xc5, bin32 = 0xc6;
inline constexpr std::uint8_t ext8 = 0xc7, ext16 = 0xc8, ext32 = 0xc9;
inline constexpr std::uint8_t float32 = 0xca, float64 = 0xcb;
inline constexpr std::uint8_t uint8 = 0xcc, uint16 = 0xcd, uint32 = 0xce, uint64 = 0xcf;
inline constexpr std::uint8_t int8 = 0xd0, int16 = 0xd1, int32 = 0xd2, int64 = 0xd3;
inline constexpr std::uint8_t fixext1 = 0xd4, fixext16 = 0xd8;
inline constexpr std::uint8_t str8 = 0xd9, str16 = 0xda, str32 = 0xdb;
inline constexpr std::uint8_t array16 = 0xdc, array32 = 0xdd, map16 = 0xde, map32 = 0xdf;
}  // namespace mp

inline void store_big_endian(char* p, std::uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) {
    p[i] = static_cast<char>(v & 0xFF);
    v >>= 8;
  }
}

inline std::uint64_t load_big_endian(const unsigned char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

// ---- writer -----------------------------------------------------------------------------

// Encoders that write at p, into room the caller reserved, and return the end. Each takes
// at most the bytes its max_* constant says; the writer below reserves that much per call,
// the typed codec once for a run of values of bounded size.
inline constexpr std::size_t max_scalar_bytes = 9;  // a marker and 8 bytes
inline constexpr std::size_t max_header_bytes = 5;  // a marker and 4 bytes (str, bin, array, map)

SAVEKIT_ALWAYS_INLINE char* put_marked(char* p, std::uint8_t marker, std::uint64_t v, int bytes) {
  p[0] = static_cast<char>(marker);
  store_big_endian(p + 1, v, bytes);
  return p + 1 + bytes;
}

// (Out of line, each once for the whole program: the inline integer writers below call them
// only for the rare wide or negative values.)
SAVEKIT_NOINLINE inline char* put_unsigned(char* p, std::uint64_t v) {
  if (v < 128) {
    *p = static_cast<char>(v);
    return p + 1;
  }
  if (v <= 0xFF) return put_marked(p, mp::uint8, v, 1);
  if (v <= 0xFFFF) return put_marked(p, mp::uint16, v, 2);
  if (v <= 0xFFFFFFFF) return put_marked(p, mp::uint32, v, 4);
  return put_marked(p, mp::uint64, v, 8);
}

SAVEKIT_NOINLINE inline char* put_signed(char* p, std::int64_t v) {
  if (v >= 0) return put_unsigned(p, static_cast<std::uint64_t>(v));
  auto bits = static_cast<std::uint64_t>(v);
  if (v >= -32) {
    *p = static_cast<char>(bits);
    return p + 1;
  }
  if (v >= -128) return put_marked(p, mp::int8, bits & 0xFF, 1);
  if (v >= -32768) return put_marked(p, mp::int16, bits & 0xFFFF, 2);
  if (v >= -2147483648LL) return put_marked(p, mp::int32, bits & 0xFFFFFFFF, 4);
  return put_marked(p, mp::int64, bits, 8);
}

// A positive fixint (0..127: levels, counts, flags) and a uint 8 or 16 (scores, ids, item
// counts up to 65,535) inline where the value is; the wider and the negative encodings out
// of line (inlining every width at every integer slows compiling by a tenth for no gain on
// the values saves mostly hold).
template <class Int>
SAVEKIT_ALWAYS_INLINE char* put_integer(char* p, Int v) {
  const auto u = static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<Int>>(v));
  if (u < 128) {
    *p = static_cast<char>(v);
    return p + 1;
  }
  bool small = u <= 0xFFFF;
  if constexpr (std::is_signed_v<Int>) small = small && v >= 0;  // (an int16's -1 is 0xFFFF)
  if (small) return u <= 0xFF ? put_marked(p, mp::uint8, u, 1) : put_marked(p, mp::uint16, u, 2);
  if constexpr (std::is_signed_v<Int>)
    return put_signed(p, v);
  else
    return put_unsigned(p, v);
}

SAVEKIT_ALWAYS_INLINE char* put_float32(char* p, float v) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &v, 4);
  return put_marked(p, mp::float32, bits, 4);
}
SAVEKIT_ALWAYS_INLINE char* put_float64(char* p, double v) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, 8);
  return put_marked(p, mp::float64, bits, 8);
}

// Headers: the fix form (n below 32 for str, 16 for array and map), else 8, 16 or 32 bits.
SAVEKIT_ALWAYS_INLINE char* put_str_header(char* p, std::size_t n) {
  if (n < 32) {
    *p = static_cast<char>(0xa0 | n);
    return p + 1;
  }
  if (n <= 0xFF) return put_marked(p, mp::str8, n, 1);
  if (n <= 0xFFFF) return put_marked(p, mp::str16, n, 2);
  return put_marked(p, mp::str32, n, 4);
}
SAVEKIT_ALWAYS_INLINE char* put_bin_header(char* p, std::size_t n) {
  if (n <= 0xFF) return put_marked(p, mp::bin8, n, 1);
  if (n <= 0xFFFF) return put_marked(p, mp::bin16, n, 2);
  return put_marked(p, mp::bin32, n, 4);
}
SAVEKIT_ALWAYS_INLINE char* put_array_header(char* p, std::size_t n) {
  if (n < 16) {
    *p = static_cast<char>(0x90 | n);
    return p + 1;
  }
  if (n <= 0xFFFF) return put_marked(p, mp::array16, n, 2);
  return put_marked(p, mp::array32, n, 4);
}
SAVEKIT_ALWAYS_INLINE char* put_map_header(char* p, std::size_t n) {
  if (n < 16) {
    *p = static_cast<char>(0x80 | n);
    return p + 1;
  }
  if (n <= 0xFFFF) return put_marked(p, mp::map16, n, 2);
  return put_marked(p, mp::map32, n, 4);
}

template <class Container = std::vector<std::byte>>  // or std::string
struct msgpack_writer {
  output<Container> out;

  // One value of at most `most` bytes, written by put(p) into room reserved for it.
  template <class Put>
  SAVEKIT_ALWAYS_INLINE void encode(std::size_t most, Put put) {
    char* p = out.reserve(most);
    out.advance_to(put(p));
  }

  void byte(std::uint8_t b) { out.put(static_cast<char>(b)); }
  void unsigned_integer(std::uint64_t v) {
    encode(max_scalar_bytes, [&](char* p) { return put_unsigned(p, v); });
  }
  void signed_integer(std::int64_t v) {
    encode(max_scalar_bytes, [&](char* p) { return put_signed(p, v); });
  }
  template <class Int>
  void integer(Int v) {
    encode(max_scalar_bytes, [&](char* p) { return put_integer(p, v); });
  }
  void float32(float v) {
    encode(5, [&](char* p) { return put_float32(p, v); });
  }
  void float64(double v) {
    encode(9, [&](char* p) { return put_float64(p, v); });
  }
  void str_header(std::size_t n) {
    encode(max_header_bytes, [&](char* p) { return put_str_header(p, n); });
  }
  void bin_header(std::size_t n) {
    encode(max_header_bytes, [&](char* p) { return put_bin_header(p, n); });
  }
  void array_header(std::size_t n) {
    encode(max_header_bytes, [&](char* p) { return put_array_header(p, n); });
  }
  void map_header(std::size_t n) {
    encode(max_header_bytes, [&](char* p) { return put_map_header(p, n); });
  }

  // A header and its payload in one reservation.
  void str(const char* s, std::size_t n) {
    encode(max_header_bytes + n, [&](char* p) {
      p = put_str_header(p, n);
      if (n) std::memcpy(p, s, n);
      return p + n;
    });
  }
  void bin(const void* s, std::size_t n) {
    encode(max_header_bytes + n, [&](char* p) {
      p = put_bin_header(p, n);
      if (n) std::memcpy(p, s, n);
      return p + n;
    });
  }
};

// ---- reader -----------------------------------------------------------------------------

// What a typed read found at the cursor. `other_type`: the next value is of another type
// (nothing consumed, no error set: the caller decides what that means); `failed`: it is
// of this type but broken (the error is set). [[nodiscard]] on every typed read, so that
// no caller can take a failure for "another type".
enum class probe : std::uint8_t { read, other_type, failed };
inline probe probe_of(bool ok) { return ok ? probe::read : probe::failed; }

enum class payload_kind : std::uint8_t { str, bin };
enum class container_kind : std::uint8_t { array, map };

struct msgpack_cursor {
  const unsigned char* begin = nullptr;
  const unsigned char* p = nullptr;
  const unsigned char* end = nullptr;
  std::uint32_t depth = 0;
  std::uint32_t max_depth = 256;
  pending_error err;

  msgpack_cursor(const void* data, std::size_t size, std::uint32_t depth_limit)
      : begin(static_cast<const unsigned char*>(data)), p(begin), end(begin + size), max_depth(depth_limit) {}

  std::size_t offset(const unsigned char* at) const { return static_cast<std::size_t>(at - begin); }
  std::size_t remaining() const { return static_cast<std::size_t>(end - p); }

  // Errors are rare: kept out of the hot paths' code.
  SAVEKIT_COLD bool fail(errc code, const unsigned char* at, const char* message) {
    err = savekit::error{code, offset(at), message};
    return false;
  }
  SAVEKIT_COLD bool fail_end() { return fail(errc::unexpected_end, end, "unexpected end of input"); }

  // Memory the elements of arrays and maps may still take (msgpack_options::max_memory).
  std::uint64_t memory_left = ~std::uint64_t{0};
  // Counts an element's memory: false past the budget, so that a small input cannot make
  // a reader allocate without bound (one-byte empty maps into elements of kilobytes each).
  SAVEKIT_ALWAYS_INLINE bool spend(std::uint64_t bytes, const unsigned char* at) {
    if (SAVEKIT_UNLIKELY(bytes > memory_left))
      return fail(errc::value_too_large, at, "the value would take more memory than max_memory allows");
    memory_left -= bytes;
    return true;
  }

  bool enter(const unsigned char* at) {
    if (++depth > max_depth) return fail(errc::depth_exceeded, at, "nesting deeper than max_depth");
    return true;
  }
  void leave() { --depth; }

  // Is there a next byte? (unexpected_end otherwise)
  SAVEKIT_ALWAYS_INLINE bool more() { return SAVEKIT_LIKELY(p < end) || fail_end(); }

  // Reads a big-endian field of `bytes` bytes after the marker at p.
  bool field(int bytes, std::uint64_t& v) {
    if (remaining() < static_cast<std::size_t>(bytes) + 1) return fail_end();
    v = load_big_endian(p + 1, bytes);
    p += bytes + 1;
    return true;
  }

  // Integer of any encoding. negative: the value is below zero (then v holds its two's
  // complement).
  [[nodiscard]] probe integer(std::uint64_t& v, bool& negative) {
    std::uint8_t b = *p;
    negative = false;
    if (b < 0x80) {
      v = b;
      ++p;
      return probe::read;
    }
    if (b >= 0xe0) {
      v = static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int8_t>(b)));
      negative = true;
      ++p;
      return probe::read;
    }
    auto sign_extend = [&](int bytes) {
      if (!field(bytes, v)) return probe::failed;
      int shift = 64 - 8 * bytes;
      auto s = static_cast<std::int64_t>(v << shift) >> shift;
      v = static_cast<std::uint64_t>(s);
      negative = s < 0;
      return probe::read;
    };
    switch (b) {
      case mp::uint8:
        return probe_of(field(1, v));
      case mp::uint16:
        return probe_of(field(2, v));
      case mp::uint32:
        return probe_of(field(4, v));
      case mp::uint64:
        return probe_of(field(8, v));
      case mp::int8:
        return sign_extend(1);
      case mp::int16:
        return sign_extend(2);
      case mp::int32:
        return sign_extend(4);
      case mp::int64:
        return sign_extend(8);
      default:
        return probe::other_type;
    }
  }

  // float32 or float64, as the double it equals; single: it was a float32.
  [[nodiscard]] probe floating(double& value, bool& single) {
    std::uint8_t b = *p;
    if (b != mp::float32 && b != mp::float64) return probe::other_type;
    single = b == mp::float32;
    std::uint64_t bits = 0;
    if (!field(single ? 4 : 8, bits)) return probe::failed;
    if (single) {
      auto bits32 = static_cast<std::uint32_t>(bits);
      float f = 0;
      std::memcpy(&f, &bits32, 4);
      value = f;
    } else {
      std::memcpy(&value, &bits, 8);
    }
    return probe::read;
  }

  // A length-prefixed payload (str or bin) that must fit in the rest of the input.
  bool payload(int length_bytes, std::uint64_t& length, const unsigned char*& data) {
    const unsigned char* at = p;
    if (!field(length_bytes, length)) return false;
    if (length > remaining()) return fail(errc::length_exceeds_input, at, "declared length exceeds the input");
    data = p;
    p += length;
    return true;
  }

  // str (fixstr, str8/16/32) or bin (bin8/16/32): sets data, length and kind.
  // A fixstr (a key, a name) inline; the longer headers out of line (each call costs the
  // more in WebAssembly).
  [[nodiscard]] SAVEKIT_ALWAYS_INLINE probe string_or_binary(const unsigned char*& data, std::uint64_t& length,
                                                             payload_kind& kind) {
    std::uint8_t b = *p;
    if ((b & 0xe0) == 0xa0) {
      kind = payload_kind::str;
      length = b & 0x1f;
      if (SAVEKIT_UNLIKELY(length > remaining() - 1))
        return probe_of(fail(errc::length_exceeds_input, p, "declared length exceeds the input"));
      data = p + 1;
      p += 1 + length;
      return probe::read;
    }
    return long_string_or_binary(data, length, kind);
  }

  [[nodiscard]] probe long_string_or_binary(const unsigned char*& data, std::uint64_t& length, payload_kind& kind) {
    int length_bytes = 0;
    const std::uint8_t b = *p;
    switch (b) {
      case mp::str8:
      case mp::bin8:
        length_bytes = 1;
        break;
      case mp::str16:
      case mp::bin16:
        length_bytes = 2;
        break;
      case mp::str32:
      case mp::bin32:
        length_bytes = 4;
        break;
      default:
        return probe::other_type;
    }
    kind = b >= mp::str8 ? payload_kind::str : payload_kind::bin;
    return probe_of(payload(length_bytes, length, data));
  }

  // Array or map header. Every element takes at least one byte, so a count larger than
  // the rest of the input is rejected here, before a container reserves room for it.
  [[nodiscard]] SAVEKIT_ALWAYS_INLINE probe container(std::uint64_t& count, container_kind& kind) {
    const std::uint8_t b = *p;
    if ((b & 0xe0) == 0x80) {  // fixmap 0x8_, fixarray 0x9_: inline
      count = b & 0x0f;
      kind = (b & 0xf0) == 0x90 ? container_kind::array : container_kind::map;
      const std::uint64_t minimum = kind == container_kind::map ? count * 2 : count;
      if (SAVEKIT_UNLIKELY(minimum >= remaining()))
        return probe_of(fail(errc::length_exceeds_input, p, "declared length exceeds the input"));
      ++p;
      return probe::read;
    }
    return long_container(count, kind);
  }

  [[nodiscard]] probe long_container(std::uint64_t& count, container_kind& kind) {
    const unsigned char* at = p;
    const std::uint8_t b = *p;
    if (b == mp::array16 || b == mp::array32 || b == mp::map16 || b == mp::map32) {
      kind = b == mp::array16 || b == mp::array32 ? container_kind::array : container_kind::map;
      if (!field(b == mp::array16 || b == mp::map16 ? 2 : 4, count)) return probe::failed;
    } else {
      return probe::other_type;
    }
    std::uint64_t minimum = kind == container_kind::map ? count * 2 : count;
    if (minimum > remaining())
      return probe_of(fail(errc::length_exceeds_input, at, "declared length exceeds the input"));
    return probe::read;
  }

  // Skips the bytes of one value's own encoding; children: the values nested in it that
  // follow (elements, or keys and values), 0 for anything but a container.
  bool skip_one(std::uint64_t& children) {
    const unsigned char* at = p;
    std::uint8_t b = *p;
    children = 0;
    if (b < 0x80 || b >= 0xe0 || b == mp::nil || b == mp::true_ || b == mp::false_) {
      ++p;
      return true;
    }
    if (b == mp::never_used) return fail(errc::invalid_msgpack, at, "byte 0xc1 is never used in MessagePack");
    std::uint64_t v = 0;
    bool negative = false;
    if (probe r = integer(v, negative); r != probe::other_type) return r == probe::read;
    if (b == mp::float32) return field(4, v);
    if (b == mp::float64) return field(8, v);
    const unsigned char* data = nullptr;
    payload_kind payload_type{};
    if (probe r = string_or_binary(data, v, payload_type); r != probe::other_type) return r == probe::read;
    if (b >= mp::fixext1 && b <= mp::fixext16) {
      std::size_t size = std::size_t{1} << (b - mp::fixext1);
      if (remaining() < size + 2) return fail_end();
      p += size + 2;
      return true;
    }
    if (b == mp::ext8 || b == mp::ext16 || b == mp::ext32) {
      int length_bytes = b == mp::ext8 ? 1 : b == mp::ext16 ? 2 : 4;
      if (!field(length_bytes, v)) return false;
      if (remaining() < 1 || v > remaining() - 1)
        return fail(errc::length_exceeds_input, at, "declared length exceeds the input");
      p += 1 + v;
      return true;
    }
    std::uint64_t count = 0;
    container_kind kind{};
    if (container(count, kind) != probe::read) return false;  // every byte is one of the above
    children = kind == container_kind::map ? count * 2 : count;
    return true;
  }

  // Skips one whole value with bounds and depth checks. Iterative — one count per open
  // container — so that any depth max_depth allows is skipped without recursion.
  bool skip_value() {
    small_stack<std::uint64_t, 32> open;  // values still to skip in each open container
    for (;;) {
      if (!more()) return false;
      const unsigned char* at = p;
      std::uint64_t children = 0;
      if (!skip_one(children)) return false;
      bool is_container = (*at >= 0x80 && *at <= 0x9f) || *at == mp::array16 || *at == mp::array32 ||
                          *at == mp::map16 || *at == mp::map32;
      if (is_container) {
        if (!enter(at)) return false;
        if (children > 0) {
          open.push(children);
          continue;
        }
        leave();
      }
      // A value is complete: close every container it completes.
      while (!open.empty() && --open.top() == 0) {
        open.pop();
        leave();
      }
      if (open.empty()) return true;
    }
  }

  bool finish() {
    if (p != end) return fail(errc::trailing_data, p, "unexpected data after the document");
    return true;
  }
};

}  // namespace savekit::detail
