// savekit/base64.hpp — Base64 (RFC 4648), standard and URL-safe alphabets.
//
// For stores that only take text. The encoder pads the standard alphabet with '=' and
// leaves the URL-safe one unpadded; the decoder is strict: any character outside the
// alphabet (whitespace included), misplaced or missing padding, and non-zero bits left
// over in the last character are errors with the offset of the offending character.
//
// Example:
//   std::string text = savekit::base64_encode(savekit::to_msgpack(status));
//   auto bytes = savekit::base64_decode(text);   // result<std::vector<std::byte>>
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "savekit/detail/config.hpp"
#include "savekit/error.hpp"

namespace savekit {

enum class base64_alphabet : std::uint8_t {
  standard,  // A-Z a-z 0-9 + /, padded with '='
  url,       // A-Z a-z 0-9 - _, unpadded (padding accepted when decoding)
};

namespace detail {

inline constexpr char base64_standard_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
inline constexpr char base64_url_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

inline constexpr std::uint8_t base64_invalid = 0xFF;

struct base64_decode_table {
  std::uint8_t values[256];
};

consteval base64_decode_table make_base64_decode_table(const char* chars) {
  base64_decode_table table{};
  for (auto& v : table.values) v = base64_invalid;
  for (std::uint8_t i = 0; i < 64; ++i) table.values[static_cast<unsigned char>(chars[i])] = i;
  return table;
}

inline constexpr base64_decode_table base64_standard_table = make_base64_decode_table(base64_standard_chars);
inline constexpr base64_decode_table base64_url_table = make_base64_decode_table(base64_url_chars);

constexpr std::size_t base64_encoded_size(std::size_t n, base64_alphabet alphabet) {
  if (alphabet == base64_alphabet::standard) return (n + 2) / 3 * 4;
  return n / 3 * 4 + (n % 3 == 0 ? 0 : n % 3 + 1);
}

// Bytes in memory order, first at the lowest address, as one word: a store of the word
// writes them all at once.
SAVEKIT_ALWAYS_INLINE std::uint32_t bytes_in_memory_order(std::uint32_t b0, std::uint32_t b1, std::uint32_t b2,
                                                          std::uint32_t b3) {
  if constexpr (std::endian::native == std::endian::little)
    return b0 | (b1 << 8) | (b2 << 16) | (b3 << 24);
  else
    return (b0 << 24) | (b1 << 16) | (b2 << 8) | b3;
}

SAVEKIT_ALWAYS_INLINE std::uint32_t base64_char(const char* chars, std::uint32_t six_bits) {
  return static_cast<unsigned char>(chars[six_bits]);
}

// Writes the encoding of [data, data+n) at out, which has room for base64_encoded_size.
// Each three bytes become four characters, stored as one word.
inline void base64_encode_to(const unsigned char* data, std::size_t n, char* out, base64_alphabet alphabet) {
  const char* chars = alphabet == base64_alphabet::standard ? base64_standard_chars : base64_url_chars;
  std::size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    const std::uint32_t v = (std::uint32_t{data[i]} << 16) | (std::uint32_t{data[i + 1]} << 8) | data[i + 2];
    const std::uint32_t quad = bytes_in_memory_order(base64_char(chars, v >> 18), base64_char(chars, (v >> 12) & 63),
                                                     base64_char(chars, (v >> 6) & 63), base64_char(chars, v & 63));
    std::memcpy(out, &quad, 4);
    out += 4;
  }
  std::size_t rest = n - i;
  if (rest == 0) return;
  std::uint32_t v = std::uint32_t{data[i]} << 16;
  if (rest == 2) v |= std::uint32_t{data[i + 1]} << 8;
  out[0] = chars[v >> 18];
  out[1] = chars[(v >> 12) & 63];
  if (rest == 2) out[2] = chars[(v >> 6) & 63];
  if (alphabet == base64_alphabet::standard) {
    if (rest == 1) out[2] = '=';
    out[3] = '=';
  }
}

// Decodes text into out (resized to fit). Returns errc::ok or the error and its offset.
// (The text by reference, as everything here that WebAssembly would otherwise copy
// through memory: see read_msgpack_document in msgpack.hpp.)
inline errc base64_decode_to(const std::string_view& text, std::vector<std::byte>& out, base64_alphabet alphabet,
                             std::size_t& error_offset) {
  const std::uint8_t* table =
      alphabet == base64_alphabet::standard ? base64_standard_table.values : base64_url_table.values;
  std::size_t n = text.size();
  // Length of the data characters, without padding.
  std::size_t data_length = n;
  if (alphabet == base64_alphabet::standard && n % 4 != 0) {
    error_offset = n;
    return errc::invalid_base64_padding;
  }
  if (n > 0 && text[n - 1] == '=') {
    if (n % 4 != 0) {
      error_offset = n - 1;
      return errc::invalid_base64_padding;
    }
    data_length = text[n - 2] == '=' ? n - 2 : n - 1;
  }
  if (data_length % 4 == 1) {
    error_offset = data_length;
    return errc::invalid_base64_padding;  // one character cannot carry a whole byte
  }
  out.resize(data_length / 4 * 3 + (data_length % 4 == 0 ? 0 : data_length % 4 - 1));

  const auto* in = reinterpret_cast<const unsigned char*>(text.data());
  auto* dst = reinterpret_cast<unsigned char*>(out.data());
  std::size_t i = 0;
  auto bad_char_at = [&](std::size_t from) {
    for (std::size_t j = from;; ++j)
      if (table[in[j]] == base64_invalid) return j;
  };
  for (; i + 4 <= data_length; i += 4) {
    std::uint32_t a = table[in[i]], b = table[in[i + 1]], c = table[in[i + 2]], d = table[in[i + 3]];
    if ((a | b | c | d) == base64_invalid || ((a | b | c | d) & 0xC0) != 0) {
      error_offset = bad_char_at(i);
      return in[error_offset] == '=' ? errc::invalid_base64_padding : errc::invalid_base64_character;
    }
    const std::uint32_t v = (a << 18) | (b << 12) | (c << 6) | d;
    if (i + 8 <= data_length) {  // another group follows: its bytes will overwrite a fourth
      const std::uint32_t word = bytes_in_memory_order(v >> 16, (v >> 8) & 0xFF, v & 0xFF, 0);
      std::memcpy(dst, &word, 4);
    } else {
      dst[0] = static_cast<unsigned char>(v >> 16);
      dst[1] = static_cast<unsigned char>(v >> 8);
      dst[2] = static_cast<unsigned char>(v);
    }
    dst += 3;
  }
  std::size_t rest = data_length - i;
  if (rest > 0) {
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < rest; ++k) {
      std::uint32_t x = table[in[i + k]];
      if (x == base64_invalid) {
        error_offset = i + k;
        return in[i + k] == '=' ? errc::invalid_base64_padding : errc::invalid_base64_character;
      }
      v |= x << (18 - 6 * k);
    }
    // The bits of the last character that fall past the final byte must be zero.
    std::uint32_t unused_mask = rest == 2 ? 0xFFFF : 0xFF;
    if ((v & unused_mask) != 0) {
      error_offset = i + rest - 1;
      return errc::invalid_base64_trailing_bits;
    }
    dst[0] = static_cast<unsigned char>(v >> 16);
    if (rest == 3) dst[1] = static_cast<unsigned char>(v >> 8);
  }
  return errc::ok;
}

