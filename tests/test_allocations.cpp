// A save/load cycle in steady state allocates nothing: writing into a reused buffer and
// reading into a reused object (DESIGN: "a save/load cycle in steady state allocates
// nothing"). Counts every operator new of the process.
#include <savekit/prefs.hpp>
#include <savekit/savekit.hpp>
#ifdef SAVEKIT_TEST_SEAL
#include <savekit/seal.hpp>
#endif

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <map>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "seed_types.hpp"
#include "support/fault_fs.hpp"
#include "support/store_file.hpp"

namespace {
std::atomic<long> allocations{0};
std::atomic<std::size_t> largest_allocation{0};
}  // namespace

// The replacements pair malloc with free; g++ cannot see that through inlined new/delete.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  for (std::size_t seen = largest_allocation.load();
       size > seen && !largest_allocation.compare_exchange_weak(seen, size);) {
  }
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

// A map read into the map it was read into before keeps its nodes and their values'
// memory: a world of named chunks loaded again allocates nothing.
TEST(Allocations, MapsReadIntoAReusedMapKeepTheirNodes) {
  struct Chunk {
    std::vector<float> heights;
    std::map<std::string, int> flags;
    bool operator==(const Chunk&) const = default;
  };
  std::map<std::string, Chunk> world;
  for (int i = 0; i < 20; ++i)
    world["chunk number " + std::to_string(i)] = {{1.5f, 2.5f, 3.5f}, {{"met the keeper of the gate", i}}};
  std::map<std::string, Chunk> loaded;
  std::string text;
  std::vector<std::byte> bytes;
  EXPECT_EQ(allocations_in_steady_state([&] {
              savekit::to_json(world, text);
              ASSERT_TRUE(savekit::from_json(text, loaded));
            }),
            0);
  EXPECT_EQ(loaded, world);
  for (auto form : {savekit::msgpack_form::map, savekit::msgpack_form::compact}) {
    EXPECT_EQ(allocations_in_steady_state([&] {
                savekit::to_msgpack(world, bytes, {.form = form});
                ASSERT_TRUE(savekit::from_msgpack(bytes, loaded));
              }),
              0);
    EXPECT_EQ(loaded, world);
  }
  // A hash map's keys come in another order than the reused map holds them: each is looked
  // up through one reused string, so a load allocates a few times (bucket arrays, that
  // string), however many entries — not once per key (20 here, 100 loads).
  std::unordered_map<std::string, Chunk> hashed;
  for (const auto& [name, chunk] : world) hashed[name + " of the northern lands"] = chunk;  // past any SSO
  std::unordered_map<std::string, Chunk> hashed_loaded;
  EXPECT_LE(allocations_in_steady_state([&] {
              savekit::to_json(hashed, text);
              ASSERT_TRUE(savekit::from_json(text, hashed_loaded));
            }),
            500);
  EXPECT_EQ(hashed_loaded, hashed);
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

// A game that keeps its own binary format in the store reads it back into its buffer every
// time without an allocation (get_bytes_into), as it writes it (set_bytes).
TEST(Allocations, BytesThroughTheStoreIntoAReusedVector) {
  auto store = savekit::prefs::open(savekit::make_memory_backend());
  ASSERT_TRUE(store);
  const std::vector<std::byte> blob(300, std::byte{7});
  std::vector<std::byte> back;
  EXPECT_EQ(allocations_in_steady_state([&] {
              ASSERT_TRUE(store->set_bytes("blob", blob));
              ASSERT_TRUE(store->get_bytes_into("blob", back));
            }),
            0);
  EXPECT_EQ(back, blob);
  ASSERT_TRUE(store->set_int("n", 1));
  EXPECT_EQ(store->get_bytes_into("n", back).error().code(), savekit::errc::wrong_type);
  EXPECT_EQ(store->get_bytes_into("missing", back).error().code(), savekit::errc::not_found);
  EXPECT_EQ(back, blob);  // left as it was
}

#ifdef SAVEKIT_TEST_SEAL
// A game that seals every save (docs/sealed.md) pays no allocation for it: the subkeys are
// derived when the key is made, and seal_into/unseal_into reuse the caller's string.
TEST(Allocations, ASealAndUnsealIntoReusedStrings) {
  auto key = savekit::seal_key::generate(1);
  ASSERT_TRUE(key);
  const savekit::keyring keys{*key};
  const savekit::seal_context where{.name = "slot1", .schema_version = 3, .player = "player-42"};
  const std::string plain(100, 'p');
  std::string sealed;
  std::string opened;
  for (auto protection : {savekit::seal_protection::mac, savekit::seal_protection::aead})
    for (auto compression : {savekit::seal_compression::none, savekit::seal_compression::zstd}) {
      const savekit::seal_options options{.compression = compression, .protection = protection};
      EXPECT_EQ(allocations_in_steady_state([&] {
                  ASSERT_TRUE(savekit::seal_into(sealed, plain, options, where, &keys));
                  ASSERT_TRUE(savekit::unseal_into(opened, sealed, &keys, where));
                }),
                0)
          << savekit::to_string(protection) << ", " << savekit::to_string(compression);
      EXPECT_EQ(opened, plain);
    }
}
#endif

TEST(Allocations, CounterSeesAllocations) {
  // The test above can fail: a fresh result allocates.
  long before = allocations.load();
  auto fresh = savekit::from_json<seeds::SaveGame>(savekit::to_json(seeds::seed_save_game()));
  EXPECT_TRUE(fresh);
  EXPECT_GT(allocations.load() - before, 0);
}

TEST(Allocations, AnArrayHeaderAloneReservesLittle) {
  // Regression: a MessagePack array header made the reader allocate count x element size
  // before reading any element: 250 KB of input asked for 2 GB (and bad_alloc aborted).
  struct Big {
    std::array<std::uint64_t, 1024> words;  // 8 KiB
  };
  const std::uint32_t count = 250000;
  std::vector<std::byte> input = {std::byte{0xdd}, std::byte(count >> 24), std::byte((count >> 16) & 0xff),
                                  std::byte((count >> 8) & 0xff), std::byte(count & 0xff)};
  input.resize(input.size() + count, std::byte{0xc1});  // every "element" is invalid
  largest_allocation = 0;
  auto read = savekit::from_msgpack<std::vector<Big>>(input);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code(), savekit::errc::invalid_msgpack);
  EXPECT_LE(largest_allocation.load(), std::size_t{2} << 20);
  // Real elements are read, of course: 300 of them, the array grown as they arrive.
  std::vector<std::byte> three_hundred = {std::byte{0xdc}, std::byte{0x01}, std::byte{0x2c}};
  for (int i = 0; i < 300; ++i) {
    three_hundred.push_back(std::byte{0x91});  // Big as a compact array of one field...
    three_hundred.push_back(std::byte{0xdc});  // ...which is an array16 of 1024 zeros
    three_hundred.push_back(std::byte{0x04});
    three_hundred.push_back(std::byte{0x00});
    three_hundred.insert(three_hundred.end(), 1024, std::byte{0x00});
  }
  auto many = savekit::from_msgpack<std::vector<Big>>(three_hundred);
  ASSERT_TRUE(many) << many.error().to_string();
  EXPECT_EQ(many->size(), 300u);
}

