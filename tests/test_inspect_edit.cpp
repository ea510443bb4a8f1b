// Edits through the inspection tree (savekit/inspect_edit.hpp): an edit that changes nothing
// is byte-identical, one that changes a value changes only it, and every value keeps its
// wire type — the promises `savekit edit` and the inspector page stand on.
#include <savekit/inspect_edit.hpp>
#include <savekit/json.hpp>
#include <savekit/msgpack.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace {

using savekit::inspect::kind;
using savekit::inspect::node;
using savekit::inspect::wire;

struct Hero {
  std::string name;
  std::uint8_t level = 0;
  std::int64_t gold = 0;
  std::uint64_t xp = 0;
  float speed = 0;
  double luck = 0;
  std::vector<std::byte> seed;
  std::vector<float> marks;
  std::map<std::int32_t, std::string> by_id;
  bool alive = false;
};

Hero sample() {
  return Hero{"Aria",
              200,
              std::numeric_limits<std::int64_t>::min(),
              std::numeric_limits<std::uint64_t>::max(),
              1.25f,
              std::numeric_limits<double>::quiet_NaN(),
              {std::byte{0}, std::byte{0xff}, std::byte{7}},
              {0.5f, -2.0f},
              {{-3, "minus three"}, {40000, "forty thousand"}},
              true};
}

std::string msgpack_of(const Hero& h) {
  std::string out;
  savekit::to_msgpack(h, out);
  return out;
}

node tree_of(const std::string& bytes, wire w = wire::msgpack) {
  auto tree = w == wire::msgpack ? savekit::inspect::read_msgpack(bytes) : savekit::inspect::read_json(bytes);
  EXPECT_TRUE(tree) << tree.error().to_string();
  return tree ? *tree : node{};
}

// The edited JSON with one member's value text replaced.
std::string replaced(std::string json, const std::string& from, const std::string& to) {
  const std::size_t at = json.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) json.replace(at, from.size(), to);
  return json;
}

std::string edited(const std::string& bytes, const std::string& json, wire w = wire::msgpack,
                   savekit::inspect::edit_options o = {}) {
  node original = tree_of(bytes, w);
  auto changed = savekit::inspect::apply_edit(original, json, w, o);
  EXPECT_TRUE(changed) << changed.error().to_string();
  if (!changed) return {};
  auto out = savekit::inspect::write(*changed, bytes, w);
  EXPECT_TRUE(out) << out.error().to_string();
  return out ? *out : std::string{};
}

savekit::error edit_error(const std::string& bytes, const std::string& json, savekit::inspect::edit_options o = {}) {
  node original = tree_of(bytes);
  auto changed = savekit::inspect::apply_edit(original, json, wire::msgpack, o);
  EXPECT_FALSE(changed) << "the edit was taken: " << json;
  return changed ? savekit::error{} : changed.error();
}

TEST(InspectEdit, AnEditThatChangesNothingIsByteIdentical) {
  std::string bytes = msgpack_of(sample());
  // A NaN with a payload of its own: its text is "NaN", its bits must survive anyway.
  const std::uint64_t odd_nan = 0x7ff8dead0000beefULL;
  const std::string quiet_nan = "\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00";
  const std::size_t at = bytes.find(quiet_nan);
  ASSERT_NE(at, std::string::npos);
  for (int i = 0; i < 8; ++i) bytes[at + 1 + static_cast<std::size_t>(i)] = static_cast<char>(odd_nan >> (56 - 8 * i));
  auto json = savekit::inspect::to_editable_json(tree_of(bytes));
  ASSERT_TRUE(json) << json.error().to_string();
  EXPECT_NE(json->find("\"luck\": \"NaN\""), std::string::npos) << *json;
  EXPECT_NE(json->find("\"xp\": 18446744073709551615"), std::string::npos) << *json;
  EXPECT_NE(json->find("\"gold\": -9223372036854775808"), std::string::npos) << *json;
  EXPECT_NE(json->find("\"seed\": \"AP8H\""), std::string::npos) << *json;
  EXPECT_NE(json->find("\"-3\": \"minus three\""), std::string::npos) << *json;
  EXPECT_EQ(edited(bytes, *json), bytes);
  // The same JSON re-indented by an editor, keys and all, is still no change.
  std::string flat;
  bool line_start = false;
  for (char c : *json) {
    if (c == '\n') line_start = true;
    if (c != '\n' && !(line_start && c == ' ')) {
      flat += c;
      line_start = false;
    }
  }
  EXPECT_EQ(edited(bytes, flat), bytes);
}

