// Saves written by older versions of a game's types load into today's: a corpus of slot
// files committed under tests/data/slots_corpus, written by the real older struct
// definitions below (GameV1, GameV2) in every encoding, read into GameV3 through the
// reading rules (an added member, a renamed one) and a migration step (a retyped one).
//
// To rewrite the corpus (only when the slot format or the old types change, never to make
// a failing test pass): SAVEKIT_WRITE_SLOT_CORPUS=tests/data/slots_corpus build/dev/tests/test_slot_migrations
#include <savekit/slots.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

// Version 1, as the game shipped first.
struct GameV1 {
  std::string name;
  int hp = 0;
  std::vector<std::string> items;  // one entry per item carried
};

// Version 2 added gold.
struct GameV2 {
  static constexpr std::uint32_t savekit_schema_version = 2;
  std::string name;
  int hp = 0;
  std::vector<std::string> items;
  int gold = 0;
};

// Version 3, today's: hp is now health (renamed), items are counted by name (retyped: a
// migration step), and a title was added.
struct GameV3 {
  static constexpr std::uint32_t savekit_schema_version = 3;
  std::string name;
  int health = 100;
  std::map<std::string, int> items;
  int gold = 0;
  std::string title = "novice";
  static constexpr auto savekit_fields() {
    return savekit::fields(savekit::field("name", &GameV3::name),
                           savekit::field("health", &GameV3::health).renamed_from("hp"),
                           savekit::field("items", &GameV3::items), savekit::field("gold", &GameV3::gold),
                           savekit::field("title", &GameV3::title));
  }
  bool operator==(const GameV3&) const = default;
};

}  // namespace

// Version 3's step: a list of carried items becomes counts per item.
template <>
inline const std::vector<savekit::migration_step> savekit::migrations<GameV3> = {
    {3,
     [](savekit::document& d) -> savekit::status {
       savekit::document* items = d.find("items");
       if (!items || !items->is_array()) return {};  // nothing to convert
       savekit::document counts = savekit::document::object();
       for (const savekit::document& item : items->elements()) {
         const std::string* name = item.as_string();
         if (!name) return savekit::error{savekit::errc::type_mismatch, 0, "an item that is not a name", "$.items"};
         savekit::document& count = counts[*name];
         count = savekit::document{count.as_int().value_or(0) + 1};
       }
       *items = std::move(counts);
       return {};
     }},
};

namespace {

const std::vector<std::pair<std::string, savekit::object_encoding>> encodings = {
    {"json", savekit::object_encoding::json},
    {"map", savekit::object_encoding::msgpack},
    {"compact", savekit::object_encoding::msgpack_compact}};

const GameV1 v1_save{"Ann", 7, {"sword", "potion", "potion"}};
const GameV2 v2_save{"Bo", 12, {"bow"}, 340};

fs::path corpus() { return fs::path{SAVEKIT_SOURCE_DIR} / "tests" / "data" / "slots_corpus"; }

}  // namespace

TEST(SlotCorpus, WriteWhenAsked) {
  const char* target = std::getenv("SAVEKIT_WRITE_SLOT_CORPUS");
  if (!target) GTEST_SKIP() << "set SAVEKIT_WRITE_SLOT_CORPUS=DIR to rewrite the corpus";
  fs::remove_all(target);
  auto s = savekit::slots::open(target);
  ASSERT_TRUE(s) << s.error().to_string();
  for (const auto& [label, encoding] : encodings) {
    ASSERT_TRUE(s->write("v1-" + label, v1_save, {.title = "version 1"}, {.encoding = encoding}));
    ASSERT_TRUE(s->write("v2-" + label, v2_save, {.title = "version 2"}, {.encoding = encoding}));
  }
}

TEST(SlotCorpus, EveryOldSaveLoadsIntoTodaysType) {
  ASSERT_TRUE(fs::exists(corpus())) << corpus();
  test_support::temp_dir dir;
  fs::copy(corpus(), dir.path() / "saves");  // opening may set files aside: never in the source tree
  auto s = savekit::slots::open((dir.path() / "saves").string());
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(s->list()->size(), 6u);
  for (const auto& [label, encoding] : encodings) {
    savekit::read_report report;
    auto from_v1 = s->read<GameV3>("v1-" + label, &report);
    ASSERT_TRUE(from_v1) << label << ": " << from_v1.error().to_string();
    EXPECT_EQ(report.schema_version, 1u);
    EXPECT_EQ(*from_v1, (GameV3{"Ann", 7, {{"sword", 1}, {"potion", 2}}, 0, "novice"})) << label;
    auto from_v2 = s->read<GameV3>("v2-" + label);
    ASSERT_TRUE(from_v2) << label << ": " << from_v2.error().to_string();
    EXPECT_EQ(*from_v2, (GameV3{"Bo", 12, {{"bow", 1}}, 340, "novice"})) << label;
    // Into a game in progress: every member comes from the save or its initializer.
    GameV3 playing{"someone", 1, {{"key", 9}}, 5, "hero"};
    ASSERT_TRUE(s->read_into("v2-" + label, playing));
    EXPECT_EQ(playing, (GameV3{"Bo", 12, {{"bow", 1}}, 340, "novice"})) << label;
    // Read by the types that wrote them, the saves are as they were.
    auto as_written = s->read<GameV1>("v1-" + label);
    ASSERT_TRUE(as_written) << as_written.error().to_string();
    EXPECT_EQ(as_written->items, v1_save.items);
    // And the newer ones are refused by an older program, never read partly.
    EXPECT_EQ(s->read<GameV1>("v2-" + label).error().code(), savekit::errc::newer_schema);
  }
  // A save written now is version 3 and reads without a step.
  ASSERT_TRUE(s->write("v3", GameV3{"Cy", 50, {{"gem", 3}}, 1, "mage"}));
  EXPECT_EQ(s->info("v3")->schema_version, 3u);
  EXPECT_EQ(*s->read<GameV3>("v3"), (GameV3{"Cy", 50, {{"gem", 3}}, 1, "mage"}));
}

