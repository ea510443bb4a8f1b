// JSON codec: the seeds' golden output, every supported type, options, and reading rules.
#include <savekit/json.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <variant>
#include <vector>

#include "seed_types.hpp"

namespace {

enum class Color { red = 1, green = 2, blue = 7 };
enum Plain : std::uint8_t { zero, one };

struct vec3 {
  float x = 0, y = 0, z = 0;
  bool operator==(const vec3&) const = default;
};

struct Transform {
  vec3 position;
  Color color = Color::red;
  Plain plain = zero;
  bool operator==(const Transform&) const = default;
};

}  // namespace

template <>
struct savekit::adapter<vec3> {
  using wire_type = std::array<float, 3>;
  static wire_type to_wire(const vec3& v) { return {v.x, v.y, v.z}; }
  static bool from_wire(const wire_type& w, vec3& v) {
    if (!std::isfinite(w[0]) || !std::isfinite(w[1]) || !std::isfinite(w[2])) return false;
    v = {w[0], w[1], w[2]};
    return true;
  }
};

template <>
struct savekit::enum_names<Color> {
  static constexpr std::pair<Color, std::string_view> values[] = {
      {Color::red, "red"}, {Color::green, "green"}, {Color::blue, "blue"}};
};

// The seed's own text (001_d5e3661d5f46bbe1.txt): every library produced these 101 bytes.
constexpr std::string_view seed_save_game_json =
    R"({"Name":"Speed Run","HighScore":10000,"Inventory":[{"Id":100,"Quantity":5},{"Id":200,"Quantity":20}]})";

TEST(JsonGolden, SaveGameIsTheSeeds101Bytes) {
  std::string text = savekit::to_json(seeds::seed_save_game());
  EXPECT_EQ(text.size(), 101u);
  EXPECT_EQ(text, seed_save_game_json);
}

TEST(JsonGolden, SaveGameReadsBack) {
  auto loaded = savekit::from_json<seeds::SaveGame>(seed_save_game_json);
  ASSERT_TRUE(loaded) << loaded.error().to_string();
  EXPECT_EQ(*loaded, seeds::seed_save_game());
}

TEST(JsonGolden, StatusKeepsJapaneseTextAsRawUtf8) {
  std::string text = savekit::to_json(seeds::seed_status());
  // Field order and values from the seed's Status/Equip classes (000_ff233063f927945e.txt).
  EXPECT_EQ(text,
            "{\"lv\":1,\"exp\":0,\"hp\":10,\"max_hp\":10,\"atk\":1,\"def\":1,\"spd\":1,"
            "\"equip\":{\"name\":\"\xE3\x81\xAC\xE3\x81\xAE\xE3\x81\xAE\xE3\x81\xB5\xE3\x81\x8F\",\"atk\":0,"
            "\"def\":1,\"spd\":0}}");
  auto loaded = savekit::from_json<seeds::Status>(text);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(*loaded, seeds::seed_status());
}

TEST(JsonWrite, PrettyOutput) {
  seeds::SaveGame save{"A", 1, {{2, 3}}};
  EXPECT_EQ(savekit::to_json(save, {.pretty = true}),
            "{\n  \"Name\": \"A\",\n  \"HighScore\": 1,\n  \"Inventory\": [\n    {\n      \"Id\": 2,\n"
            "      \"Quantity\": 3\n    }\n  ]\n}");
  EXPECT_EQ(savekit::to_json(std::vector<int>{}, {.pretty = true}), "[]");
  auto back = savekit::from_json<seeds::SaveGame>(savekit::to_json(save, {.pretty = true}));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, save);
}

namespace {

// Everything a writer makes, indented: empty and nested containers, maps, variants, tuples,
// strings holding JSON's punctuation, and a raw_json member with a layout of its own.
struct Layout {
  std::string text;
  std::vector<std::vector<int>> grid;
  std::vector<int> none;
  std::map<std::string, int> counts;
  std::map<std::string, int> no_counts;
  std::optional<int> missing;
  std::variant<int, std::string> either;
  std::tuple<int, bool> pair;
  savekit::raw_json raw;
};

// What is left of JSON text without the whitespace outside its strings.
std::string without_layout(const std::string& text) {
  std::string out;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\')
        out += text[++i];
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
      out += c;
    } else if (c != ' ' && c != '\n') {
      out += c;
    }
  }
  return out;
}

}  // namespace