TEST(InspectEdit, OneChangedValueChangesOnlyItsBytes) {
  Hero h = sample();
  h.luck = 0.25;  // (NaN never compares equal: the decoded heroes are compared below)
  const std::string bytes = msgpack_of(h);
  const std::string json = *savekit::inspect::to_editable_json(tree_of(bytes));
  const std::string out = edited(bytes, replaced(json, "\"speed\": 1.25", "\"speed\": 2.5"));
  ASSERT_EQ(out.size(), bytes.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < out.size(); ++i) differing += out[i] != bytes[i];
  EXPECT_GE(differing, 1u);
  EXPECT_LE(differing, 4u) << "only the float32's own four bytes may differ";
  auto back = savekit::from_msgpack<Hero>(out);
  ASSERT_TRUE(back) << back.error().to_string();
  Hero want = h;
  want.speed = 2.5f;
  EXPECT_EQ(savekit::to_json(*back), savekit::to_json(want));
  const node again = tree_of(out);
  EXPECT_EQ(savekit::inspect::at(again, "speed")->format, "float32") << "a float32 stays a float32";
}

TEST(InspectEdit, IntegersKeepTheirWidthWhenTheValueFitsAndWidenAsSavekitWritesOtherwise) {
  const std::string bytes = msgpack_of(sample());
  const std::string json = *savekit::inspect::to_editable_json(tree_of(bytes));
  node kept = tree_of(edited(bytes, replaced(json, "\"level\": 200", "\"level\": 201")));
  EXPECT_EQ(savekit::inspect::at(kept, "level")->format, "uint8");
  const std::string widened_bytes = edited(bytes, replaced(json, "\"level\": 200", "\"level\": 300"));
  node widened = tree_of(widened_bytes);
  EXPECT_EQ(savekit::inspect::at(widened, "level")->format, "uint16");
  EXPECT_EQ(savekit::inspect::at(widened, "level")->text, "300");
  // savekit's reader refuses 300 for a uint8 member: that is the schema's to say (schema_check).
  auto refused = savekit::from_msgpack<Hero>(widened_bytes);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), savekit::errc::number_out_of_range) << refused.error().to_string();
  node limits =
      tree_of(edited(bytes, replaced(replaced(json, "\"gold\": -9223372036854775808", "\"gold\": 9223372036854775807"),
                                     "\"xp\": 18446744073709551615", "\"xp\": 0")));
  EXPECT_EQ(savekit::inspect::at(limits, "gold")->text, "9223372036854775807");
  EXPECT_EQ(savekit::inspect::at(limits, "gold")->format, "int64");
  EXPECT_EQ(savekit::inspect::at(limits, "xp")->format, "uint64") << "0 fits the uint64 it was";
  const std::string beyond = replaced(json, "\"xp\": 18446744073709551615", "\"xp\": 18446744073709551616");
  savekit::error e = edit_error(bytes, beyond);
  EXPECT_NE(e.message().find("xp"), std::string::npos) << e.to_string();
  EXPECT_EQ(e.offset(), beyond.find("18446744073709551616")) << "the caret points at the value";
  savekit::error fraction = edit_error(bytes, replaced(json, "\"level\": 200", "\"level\": 2.5"));
  EXPECT_NE(fraction.message().find("not an integer"), std::string::npos) << fraction.to_string();
}

