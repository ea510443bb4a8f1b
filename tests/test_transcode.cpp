// MessagePack <-> JSON without a type: round trips, agreement with the typed codecs.
#include <savekit/savekit.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "seed_types.hpp"

namespace {

std::vector<std::byte> bytes(std::initializer_list<int> list) {
  std::vector<std::byte> out;
  for (int b : list) out.push_back(static_cast<std::byte>(b));
  return out;
}

std::string round_trip(std::string_view json) {
  auto packed = savekit::json_to_msgpack(json);
  EXPECT_TRUE(packed) << packed.error().to_string();
  if (!packed) return {};
  auto text = savekit::msgpack_to_json(*packed);
  EXPECT_TRUE(text) << text.error().to_string();
  return text ? *text : std::string{};
}

}  // namespace

TEST(Transcode, CanonicalDocumentsRoundTripExactly) {
  const std::string_view documents[] = {
      "null",
      "true",
      "false",
      "0",
      "-1",
      "18446744073709551615",
      "-9223372036854775808",
      "1.5",
      "-0.0",
      "1e300",
      "\"\"",
      "\"ぬののふく\\n\\\"\"",
      "[]",
      "{}",
      "[1,[2,[3,{}]]]",
      R"({"Name":"Speed Run","HighScore":10000,"Inventory":[{"Id":100,"Quantity":5},{"Id":200,"Quantity":20}]})",
      R"({"a":{"b":{"c":[null,true,false,0.25]}},"":""})"};
  for (std::string_view doc : documents) EXPECT_EQ(round_trip(doc), doc);
}

TEST(Transcode, NonCanonicalInputKeepsItsValues) {
  EXPECT_EQ(round_trip(" { \"a\" : [ 1 , 2.50 , 1E2, \"\\u00e9\" ] } "), R"({"a":[1,2.5,100.0,"é"]})");
  // Integers beyond 64 bits become doubles (expected digits from Python's repr).
  EXPECT_EQ(round_trip("123456789012345678901234"), "1.2345678901234569e23");
}

TEST(Transcode, LargeContainersWidenTheirHeaders) {
  std::string big = "[";
  for (int i = 0; i < 70000; ++i) big += (i ? ",1" : "1");
  big += "]";
  auto packed = savekit::json_to_msgpack(big);
  ASSERT_TRUE(packed);
  EXPECT_EQ((*packed)[0], std::byte{0xdd});  // array32
  EXPECT_EQ(packed->size(), 5u + 70000u);
  EXPECT_EQ(*savekit::msgpack_to_json(*packed), big);

  std::string object = "{";
  for (int i = 0; i < 20; ++i) object += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
  object += "}";
  auto packed_object = savekit::json_to_msgpack(object);
  ASSERT_TRUE(packed_object);
  EXPECT_EQ((*packed_object)[0], std::byte{0xde});  // map16
  EXPECT_EQ(*savekit::msgpack_to_json(*packed_object), object);
}

TEST(Transcode, AgreesWithTheTypedCodecs) {
  auto packed = savekit::to_msgpack(seeds::seed_status());
  EXPECT_EQ(*savekit::msgpack_to_json(packed), savekit::to_json(seeds::seed_status()));
  auto from_json = savekit::json_to_msgpack(savekit::to_json(seeds::seed_save_game()));
  ASSERT_TRUE(from_json);
  EXPECT_EQ(*savekit::from_msgpack<seeds::SaveGame>(*from_json), seeds::seed_save_game());
}

TEST(Transcode, BinaryBecomesBase64AndIntegerKeysBecomeStrings) {
  EXPECT_EQ(*savekit::msgpack_to_json(bytes({0xc4, 0x02, 0x00, 0xff})), R"("AP8=")");
  EXPECT_EQ(*savekit::msgpack_to_json(savekit::to_msgpack(std::map<int, bool>{{-3, true}, {4, false}})),
            R"({"-3":true,"4":false})");
}

TEST(Transcode, Float32IsPrintedAsTheDoubleItEquals) {
  // Regression: float32 was printed with float-shortest digits (2^31 as 2147483600.0),
  // which every double-based JSON reader takes for another number (the cross-implementation
  // msgpack-test-suite failed 4 cases on this). strtod is the double reader here.
  std::mt19937 rng(11);
  std::vector<std::uint32_t> patterns = {0x4f000000u, 0x3dcccccdu, 0x00000001u, 0x7f7fffffu, 0x80800000u, 0x3f800001u};
  for (int i = 0; i < 2000; ++i) patterns.push_back(static_cast<std::uint32_t>(rng()));
  for (std::uint32_t pattern : patterns) {
    float f = 0;
    std::memcpy(&f, &pattern, 4);
    if (!std::isfinite(f)) continue;
    auto text = savekit::msgpack_to_json(
        bytes({0xca, static_cast<std::uint8_t>(pattern >> 24), static_cast<std::uint8_t>(pattern >> 16),
               static_cast<std::uint8_t>(pattern >> 8), static_cast<std::uint8_t>(pattern)}));
    ASSERT_TRUE(text);
    EXPECT_EQ(std::strtod(text->c_str(), nullptr), static_cast<double>(f)) << *text << " for " << pattern;
  }
  EXPECT_EQ(std::strtod(savekit::msgpack_to_json(bytes({0xca, 0x4f, 0x00, 0x00, 0x00}))->c_str(), nullptr),
            2147483648.0);
}

TEST(Transcode, PrettyOutput) {
  auto text = savekit::msgpack_to_json(savekit::to_msgpack(seeds::InventoryItem{1, 2}), {.pretty = true});
  EXPECT_EQ(*text, "{\n  \"Id\": 1,\n  \"Quantity\": 2\n}");
}

TEST(Transcode, RefusesWhatJsonCannotHold) {
  EXPECT_EQ(savekit::msgpack_to_json(savekit::to_msgpack(std::nan(""))).error().code(),
            savekit::errc::unsupported_type);
  EXPECT_EQ(savekit::msgpack_to_json(bytes({0x81, 0xc0, 0x01})).error().code(), savekit::errc::unsupported_type);
  EXPECT_EQ(savekit::msgpack_to_json(bytes({0xa1, 0xff})).error().code(), savekit::errc::invalid_utf8);
  EXPECT_EQ(savekit::json_to_msgpack("[1,]").error().code(), savekit::errc::syntax_error);
  EXPECT_EQ(savekit::json_to_msgpack("[1] 2").error().code(), savekit::errc::trailing_data);
}

TEST(Transcode, ErrorPathNamesEscapedKeys) {
  // Found by fuzz_json_to_msgpack: the path of an error under escaped keys.
  auto r = savekit::json_to_msgpack(R"({"k\u0041":{"z\u0042":[1,x]}})");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().path(), "$.kA.zB[1]");
}