TEST(JsonWrite, PrettyOutputIndentsEveryKindOfValue) {
  Layout value{"a{[,:]}\"\\", {{1, 2}, {}}, {}, {{"k", 1}}, {}, {}, std::string{"s"}, {3, true}, {"[ 1 ,\n{ }]"}};
  const std::string pretty = savekit::to_json(value, {.pretty = true});
  EXPECT_EQ(pretty,
            "{\n"
            "  \"text\": \"a{[,:]}\\\"\\\\\",\n"
            "  \"grid\": [\n"
            "    [\n"
            "      1,\n"
            "      2\n"
            "    ],\n"
            "    []\n"
            "  ],\n"
            "  \"none\": [],\n"
            "  \"counts\": {\n"
            "    \"k\": 1\n"
            "  },\n"
            "  \"no_counts\": {},\n"
            "  \"missing\": null,\n"
            "  \"either\": [\n"
            "    1,\n"
            "    \"s\"\n"
            "  ],\n"
            "  \"pair\": [\n"
            "    3,\n"
            "    true\n"
            "  ],\n"
            "  \"raw\": [\n"
            "    1,\n"
            "    {}\n"
            "  ]\n"
            "}");
  // Only layout was added: without it, the compact text (raw_json's own layout aside).
  value.raw.text = "[1,{}]";
  EXPECT_EQ(without_layout(pretty), savekit::to_json(value));
  EXPECT_EQ(savekit::to_json(std::vector<int>{1}, {.pretty = true, .indent_width = 0}), "[\n1\n]");
  EXPECT_EQ(savekit::to_json(std::vector<std::vector<int>>{{1}}, {.pretty = true, .indent_width = 4}),
            "[\n    [\n        1\n    ]\n]");
  std::string reused(100, 'x');
  savekit::to_json(std::vector<int>{}, reused, {.pretty = true});
  EXPECT_EQ(reused, "[]");
}

// raw_json text is written as it is, unvalidated. Text the re-indenting pass cannot read
// (an unterminated string) would make it take everything after for a string: spaces in
// later strings dropped, nothing indented. Pretty output is then the compact output.
TEST(JsonWrite, PrettyOutputWithInvalidRawJsonIsTheCompactOutput) {
  struct Doc {
    savekit::raw_json raw;
    std::string after = "keep  two spaces";
    std::vector<int> list{1, 2};
  };
  for (const char* bad : {"\"unterminated", "[1,", "{\"a\":}", "1 2", "tru"}) {
    Doc doc;
    doc.raw.text = bad;
    SCOPED_TRACE(bad);
    EXPECT_EQ(savekit::to_json(doc, {.pretty = true}), savekit::to_json(doc));
  }
  Doc valid;
  valid.raw.text = " [1, \"a  b\"] ";  // valid, with a layout of its own: re-indented
  EXPECT_EQ(savekit::to_json(valid, {.pretty = true}),
            "{\n"
            "  \"raw\": [\n"
            "    1,\n"
            "    \"a  b\"\n"
            "  ],\n"
            "  \"after\": \"keep  two spaces\",\n"
            "  \"list\": [\n"
            "    1,\n"
            "    2\n"
            "  ]\n"
            "}");
}

TEST(JsonWrite, ReplacesOutputAndReusesItsCapacity) {
  std::string out(1000, 'x');
  out.reserve(4096);
  const char* data = out.data();
  savekit::to_json(seeds::seed_save_game(), out);
  EXPECT_EQ(out, seed_save_game_json);
  EXPECT_EQ(out.data(), data);
}

TEST(JsonWrite, EscapesOnlyWhatJsonRequires) {
  std::string s = "q\"b\\n\n\t\x01/\xC3\xA9";
  EXPECT_EQ(savekit::to_json(s), "\"q\\\"b\\\\n\\n\\t\\u0001/\xC3\xA9\"");
}

TEST(JsonWrite, InvalidUtf8BecomesReplacementCharacter) {
  EXPECT_EQ(savekit::to_json(std::string("a\xFF"
                                         "b")),
            "\"a\xEF\xBF\xBD"
            "b\"");
}