TEST(InspectEdit, AnotherKindIsRefusedWithItsPathUnlessAsked) {
  const std::string bytes = msgpack_of(sample());
  const std::string json = *savekit::inspect::to_editable_json(tree_of(bytes));
  const std::string as_string = replaced(json, "\"level\": 200", "\"level\": \"high\"");
  savekit::error e = edit_error(bytes, as_string);
  EXPECT_EQ(e.code(), savekit::errc::invalid_value);
  EXPECT_NE(e.message().find("level: the save has an integer (uint8) here"), std::string::npos) << e.to_string();
  EXPECT_EQ(e.offset(), as_string.find("\"high\""));
  const std::string out = edited(bytes, as_string, wire::msgpack, {.allow_type_changes = true});
  EXPECT_EQ(savekit::inspect::at(tree_of(out), "level")->kind, kind::string);
  // null may replace anything (an optional emptied), and a string at a float is refused.
  EXPECT_EQ(savekit::inspect::at(tree_of(edited(bytes, replaced(json, "\"name\": \"Aria\"", "\"name\": null"))), "name")
                ->kind,
            kind::null);
  savekit::error words = edit_error(bytes, replaced(json, "\"speed\": 1.25", "\"speed\": \"fast\""));
  EXPECT_NE(words.message().find("speed"), std::string::npos) << words.to_string();
}

TEST(InspectEdit, FloatsTakeNaNAndTheInfinitiesAsStringsAndRefuseWhatAFloat32CannotHold) {
  const std::string bytes = msgpack_of(sample());
  const std::string json = *savekit::inspect::to_editable_json(tree_of(bytes));
  node inf = tree_of(edited(bytes, replaced(json, "\"speed\": 1.25", "\"speed\": \"-Infinity\"")));
  EXPECT_EQ(savekit::inspect::at(inf, "speed")->text, "-Infinity");
  EXPECT_EQ(savekit::inspect::at(inf, "speed")->format, "float32");
  savekit::error big = edit_error(bytes, replaced(json, "\"speed\": 1.25", "\"speed\": 1e39"));
  EXPECT_NE(big.message().find("float32"), std::string::npos) << big.to_string();
  node whole = tree_of(edited(bytes, replaced(json, "\"speed\": 1.25", "\"speed\": 3")));
  EXPECT_EQ(savekit::inspect::at(whole, "speed")->kind, kind::floating) << "an integer typed at a float is that float";
}

TEST(InspectEdit, BytesAreEditedAsBase64AndStayBytes) {
  const std::string bytes = msgpack_of(sample());
  const std::string json = *savekit::inspect::to_editable_json(tree_of(bytes));
  node changed = tree_of(edited(bytes, replaced(json, "\"AP8H\"", "\"AQID\"")));
  const node* seed = savekit::inspect::at(changed, "seed");
  EXPECT_EQ(seed->kind, kind::bytes);
  EXPECT_EQ(seed->text, std::string("\x01\x02\x03", 3));
  savekit::error e = edit_error(bytes, replaced(json, "\"AP8H\"", "\"A*8H\""));
  EXPECT_NE(e.message().find("seed: bytes are written as Base64"), std::string::npos) << e.to_string();
}

TEST(InspectEdit, MapsWithIntegerKeysTakeIntegerKeysAndArraysGrowInTheirElementsType) {
  const std::string bytes = msgpack_of(sample());
  const std::string json = *savekit::inspect::to_editable_json(tree_of(bytes));
  const std::string more =
      replaced(replaced(json, "\"40000\": \"forty thousand\"", "\"40000\": \"forty thousand\", \"7\": \"seven\""),
               "-2.0\n", "-2.0, 0.1\n");
  const std::string out = edited(bytes, more);
  auto back = savekit::from_msgpack<Hero>(out);
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back->by_id.at(7), "seven");
  ASSERT_EQ(back->marks.size(), 3u);
  EXPECT_EQ(back->marks[2], 0.1f);
  EXPECT_EQ(savekit::inspect::at(tree_of(out), "marks[2]")->format, "float32");
  savekit::error e = edit_error(bytes, replaced(json, "\"40000\":", "\"forty\":"));
  EXPECT_NE(e.message().find("keys are integers"), std::string::npos) << e.to_string();
  savekit::error twice = edit_error(bytes, replaced(json, "\"40000\":", "\"-3\":"));
  EXPECT_NE(twice.message().find("appears twice"), std::string::npos) << twice.to_string();
}

