// JSON Schema checks over the inspection tree (savekit/schema_check.hpp), with the schemas
// savekit::json_schema<T>() writes and hand-written ones; exact numbers at the 64-bit
// limits; keywords it cannot check refused when the schema is read.
#include <savekit/inspect_edit.hpp>
#include <savekit/json_schema.hpp>
#include <savekit/msgpack.hpp>
#include <savekit/schema_check.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace {

using savekit::inspect::node;
using savekit::inspect::schema;
using savekit::inspect::wire;

enum class Class { warrior, mage };

struct Item {
  std::string name;
  std::uint16_t count = 0;
};

struct Hero {
  std::string name;
  std::uint8_t level = 0;
  std::uint64_t xp = 0;
  std::int8_t mood = 0;
  float speed = 0;
  std::vector<std::byte> seed;
  std::optional<std::string> guild;
  std::vector<Item> items;
  std::map<std::int32_t, std::string> by_id;
  Class job = Class::mage;
};

Hero sample() {
  return Hero{"Aria",
              7,
              std::numeric_limits<std::uint64_t>::max(),
              -128,
              1.5f,
              {std::byte{1}},
              std::nullopt,
              {{"sword", 1}, {"potion", 65535}},
              {{-1, "x"}},
              Class::warrior};
}

node tree_of_hero(const Hero& h) {
  std::string bytes;
  savekit::to_msgpack(h, bytes);
  auto tree = savekit::inspect::read_msgpack(bytes);
  EXPECT_TRUE(tree) << tree.error().to_string();
  return tree ? *tree : node{};
}

schema hero_schema() {
  auto s = schema::parse(savekit::json_schema<Hero>());
  EXPECT_TRUE(s) << s.error().to_string();
  return s ? *s : *schema::parse("true");
}

std::vector<savekit::inspect::schema_problem> problems_after(const std::string& path, const std::string& json) {
  node tree = tree_of_hero(sample());
  savekit::inspect::edit_options o;
  o.allow_type_changes = true;
  auto ok = savekit::inspect::set_value(tree, path, json, wire::msgpack, o);
  EXPECT_TRUE(ok) << ok.error().to_string();
  return hero_schema().check(tree);
}

TEST(SchemaCheck, SavekitsOwnSaveIsValidAgainstItsTypesSchema) {
  auto problems = hero_schema().check(tree_of_hero(sample()));
  for (const auto& p : problems) ADD_FAILURE() << p.path << ": " << p.reason;
}

TEST(SchemaCheck, AnIntegerBeyondItsMembersWidthIsRefusedWithItsPath) {
  auto p = problems_after("level", "256");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].path, "level");
  EXPECT_NE(p[0].reason.find("256 is above 255"), std::string::npos) << p[0].reason;
  EXPECT_EQ(problems_after("mood", "-129").at(0).path, "mood");
  EXPECT_TRUE(problems_after("mood", "-128").empty());
  EXPECT_EQ(problems_after("items[1].count", "65536").at(0).path, "items[1].count");
}

TEST(SchemaCheck, NumbersAreComparedExactlyAtThe64BitLimits) {
  // 18446744073709551616 and ...615 are the same double: only exact decimals tell them apart.
  auto s = schema::parse(R"({"type":"integer","minimum":0,"maximum":18446744073709551615})");
  ASSERT_TRUE(s);
  auto number = [](const char* text) { return *savekit::inspect::read_json(text); };
  EXPECT_TRUE(s->check(number("18446744073709551615")).empty());
  EXPECT_EQ(s->check(number("18446744073709551616")).size(), 1u);
  EXPECT_EQ(s->check(number("-1")).size(), 1u);
  EXPECT_TRUE(s->check(number("1.0e1")).empty()) << "10.0 is an integer to JSON Schema";
  EXPECT_EQ(s->check(number("1.5")).size(), 1u);
  auto tight = schema::parse(R"({"exclusiveMaximum":0.30000000000000004,"exclusiveMinimum":-1e-400})");
  ASSERT_TRUE(tight);
  EXPECT_TRUE(tight->check(number("0.3")).empty());
  EXPECT_EQ(tight->check(number("0.30000000000000004")).size(), 1u);
  EXPECT_TRUE(tight->check(number("0")).empty());
}

