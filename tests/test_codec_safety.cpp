// Ways the codecs lost data or brought it back wrong, each checked in both formats: values
// written that could never be read back (nesting past the readers' limit), loads that
// changed objects other owners share, and MessagePack that went through JSON for a hand
// edit and no longer read back into its own type.
#include <savekit/prefs.hpp>
#include <savekit/savekit.hpp>

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using savekit::errc;

namespace {

// A linked quest chain: a type that contains itself, so its depth has no bound.
struct Quest {
  std::string name;
  std::unique_ptr<Quest> next;
};

Quest chain(int length) {
  Quest first{"quest 0", nullptr};
  Quest* last = &first;
  for (int i = 1; i < length; ++i) {
    last->next = std::make_unique<Quest>(Quest{"quest " + std::to_string(i), nullptr});
    last = last->next.get();
  }
  return first;
}

int length_of(const Quest& q) {
  int n = 1;
  for (const Quest* p = q.next.get(); p; p = p->next.get()) ++n;
  return n;
}

struct Item {
  std::string name;
  int power = 0;
};

struct Hero {
  std::shared_ptr<Item> equipped;
  std::vector<std::shared_ptr<Item>> inventory;
};

struct Inventory {
  std::vector<std::byte> icon;
  std::map<int, std::string> slots;
  std::map<std::uint64_t, int> counts;
};

enum class codec { json, msgpack_map, msgpack_compact };

class CodecSafety : public ::testing::TestWithParam<codec> {
 protected:
  // Writes with the codec under test; a failed write (too deep) becomes its error.
  template <class T>
  savekit::result<std::string> write(const T& value, std::uint32_t max_depth = savekit::default_max_depth) {
    std::string out;
    savekit::status written;
    if (GetParam() == codec::json) {
      if constexpr (savekit::detail::depth_is_bounded<T>)
        savekit::to_json(value, out, {.max_depth = max_depth});
      else
        written = savekit::to_json(value, out, {.max_depth = max_depth});
    } else {
      auto form = GetParam() == codec::msgpack_map ? savekit::msgpack_form::map : savekit::msgpack_form::compact;
      if constexpr (savekit::detail::depth_is_bounded<T>)
        savekit::to_msgpack(value, out, {.form = form, .max_depth = max_depth});
      else
        written = savekit::to_msgpack(value, out, {.form = form, .max_depth = max_depth});
    }
    if (!written) return std::move(written).error();
    return out;
  }
  template <class T>
  savekit::status read(const std::string& text, T& into, std::uint32_t max_depth = savekit::default_max_depth) {
    if (GetParam() == codec::json) return savekit::from_json(text, into, {.max_depth = max_depth});
    return savekit::from_msgpack(text, into, {.max_depth = max_depth});
  }
};

}  // namespace

INSTANTIATE_TEST_SUITE_P(Codecs, CodecSafety,
                         ::testing::Values(codec::json, codec::msgpack_map, codec::msgpack_compact));

TEST_P(CodecSafety, WhatIsTooDeepToReadIsNotWritten) {
  // Regression: a 300-step quest chain saved fine and could never be loaded (the readers
  // stop at max_depth 256, the writers had no limit).
  auto fits = write(chain(256));
  ASSERT_TRUE(fits) << fits.error().to_string();
  Quest back;
  ASSERT_TRUE(read(*fits, back));
  EXPECT_EQ(length_of(back), 256);

  auto too_deep = write(chain(300));
  ASSERT_FALSE(too_deep);
  EXPECT_EQ(too_deep.error().code(), errc::depth_exceeded);
  // With a higher limit on both sides it is written and read.
  auto deeper = write(chain(300), 400);
  ASSERT_TRUE(deeper);
  EXPECT_EQ(read(*deeper, back).error().code(), errc::depth_exceeded);
  ASSERT_TRUE(read(*deeper, back, 400));
  EXPECT_EQ(length_of(back), 300);
}