TEST(InspectEdit, JsonSavesKeepTheTextOutsideTheEdit) {
  const std::string text = R"({"name": "Aria",  "stats": {"hp": 10, "mp": 1.50}, "tags": ["a", "b"]})";
  const node original = tree_of(text, wire::json);
  const std::string json = *savekit::inspect::to_editable_json(original);
  EXPECT_NE(json.find("\"mp\": 1.50"), std::string::npos) << "a JSON number is kept as written";
  EXPECT_EQ(edited(text, json, wire::json), text);
  const std::string out = edited(text, replaced(json, "\"hp\": 10", "\"hp\": 11"), wire::json);
  EXPECT_EQ(out, R"({"name":"Aria","stats":{"hp":11,"mp":1.50},"tags":["a", "b"]})");
}

TEST(InspectEdit, SingleEditsChangeTheTreeInPlace) {
  const std::string bytes = msgpack_of(sample());
  node tree = tree_of(bytes);
  ASSERT_TRUE(savekit::inspect::set_value(tree, "by_id.40000", "\"many\"", wire::msgpack));
  ASSERT_TRUE(savekit::inspect::insert_value(tree, "marks", "0", "9", wire::msgpack));
  ASSERT_TRUE(savekit::inspect::remove_value(tree, "by_id.-3"));
  ASSERT_TRUE(savekit::inspect::insert_value(tree, "by_id", "5", "\"five\"", wire::msgpack));
  EXPECT_EQ(savekit::inspect::insert_value(tree, "by_id", "5", "\"again\"", wire::msgpack).error().code(),
            savekit::errc::already_exists);
  EXPECT_EQ(savekit::inspect::set_value(tree, "nothing.here", "1", wire::msgpack).error().code(),
            savekit::errc::not_found);
  EXPECT_FALSE(savekit::inspect::set_value(tree, "level", "\"x\"", wire::msgpack));
  auto out = savekit::inspect::write(tree, bytes, wire::msgpack);
  ASSERT_TRUE(out);
  auto back = savekit::from_msgpack<Hero>(*out);
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back->by_id, (std::map<std::int32_t, std::string>{{5, "five"}, {40000, "many"}}));
  EXPECT_EQ(back->marks, (std::vector<float>{9.0f, 0.5f, -2.0f}));
  EXPECT_EQ(back->name, "Aria");
  EXPECT_EQ(back->xp, std::numeric_limits<std::uint64_t>::max());
}

TEST(InspectEdit, WhatJsonCannotShowIsRefusedNotLost) {
  // {1.5: 1}: a float key; "\xff": a string that is not UTF-8.
  const std::string float_key("\x81\xca\x3f\xc0\x00\x00\x01", 7);
  auto e = savekit::inspect::to_editable_json(tree_of(float_key));
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code(), savekit::errc::unsupported_type);
  EXPECT_NE(e.error().message().find("map key"), std::string::npos) << e.error().to_string();
  auto bad_utf8 = savekit::inspect::to_editable_json(tree_of(std::string("\x91\xa1\xff", 3)));
  ASSERT_FALSE(bad_utf8);
  EXPECT_NE(bad_utf8.error().message().find("[0]"), std::string::npos) << bad_utf8.error().to_string();
}

TEST(InspectEdit, ContainerHeadersWidenAndKeepTheirWidth) {
  // An array16 of two elements (savekit writes fixarray; another writer may not) stays array16.
  const std::string wide("\xdc\x00\x02\x01\x02", 5);
  node tree = tree_of(wide);
  ASSERT_TRUE(savekit::inspect::set_value(tree, "[0]", "5", wire::msgpack));
  EXPECT_EQ(*savekit::inspect::write(tree, wide, wire::msgpack), std::string("\xdc\x00\x02\x05\x02", 5));
  // A fixarray grown past 15 elements becomes an array16.
  std::string small = "\x91\x01";
  node grown = tree_of(small);
  for (int i = 0; i < 16; ++i) ASSERT_TRUE(savekit::inspect::insert_value(grown, "", "99", "1", wire::msgpack));
  auto out = savekit::inspect::write(grown, small, wire::msgpack);
  ASSERT_TRUE(out);
  EXPECT_EQ(static_cast<unsigned char>((*out)[0]), 0xdc);
  EXPECT_EQ(tree_of(*out).items.size(), 17u);
}