TEST(SchemaCheck, WrongTypesMissingMembersAndForeignKeysAreRefused) {
  EXPECT_NE(problems_after("name", "5").at(0).reason.find("expected string, found integer 5"), std::string::npos);
  EXPECT_TRUE(problems_after("guild", "\"Owls\"").empty()) << "an optional takes a value";
  EXPECT_FALSE(problems_after("job", "\"bard\"").empty()) << "an enum without names is its number";
  EXPECT_TRUE(problems_after("job", "1").empty());
  EXPECT_FALSE(problems_after("speed", "\"fast\"").empty());
  node tree = tree_of_hero(sample());
  ASSERT_TRUE(savekit::inspect::remove_value(tree, "xp"));
  auto missing = hero_schema().check(tree);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_NE(missing[0].reason.find("\"xp\" is missing"), std::string::npos) << missing[0].reason;
  node keys = tree_of_hero(sample());
  savekit::inspect::edit_options o;
  o.allow_type_changes = true;
  ASSERT_TRUE(savekit::inspect::insert_value(keys, "", "extra", "1", wire::msgpack, o));
  EXPECT_TRUE(hero_schema().check(keys).empty()) << "savekit's readers skip unknown members by default";
  auto strict = schema::parse(savekit::json_schema<Hero>({.additional_members = false}));
  ASSERT_TRUE(strict);
  auto extra = strict->check(keys);
  ASSERT_EQ(extra.size(), 1u);
  EXPECT_EQ(extra[0].path, "extra");
}

TEST(SchemaCheck, IntegerKeyedMapsRefuseOtherKeys) {
  auto s = schema::parse(savekit::json_schema<std::map<std::int32_t, int>>());
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_TRUE(s->check(*savekit::inspect::read_json(R"({"-12": 1, "7": 2})")).empty());
  auto p = s->check(*savekit::inspect::read_json(R"({"7x": 1})"));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].path, "7x");
}

TEST(SchemaCheck, CombinatorsAndReferences) {
  auto s = schema::parse(R"({
    "$defs": {"pos": {"type": "integer", "minimum": 1}},
    "type": "object",
    "properties": {
      "a": {"oneOf": [{"$ref": "#/$defs/pos"}, {"type": "string", "minLength": 2, "maxLength": 3}]},
      "b": {"not": {"const": [1, 2]}},
      "c": {"if": {"type": "string"}, "then": {"pattern": "^x[0-9]{2,}$"}, "else": {"type": "boolean"}},
      "d": {"type": "array", "prefixItems": [{"type": "null"}], "items": false, "uniqueItems": true},
      "e": {"contains": {"const": "k"}}
    },
    "dependentRequired": {"a": ["b"]}
  })");
  ASSERT_TRUE(s) << s.error().to_string();
  auto check = [&](const char* json) { return s->check(*savekit::inspect::read_json(json)); };
  EXPECT_TRUE(check(R"({"a": 3, "b": [2, 1], "c": "x123", "d": [null], "e": ["j", "k"]})").empty());
  EXPECT_TRUE(check(R"({"a": "ab", "b": 1, "c": true})").empty());
  EXPECT_EQ(check(R"({"a": 0, "b": 1})").at(0).path, "a");
  EXPECT_NE(check(R"({"a": "abcd", "b": 1})").at(0).reason.find("none of the 2 choices"), std::string::npos);
  EXPECT_EQ(check(R"({"b": [1, 2]})").at(0).reason, "matches what \"not\" forbids");
  EXPECT_EQ(check(R"({"c": "x1"})").at(0).path, "c");
  EXPECT_EQ(check(R"({"c": 5})").at(0).path, "c");
  EXPECT_EQ(check(R"({"d": [null, null]})").at(0).path, "d[1]");
  EXPECT_FALSE(check(R"({"e": ["j"]})").empty());
  EXPECT_FALSE(check(R"({"a": 1})").empty()) << "dependentRequired: a needs b";
  // Bytes are a string to JSON (their Base64), and NaN is null.
  auto bytes_or_null = schema::parse(R"({"type": "array", "items": {"type": ["string", "null"]}})");
  auto tree = savekit::inspect::read_msgpack(std::string("\x92\xc4\x01\x05\xca\x7f\xc0\x00\x00", 9));
  ASSERT_TRUE(tree);
  EXPECT_TRUE(bytes_or_null->check(*tree).empty());
}