TEST(CodecSafetyDepth, ValueReturningWritersReportTooDeepToo) {
  EXPECT_EQ(savekit::to_json(chain(300)).error().code(), errc::depth_exceeded);
  EXPECT_EQ(savekit::to_msgpack(chain(300)).error().code(), errc::depth_exceeded);
  auto ok = savekit::to_json(chain(3));
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, R"({"name":"quest 0","next":{"name":"quest 1","next":{"name":"quest 2","next":null}}})");
  // Types of bounded depth keep returning their output directly: their depth is known.
  static_assert(std::is_same_v<decltype(savekit::to_json(Item{})), std::string>);
  static_assert(savekit::detail::nesting_depth<Hero>() == 3);  // Hero, the vector, Item
  static_assert(!savekit::detail::depth_is_bounded<Quest>);
}

TEST(CodecSafetyDepth, TheStoreRefusesWhatItCouldNotReadBackAndReadsWithOptions) {
  // Regression: prefs::set stored a chain too deep for prefs::get, which took no options.
  auto p = savekit::prefs::open(savekit::make_memory_backend());
  ASSERT_TRUE(p);
  for (auto encoding :
       {savekit::object_encoding::msgpack, savekit::object_encoding::msgpack_compact, savekit::object_encoding::json}) {
    std::string key = "chain" + std::to_string(static_cast<int>(encoding));
    auto refused = p->set(key, chain(300), encoding);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code(), errc::depth_exceeded);
    EXPECT_EQ(refused.error().path(), savekit::store_path(key));
    EXPECT_FALSE(p->has_key(key));
    ASSERT_TRUE(p->set(key, chain(300), encoding, {.max_depth = 400}));
    EXPECT_EQ(p->get<Quest>(key).error().code(), errc::depth_exceeded);
    auto back = p->get<Quest>(key, {.max_depth = 400});
    ASSERT_TRUE(back);
    EXPECT_EQ(length_of(*back), 300);
    // A refused set leaves the entry as it was.
    EXPECT_FALSE(p->set(key, chain(500), encoding, {.max_depth = 400}));
    EXPECT_EQ(length_of(*p->get<Quest>(key, {.max_depth = 400})), 300);
  }
  // A type of bounded depth, against a lower limit.
  auto shallow = p->set("hero", Hero{}, savekit::object_encoding::msgpack, {.max_depth = 2});
  ASSERT_FALSE(shallow);
  EXPECT_EQ(shallow.error().code(), errc::depth_exceeded);
}

TEST_P(CodecSafety, ReadingIntoASharedObjectLeavesItsOtherOwnersAlone) {
  // Regression: a load wrote through shared_ptr members into objects others own too: the
  // equipped sword, also in the inventory and held by the game, became the loaded axe.
  auto sword = std::make_shared<Item>(Item{"sword", 5});
  Hero hero{sword, {sword}};
  std::shared_ptr<Item> held_by_the_game = sword;
  Hero saved{std::make_shared<Item>(Item{"axe", 9}), {std::make_shared<Item>(Item{"bow", 3})}};
  auto text = write(saved);
  ASSERT_TRUE(text);
  ASSERT_TRUE(read(*text, hero));
  EXPECT_EQ(held_by_the_game->name, "sword");
  EXPECT_EQ(held_by_the_game->power, 5);
  EXPECT_EQ(hero.equipped->name, "axe");
  EXPECT_EQ(hero.inventory[0]->name, "bow");
  EXPECT_NE(hero.equipped, held_by_the_game);
  EXPECT_NE(hero.inventory[0], held_by_the_game);
  // An object the member alone owns is read into in place (its capacity reused).
  Item* alone = hero.equipped.get();
  ASSERT_TRUE(read(*text, hero));
  EXPECT_EQ(hero.equipped.get(), alone);
}