TEST(JsonWrite, ShortestFloats) {
  EXPECT_EQ(savekit::to_json(0.1), "0.1");
  EXPECT_EQ(savekit::to_json(1.0), "1.0");
  EXPECT_EQ(savekit::to_json(-0.0), "-0.0");
  EXPECT_EQ(savekit::to_json(1e300), "1e300");
  EXPECT_EQ(savekit::to_json(2.5e-7), "2.5e-7");
  EXPECT_EQ(savekit::to_json(123456.789), "123456.789");
  EXPECT_EQ(savekit::to_json(0.1f), "0.1");
  EXPECT_EQ(savekit::to_json(5e-324), "5e-324");
  EXPECT_EQ(savekit::to_json(std::numeric_limits<double>::max()), "1.7976931348623157e308");
  EXPECT_EQ(savekit::to_json(std::nan("")), "null");
}

TEST(JsonWrite, IntegerExtremes) {
  EXPECT_EQ(savekit::to_json(std::numeric_limits<std::int64_t>::min()), "-9223372036854775808");
  EXPECT_EQ(savekit::to_json(std::numeric_limits<std::uint64_t>::max()), "18446744073709551615");
  EXPECT_EQ(savekit::to_json(std::int8_t{-128}), "-128");
}

TEST(JsonTypes, ContainersAndWrappers) {
  std::map<int, std::string> by_id{{-1, "a"}, {2, "b"}};
  EXPECT_EQ(savekit::to_json(by_id), R"({"-1":"a","2":"b"})");
  EXPECT_EQ((*savekit::from_json<std::map<int, std::string>>(R"({"-1":"a","2":"b"})")), by_id);

  std::unordered_map<std::string, int> by_name{{"k", 1}};
  EXPECT_EQ(savekit::to_json(by_name), R"({"k":1})");

  std::optional<int> none;
  EXPECT_EQ(savekit::to_json(none), "null");
  EXPECT_EQ(*savekit::from_json<std::optional<int>>("5"), std::optional<int>(5));
  EXPECT_FALSE(savekit::from_json<std::optional<int>>("null")->has_value());

  auto owned = std::make_unique<seeds::InventoryItem>(seeds::InventoryItem{1, 2});
  EXPECT_EQ(savekit::to_json(owned), R"({"Id":1,"Quantity":2})");
  auto back = savekit::from_json<std::unique_ptr<seeds::InventoryItem>>(R"({"Id":1,"Quantity":2})");
  ASSERT_TRUE(back && *back);
  EXPECT_EQ(**back, (seeds::InventoryItem{1, 2}));
  EXPECT_EQ(*savekit::from_json<std::shared_ptr<int>>("null"), nullptr);

  std::variant<int, std::string> either = std::string("x");
  EXPECT_EQ(savekit::to_json(either), R"([1,"x"])");
  auto read_either = savekit::from_json<std::variant<int, std::string>>(R"([0, 42])");
  ASSERT_TRUE(read_either);
  EXPECT_EQ(std::get<0>(*read_either), 42);

  std::tuple<int, std::string, bool> tuple{1, "t", true};
  EXPECT_EQ(savekit::to_json(tuple), R"([1,"t",true])");
  EXPECT_EQ(*savekit::from_json<decltype(tuple)>(R"([1,"t",true])"), tuple);
  EXPECT_EQ(savekit::to_json(std::pair<int, int>{1, 2}), "[1,2]");

  int c_array[3] = {1, 2, 3};
  EXPECT_EQ(savekit::to_json(c_array), "[1,2,3]");
  std::array<int, 3> fixed{};
  ASSERT_TRUE(savekit::from_json("[4,5,6]", fixed));
  EXPECT_EQ(fixed, (std::array<int, 3>{4, 5, 6}));

  std::vector<bool> bits{true, false, true};
  EXPECT_EQ(savekit::to_json(bits), "[true,false,true]");
  EXPECT_EQ(*savekit::from_json<std::vector<bool>>("[false,true]"), (std::vector<bool>{false, true}));

  std::vector<std::byte> blob{std::byte{0}, std::byte{0xFF}, std::byte{'A'}};
  EXPECT_EQ(savekit::to_json(blob), R"("AP9B")");
  EXPECT_EQ(*savekit::from_json<std::vector<std::byte>>(R"("AP9B")"), blob);
}

