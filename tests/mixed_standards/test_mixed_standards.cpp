// A game built under C++23 linked with savekit built under C++20: saves written by one half
// into strings the other half reuses come back whole (see saves.hpp). Under C++23 the
// writers' output once had another layout (no first window for a std::string): optimized,
// one unit's inlined code ran on the other unit's out-of-line copies and wrote garbage
// (the seed studies' benchmark, C++23 beside glaze, aborted in prefs::set_int).
#include <gtest/gtest.h>

#include <string>

#include "saves.hpp"

TEST(MixedStandards, SavesWrittenUnderCxx20AndCxx23ShareStrings) {
  std::string packed, json;
  for (int i = 0; i < 200; ++i) {
    seeds::Status status = seeds::seed_status();
    status.exp = i * 977;
    status.equip.name = std::string(static_cast<std::size_t>(i % 40), 'x') + "ぬののふく";
    seeds::Status back;
    const bool ok = i % 2 == 0 ? mixed::round_trip_cxx20(status, packed, json, back)
                               : mixed::round_trip_cxx23(status, packed, json, back);
    ASSERT_TRUE(ok) << i;
    ASSERT_EQ(back, status) << i;
  }
}

// Into a string of any earlier size, shorter or longer than the save, in either half: the
// save's bytes and nothing else. (Under C++23 a string grows by resize_and_overwrite, whose
// operation libstdc++ 12 hands the new capacity, not the size asked for: a 28-byte save
// came out 30 bytes long, and the store refused it as trailing data.)
TEST(MixedStandards, ACompactSaveIntoAStringOfAnySizeIsExactlyTheSave) {
  const seeds::Status status = seeds::seed_status();
  const std::string expected = mixed::packed_into_cxx20(status, 0);
  for (std::size_t before = 0; before <= 100; ++before) {
    EXPECT_EQ(mixed::packed_into_cxx20(status, before), expected) << before;
    EXPECT_EQ(mixed::packed_into_cxx23(status, before), expected) << before;
  }
}
