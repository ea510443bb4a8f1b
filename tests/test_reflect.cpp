// Compile-time reflection: field counts and names of aggregates, declared types.
#include <savekit/json.hpp>
#include <savekit/msgpack.hpp>
#include <savekit/reflect.hpp>
#include <savekit/transcode.hpp>

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "seed_types.hpp"

namespace {

struct Nested {
  int a = 0;
  int b = 0;
};

struct Mixed {
  int x;
  int c_array[3];
  Nested nested;
  std::unique_ptr<int> owned;
  std::optional<std::string> maybe;
  std::vector<int> list;
  std::map<std::string, int> table;
  std::array<int, 2> pair_of;
  std::variant<int, std::string> either;
  std::tuple<int, double> tuple;
  std::shared_ptr<Nested> shared;
  std::string text;
  bool flag;
  double number;
  std::string c_strings[2];
};

struct Wide {
  int f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19, f20, f21, f22, f23, f24,
      f25, f26, f27, f28, f29, f30, f31, f32, f33, f34, f35, f36, f37, f38, f39, f40, f41, f42, f43, f44, f45, f46, f47,
      f48, f49, f50, f51, f52, f53, f54, f55, f56, f57, f58, f59, f60, f61, f62, f63, f64, f65, f66, f67, f68, f69;
};

class Player {
 public:
  Player() = default;
  Player(std::string name, int hp) : name_(std::move(name)), hp_(hp) {}
  const std::string& name() const { return name_; }
  int hp() const { return hp_; }
  int cache() const { return cache_; }

  static constexpr auto savekit_fields() {
    return savekit::fields(savekit::field("name", &Player::name_), savekit::field("HP", &Player::hp_).with_key(3));
  }

 private:
  std::string name_;
  int hp_ = 0;
  int cache_ = 42;  // not declared: skipped
};

struct Monster {
  int id = 0;
  std::string kind;
};

// Version 3 of a hero: "hp" became "health" (and was "life" before that), "name" stayed.
struct Hero {
  std::string name;
  int health = 100;
  int mana = 5;
  static constexpr auto savekit_fields() {
    return savekit::fields(savekit::field("name", &Hero::name),
                           savekit::field("health", &Hero::health).renamed_from("hp").renamed_from("life"),
                           savekit::field("mana", &Hero::mana));
  }
};

// Internal linkage all the way down: clang (-Wundefined-internal, an error under -Werror)
// used to reject the field probes of an optional of such a type.
struct LocalRoster {
  std::optional<std::vector<Nested>> reserve;
  std::vector<Nested> active;
};

}  // namespace

template <>
struct savekit::meta<Monster> {
  static constexpr auto fields() { return savekit::fields(savekit::field("monster_kind", &Monster::kind)); }
};

TEST(Reflect, CountsFieldsOfSeedTypes) {
  EXPECT_EQ(savekit::field_count<seeds::SaveGame>(), 3u);
  EXPECT_EQ(savekit::field_count<seeds::InventoryItem>(), 2u);
  EXPECT_EQ(savekit::field_count<seeds::Status>(), 8u);
}

TEST(Reflect, ReadsFieldNamesFromTheCompiler) {
  const auto& names = savekit::field_names<seeds::Status>();
  std::vector<std::string_view> expected = {"lv", "exp", "hp", "max_hp", "atk", "def", "spd", "equip"};
  EXPECT_EQ(std::vector<std::string_view>(names.begin(), names.end()), expected);
}

TEST(Reflect, CArraysNestedStructsAndMoveOnlyMembersCountOnce) {
  static_assert(savekit::field_count<Mixed>() == 15);
  const auto& names = savekit::field_names<Mixed>();
  EXPECT_EQ(names[1], "c_array");
  EXPECT_EQ(names[2], "nested");
  EXPECT_EQ(names[14], "c_strings");
}