inline const char* base64_error_message(errc code) {
  switch (code) {
    case errc::invalid_base64_character:
      return "character outside the Base64 alphabet";
    case errc::invalid_base64_padding:
      return "missing or misplaced '=' padding";
    default:
      return "non-zero bits after the last byte";
  }
}

SAVEKIT_COLD inline status base64_failed(errc code, std::size_t offset, std::vector<std::byte>& out) {
  out.clear();
  return error{code, offset, base64_error_message(code)};
}

}  // namespace detail

// Encodes bytes into out, replacing its content and reusing its capacity.
SAVEKIT_ALWAYS_INLINE void base64_encode(std::span<const std::byte> bytes, std::string& out,
                                         base64_alphabet alphabet = base64_alphabet::standard) {
  out.resize(detail::base64_encoded_size(bytes.size(), alphabet));
  detail::base64_encode_to(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), out.data(), alphabet);
}

inline std::string base64_encode(std::span<const std::byte> bytes,
                                 base64_alphabet alphabet = base64_alphabet::standard) {
  std::string out;
  base64_encode(bytes, out, alphabet);
  return out;
}

inline std::string base64_encode(std::string_view bytes, base64_alphabet alphabet = base64_alphabet::standard) {
  return base64_encode(std::as_bytes(std::span{bytes.data(), bytes.size()}), alphabet);
}

// Decodes into out, replacing its content and reusing its capacity.
SAVEKIT_ALWAYS_INLINE status base64_decode(std::string_view text, std::vector<std::byte>& out,
                                           base64_alphabet alphabet = base64_alphabet::standard) {
  std::size_t offset = 0;
  errc code = detail::base64_decode_to(text, out, alphabet, offset);
  if (code == errc::ok) return {};
  return detail::base64_failed(code, offset, out);
}

inline result<std::vector<std::byte>> base64_decode(std::string_view text,
                                                    base64_alphabet alphabet = base64_alphabet::standard) {
  std::vector<std::byte> out;
  status decoded = base64_decode(text, out, alphabet);
  if (!decoded) return std::move(decoded).error();
  return out;
}

}  // namespace savekit