TEST(SchemaCheck, WhatItCannotCheckIsRefusedWhenTheSchemaIsRead) {
  for (const char* text :
       {R"({"multipleOf": 2})", R"({"unevaluatedProperties": false})", R"({"$dynamicRef": "#x"})",
        R"({"pattern": "^(a|b)$"})", R"({"$ref": "other.json"})", R"({"properties": {"a": {"minContains": 1}}})"}) {
    auto s = schema::parse(text);
    ASSERT_FALSE(s) << text;
    EXPECT_EQ(s.error().code(), savekit::errc::unsupported_type) << text << ": " << s.error().to_string();
  }
  auto bad = schema::parse(R"({"minimum": "3"})");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), savekit::errc::invalid_value);
  EXPECT_TRUE(schema::parse(R"({"x-editor-hint": {"minimum": "anything"}, "title": "t"})"));
}

TEST(SchemaCheck, ASchemaThatRefersToItselfEndsInAProblem) {
  auto s = schema::parse(R"({"$ref": "#"})");
  ASSERT_TRUE(s);
  auto p = s->check(*savekit::inspect::read_json("1"));
  ASSERT_FALSE(p.empty());
  EXPECT_NE(p[0].reason.find("without end"), std::string::npos) << p[0].reason;
  auto nowhere = schema::parse(R"({"$ref": "#/$defs/none"})");
  ASSERT_TRUE(nowhere);
  EXPECT_NE(nowhere->check(*savekit::inspect::read_json("1")).at(0).reason.find("leads nowhere"), std::string::npos);
}

TEST(SchemaCheck, PatternsMatchAsECMAScriptSearchesWithinABudget) {
  auto check = [](const char* pattern, const char* text) {
    auto s = schema::parse(std::string(R"({"pattern": ")") + pattern + "\"}");
    EXPECT_TRUE(s) << pattern << ": " << s.error().to_string();
    return s && s->check(*savekit::inspect::read_json(std::string("\"") + text + "\"")).empty();
  };
  EXPECT_TRUE(check("^-?[0-9]+$", "-12"));
  EXPECT_FALSE(check("^-?[0-9]+$", "12a"));
  EXPECT_TRUE(check("b+c", "aabbbcd")) << "unanchored: a search";
  EXPECT_TRUE(check("^\\\\d{3}\\\\.x?$", "123."));
  EXPECT_TRUE(check("^[^a-c]*$", "xyz"));
  EXPECT_FALSE(check("^[^a-c]*$", "xaz"));
  EXPECT_TRUE(check("^.{2}$", "é!")) << "by code point";
  // A pattern built to backtrack for ever is cut off, and said to be.
  std::string slow_text(2000, 'a');
  auto s = schema::parse(R"({"pattern": "a*a*a*a*a*a*a*a*b"})");
  ASSERT_TRUE(s);
  auto p = s->check(*savekit::inspect::read_json("\"" + slow_text + "\""));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].reason.find("too long"), std::string::npos) << p[0].reason;
}

// From an attack review: each of these failed before its fix.

TEST(SchemaCheck, ASchemaThatBranchesIntoItselfEndsWithinItsBudget) {
  auto s = schema::parse(R"({"anyOf": [{"$ref": "#"}, {"$ref": "#"}]})");
  ASSERT_TRUE(s);
  auto p = s->check(*savekit::inspect::read_json("1"));
  ASSERT_FALSE(p.empty());
  EXPECT_NE(p[0].reason.find("too many steps"), std::string::npos) << p[0].reason;
  // Each choice's reason quotes its branches' reasons: whole, they doubled at every level
  // (this check took 13 s of string copying, in a release build, before they were cut short).
  for (const auto& problem : p) EXPECT_LT(problem.reason.size(), 1000u) << problem.reason.substr(0, 300);
}

TEST(SchemaCheck, WhereAReferenceLeadsIsCheckedWhenTheSchemaIsRead) {
  auto s = schema::parse(R"({"$ref": "#/x", "x": {"minLength": "a"}})");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), savekit::errc::invalid_value) << s.error().to_string();
}

TEST(SchemaCheck, APatternsBudgetCountsTheCharactersItLooksAt) {
  auto s = schema::parse(R"({"pattern": ".*.*.*.*!"})");
  ASSERT_TRUE(s);
  auto p = s->check(*savekit::inspect::read_json("\"" + std::string(100000, 'a') + "\""));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].reason.find("too long"), std::string::npos) << p[0].reason;
}

}  // namespace