TEST(Allocations, ARecordOfManyTinyOperationsCostsNoMoreThanItsBytes) {
  // Regression: opening a store kept every operation of a record in a vector (40 bytes for
  // each operation of 3 bytes): a 640 MB record of erases aborted with bad_alloc. Records
  // are now validated, then applied, without being kept.
  std::vector<test_support::store_op> erases(2'000'000, test_support::store_op{true, "k", 0, ""});
  const std::string file = test_support::store_header() + test_support::commit_record(0, {}, 1) +
                           test_support::commit_record(1, erases) +
                           test_support::commit_record(2, {{false, "after", 3, "the erases"}});
  erases.clear();
  erases.shrink_to_fit();
  test_support::fault_fs disk;
  disk.plant("/many.prefs", file);
  largest_allocation = 0;
  auto p = savekit::prefs::open(savekit::make_file_backend("/many.prefs", disk));
  ASSERT_TRUE(p) << p.error().to_string();
  EXPECT_EQ(p->get_string("after"), "the erases");
  EXPECT_LE(largest_allocation.load(), file.size() + (std::size_t{1} << 20));  // the file as read, no more
}

TEST(Allocations, SkippingAFieldAVersionRemovedAllocatesNothing) {
  // Regression: skipping a value nested in containers (a field a newer version removed)
  // allocated a stack on every load; small nesting is now skipped with none.
  struct Old {
    int level = 3;
    std::vector<std::vector<int>> removed{{1, 2}, {3}};
    std::map<std::string, std::vector<int>> gone{{"x", {4}}};
  };
  struct New {
    int level = 0;
  };
  const std::string packed = [] {
    std::string out;
    savekit::to_msgpack(Old{}, out);
    return out;
  }();
  const std::string text = savekit::to_json(Old{});
  New loaded;
  EXPECT_EQ(allocations_in_steady_state([&] {
              ASSERT_TRUE(savekit::from_msgpack(packed, loaded));
              ASSERT_TRUE(savekit::from_json(text, loaded));
            }),
            0);
  EXPECT_EQ(loaded.level, 3);
}
