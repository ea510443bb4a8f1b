// savekit::document: reading and writing both formats, edits, paths, limits, migrations.
#include <savekit/document.hpp>
#include <savekit/msgpack.hpp>
#include <savekit/transcode.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "seed_types.hpp"

namespace {

using savekit::document;
using savekit::errc;

document parse(std::string_view json) {
  auto d = document::from_json(json);
  if (!d) ADD_FAILURE() << d.error().to_string();
  return d ? std::move(*d) : document{};
}

std::string json_of(const document& d) {
  auto text = d.to_json();
  return text ? *text : "<" + text.error().to_string() + ">";
}

}  // namespace

TEST(Document, JsonRoundTripsKeepingOrderAndEveryNumber) {
  const std::string text =
      R"({"z":1,"a":[true,false,null,-9223372036854775808,18446744073709551615,0.1,"é\u0000x"],"m":{}})";
  document d = parse(text);
  EXPECT_EQ(d.type(), document::kind::object);
  EXPECT_EQ(d.members()[0].first, "z");  // input order
  EXPECT_EQ(d.at("a[3]")->as_int(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(d.at("a[4]")->as_uint(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(d.at("a[4]")->as_int(), std::nullopt);
  EXPECT_EQ(d.at("a[5]")->as_double(), 0.1);
  EXPECT_EQ(*d.at("a[6]")->as_string(), std::string("é\0x", 4));
  EXPECT_EQ(json_of(d), text.substr(0, text.find("\"é")) + "\"é\\u0000x\"],\"m\":{}}");
  EXPECT_EQ(parse(json_of(d)), d);
}

TEST(Document, MessagePackRoundTripsBytesAndIntegerKeys) {
  // What the typed writers produce reads as a document and writes back to the same bytes.
  seeds::SaveGame save = seeds::seed_save_game();
  auto packed = savekit::to_msgpack(save);
  auto d = document::from_msgpack(packed);
  ASSERT_TRUE(d) << d.error().to_string();
  EXPECT_EQ(d->to_msgpack(), packed);
  EXPECT_EQ(*d->at("Inventory[1].Quantity")->as_int(), 20);

  std::map<int, std::vector<std::byte>> by_id{{-1, {std::byte{1}, std::byte{255}}}, {7, {}}};
  auto bytes = savekit::to_msgpack(by_id);
  auto e = document::from_msgpack(bytes);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->members()[0].first, "-1");  // integer keys as JSON writes them
  ASSERT_NE(e->find("-1")->as_bytes(), nullptr);
  EXPECT_EQ(e->find("-1")->as_bytes()->size(), 2u);
  // And the typed reader takes the document's form back.
  auto back = savekit::from_msgpack<std::map<int, std::vector<std::byte>>>(e->to_msgpack());
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(*back, by_id);
}

TEST(Document, EditsByKeyAndByPath) {
  document d = parse(R"({"hp":7,"name":"Ann","bag":["sword"],"stats":{"str":3}})");
  EXPECT_TRUE(d.rename("hp", "health"));
  EXPECT_EQ(d.members()[0].first, "health");  // in its place
  EXPECT_FALSE(d.rename("missing", "x"));
  EXPECT_TRUE(d.set("gold", 50));
  EXPECT_TRUE(d.move("bag", "inventory.items"));
  EXPECT_TRUE(d.put("stats.dex", 4));
  EXPECT_TRUE(d.erase("stats.str"));
  ASSERT_NE(d.at("inventory"), nullptr);
  EXPECT_TRUE(d.at("inventory")->is_object());
  EXPECT_EQ(json_of(d), R"({"health":7,"name":"Ann","stats":{"dex":4},"gold":50,"inventory":{"items":["sword"]}})");
  EXPECT_TRUE(d.rename("name", "gold"));  // replaces the member it is renamed to
  EXPECT_EQ(json_of(d), R"({"health":7,"gold":"Ann","stats":{"dex":4},"inventory":{"items":["sword"]}})");
  EXPECT_TRUE(d.at("inventory.items")->push_back("shield"));
  EXPECT_EQ(d.at("inventory.items")->size(), 2u);
}

TEST(Document, PathsThatCannotBeFollowedAreErrorsNotChanges) {
  document d = parse(R"({"a":[1,2],"s":"text"})");
  document before = d;
  EXPECT_EQ(d.at("a[2]"), nullptr);
  EXPECT_EQ(d.at("a.b"), nullptr);
  EXPECT_EQ(d.put("s.x", 1).error().code(), errc::type_mismatch);
  EXPECT_EQ(d.put("a[5]", 1).error().code(), errc::invalid_value);
  for (std::string_view bad : {"", ".", "a.", "a[", "a[]", "a[x]", "[0]x"}) EXPECT_FALSE(d.put(bad, 1)) << bad;
  EXPECT_EQ(d.move("missing", "x").error().code(), errc::not_found);
  EXPECT_FALSE(d.move("a", "s.inner"));  // the target cannot be written: nothing moved
  EXPECT_EQ(d, before);
  EXPECT_TRUE(d.set("k", 1));
  document text{"plain"};
  EXPECT_EQ(text.set("k", 1).error().code(), errc::type_mismatch);
  EXPECT_EQ(text.push_back(1).error().code(), errc::type_mismatch);
  EXPECT_EQ(d.element(0), nullptr);  // an object has no elements
}

TEST(Document, BadInputIsAClearErrorWithItsPlace) {
  auto bad_json = document::from_json(R"({"a":[1,}")");
  ASSERT_FALSE(bad_json);
  EXPECT_EQ(bad_json.error().code(), errc::syntax_error);
  const std::byte ext[] = {std::byte{0x81}, std::byte{0xa1}, std::byte{'k'},
                           std::byte{0xd4}, std::byte{1},    std::byte{2}};
  auto e = document::from_msgpack(std::span<const std::byte>{ext});
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code(), errc::unsupported_type);
  EXPECT_EQ(e.error().path(), R"($.k)");
  const std::byte short_array[] = {std::byte{0x92}, std::byte{0x01}};
  EXPECT_EQ(document::from_msgpack(std::span<const std::byte>{short_array}).error().code(), errc::length_exceeds_input);
  const std::byte torn_integer[] = {std::byte{0xcd}, std::byte{0x01}};
  EXPECT_EQ(document::from_msgpack(std::span<const std::byte>{torn_integer}).error().code(), errc::unexpected_end);
  std::string deep(300, '[');
  EXPECT_EQ(document::from_json(deep + std::string(300, ']')).error().code(), errc::depth_exceeded);
  // A small input cannot make a large document: nodes count against max_memory.
  std::vector<std::byte> many{std::byte{0xdd}, std::byte{0x00}, std::byte{0x10}, std::byte{0x00}, std::byte{0x00}};
  many.resize(many.size() + (1 << 20), std::byte{0xc0});
  auto limited = document::from_msgpack(many, {.max_memory = 1 << 20});
  ASSERT_FALSE(limited);
  EXPECT_EQ(limited.error().code(), errc::value_too_large);
}

TEST(Document, NonFiniteFloatsStayInMessagePackAndAreRefusedAsJson) {
  document d = document::object();
  ASSERT_TRUE(d.set("nan", std::numeric_limits<double>::quiet_NaN()));
  auto back = document::from_msgpack(d.to_msgpack());
  ASSERT_TRUE(back);
  EXPECT_TRUE(std::isnan(*back->find("nan")->as_double()));
  EXPECT_FALSE(d.to_json());
}

TEST(Migrations, StepsRunInOrderOfVersionAndStopAtTheFirstFailure) {
  std::vector<std::string> ran;
  std::vector<savekit::migration_step> steps = {
      {3,
       [&](document& d) {
         ran.push_back("to 3");
         return d.move("gold", "wallet.gold");
       }},
      {2,
       [&](document& d) {
         ran.push_back("to 2");
         return d.rename("hp", "health") ? savekit::status{}
                                         : savekit::status{savekit::error{errc::not_found, 0, "no hp"}};
       }},
      {4,
       [&](document&) {
         ran.push_back("to 4");
         return savekit::status{};
       }},
  };
  document d = parse(R"({"hp":1,"gold":2})");
  ASSERT_TRUE(savekit::migrate(d, steps, 1, 3));
  EXPECT_EQ(ran, (std::vector<std::string>{"to 2", "to 3"}));
  EXPECT_EQ(json_of(d), R"({"health":1,"wallet":{"gold":2}})");
  ran.clear();
  document again = parse(R"({"gold":2})");
  auto failed = savekit::migrate(again, steps, 1, 4);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message().find("migrating to version 2: no hp"), std::string::npos);
  EXPECT_EQ(ran, (std::vector<std::string>{"to 2"}));
  steps.push_back({2, {}});
  EXPECT_EQ(savekit::migrate(d, steps, 1, 4).error().code(), errc::invalid_value);  // two steps to one version
}

TEST(Document, MovesThatWouldDropAValueAreRefused) {
  document d = parse(R"({"arr":[1,2,3],"a":{"b":1}})");
  const document before = d;
  EXPECT_EQ(d.move("arr[0]", "arr[1]").error().code(), errc::invalid_value);  // onto an element
  EXPECT_EQ(d.move("a", "a.b.c").error().code(), errc::invalid_value);        // into itself
  EXPECT_TRUE(d.move("arr[0]", "arr[0]"));                                    // nowhere: nothing changes
  EXPECT_TRUE(d.move("a.b", "a.b"));
  EXPECT_EQ(d, before);
  EXPECT_TRUE(d.move("arr[2]", "last"));
  EXPECT_EQ(json_of(d), R"({"arr":[1,2],"a":{"b":1},"last":3})");
}

TEST(Document, ARepeatedKeyInALargeObjectKeepsTheLastValueInItsPlace) {
  std::string text = "{";
  for (int i = 0; i < 40; ++i) text += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  text += "\"k30\":\"again\",\"k3\":\"too\"}";
  document d = parse(text);
  EXPECT_EQ(d.size(), 40u);
  EXPECT_EQ(*d.find("k30")->as_string(), "again");
  EXPECT_EQ(*d.find("k3")->as_string(), "too");
  EXPECT_EQ(d.members()[30].first, "k30");
}