TEST(JsonTypes, AdapterAndEnums) {
  Transform t{{1, 2.5f, -3}, Color::blue, one};
  std::string text = savekit::to_json(t);
  EXPECT_EQ(text, R"({"position":[1.0,2.5,-3.0],"color":"blue","plain":1})");
  auto back = savekit::from_json<Transform>(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, t);
  // Names are opt-in; numbers are always accepted. Values without a name are written as numbers.
  EXPECT_EQ(savekit::from_json<Transform>(R"({"color":2})")->color, Color::green);
  EXPECT_EQ(savekit::to_json(static_cast<Color>(9)), "9");
}

TEST(JsonRead, AnyOrderAnyWhitespaceUnknownKeysSkipped) {
  auto loaded = savekit::from_json<seeds::SaveGame>(
      " \n{ \"Inventory\" : [ { \"Quantity\":5 ,\"Id\":100, \"extra\": {\"deep\": [1, 2.5, null, true]} } ],\r\n"
      "\t\"unknown\": \"\\u00e9\", \"HighScore\": 10000, \"Name\": \"Speed Run\" } \n");
  ASSERT_TRUE(loaded) << loaded.error().to_string();
  EXPECT_EQ(*loaded, (seeds::SaveGame{"Speed Run", 10000, {{100, 5}}}));
}

TEST(JsonRead, MissingMembersKeepTheirCurrentValue) {
  seeds::SaveGame save = seeds::seed_save_game();
  ASSERT_TRUE(savekit::from_json(R"({"HighScore":7})", save));
  EXPECT_EQ(save.HighScore, 7);
  EXPECT_EQ(save.Name, "Speed Run");
}

TEST(JsonRead, DuplicateKeysLastWins) {
  auto loaded = savekit::from_json<seeds::InventoryItem>(R"({"Id":1,"Id":2})");
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->Id, 2);
  auto map = savekit::from_json<std::map<std::string, std::vector<int>>>(R"({"a":[1,2],"a":[3]})");
  ASSERT_TRUE(map);
  EXPECT_EQ(map->at("a"), std::vector<int>{3});
}

TEST(JsonRead, EscapesAndSurrogatePairs) {
  auto s = savekit::from_json<std::string>(R"("\"\\\/\b\f\n\r\t\u0041\u00e9\u3042\ud83d\ude00")");
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(*s, "\"\\/\b\f\n\r\tA\xC3\xA9\xE3\x81\x82\xF0\x9F\x98\x80");
}

TEST(JsonRead, EscapedKeysMatchFields) {
  auto loaded = savekit::from_json<seeds::InventoryItem>(R"({"\u0049d":3})");
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->Id, 3);
}

TEST(JsonRead, NumbersIntoEveryWidth) {
  EXPECT_EQ(*savekit::from_json<std::int8_t>("-128"), -128);
  EXPECT_EQ(*savekit::from_json<std::uint8_t>("255"), 255);
  EXPECT_EQ(*savekit::from_json<std::int64_t>("-9223372036854775808"), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(*savekit::from_json<std::uint64_t>("18446744073709551615"), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(*savekit::from_json<unsigned>("-0"), 0u);
  EXPECT_EQ(*savekit::from_json<double>("10"), 10.0);
  EXPECT_EQ(*savekit::from_json<double>("-1.5E+3"), -1500.0);
  EXPECT_EQ(*savekit::from_json<double>("1e-400"), 0.0);
  EXPECT_EQ(*savekit::from_json<float>("16777217"), 16777216.0f);  // correctly rounded to float
  EXPECT_EQ(*savekit::from_json<double>("0.30000000000000004"), 0.1 + 0.2);
  EXPECT_TRUE(std::isnan(*savekit::from_json<double>("null")));
}

TEST(JsonRead, IntoExistingObjectReusesCapacity) {
  seeds::SaveGame save = seeds::seed_save_game();
  save.Name.reserve(64);
  save.Inventory.reserve(16);
  const char* name_data = save.Name.data();
  const seeds::InventoryItem* items = save.Inventory.data();
  ASSERT_TRUE(savekit::from_json(R"({"Name":"Other","HighScore":1,"Inventory":[{"Id":1,"Quantity":1}]})", save));
  EXPECT_EQ(save.Name, "Other");
  EXPECT_EQ(save.Name.data(), name_data);
  EXPECT_EQ(save.Inventory.data(), items);
  EXPECT_EQ(save.Inventory.size(), 1u);
}

TEST(JsonRead, StrictModes) {
  auto unknown = savekit::from_json<seeds::InventoryItem>(R"({"Id":1,"Extra":2})", {.error_on_unknown_keys = true});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code(), savekit::errc::unknown_key);
  auto missing = savekit::from_json<seeds::InventoryItem>(R"({"Id":1})", {.error_on_missing_keys = true});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), savekit::errc::missing_key);
  EXPECT_EQ(missing.error().path(), "$.Quantity");
  EXPECT_TRUE(savekit::from_json<seeds::InventoryItem>(R"({"Quantity":1,"Id":1})",
                                                       {.error_on_unknown_keys = true, .error_on_missing_keys = true}));
}

