// Integer and floating-point text conversion shared by the codecs and the transcoder:
// the one integer grammar (decimal digits, range checks into any integer type) and the
// float writer.
// Floats: shortest digits that read back to the same value (dragonbox), parsing with
// correct rounding (fast_float) — on every target, including em++'s libc++ which has
// no floating-point to_chars/from_chars.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>

#include "savekit/detail/config.hpp"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#endif
#include <dragonbox/dragonbox.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace savekit::detail {

// ---- integers in ------------------------------------------------------------------------

constexpr bool is_decimal_digit(char c) { return static_cast<unsigned>(static_cast<unsigned char>(c) - '0') < 10; }

// The value of the run of decimal digits starting at p (a digit) before end: returns
// where the digits stop, or nullptr when the value does not fit 64 bits. 19 digits
// always fit; only longer runs are checked for overflow.
SAVEKIT_ALWAYS_INLINE const char* read_decimal_magnitude(const char* p, const char* end, std::uint64_t& magnitude) {
  auto digit_at = [](const char* q) { return static_cast<unsigned>(static_cast<unsigned char>(*q) - '0'); };
  std::uint64_t v = 0;
  const char* fast_end = end - p > 19 ? p + 19 : end;
  do {
    v = v * 10 + digit_at(p);
    ++p;
  } while (p < fast_end && digit_at(p) < 10);
  for (; p < end && digit_at(p) < 10; ++p)
    if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, digit_at(p), &v)) return nullptr;
  magnitude = v;
  return p;
}

// Whether a sign and a 64-bit magnitude fit an integer type; each miss is
// errc::number_out_of_range with its own message.
enum class integer_fit : std::uint8_t { fits, out_of_range, negative_for_unsigned };

inline const char* integer_fit_message(integer_fit fit) {
  return fit == integer_fit::negative_for_unsigned ? "negative value for an unsigned integer" : "integer out of range";
}

// A sign and a 64-bit magnitude into Int: both codecs, the transcoder and integer map
// keys apply the same ranges.
template <class Int>
SAVEKIT_ALWAYS_INLINE integer_fit integer_from_magnitude(bool negative, std::uint64_t magnitude, Int& value) {
  if constexpr (std::is_signed_v<Int>) {
    using U = std::make_unsigned_t<Int>;
    auto limit = static_cast<std::uint64_t>(static_cast<U>(std::numeric_limits<Int>::max())) + (negative ? 1 : 0);
    if (magnitude > limit) return integer_fit::out_of_range;
    value = negative ? static_cast<Int>(0 - magnitude) : static_cast<Int>(magnitude);
  } else {
    if (negative && magnitude != 0) return integer_fit::negative_for_unsigned;
    if (magnitude > std::numeric_limits<Int>::max()) return integer_fit::out_of_range;
    value = static_cast<Int>(magnitude);
  }
  return integer_fit::fits;
}

// A map key of integer type from the text of a string key (JSON objects have only string
// keys; MessagePack written through JSON carries them as strings too): the whole text
// must be a JSON integer (-?(0|[1-9][0-9]*)) that fits Key.
template <class Key>
bool integer_key_from_text(std::string_view text, Key& key) {
  const char* p = text.data();
  const char* end = p + text.size();
  bool negative = p < end && *p == '-';
  if (negative) ++p;
  if (p == end || !is_decimal_digit(*p) || (*p == '0' && p + 1 != end)) return false;
  std::uint64_t magnitude = 0;
  return read_decimal_magnitude(p, end, magnitude) == end &&
         integer_from_magnitude(negative, magnitude, key) == integer_fit::fits;
}

// ---- floats in ---------------------------------------------------------------------------

// A decimal number as the JSON reader scanned it: value = (-1 if negative) mantissa * 10^exponent.
// exact is false when mantissa could not hold every digit (more than 19 of them).
struct decimal_parts {
  std::uint64_t mantissa = 0;
  std::int64_t exponent = 0;
  bool negative = false;
  bool exact = true;
};