TEST(CodecSafetyTranscoded, MessagePackEditedAsJsonReadsBackIntoItsType) {
  // Regression: `savekit get` showed bytes as Base64 and integer map keys as strings; the
  // edited JSON, stored back as MessagePack, came back as the Base64 characters (bytes)
  // or never (integer keys).
  Inventory saved{{std::byte{0}, std::byte{0xff}, std::byte{0x10}}, {{-3, "shield"}, {12, "potion"}}, {{7, 1}}};
  auto text = savekit::msgpack_to_json(savekit::to_msgpack(saved));
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, R"({"icon":"AP8Q","slots":{"-3":"shield","12":"potion"},"counts":{"7":1}})");
  auto edited = savekit::json_to_msgpack(R"({"icon":"AP8Q","slots":{"-3":"shield","12":"elixir"},"counts":{"7":2}})");
  ASSERT_TRUE(edited);
  auto back = savekit::from_msgpack<Inventory>(*edited);
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back->icon, saved.icon);
  EXPECT_EQ(back->slots.at(12), "elixir");
  EXPECT_EQ(back->counts.at(7), 2);
  // What is not Base64, or not an integer, is an error at its place — never garbage.
  auto not_base64 = savekit::from_msgpack<Inventory>(*savekit::json_to_msgpack(R"({"icon":"AP*Q"})"));
  ASSERT_FALSE(not_base64);
  EXPECT_EQ(not_base64.error().code(), errc::invalid_base64_character);
  EXPECT_EQ(not_base64.error().path(), "$.icon");
  EXPECT_EQ(not_base64.error().offset(), 9u);  // the '*' (map, key "icon", str header, "AP")
  for (const char* key : {R"({"slots":{"x":"a"}})", R"({"slots":{"012":"a"}})", R"({"slots":{"1.5":"a"}})",
                          R"({"slots":{"99999999999":"a"}})", R"({"slots":{"":"a"}})"}) {
    auto bad = savekit::from_msgpack<Inventory>(*savekit::json_to_msgpack(key));
    ASSERT_FALSE(bad) << key;
    EXPECT_EQ(bad.error().code(), errc::type_mismatch) << key;
  }
  // The JSON reader takes the same text the same way.
  auto from_text = savekit::from_json<Inventory>(*text);
  ASSERT_TRUE(from_text);
  EXPECT_EQ(from_text->icon, saved.icon);
  EXPECT_EQ(from_text->slots, saved.slots);
}

TEST_P(CodecSafety, ASmallInputCannotAllocateWithoutBound) {
  // Regression: one-byte elements ({} in JSON, an empty map in MessagePack) read into a
  // vector of large structs: 65 KB of input took 1 GB, 262 KB aborted with bad_alloc.
  // Elements, and objects behind pointers, are counted against max_memory.
  struct Chunk {
    std::array<std::uint64_t, 2048> words;  // 16 KiB
  };
  const std::size_t count = 20000;
  std::string input;
  if (GetParam() == codec::json) {
    input = "[";
    for (std::size_t i = 0; i < count; ++i) input += i ? ",{}" : "{}";
    input += "]";
  } else {
    input = {static_cast<char>(0xdc), static_cast<char>(count >> 8), static_cast<char>(count & 0xff)};
    input.append(count, static_cast<char>(0x80));
  }
  // (The default limit, 1 GiB, refuses the same past 65,536 of them; a smaller limit
  // keeps this test light.)
  constexpr std::uint64_t limit = std::uint64_t{64} << 20;
  auto read_limited = [&](auto& into) {
    return GetParam() == codec::json ? savekit::from_json(input, into, {.max_memory = limit})
                                     : savekit::from_msgpack(input, into, {.max_memory = limit});
  };
  std::vector<Chunk> chunks;
  auto read_status = read_limited(chunks);
  ASSERT_FALSE(read_status);
  EXPECT_EQ(read_status.error().code(), errc::value_too_large) << read_status.error().to_string();
  // Objects behind pointers count too.
  std::vector<std::unique_ptr<Chunk>> owned;
  EXPECT_EQ(read_limited(owned).error().code(), errc::value_too_large);
  std::vector<std::shared_ptr<Chunk>> shared;
  EXPECT_EQ(read_limited(shared).error().code(), errc::value_too_large);
  // A budget that fits lets it through; a smaller one is the caller's to choose.
  std::vector<int> numbers(3);
  ASSERT_TRUE(read(*write(std::vector<int>(1000, 7)), numbers));
  EXPECT_EQ(numbers.size(), 1000u);
  std::vector<int> fresh;  // (elements read into in place cost nothing more)
  auto text = *write(std::vector<int>(1000, 7));
  auto small = GetParam() == codec::json ? savekit::from_json(text, fresh, {.max_memory = 64})
                                         : savekit::from_msgpack(text, fresh, {.max_memory = 64});
  EXPECT_EQ(small.error().code(), errc::value_too_large);
}