// From an attack review: each of these failed before its fix.

TEST(InspectEdit, AnExtEmptiedGetsASizedHeaderNotAFixOne) {
  const std::string fixext("\x92\xd4\x05\x07\x07", 5);  // [fixext1 type 5 [07], 7]
  node tree = tree_of(fixext);
  ASSERT_TRUE(savekit::inspect::set_value(tree, "[0]", R"({"ext": 5, "base64": ""})", wire::msgpack));
  auto out = savekit::inspect::write(tree, fixext, wire::msgpack);
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_EQ(*out, std::string("\x92\xc7\x00\x05\x07", 5));
}

TEST(InspectEdit, WhatTheReadersWouldRefuseIsNotWritten) {
  // 200 levels under a path 100 deep: 300, past the readers' 256.
  std::string deep(100, '\x91');
  deep += '\x01';
  node tree = tree_of(deep);
  std::string path;
  for (int i = 0; i < 99; ++i) path += "[0]";
  ASSERT_TRUE(savekit::inspect::set_value(tree, path, std::string(200, '[') + "1" + std::string(200, ']'),
                                          wire::msgpack, {.allow_type_changes = true}));
  auto out = savekit::inspect::write(tree, deep, wire::msgpack);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code(), savekit::errc::depth_exceeded);
  EXPECT_NE(out.error().message().find("would not read back"), std::string::npos);
}

TEST(InspectEdit, TwoSpellingsOfAnIntegerKeyAreOneKey) {
  const std::string bytes = msgpack_of(sample());
  const std::string json = *savekit::inspect::to_editable_json(tree_of(bytes));
  savekit::error e = edit_error(
      bytes, replaced(json, "\"40000\": \"forty thousand\"", "\"40000\": \"forty thousand\", \"040000\": \"again\""));
  EXPECT_NE(e.message().find("appears twice"), std::string::npos) << e.to_string();
  node tree = tree_of(bytes);
  EXPECT_EQ(savekit::inspect::insert_value(tree, "by_id", "040000", "\"x\"", wire::msgpack).error().code(),
            savekit::errc::already_exists);
  EXPECT_EQ(savekit::inspect::insert_value(tree, "by_id", "-03", "\"x\"", wire::msgpack).error().code(),
            savekit::errc::already_exists);
}

TEST(InspectEdit, AnIndexPast32BitsIsTheEndNotTheStart) {
  const std::string bytes = msgpack_of(sample());
  node tree = tree_of(bytes);
  ASSERT_TRUE(savekit::inspect::insert_value(tree, "marks", "4294967296", "7", wire::msgpack));
  ASSERT_EQ(savekit::inspect::at(tree, "marks")->items.size(), 3u);
  EXPECT_EQ(savekit::inspect::at(tree, "marks[2]")->text, "7.0") << "at the end, a float32 like its siblings";
}

TEST(InspectEdit, EditableSaysWhatPathsCannotName) {
  EXPECT_TRUE(savekit::inspect::editable(tree_of(msgpack_of(sample()))));
  const std::string bin_key("\x81\xc4\x01k\x01", 5);  // {bin "k": 1}
  EXPECT_EQ(savekit::inspect::editable(tree_of(bin_key)).error().code(), savekit::errc::unsupported_type);
  const std::string twice("\x82\xa1k\x01\xa1k\x02", 7);  // {"k": 1, "k": 2}
  auto e = savekit::inspect::editable(tree_of(twice));
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message().find("appears twice"), std::string::npos);
}

}  // namespace