TEST(Reflect, SeventyFields) {
  static_assert(savekit::field_count<Wide>() == 70);
  EXPECT_EQ(savekit::field_names<Wide>()[0], "f0");
  EXPECT_EQ(savekit::field_names<Wide>()[69], "f69");
  Wide wide{};
  wide.f69 = 69;
  wide.f0 = -1;
  std::string text = savekit::to_json(wide);
  Wide back{};
  ASSERT_TRUE(savekit::from_json(text, back));
  EXPECT_EQ(back.f69, 69);
  EXPECT_EQ(back.f0, -1);
}

TEST(Reflect, TypesDeclaredInsideFunctions) {
  struct Local {
    int level;
    float speed;
  };
  static_assert(savekit::field_count<Local>() == 2);
  EXPECT_EQ(savekit::field_names<Local>()[1], "speed");
  EXPECT_EQ(savekit::to_json(Local{2, 1.5f}), R"({"level":2,"speed":1.5})");
}

TEST(Reflect, OptionalsOfTypesInAnAnonymousNamespace) {
  LocalRoster roster{std::vector<Nested>{{1, 2}}, {{3, 4}}};
  std::string text = savekit::to_json(roster);
  EXPECT_EQ(text, R"({"reserve":[{"a":1,"b":2}],"active":[{"a":3,"b":4}]})");
  auto back = savekit::from_json<LocalRoster>(text);
  ASSERT_TRUE(back);
  ASSERT_TRUE(back->reserve);
  EXPECT_EQ((*back->reserve)[0].b, 2);
  EXPECT_EQ(back->active[0].a, 3);
}

TEST(Reflect, PrivateMembersRenamedAndSkipped) {
  EXPECT_EQ(savekit::field_count<Player>(), 2u);
  EXPECT_EQ(savekit::to_json(Player{"Ann", 7}), R"({"name":"Ann","HP":7})");
  auto back = savekit::from_json<Player>(R"({"HP":9,"name":"Bo"})");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->name(), "Bo");
  EXPECT_EQ(back->hp(), 9);
  EXPECT_EQ(back->cache(), 42);
}

TEST(Reflect, MetaSpecializationBesideTheType) {
  EXPECT_EQ(savekit::to_json(Monster{5, "slime"}), R"({"monster_kind":"slime"})");
}

TEST(Reflect, CompactKeysLeaveGaps) {
  static_assert(savekit::detail::compact_length<Player>() == 4);
  static_assert(savekit::detail::reflection<Player>::keys[1] == 3);
}

TEST(Reflect, RenamedMembersReadTheirOldNamesInJsonAndTheMapForm) {
  static_assert(savekit::detail::reflection<Hero>::aliases.size() == 2);
  for (std::string_view old_name : {"hp", "life", "health"}) {
    std::string json = R"({"name":"Ann",")" + std::string{old_name} + R"(":7})";
    auto from_json = savekit::from_json<Hero>(json);
    ASSERT_TRUE(from_json) << json;
    EXPECT_EQ(from_json->health, 7) << old_name;
    EXPECT_EQ(from_json->mana, 5);
    auto packed = savekit::json_to_msgpack(json);
    ASSERT_TRUE(packed);
    auto from_map = savekit::from_msgpack<Hero>(*packed);
    ASSERT_TRUE(from_map);
    EXPECT_EQ(from_map->health, 7) << old_name;
  }
  EXPECT_EQ(savekit::to_json(Hero{"Bo", 3, 4}), R"({"name":"Bo","health":3,"mana":4})");  // written as it is now
  // Strict reading knows the old name too; a name never used is still unknown.
  EXPECT_TRUE(savekit::from_json<Hero>(R"({"hp":1})", {.error_on_unknown_keys = true}));
  EXPECT_EQ(savekit::from_json<Hero>(R"({"hitpoints":1})", {.error_on_unknown_keys = true}).error().code(),
            savekit::errc::unknown_key);
}
