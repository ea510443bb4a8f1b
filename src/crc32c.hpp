// CRC-32C (Castagnoli), the checksum of every store record, slot section and outbox entry.
// On x86-64 processors with SSE 4.2 (nearly all since 2008) it is the processor's crc32
// instruction, 8 bytes a step, three streams at once over long inputs; elsewhere (and in
// WebAssembly) a table, 8 bytes a step. A 10 MB slot write spent 16% of its time in the
// table (docs/performance-notes.md, issue 46).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace savekit::detail {

inline constexpr auto crc32c_tables = [] {
  std::array<std::array<std::uint32_t, 256>, 8> tables{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t crc = i;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
    tables[0][i] = crc;
  }
  for (std::size_t t = 1; t < 8; ++t)
    for (std::size_t i = 0; i < 256; ++i) tables[t][i] = (tables[t - 1][i] >> 8) ^ tables[0][tables[t - 1][i] & 0xFF];
  return tables;
}();

// The table's way: any processor.
inline std::uint32_t crc32c_portable(const void* data, std::size_t n, std::uint32_t crc = 0) {
  const auto* p = static_cast<const unsigned char*>(data);
  crc = ~crc;
  const auto& t = crc32c_tables;
  while (n >= 8) {
    std::uint32_t low, high;
    std::memcpy(&low, p, 4);  // little-endian hosts (x86, wasm)
    std::memcpy(&high, p + 4, 4);
    low ^= crc;
    crc = t[7][low & 0xFF] ^ t[6][(low >> 8) & 0xFF] ^ t[5][(low >> 16) & 0xFF] ^ t[4][low >> 24] ^ t[3][high & 0xFF] ^
          t[2][(high >> 8) & 0xFF] ^ t[1][(high >> 16) & 0xFF] ^ t[0][high >> 24];
    p += 8;
    n -= 8;
  }
  while (n--) crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xFF];
  return ~crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SAVEKIT_CRC32C_INSTRUCTION 1
// The instruction's way (compiled for SSE 4.2 whatever the build's flags; called only where
// the processor has it).
//
// Long inputs run as three streams at once: the instruction's result comes 3 cycles after it
// starts, and a new one can start every cycle, so one stream leaves most of it idle. Each
// block of 3 x crc32c_stripe bytes is three independent CRCs (the second and third from a
// zero register), joined by the CRC's linearity: the register after A then B is the register
// after A moved over |B| zero bytes, xor the register after B alone. Moving a register over
// crc32c_stripe zero bytes is a linear map of its 32 bits, kept as four byte tables.
inline constexpr std::size_t crc32c_stripe = 4096;  // bytes per stream and block; a multiple of 8

struct crc32c_shift_tables {
  std::uint32_t by_byte[4][256];
};

__attribute__((target("sse4.2"))) inline crc32c_shift_tables crc32c_make_stripe_shift() {
  std::uint32_t image_of_bit[32];
  for (int bit = 0; bit < 32; ++bit) {
    std::uint64_t reg = std::uint64_t{1} << bit;
    for (std::size_t i = 0; i < crc32c_stripe; i += 8) reg = __builtin_ia32_crc32di(reg, 0);
    image_of_bit[bit] = static_cast<std::uint32_t>(reg);
  }
  crc32c_shift_tables out{};
  for (int byte = 0; byte < 4; ++byte)
    for (unsigned value = 0; value < 256; ++value) {
      std::uint32_t image = 0;
      for (int b = 0; b < 8; ++b)
        if ((value >> b) & 1u) image ^= image_of_bit[byte * 8 + b];
      out.by_byte[byte][value] = image;
    }
  return out;
}

inline std::uint64_t crc32c_over_stripe_of_zeros(std::uint64_t reg) {
  static const crc32c_shift_tables shift = crc32c_make_stripe_shift();
  const auto r = static_cast<std::uint32_t>(reg);
  return shift.by_byte[0][r & 0xFF] ^ shift.by_byte[1][(r >> 8) & 0xFF] ^ shift.by_byte[2][(r >> 16) & 0xFF] ^
         shift.by_byte[3][r >> 24];
}

__attribute__((target("sse4.2"))) inline std::uint32_t crc32c_instruction(const void* data, std::size_t n,
                                                                          std::uint32_t crc = 0) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t wide = ~crc;
  for (; n >= 3 * crc32c_stripe; p += 3 * crc32c_stripe, n -= 3 * crc32c_stripe) {
    std::uint64_t second = 0, third = 0;
    for (std::size_t i = 0; i < crc32c_stripe; i += 8) {
      std::uint64_t a, b, c;
      std::memcpy(&a, p + i, 8);
      std::memcpy(&b, p + crc32c_stripe + i, 8);
      std::memcpy(&c, p + 2 * crc32c_stripe + i, 8);
      wide = __builtin_ia32_crc32di(wide, a);
      second = __builtin_ia32_crc32di(second, b);
      third = __builtin_ia32_crc32di(third, c);
    }
    wide = crc32c_over_stripe_of_zeros(crc32c_over_stripe_of_zeros(wide) ^ second) ^ third;
  }
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    wide = __builtin_ia32_crc32di(wide, word);
  }
  auto narrow = static_cast<std::uint32_t>(wide);
  for (; n > 0; ++p, --n) narrow = __builtin_ia32_crc32qi(narrow, *p);
  return ~narrow;
}

inline bool processor_has_crc32c() {
  static const bool has = [] {
    __builtin_cpu_init();  // (a call from a static constructor may come before libgcc's own)
    return __builtin_cpu_supports("sse4.2") != 0;
  }();
  return has;
}
#endif

inline std::uint32_t crc32c(const void* data, std::size_t n, std::uint32_t crc = 0) {
#ifdef SAVEKIT_CRC32C_INSTRUCTION
  if (processor_has_crc32c()) return crc32c_instruction(data, n, crc);
#endif
  return crc32c_portable(data, n, crc);
}

}  // namespace savekit::detail