TEST(CodecSafetyDepth, AnObjectStoredDeeperThanTheDefaultCanBeStoredRawAgain) {
  // Regression: export -> import failed for an object set with a higher max_depth: the
  // raw-value check stopped at the default depth.
  auto p = savekit::prefs::open(savekit::make_memory_backend());
  for (auto encoding : {savekit::object_encoding::msgpack, savekit::object_encoding::json}) {
    ASSERT_TRUE(p->set("deep", chain(1000), encoding, {.max_depth = 1200}));
    auto raw = p->get_raw("deep");
    ASSERT_TRUE(raw);
    ASSERT_TRUE(p->set_raw("copy", raw->type, raw->bytes));
    EXPECT_TRUE(savekit::check_stored_value(raw->type, raw->bytes));
    EXPECT_EQ(length_of(*p->get<Quest>("copy", {.max_depth = 1200})), 1000);
  }
  // A document nested far deeper than anything reads is checked without recursion, up to
  // a bound (100,000 levels) that no reader reaches anyway.
  for (std::size_t depth : {90'000u, 150'000u}) {
    std::string deep_json(depth, '[');
    deep_json.append(depth, ']');
    std::string deep_msgpack(depth, static_cast<char>(0x91));
    deep_msgpack.push_back(0x01);
    for (auto [type, bytes] :
         {std::pair{savekit::value_type::json, &deep_json}, std::pair{savekit::value_type::msgpack, &deep_msgpack}}) {
      auto checked = savekit::check_stored_value(type, *bytes);
      EXPECT_EQ(static_cast<bool>(checked), depth < 100'000) << depth;
      if (!checked) {
        EXPECT_EQ(checked.error().code(), errc::depth_exceeded);
      }
    }
  }
}

TEST(CodecSafetyDepth, TheStoreRefusesWhatItsMemoryLimitWouldNotReadBack) {
  // Regression: prefs::set stored a sparse 512 x 512 grid (129 MiB in memory, 297 KB
  // stored) that prefs::get then refused for its memory. set checks the same limit, and
  // object_options carries it for both.
  struct Cell {
    std::array<std::uint64_t, 64> data;
  };
  std::vector<std::optional<Cell>> grid(2048);
  grid[7] = Cell{};
  auto p = savekit::prefs::open(savekit::make_memory_backend());
  const savekit::object_options tight{.max_memory = 64 * 1024};
  auto refused = p->set("grid", grid, savekit::object_encoding::msgpack, tight);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), errc::value_too_large);
  ASSERT_TRUE(p->set("grid", grid, savekit::object_encoding::msgpack, {.max_memory = 4 << 20}));
  EXPECT_EQ(p->get<std::vector<std::optional<Cell>>>("grid", tight).error().code(), errc::value_too_large);
  auto back = p->get<std::vector<std::optional<Cell>>>("grid", {.max_memory = 4 << 20});
  ASSERT_TRUE(back);
  EXPECT_EQ(back->size(), 2048u);
  EXPECT_EQ(savekit::detail::memory_footprint(grid), 2048 * sizeof(std::optional<Cell>));
}