inline constexpr double exact_powers_of_ten[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// The correctly rounded Float for the common decimals (at most 2^53 in the mantissa and a
// power of ten a double holds exactly: Clinger's fast path, one IEEE multiplication or
// division); false for the rest, which fast_float converts. Into a float the double is
// rounded once more, which is exact unless the double is itself halfway between two
// floats (then the float is left to fast_float). No float in this range is subnormal.
template <class Float>
SAVEKIT_ALWAYS_INLINE bool float_from_decimal_quickly(const decimal_parts& d, Float& value) {
  if (!d.exact || d.mantissa > (std::uint64_t{1} << 53) || d.exponent < -22 || d.exponent > 22) return false;
  double v = static_cast<double>(d.mantissa);
  v = d.exponent < 0 ? v / exact_powers_of_ten[-d.exponent] : v * exact_powers_of_ten[d.exponent];
  if constexpr (std::is_same_v<Float, float>) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    constexpr std::uint64_t below_float_precision = (std::uint64_t{1} << 29) - 1;
    if ((bits & below_float_precision) == (std::uint64_t{1} << 28)) return false;
  }
  value = static_cast<Float>(d.negative ? -v : v);
  return true;
}

inline constexpr char digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

constexpr int decimal_length(std::uint64_t v) {
  int n = 1;
  for (;;) {
    if (v < 10) return n;
    if (v < 100) return n + 1;
    if (v < 1000) return n + 2;
    if (v < 10000) return n + 3;
    v /= 10000u;
    n += 4;
  }
}

// The number of digits of a float's significand (below 10^9), by a tree of comparisons:
// a float's usual 7 or 8 digits take two, each predicted, so the digits that follow are
// made before the count is known. (A branch-free count, clz and a table, made each float
// wait for it: nearly 30% slower in a throwaway benchmark. decimal_length's chain from the low end: 4% slower.)
constexpr int float_decimal_length(std::uint32_t v) {
  if (v >= 10000000) return v >= 100000000 ? 9 : 8;
  if (v >= 100000) return v >= 1000000 ? 7 : 6;
  if (v >= 1000) return v >= 10000 ? 5 : 4;
  if (v >= 10) return v >= 100 ? 3 : 2;
  return 1;
}

// Writes the decimal digits of v ending exactly at p + length.
// (UInt: std::uint32_t when the value fits, as a float's digits do: cheaper division.)
template <class UInt>
inline void write_digits(char* p, UInt v, int length) {
  char* end = p + length;
  while (v >= 100) {
    unsigned pair = static_cast<unsigned>(v % 100) * 2;
    v /= 100;
    end -= 2;
    std::memcpy(end, digit_pairs + pair, 2);
  }
  if (v >= 10) {
    end -= 2;
    std::memcpy(end, digit_pairs + v * 2, 2);
  } else {
    *--end = static_cast<char>('0' + v);
  }
}

// The 8 decimal digits of v (below 10^8), the first in the lowest byte of a little-endian
// word: split into halves, quarters and bytes by multiplications, with no division loop
// (whose count of rounds varies from number to number) and no store of a digit at a time.
SAVEKIT_ALWAYS_INLINE std::uint64_t eight_digits(std::uint32_t v) {
  std::uint64_t x = (v / 10000) | (std::uint64_t{v % 10000} << 32);           // abcd | efgh
  const std::uint64_t hundreds = ((x * 5243) >> 19) & 0x000000FF000000FFull;  // ab, ef
  x = hundreds | ((x - hundreds * 100) << 16);                                // ab | cd | ef | gh
  const std::uint64_t tens = ((x * 103) >> 10) & 0x000F000F000F000Full;       // a, c, e, g
  x = tens | ((x - tens * 10) << 8);                                          // a | b | ... | h
  return x + 0x3030303030303030ull;
}

__attribute__((noinline)) inline char* write_long_unsigned(char* p, std::uint64_t v) {
  int length = decimal_length(v);
  write_digits(p, v, length);
  return p + length;
}

SAVEKIT_ALWAYS_INLINE char* write_unsigned(char* p, std::uint64_t v) {
  // Game saves are mostly small numbers: one or two digits without a length scan.
  if (v < 10) {
    *p = static_cast<char>('0' + v);
    return p + 1;
  }
  if (v < 100) {
    std::memcpy(p, digit_pairs + v * 2, 2);
    return p + 2;
  }
  return write_long_unsigned(p, v);
}

template <class Int>
SAVEKIT_ALWAYS_INLINE char* write_integer(char* p, Int value) {
  if constexpr (std::is_signed_v<Int>) {
    if (value < 0) {
      *p++ = '-';
      // Negate in unsigned arithmetic: -INT64_MIN overflows a signed integer.
      return write_unsigned(p, 0 - static_cast<std::uint64_t>(static_cast<std::int64_t>(value)));
    }
  }
  return write_unsigned(p, static_cast<std::uint64_t>(value));
}