TEST(JsonRead, DepthLimitInsteadOfStackOverflow) {
  // Skipped values are checked too: a hostile document cannot recurse without bound.
  std::string deep = "{\"unknown\":" + std::string(100000, '[');
  auto r = savekit::from_json<seeds::InventoryItem>(deep);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), savekit::errc::depth_exceeded);
  std::string nested = "[[[[1]]]]";
  EXPECT_FALSE(savekit::from_json<std::vector<std::vector<std::vector<std::vector<int>>>>>(nested, {.max_depth = 3}));
  EXPECT_TRUE(savekit::from_json<std::vector<std::vector<std::vector<std::vector<int>>>>>(nested, {.max_depth = 4}));
}

TEST(JsonError, PrinterShowsLineColumnAndCaret) {
  std::string text = "{\n  \"Name\": \"x\",\n  \"HighScore\": \"high\"\n}";
  auto r = savekit::from_json<seeds::SaveGame>(text);
  ASSERT_FALSE(r);
  EXPECT_EQ(savekit::format_error(r.error(), text),
            "3:16: type_mismatch at $.HighScore: expected an integer\n"
            "  \"HighScore\": \"high\"\n"
            "               ^\n");
}

TEST(JsonRead, ErrorPathNamesEscapedMapKeys) {
  auto r = savekit::from_json<std::map<std::string, std::map<std::string, int>>>(R"({"k\u0041":{"z\u0042":"x"}})");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().path(), "$.kA.zB");
}

