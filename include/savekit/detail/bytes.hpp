// Comparing a compile-time number of bytes (a struct's known keys) with a few word loads,
// copying short text inline, and copying text into a string that can hold it.
// std::memcmp would do, natively: compilers expand it for small constant sizes. The
// WebAssembly backend does not — every key compare became a call — so this is spelled out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "savekit/detail/config.hpp"

namespace savekit::detail {

template <class Word>
SAVEKIT_ALWAYS_INLINE bool equal_word(const unsigned char* a, const unsigned char* b) {
  Word x, y;
  std::memcpy(&x, a, sizeof(Word));
  std::memcpy(&y, b, sizeof(Word));
  return x == y;
}

// Whether the N bytes at a and b are equal. Sizes that are not a multiple of the word are
// covered by a last, overlapping word.
template <std::size_t N>
SAVEKIT_ALWAYS_INLINE bool equal_bytes(const void* left, const void* right) {
  const auto* a = static_cast<const unsigned char*>(left);
  const auto* b = static_cast<const unsigned char*>(right);
  if constexpr (N >= 8) {
    for (std::size_t i = 0; i + 8 <= N; i += 8)
      if (!equal_word<std::uint64_t>(a + i, b + i)) return false;
    if constexpr (N % 8 != 0) return equal_word<std::uint64_t>(a + N - 8, b + N - 8);
    return true;
  } else if constexpr (N >= 4) {
    return equal_word<std::uint32_t>(a, b) && equal_word<std::uint32_t>(a + N - 4, b + N - 4);
  } else if constexpr (N >= 2) {
    return equal_word<std::uint16_t>(a, b) && equal_word<std::uint16_t>(a + N - 2, b + N - 2);
  } else if constexpr (N == 1) {
    return a[0] == b[0];
  } else {
    return true;
  }
}

template <class Word>
SAVEKIT_ALWAYS_INLINE void copy_word_pair(char* to, const char* from, std::size_t n) {
  Word first, last;
  std::memcpy(&first, from, sizeof(Word));
  std::memcpy(&last, from + n - sizeof(Word), sizeof(Word));
  std::memcpy(to, &first, sizeof(Word));
  std::memcpy(to + n - sizeof(Word), &last, sizeof(Word));
}

// Copies n bytes between buffers that do not overlap. Up to 32 bytes (a name, a key, a
// small save) are a few overlapping word copies inline. Past that, natively, memcpy: a call
// into the C library. In WebAssembly memcpy is compiled C (emscripten's, without the
// bulk-memory feature) that copies byte by byte whenever the two addresses differ in
// alignment — as text buffers mostly do — so there a loop of 16-byte words does it, up
// to the size where memcpy hands large copies to JavaScript's TypedArray.set.
SAVEKIT_ALWAYS_INLINE void copy_bytes(char* to, const char* from, std::size_t n) {
  if (n > 32) {
#if defined(__wasm__) && !defined(__wasm_bulk_memory__)
    if (n < 512) {
      std::size_t i = 0;
      for (; i + 16 < n; i += 16) copy_word_pair<std::uint64_t>(to + i, from + i, 16);
      copy_word_pair<std::uint64_t>(to + n - 16, from + n - 16, 16);
      return;
    }
#endif
    std::memcpy(to, from, n);
  } else if (n > 16) {
    copy_word_pair<std::uint64_t>(to, from, 16);
    copy_word_pair<std::uint64_t>(to + n - 16, from + n - 16, 16);
  } else if (n >= 8) {
    copy_word_pair<std::uint64_t>(to, from, n);
  } else if (n >= 4) {
    copy_word_pair<std::uint32_t>(to, from, n);
  } else if (n != 0) {
    to[0] = from[0];
    to[n / 2] = from[n / 2];
    to[n - 1] = from[n - 1];
  }
}

// Whether the n bytes at x and y are equal, for sizeof(Word) <= n <= 2 * sizeof(Word): the
// first and the last word of each, overlapping when n is less than two words.
template <class Word>
SAVEKIT_ALWAYS_INLINE bool equal_word_pair(const char* x, const char* y, std::size_t n) {
  Word x0, x1, y0, y1;
  std::memcpy(&x0, x, sizeof(Word));
  std::memcpy(&x1, x + n - sizeof(Word), sizeof(Word));
  std::memcpy(&y0, y, sizeof(Word));
  std::memcpy(&y1, y + n - sizeof(Word), sizeof(Word));
  return ((x0 ^ y0) | (x1 ^ y1)) == 0;
}

// Whether two texts are equal; one of up to 32 bytes (a store's key, a name) compared by
// overlapping words inline, where operator== is a call to memcmp in WebAssembly.
SAVEKIT_ALWAYS_INLINE bool equal_text(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  if (n != b.size()) return false;
  const char* x = a.data();
  const char* y = b.data();
  if (n > 32) return std::memcmp(x, y, n) == 0;
  if (n > 16)
    return equal_word_pair<std::uint64_t>(x, y, 16) && equal_word_pair<std::uint64_t>(x + n - 16, y + n - 16, 16);
  if (n >= 8) return equal_word_pair<std::uint64_t>(x, y, n);
  if (n >= 4) return equal_word_pair<std::uint32_t>(x, y, n);
  return n == 0 || (x[0] == y[0] && x[n / 2] == y[n / 2] && x[n - 1] == y[n - 1]);
}

// Replaces a string's content with text that does not overlap it: a copy and a new length,
// inline. std::string's assign goes out of line through _M_replace and its overlap checks,
// and shrinking, resize is a call too (explicitly instantiated); C++23's
// resize_and_overwrite is neither, and allocates only when the text does not fit.
SAVEKIT_ALWAYS_INLINE void assign_string(std::string& value, std::string_view text) {
  const std::size_t n = text.size();
  if (n == value.size()) {  // a reused object's usual case: no length to set
    copy_bytes(value.data(), text.data(), n);
    return;
  }
#if defined(__cpp_lib_string_resize_and_overwrite)
  value.resize_and_overwrite(n, [&](char* data, std::size_t) {
    copy_bytes(data, text.data(), n);
    return n;
  });
#else
  if (n < value.size()) {
    copy_bytes(value.data(), text.data(), n);
    value.resize(n);
  } else {
    value.assign(text.data(), n);
  }
#endif
}

}  // namespace savekit::detail