TEST(SlotCorpus, AFailingStepIsAClearErrorAndTheSaveIsKept) {
  test_support::temp_dir dir;
  auto s = savekit::slots::open(dir.path().string());
  ASSERT_TRUE(s);
  struct BadItems {
    std::string name;
    int hp = 0;
    std::vector<int> items;  // numbers where the step expects names
  };
  ASSERT_TRUE(s->write("odd", BadItems{"Dee", 3, {1, 2}}));
  auto r = s->read<GameV3>("odd");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), savekit::errc::type_mismatch);
  EXPECT_NE(r.error().message().find("could not be migrated from schema version 1"), std::string::npos)
      << r.error().message();
  EXPECT_NE(r.error().message().find("migrating to version 3: an item that is not a name"), std::string::npos);
  EXPECT_EQ(s->read<BadItems>("odd")->items, (std::vector<int>{1, 2}));  // untouched
}

// ---- what an attack review found (each failed before its fix) ----

namespace {
struct Pos {
  int x = 0;
  int y = 0;
};
struct PosSwapped {
  int y = 0;
  int x = 0;
};
struct WhereV1 {
  std::variant<int, Pos> where;
  std::pair<Pos, int> pair;
  std::optional<int> bonus;
};
struct WhereV2 {
  static constexpr std::uint32_t savekit_schema_version = 2;
  std::variant<int, PosSwapped> where;
  std::pair<PosSwapped, int> pair;
  std::optional<int> bonus = 5;
};
struct PetV1 {
  std::optional<Pos> pet;
};
struct PetV2 {
  PosSwapped pet;
};
struct HeroV1 {
  std::string name;
  int hp = 0;
};
struct HeroV2 {
  std::string name;
  int health = 0;
  static constexpr auto savekit_fields() {
    return savekit::fields(savekit::field("name", &HeroV2::name),
                           savekit::field("health", &HeroV2::health).renamed_from("hp"));
  }
};
struct Tree {
  int value = 0;
  std::vector<Tree> children;
};
struct TreeV2 {
  static constexpr std::uint32_t savekit_schema_version = 2;
  int value = 0;
  std::vector<TreeV2> children;
};
}  // namespace

template <>
inline const std::vector<savekit::migration_step> savekit::migrations<WhereV2> = {
    {2, [](savekit::document&) { return savekit::status{}; }}};
template <>
inline const std::vector<savekit::migration_step> savekit::migrations<TreeV2> = {
    {2, [](savekit::document&) { return savekit::status{}; }}};

TEST(SlotCorpus, AMigratedCompactSaveNamesStructsInVariantsAndPairsAndKeepsNulls) {
  test_support::temp_dir dir;
  auto s = savekit::slots::open(dir.path().string(), {.encoding = savekit::object_encoding::msgpack_compact});
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->write("w", WhereV1{Pos{1, 2}, {Pos{3, 4}, 9}, std::nullopt}));
  auto r = s->read<WhereV2>("w");
  ASSERT_TRUE(r) << r.error().to_string();
  ASSERT_EQ(r->where.index(), 1u);
  EXPECT_EQ(std::get<1>(r->where).x, 1);  // by name, not by position
  EXPECT_EQ(std::get<1>(r->where).y, 2);
  EXPECT_EQ(r->pair.first.x, 3);
  EXPECT_EQ(r->pair.first.y, 4);
  EXPECT_EQ(r->bonus, std::nullopt);  // saved empty: not today's default
}

TEST(SlotCorpus, TheLayoutCheckSeesThroughOptionalsAndKnowsOldNames) {
  test_support::temp_dir dir;
  auto s = savekit::slots::open(dir.path().string(), {.encoding = savekit::object_encoding::msgpack_compact});
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->write("pet", PetV1{Pos{1, 2}}));
  EXPECT_EQ(s->read<PetV2>("pet").error().code(), savekit::errc::incompatible_layout);
  ASSERT_TRUE(s->write("hero", HeroV1{"Ann", 7}));
  auto hero = s->read<HeroV2>("hero");  // the same positions, one under its old name
  ASSERT_TRUE(hero) << hero.error().to_string();
  EXPECT_EQ(hero->health, 7);
}

TEST(SlotCorpus, ACompactSaveOfATypeThatContainsItselfIsNotMigratedByPosition) {
  test_support::temp_dir dir;
  auto s = savekit::slots::open(dir.path().string(), {.encoding = savekit::object_encoding::msgpack_compact});
  ASSERT_TRUE(s);
  auto written = s->write("tree", Tree{1, {Tree{2, {}}}});
  ASSERT_TRUE(written) << written.error().to_string();
  EXPECT_EQ(s->read<TreeV2>("tree").error().code(), savekit::errc::incompatible_layout);
}