TEST(JsonRawJson, KeepsAnyValueAsText) {
  struct Envelope {
    std::string kind;
    savekit::raw_json payload;
  };
  auto read = savekit::from_json<Envelope>(R"({"kind":"x","payload": {"a":[1, "ぬ", null]} })");
  ASSERT_TRUE(read);
  EXPECT_EQ(read->payload.text, R"({"a":[1, "ぬ", null]})");
  EXPECT_EQ(savekit::to_json(*read), R"({"kind":"x","payload":{"a":[1, "ぬ", null]}})");
  EXPECT_EQ(savekit::to_json(Envelope{"y", {}}), R"({"kind":"y","payload":null})");
  EXPECT_EQ(savekit::from_json<Envelope>(R"({"payload":[1,}")").error().code(), savekit::errc::syntax_error);
}

TEST(JsonWrite, SkipNullMembers) {
  struct Maybe {
    std::optional<int> a;
    int b = 2;
    std::unique_ptr<int> c;
  };
  Maybe m;
  EXPECT_EQ(savekit::to_json(m), R"({"a":null,"b":2,"c":null})");
  EXPECT_EQ(savekit::to_json(m, {.skip_null_members = true}), R"({"b":2})");
  m.a = 1;
  m.c = std::make_unique<int>(3);
  EXPECT_EQ(savekit::to_json(m, {.skip_null_members = true}), R"({"a":1,"b":2,"c":3})");
  EXPECT_EQ(savekit::to_json(Maybe{}, {.pretty = true, .skip_null_members = true}), "{\n  \"b\": 2\n}");
}

// The first member written has no comma before it, wherever the nulls are; nested structs
// skip theirs too.
TEST(JsonWrite, SkipNullMembersWhereverTheNullsAre) {
  struct Inner {
    std::shared_ptr<int> p;
    std::optional<std::string> q;
  };
  struct Outer {
    std::optional<int> a;
    std::optional<int> b;
    Inner inner;
    std::optional<int> c;
  };
  const savekit::json_options skip{.skip_null_members = true};
  EXPECT_EQ(savekit::to_json(Outer{}, skip), R"({"inner":{}})");
  EXPECT_EQ(savekit::to_json(Outer{{}, 2, {}, {}}, skip), R"({"b":2,"inner":{}})");
  EXPECT_EQ(savekit::to_json(Outer{{}, {}, {{}, "x"}, 4}, skip), R"({"inner":{"q":"x"},"c":4})");
  EXPECT_EQ(savekit::to_json(Outer{1, {}, {std::make_shared<int>(5), {}}, {}}, skip), R"({"a":1,"inner":{"p":5}})");
  EXPECT_EQ(savekit::to_json(Inner{}, skip), "{}");
  EXPECT_EQ(savekit::to_json(Inner{}), R"({"p":null,"q":null})");
}

// Members in declaration order are read on a fast path; every way off it (another order,
// whitespace, a missing, repeated or unknown member, an error inside one) must give what
// the general reader gives.
TEST(JsonRead, MembersInOrderAndEveryWayOffThatPath) {
  seeds::Status base = seeds::seed_status();
  std::string in_order = savekit::to_json(base);
  auto read = [](std::string_view text) { return savekit::from_json<seeds::Status>(text); };
  ASSERT_TRUE(read(in_order));
  EXPECT_EQ(*read(in_order), base);

  auto swapped = read(
      R"({"lv":1,"exp":0,"max_hp":10,"hp":10,"atk":1,"def":1,"spd":1,"equip":{"name":"x","atk":0,"def":1,"spd":0}})");
  ASSERT_TRUE(swapped);
  EXPECT_EQ(swapped->hp, 10);
  EXPECT_EQ(swapped->max_hp, 10);
  EXPECT_EQ(swapped->equip.name, "x");

  auto spaced = read(
      R"({"lv":7, "exp":3 ,"hp" : 2,"max_hp":10,"atk":1,"def":1,"spd":1,"equip":{"name":"x","atk":0,"def":1,"spd":0}})");
  ASSERT_TRUE(spaced);
  EXPECT_EQ(spaced->lv, 7);
  EXPECT_EQ(spaced->exp, 3);
  EXPECT_EQ(spaced->hp, 2);

  auto repeated = read(R"({"lv":1,"lv":5,"exp":0})");
  ASSERT_TRUE(repeated);
  EXPECT_EQ(repeated->lv, 5);

  auto unknown = read(R"({"lv":4,"mood":"fine","exp":9})");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->lv, 4);
  EXPECT_EQ(unknown->exp, 9);

  auto missing = savekit::from_json<seeds::Status>(R"({"lv":1,"hp":3})", {.error_on_missing_keys = true});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), savekit::errc::missing_key);
  EXPECT_EQ(missing.error().path(), "$.exp");

  std::string bad = R"({"lv":1,"exp":"zero"})";
  auto wrong = read(bad);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code(), savekit::errc::type_mismatch);
  EXPECT_EQ(wrong.error().path(), "$.exp");
  EXPECT_EQ(wrong.error().offset(), bad.find("\"zero\""));

  auto trailing_comma = read(R"({"lv":1,})");
  ASSERT_FALSE(trailing_comma);
  EXPECT_EQ(trailing_comma.error().code(), savekit::errc::syntax_error);
}

// JSON is written through a first window on the stack too (detail/output.hpp): a reused
// string ends with exactly the new text, wherever the move into it happens.
TEST(JsonWrite, AReusedStringHoldsExactlyTheNewTextWhateverItsSizeAndWhatItHeld) {
  const std::size_t lengths[] = {0, 1, 100, 480, 500, 505, 511, 512, 513, 700, 5000};
  std::size_t checked = 0;
  for (std::size_t before : lengths) {
    for (std::size_t now : lengths) {
      seeds::SaveGame previous{std::string(before, 'p'), 1, std::vector<seeds::InventoryItem>(before / 9, {3, 4})};
      seeds::SaveGame save{std::string(now, '"'), -7, std::vector<seeds::InventoryItem>(now / 11, {100000, -1})};
      const std::string fresh = savekit::to_json(save);
      std::string reused;
      savekit::to_json(previous, reused);
      savekit::to_json(save, reused);
      ASSERT_EQ(reused, fresh) << before << " then " << now;
      auto back = savekit::from_json<seeds::SaveGame>(reused);
      ASSERT_TRUE(back) << back.error().to_string();
      ASSERT_EQ(*back, save);
      ++checked;
    }
  }
  EXPECT_EQ(checked, std::size(lengths) * std::size(lengths));
}
