// A save/load cycle in steady state allocates nothing: writing into a reused buffer and
// reading into a reused object (DESIGN: "a save/load cycle in steady state allocates
// nothing"). Counts every operator new of the process.
#include <savekit/savekit.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "seed_types.hpp"

namespace {
std::atomic<long> allocations{0};
}

// The replacements pair malloc with free; g++ cannot see that through inlined new/delete.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  std::abort();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

template <class Cycle>
long allocations_in_steady_state(Cycle cycle) {
  cycle();  // the first round sizes every buffer
  long before = allocations.load();
  for (int i = 0; i < 100; ++i) cycle();
  return allocations.load() - before;
}

}  // namespace

TEST(Allocations, JsonSaveLoadCycle) {
  seeds::SaveGame save = seeds::seed_save_game();
  seeds::SaveGame loaded;
  std::string buffer;
  EXPECT_EQ(allocations_in_steady_state([&] {
              savekit::to_json(save, buffer);
              ASSERT_TRUE(savekit::from_json(buffer, loaded));
            }),
            0);
  EXPECT_EQ(loaded, save);
}

TEST(Allocations, MsgpackSaveLoadCycleBothForms) {
  seeds::Status status = seeds::seed_status();
  seeds::Status loaded;
  std::vector<std::byte> buffer;
  for (auto form : {savekit::msgpack_form::map, savekit::msgpack_form::compact}) {
    EXPECT_EQ(allocations_in_steady_state([&] {
                savekit::to_msgpack(status, buffer, {.form = form});
                ASSERT_TRUE(savekit::from_msgpack(buffer, loaded));
              }),
              0);
    EXPECT_EQ(loaded, status);
  }
}

TEST(Allocations, Base64AndTranscodingIntoReusedBuffers) {
  auto packed = savekit::to_msgpack(seeds::seed_save_game());
  std::string text;
  std::vector<std::byte> bytes;
  std::string json;
  EXPECT_EQ(allocations_in_steady_state([&] {
              savekit::base64_encode(packed, text);
              ASSERT_TRUE(savekit::base64_decode(text, bytes));
              ASSERT_TRUE(savekit::msgpack_to_json(bytes, json));
            }),
            0);
  EXPECT_EQ(bytes, packed);
}

TEST(Allocations, CounterSeesAllocations) {
  // The test above can fail: a fresh result allocates.
  long before = allocations.load();
  auto fresh = savekit::from_json<seeds::SaveGame>(savekit::to_json(seeds::seed_save_game()));
  EXPECT_TRUE(fresh);
  EXPECT_GT(allocations.load() - before, 0);
}