// Enough for any double: sign, 17 digits, point, "e-308", ".0".
inline constexpr int max_float_chars = 32;

// Shortest round-trip decimal text of a finite float or double. Integral values in
// plain notation keep a ".0" so that a transcoder can tell floats from integers.
// Plain notation for decimal exponents in (-7, 21], like JavaScript; scientific otherwise.
template <class Float>
char* write_float(char* p, Float value) {
  static_assert(std::is_floating_point_v<Float>);
  if (value == 0) {
    if (std::signbit(value)) *p++ = '-';
    std::memcpy(p, "0.0", 3);
    return p + 3;
  }
  // The sign from the value's own bit: dragonbox asked for it too was 10% slower.
  auto decimal = jkj::dragonbox::to_decimal(value, jkj::dragonbox::policy::sign::ignore);
  if (std::signbit(value)) *p++ = '-';
  // At most 9 digits for a float (32-bit arithmetic), 17 for a double.
  auto significand = decimal.significand;
  int length;
  if constexpr (std::is_same_v<Float, float>)
    length = float_decimal_length(significand);
  else
    length = decimal_length(significand);
  int point = length + decimal.exponent;  // value = 0.DIGITS x 10^point

  if (point > 0 && point <= 21) {
    if (length <= point) {
      write_digits(p, significand, length);
      p += length;
      std::memset(p, '0', static_cast<std::size_t>(point - length));
      p += point - length;
      std::memcpy(p, ".0", 2);
      return p + 2;
    }
    // Digits before and after the point. A float's, up to 8, are made in a register and
    // stored once with the point merged in (the heights of a terrain, positions).
    if constexpr (std::is_same_v<Float, float> && std::endian::native == std::endian::little) {
      if (length <= 8) {
        const std::uint64_t digits = eight_digits(significand) >> (8 * (8 - length));
        const unsigned bits = 8 * static_cast<unsigned>(point);
        const std::uint64_t integer_part = (std::uint64_t{1} << bits) - 1;
        const std::uint64_t merged =
            (digits & integer_part) | (std::uint64_t{'.'} << bits) | ((digits & ~integer_part) << 8);
        std::memcpy(p, &merged, 8);
        p[8] = static_cast<char>(digits >> 56);  // the last digit of eight, pushed past the word
        return p + length + 1;
      }
    }
    // Otherwise: write all, then open a gap for the point.
    write_digits(p + 1, significand, length);
    if (std::endian::native == std::endian::little && point <= 7) {
      // One 8-byte merge instead of a memmove call (the point is most often within the
      // first eight characters: 515.4639): the integer digits shifted down, the point,
      // and the fraction's first bytes where they are. The window has room for 8 bytes.
      std::uint64_t here = 0, shifted = 0;
      std::memcpy(&here, p, 8);
      std::memcpy(&shifted, p + 1, 8);
      const unsigned bits = 8 * static_cast<unsigned>(point);
      const std::uint64_t integer_part = (std::uint64_t{1} << bits) - 1;
      const std::uint64_t point_byte = std::uint64_t{0xFF} << bits;
      here = (shifted & integer_part) | (std::uint64_t{'.'} << bits) | (here & ~(integer_part | point_byte));
      std::memcpy(p, &here, 8);
    } else {
      std::memmove(p, p + 1, static_cast<std::size_t>(point));
      p[point] = '.';
    }
    return p + length + 1;
  }
  if (point <= 0 && point > -6) {
    std::memcpy(p, "0.", 2);
    p += 2;
    std::memset(p, '0', static_cast<std::size_t>(-point));
    p += -point;
    write_digits(p, significand, length);
    return p + length;
  }
  // Scientific: D[.DDD]e[-]X
  write_digits(p + 1, significand, length);
  p[0] = p[1];
  if (length > 1) {
    p[1] = '.';
    p += length + 1;
  } else {
    p += 1;
  }
  *p++ = 'e';
  int exponent = point - 1;
  if (exponent < 0) {
    *p++ = '-';
    exponent = -exponent;
  }
  return write_unsigned(p, static_cast<std::uint64_t>(exponent));
}

}  // namespace savekit::detail
