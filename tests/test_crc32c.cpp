// CRC-32C, the checksum of every record and section savekit writes: the standard's check
// values, and the processor's instruction agreeing with the table at every length and
// alignment (files written on one machine are read on another).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "crc32c.hpp"

using savekit::detail::crc32c;
using savekit::detail::crc32c_portable;

namespace {

std::uint32_t of(const std::string& bytes) { return crc32c(bytes.data(), bytes.size()); }

}  // namespace

// The check value of the CRC catalogue, and RFC 3720's test vectors (iSCSI, appendix B.4).
TEST(Crc32c, StandardValues) {
  EXPECT_EQ(of("123456789"), 0xE3069283u);
  EXPECT_EQ(of(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(of(std::string(32, '\xff')), 0x62A8AB43u);
  std::string ascending(32, '\0');
  for (int i = 0; i < 32; ++i) ascending[i] = static_cast<char>(i);
  EXPECT_EQ(of(ascending), 0x46DD794Eu);
  EXPECT_EQ(crc32c_portable("123456789", 9), 0xE3069283u);
  EXPECT_EQ(of(""), 0u);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// Every x86-64 machine this runs on has SSE 4.2: the instruction's way is the one taken.
TEST(Crc32c, X86UsesTheInstruction) {
#ifndef SAVEKIT_CRC32C_INSTRUCTION
  FAIL() << "the instruction's way was not compiled";
#else
  EXPECT_TRUE(savekit::detail::processor_has_crc32c());
#endif
}
#endif

#ifdef SAVEKIT_CRC32C_INSTRUCTION
// Past three stripes the instruction's way runs three streams and joins them: every length
// around the block's edges, any start, and a CRC carried in, agree with the table.
TEST(Crc32c, ThreeStreamsAgreeWithOne) {
  std::mt19937 rng(4646);
  const std::size_t block = 3 * savekit::detail::crc32c_stripe;
  std::string bytes(3 * block + 64, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  for (std::size_t offset : {0, 3})
    for (std::size_t n : {block - 1, block, block + 1, block + 8, 2 * block - 3, 2 * block, 3 * block + 61}) {
      const char* p = bytes.data() + offset;
      const std::uint32_t whole = crc32c_portable(p, n);
      EXPECT_EQ(crc32c(p, n), whole) << offset << "+" << n;
      for (std::size_t cut : {std::size_t{5}, n / 2, n >= block ? n - block : n})
        EXPECT_EQ(crc32c(p + cut, n - cut, crc32c(p, cut)), whole) << offset << "+" << n << " cut " << cut;
    }
  EXPECT_EQ(crc32c(std::string(block, '\0').data(), block), crc32c_portable(std::string(block, '\0').data(), block));
}
#endif

TEST(Crc32c, InPiecesAsInOneAndEveryWayAgrees) {
  std::mt19937 rng(46);
  std::string bytes(4096 + 16, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  for (std::size_t offset = 0; offset < 8; ++offset)
    for (std::size_t n : {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 100, 1000, 4096}) {
      const char* p = bytes.data() + offset;
      const std::uint32_t whole = crc32c_portable(p, n);
      EXPECT_EQ(crc32c(p, n), whole) << offset << "+" << n;
      for (std::size_t cut : {std::size_t{0}, n / 3, n}) EXPECT_EQ(crc32c(p + cut, n - cut, crc32c(p, cut)), whole);
#ifdef SAVEKIT_CRC32C_INSTRUCTION
      if (savekit::detail::processor_has_crc32c()) {
        EXPECT_EQ(savekit::detail::crc32c_instruction(p, n), whole) << offset << "+" << n;
      }
#endif
    }
}
