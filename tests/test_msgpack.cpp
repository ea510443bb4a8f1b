// MessagePack codec: golden bytes from the spec, every encoding accepted, both forms,
// schema evolution.
#include <savekit/msgpack.hpp>
#include <savekit/transcode.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "seed_types.hpp"

namespace {

std::vector<std::byte> bytes(std::initializer_list<int> list) {
  std::vector<std::byte> out;
  for (int b : list) out.push_back(static_cast<std::byte>(b));
  return out;
}

std::vector<std::byte> with_text(std::vector<std::byte> head, std::string_view text) {
  for (char c : text) head.push_back(static_cast<std::byte>(c));
  return head;
}

// Version 1 and version 2 of a save: v2 removed `gold` (key 1) and added `title` (key 3).
struct HeroV1 {
  int level = 0;
  int gold = 0;
  std::string name;
  bool operator==(const HeroV1&) const = default;
};

struct HeroV2 {
  int level = 0;
  std::string name;
  std::string title;
  static constexpr auto savekit_fields() {
    return savekit::fields(savekit::field("level", &HeroV2::level).with_key(0),
                           savekit::field("name", &HeroV2::name).with_key(2),
                           savekit::field("title", &HeroV2::title).with_key(3));
  }
};

constexpr savekit::msgpack_options compact{.form = savekit::msgpack_form::compact};

}  // namespace

TEST(MsgpackGolden, SaveGameCompactIs22Bytes) {
  // Assembled by hand from the MessagePack spec: fixarray(3) fixstr(9) "Speed Run"
  // uint16 10000 fixarray(2) [fixarray(2) 100 5] [fixarray(2) uint8 200 20]
  auto expected = with_text(bytes({0x93, 0xa9}), "Speed Run");
  for (int b : {0xcd, 0x27, 0x10, 0x92, 0x92, 0x64, 0x05, 0x92, 0xcc, 0xc8, 0x14}) expected.push_back(std::byte(b));
  auto packed = savekit::to_msgpack(seeds::seed_save_game(), compact);
  EXPECT_EQ(packed.size(), 22u);
  EXPECT_EQ(packed, expected);
}

TEST(MsgpackGolden, SaveGameMapForm) {
  auto expected = with_text(bytes({0x83, 0xa4}), "Name");
  expected = with_text(expected, "\xa9Speed Run\xa9HighScore");
  for (int b : {0xcd, 0x27, 0x10}) expected.push_back(std::byte(b));
  expected = with_text(expected, "\xa9Inventory\x92\x82\xa2Id\x64\xa8Quantity\x05\x82\xa2Id\xcc\xc8\xa8Quantity\x14");
  EXPECT_EQ(savekit::to_msgpack(seeds::seed_save_game()), expected);
}

TEST(MsgpackGolden, StatusCompactIs28Bytes) {
  auto expected = bytes({0x98, 0x01, 0x00, 0x0a, 0x0a, 0x01, 0x01, 0x01, 0x94, 0xaf});
  expected = with_text(expected, "ぬののふく");
  for (int b : {0x00, 0x01, 0x00}) expected.push_back(std::byte(b));
  auto packed = savekit::to_msgpack(seeds::seed_status(), compact);
  EXPECT_EQ(packed, expected);
  auto back = savekit::from_msgpack<seeds::Status>(packed);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, seeds::seed_status());
}

TEST(MsgpackWrite, SmallestIntegerEncodings) {
  struct Case {
    std::int64_t value;
    std::vector<std::byte> encoded;
  };
  const Case cases[] = {
      {0, bytes({0x00})},
      {127, bytes({0x7f})},
      {128, bytes({0xcc, 0x80})},
      {255, bytes({0xcc, 0xff})},
      {256, bytes({0xcd, 0x01, 0x00})},
      {65536, bytes({0xce, 0x00, 0x01, 0x00, 0x00})},
      {4294967296, bytes({0xcf, 0, 0, 0, 1, 0, 0, 0, 0})},
      {-1, bytes({0xff})},
      {-32, bytes({0xe0})},
      {-33, bytes({0xd0, 0xdf})},
      {-129, bytes({0xd1, 0xff, 0x7f})},
      {-32769, bytes({0xd2, 0xff, 0xff, 0x7f, 0xff})},
      {std::numeric_limits<std::int64_t>::min(), bytes({0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0})},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(savekit::to_msgpack(c.value), c.encoded) << c.value;
    auto back = savekit::from_msgpack<std::int64_t>(c.encoded);
    ASSERT_TRUE(back) << c.value;
    EXPECT_EQ(*back, c.value);
  }
}

TEST(MsgpackWrite, StringAndContainerHeaders) {
  EXPECT_EQ(savekit::to_msgpack(std::string(31, 'a'))[0], std::byte{0xbf});
  EXPECT_EQ(savekit::to_msgpack(std::string(32, 'a'))[0], std::byte{0xd9});
  EXPECT_EQ(savekit::to_msgpack(std::string(256, 'a'))[0], std::byte{0xda});
  EXPECT_EQ(savekit::to_msgpack(std::string(65536, 'a'))[0], std::byte{0xdb});
  EXPECT_EQ(savekit::to_msgpack(std::vector<int>(15))[0], std::byte{0x9f});
  EXPECT_EQ(savekit::to_msgpack(std::vector<int>(16))[0], std::byte{0xdc});
  EXPECT_EQ(savekit::to_msgpack(std::vector<int>(65536))[0], std::byte{0xdd});
  EXPECT_EQ(savekit::to_msgpack(std::vector<std::byte>(3))[0], std::byte{0xc4});
  EXPECT_EQ(savekit::to_msgpack(1.5f), bytes({0xca, 0x3f, 0xc0, 0x00, 0x00}));
  EXPECT_EQ(savekit::to_msgpack(1.5), bytes({0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0}));
}

TEST(MsgpackRead, AcceptsEveryEncodingOfAValue) {
  // 5 as every integer format.
  for (auto encoded : {bytes({0x05}), bytes({0xcc, 5}), bytes({0xcd, 0, 5}), bytes({0xce, 0, 0, 0, 5}),
                       bytes({0xcf, 0, 0, 0, 0, 0, 0, 0, 5}), bytes({0xd0, 5}), bytes({0xd1, 0, 5}),
                       bytes({0xd2, 0, 0, 0, 5}), bytes({0xd3, 0, 0, 0, 0, 0, 0, 0, 5})}) {
    auto r = savekit::from_msgpack<std::uint8_t>(encoded);
    ASSERT_TRUE(r) << r.error().to_string();
    EXPECT_EQ(*r, 5);
  }
  // "ab" as every string and binary format.
  for (auto encoded :
       {with_text(bytes({0xa2}), "ab"), with_text(bytes({0xd9, 2}), "ab"), with_text(bytes({0xda, 0, 2}), "ab"),
        with_text(bytes({0xdb, 0, 0, 0, 2}), "ab"), with_text(bytes({0xc4, 2}), "ab"),
        with_text(bytes({0xc5, 0, 2}), "ab"), with_text(bytes({0xc6, 0, 0, 0, 2}), "ab")}) {
    auto r = savekit::from_msgpack<std::string>(encoded);
    ASSERT_TRUE(r);
    EXPECT_EQ(*r, "ab");
  }
  // [1, 2] as array16 and array32; {"a": 1} as map16 and map32.
  EXPECT_EQ(*savekit::from_msgpack<std::vector<int>>(bytes({0xdc, 0, 2, 1, 2})), (std::vector<int>{1, 2}));
  EXPECT_EQ(*savekit::from_msgpack<std::vector<int>>(bytes({0xdd, 0, 0, 0, 2, 1, 2})), (std::vector<int>{1, 2}));
  using Map = std::map<std::string, int>;
  EXPECT_EQ(*savekit::from_msgpack<Map>(bytes({0xde, 0, 1, 0xa1, 'a', 1})), (Map{{"a", 1}}));
  EXPECT_EQ(*savekit::from_msgpack<Map>(bytes({0xdf, 0, 0, 0, 1, 0xa1, 'a', 1})), (Map{{"a", 1}}));
  // float32 and integers into double.
  EXPECT_EQ(*savekit::from_msgpack<double>(bytes({0xca, 0x3f, 0xc0, 0x00, 0x00})), 1.5);
  EXPECT_EQ(*savekit::from_msgpack<double>(bytes({0xd0, 0xfe})), -2.0);
}

TEST(MsgpackRead, StringsAreByteClean) {
  std::string every_byte;
  for (int i = 0; i < 256; ++i) every_byte.push_back(static_cast<char>(i));
  auto back = savekit::from_msgpack<std::string>(savekit::to_msgpack(every_byte));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, every_byte);
}

TEST(MsgpackRead, FloatsKeepNanAndInfinity) {
  auto inf = savekit::from_msgpack<double>(savekit::to_msgpack(std::numeric_limits<double>::infinity()));
  EXPECT_EQ(*inf, std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(*savekit::from_msgpack<float>(savekit::to_msgpack(std::nanf("")))));
}

TEST(MsgpackRead, EitherFormIntoTheSameStruct) {
  for (auto form : {savekit::msgpack_form::map, savekit::msgpack_form::compact}) {
    auto packed = savekit::to_msgpack(seeds::seed_save_game(), {.form = form});
    seeds::SaveGame loaded;
    ASSERT_TRUE(savekit::from_msgpack(packed, loaded));
    EXPECT_EQ(loaded, seeds::seed_save_game());
  }
}

TEST(MsgpackSchema, MapFormSurvivesAddedRemovedAndReorderedFields) {
  HeroV1 old{7, 100, "Ann"};
  auto packed = savekit::to_msgpack(old);
  auto upgraded = savekit::from_msgpack<HeroV2>(packed);
  ASSERT_TRUE(upgraded);
  EXPECT_EQ(upgraded->level, 7);
  EXPECT_EQ(upgraded->name, "Ann");
  EXPECT_EQ(upgraded->title, "");
  HeroV2 newer{8, "Bo", "Sir"};
  auto downgraded = savekit::from_msgpack<HeroV1>(savekit::to_msgpack(newer));
  ASSERT_TRUE(downgraded);
  EXPECT_EQ(*downgraded, (HeroV1{8, 0, "Bo"}));
}

namespace {
// Values of bounded size are written in runs, one reservation each; a type that contains
// itself is written value by value (its writer counts the depth of every struct). Each pair
// below holds the same data in the two kinds of type, so the bytes must be the same.
enum class Mood : std::int16_t { calm = -300, angry = 7 };
struct Scalars {  // bounded: every member has a most size
  std::int8_t a = 0;
  std::uint16_t b = 0;
  std::int64_t c = 0;
  bool d = false;
  float e = 0;
  double f = 0;
  Mood g = Mood::calm;
  std::array<std::uint32_t, 3> h{};
};
struct Wide {  // 17 members: array16 and map16 headers
  int m0 = 0, m1 = 0, m2 = 0, m3 = 0, m4 = 0, m5 = 0, m6 = 0, m7 = 0, m8 = 0, m9 = 0, m10 = 0, m11 = 0, m12 = 0,
      m13 = 0, m14 = 0, m15 = 0, m16 = 0;
};
struct Gapped {  // compact slots with gaps (nil) between bounded members, and a string
  int first = 0;
  std::string middle;
  Scalars last;
  static constexpr auto savekit_fields() {
    return savekit::fields(savekit::field("first", &Gapped::first).with_key(1),
                           savekit::field("middle", &Gapped::middle).with_key(2),
                           savekit::field("last", &Gapped::last).with_key(5));
  }
};
struct Flat {  // bounded runs
  Scalars s;
  std::string name;
  Wide wide;
  Gapped gapped;
  std::vector<Scalars> many;
  std::vector<int> kids;  // empty: what Tree's kids are
  std::int32_t last = 0;
};
struct Tree {  // contains itself: value by value
  Scalars s;
  std::string name;
  Wide wide;
  Gapped gapped;
  std::vector<Scalars> many;
  std::vector<Tree> kids;
  std::int32_t last = 0;
};
}  // namespace

TEST(MsgpackWrite, BoundedRunsWriteTheBytesOfValueByValue) {
  static_assert(!savekit::detail::depth_is_bounded<Tree> && savekit::detail::depth_is_bounded<Flat>);
  const std::int64_t edges[] = {0,
                                1,
                                127,
                                128,
                                255,
                                256,
                                65535,
                                65536,
                                -1,
                                -32,
                                -33,
                                -128,
                                -129,
                                -32768,
                                -32769,
                                2147483647,
                                -2147483647 - 1,
                                std::int64_t{1} << 40,
                                std::numeric_limits<std::int64_t>::min()};
  std::size_t compared = 0;
  for (std::size_t round = 0; round < std::size(edges); ++round) {
    auto edge = [&](std::size_t k) { return edges[(round + k) % std::size(edges)]; };
    Scalars s{static_cast<std::int8_t>(edge(0)),
              static_cast<std::uint16_t>(edge(1)),
              edge(2),
              round % 2 == 0,
              static_cast<float>(edge(3)) / 3,
              static_cast<double>(edge(4)) / 7,
              round % 3 ? Mood::calm : Mood::angry,
              {static_cast<std::uint32_t>(edge(5)), static_cast<std::uint32_t>(edge(6)), 0}};
    Wide wide{};
    int* member = &wide.m0;
    for (int i = 0; i < 17; ++i) member[i] = static_cast<int>(edge(static_cast<std::size_t>(i)));
    Gapped gapped{static_cast<int>(edge(7)), std::string(round * 3, 'g'), s};
    std::vector<Scalars> many(round * 211, s);  // up to ~3,800: several chunks of a reservation each
    Flat flat{s, std::string(round * 5, 'n'), wide, gapped, many, {}, static_cast<std::int32_t>(edge(8))};
    Tree tree{s, flat.name, wide, gapped, many, {}, flat.last};
    for (auto options : {compact, savekit::msgpack_options{}}) {
      auto from_runs = savekit::to_msgpack(flat, options);
      auto one_by_one = savekit::to_msgpack(tree, options);
      ASSERT_TRUE(one_by_one);
      ASSERT_EQ(from_runs, *one_by_one) << "round " << round << (options.form == compact.form ? " compact" : " map");
      auto back = savekit::from_msgpack<Tree>(from_runs);
      ASSERT_TRUE(back) << back.error().to_string();
      EXPECT_EQ(back->many.size(), many.size());
      ++compared;
    }
  }
  EXPECT_EQ(compared, 2 * std::size(edges));
}

namespace {
// Every kind a whole-struct reservation takes (a "sized" struct: strings, bytes, optionals,
// sequences of bounded values, nested structs), and the same members in a struct that
// contains itself, which is written value by value with a check per value.
struct SizedInner {
  std::optional<std::string> label;
  std::vector<std::int16_t> marks;
};
struct Sized {
  std::string text;
  std::vector<std::byte> blob;
  std::optional<Scalars> maybe;
  std::optional<std::string> maybe_text;
  SizedInner inner;
  std::array<double, 2> pair{};
};
struct Unsized {
  std::string text;
  std::vector<std::byte> blob;
  std::optional<Scalars> maybe;
  std::optional<std::string> maybe_text;
  SizedInner inner;
  std::array<double, 2> pair{};
  std::vector<Unsized> kids;  // always empty: the same bytes as Sized, one more member
};
}  // namespace

// A sized struct is written into one reservation of sized_msgpack_bound bytes (or, past
// max_sized_reservation, member by member): the same bytes as the checked writer's, at
// every string and array header boundary, never more than the bound.
TEST(MsgpackWrite, ASizedStructWritesInOneReservationTheBytesOfValueByValue) {
  static_assert(savekit::detail::sized_msgpack<Sized> && !savekit::detail::sized_msgpack<Unsized>);
  const std::size_t lengths[] = {0, 1, 15, 16, 31, 32, 255, 256, 4000, 4100, 65535, 65536};
  std::size_t compared = 0, in_one_reservation = 0;
  for (std::size_t length : lengths) {
    for (int variant = 0; variant < 4; ++variant) {
      Sized sized{std::string(length, 't'),
                  std::vector<std::byte>(length / (variant + 1), std::byte{0xc1}),
                  {},
                  {},
                  {},
                  {1.5, -0.25}};
      if (variant & 1) sized.maybe = Scalars{-5, 300, std::int64_t{1} << 33, true, 0.5f, -2.0, Mood::angry, {7, 8, 9}};
      if (variant & 2) sized.maybe_text = std::string(length / 2, 'm');
      if (variant != 0) sized.inner.label = std::string(variant * 11, 'l');
      sized.inner.marks.assign(length % 300, static_cast<std::int16_t>(-129 * variant));
      Unsized unsized{sized.text, sized.blob, sized.maybe, sized.maybe_text, sized.inner, sized.pair, {}};
      for (auto options : {compact, savekit::msgpack_options{}}) {
        std::vector<std::byte> reused(7, std::byte{0xee});
        savekit::to_msgpack(sized, reused, options);
        auto by_value = savekit::to_msgpack(unsized, options);
        ASSERT_TRUE(by_value);
        // Unsized ends with one more member (an empty array): drop it and fix the header.
        std::vector<std::byte> expected = *by_value;
        ASSERT_EQ(expected.back(), std::byte{0x90});
        expected.pop_back();
        if (options.form == compact.form) {
          ASSERT_EQ(expected[0], std::byte{0x97});
          expected[0] = std::byte{0x96};
        } else {
          ASSERT_EQ(expected[0], std::byte{0x87});
          expected[0] = std::byte{0x86};
          expected.resize(expected.size() - 5);  // the key "kids"
        }
        ASSERT_EQ(reused, expected) << "length " << length << " variant " << variant;
        if (savekit::detail::sized_msgpack_bound(sized) <= savekit::detail::max_sized_reservation) {
          EXPECT_LE(reused.size(), savekit::detail::sized_msgpack_bound(sized));
          ++in_one_reservation;
        }
        auto back = savekit::from_msgpack<Unsized>(reused);
        ASSERT_TRUE(back) << back.error().to_string();
        EXPECT_EQ(back->text.size(), length);
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 2 * 4 * std::size(lengths));
  EXPECT_GT(in_one_reservation, compared / 3);  // both paths are taken
  EXPECT_LT(in_one_reservation, compared);
}

namespace {
// One byte in memory, 259 bytes in its bound (the map form's key: a 255-character name).
constexpr std::string_view longest_name =
    "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
    "kk"
    "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
    "kk"
    "kkkkkkkkkkkkkkkkkkkkkkk";
struct LongNamed {
  bool b = false;
  static constexpr auto savekit_fields() { return savekit::fields(savekit::field(longest_name, &LongNamed::b)); }
};
struct LongNamedMany {
  std::vector<LongNamed> many;
  std::string tail;
};
}  // namespace

// 16,582,886 of them are bounded at 2^32 + 202 bytes: where std::size_t has 32 bits
// (WebAssembly) that sum wrapped to 202, which seemed to fit one reservation, and the
// writer wrote 33 MB into it. The bound saturates instead: member by member, every byte.
TEST(MsgpackWrite, ASizedStructsBoundNeverWrapsToFitOneReservation) {
  static_assert(longest_name.size() == 255);
  static_assert(savekit::detail::bounded_msgpack_size<LongNamed>() == 259 && sizeof(LongNamed) == 1);
  LongNamedMany value{std::vector<LongNamed>(16582886), "end"};
  value.many[12345].b = true;
  EXPECT_GT(savekit::detail::sized_msgpack_bound(value), savekit::detail::max_sized_reservation);
  const std::vector<std::byte> bytes = savekit::to_msgpack(value, compact);  // 2 bytes an element
  EXPECT_EQ(bytes.size(), 1 + 5 + 2 * value.many.size() + 4);
  auto back = savekit::from_msgpack<LongNamedMany>(bytes);
  ASSERT_TRUE(back) << back.error().to_string();
  ASSERT_EQ(back->many.size(), value.many.size());
  EXPECT_TRUE(back->many[12345].b);
  EXPECT_FALSE(back->many[12344].b);
  EXPECT_EQ(back->tail, "end");
}

namespace {
struct Pair32 {
  std::int32_t a = 0;
  std::int32_t b = 0;
  bool operator==(const Pair32&) const = default;
};
struct SmallAndFloat {
  std::int8_t a = 0;
  float b = 0;
  std::int16_t c = 0;
  bool operator==(const SmallAndFloat&) const = default;
};

// Random MessagePack for an array of count elements of `fields` members (0: numbers, not
// structs — floats among them if floats_at_1): every integer
// encoding (fixint, uint8..64, negative fixint, int8..64) with values in and out of the
// targets' ranges, floats, nil gaps, a map-form element now and then, a cut at the end.
std::vector<std::byte> random_element_array(std::mt19937& rng, int count, int fields, bool floats_at_1) {
  std::vector<std::byte> out;
  auto put = [&](int b) { out.push_back(static_cast<std::byte>(b)); };
  auto put_be = [&](std::uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) put(static_cast<int>((v >> (8 * i)) & 0xff));
  };
  const std::int64_t edges[] = {0,     1,      127,        128,           255,          256, 32767, 32768,
                                65535, 65536,  2147483647, 2147483648LL,  -1,           -32, -33,   -128,
                                -129,  -32768, -32769,     -2147483648LL, -2147483649LL};
  auto put_integer = [&] {
    // Mostly values every target holds (so that arrays are read whole), sometimes an edge.
    const std::int64_t v =
        rng() % 12 != 0 ? static_cast<std::int64_t>(rng() % 300) - 100 : edges[rng() % std::size(edges)];
    switch (rng() % 9) {
      case 0:
        if (v >= 0 && v < 128) return put(static_cast<int>(v));
        [[fallthrough]];
      case 1:
        if (v >= 0 && v < 256) return put(0xcc), put_be(static_cast<std::uint64_t>(v), 1);
        [[fallthrough]];
      case 2:
        if (v >= 0 && v < 65536) return put(0xcd), put_be(static_cast<std::uint64_t>(v), 2);
        [[fallthrough]];
      case 3:
        if (v >= 0 && v < 4294967296LL) return put(0xce), put_be(static_cast<std::uint64_t>(v), 4);
        return put(0xd3), put_be(static_cast<std::uint64_t>(v), 8);
      case 4:
        if (v >= 0) return put(0xcf), put_be(static_cast<std::uint64_t>(v), 8);
        [[fallthrough]];
      case 5:
        if (v >= -32 && v < 0) return put(static_cast<int>(v & 0xff));
        [[fallthrough]];
      case 6:
        if (v >= -128 && v < 128) return put(0xd0), put_be(static_cast<std::uint64_t>(v), 1);
        [[fallthrough]];
      case 7:
        if (v >= -32768 && v < 32768) return put(0xd1), put_be(static_cast<std::uint64_t>(v), 2);
        [[fallthrough]];
      default:
        if (v >= -2147483648LL && v < 2147483648LL) return put(0xd2), put_be(static_cast<std::uint64_t>(v), 4);
        return put(0xd3), put_be(static_cast<std::uint64_t>(v), 8);
    }
  };
  put(0xdc);
  put_be(static_cast<std::uint64_t>(count), 2);
  for (int e = 0; e < count; ++e) {
    if (fields == 0) {  // an array of numbers: each element one integer (or float), or nil
      const unsigned pick = rng() % 50;
      if (pick == 0) {
        put(0xc0);
      } else if (floats_at_1 && pick > 2) {  // mostly float32 (or float64) runs
        const double value = static_cast<double>(static_cast<int>(rng() % 20000) - 10000) / 16;
        if (pick > 5) {
          const auto narrow = static_cast<float>(value);
          std::uint32_t bits;
          std::memcpy(&bits, &narrow, 4);
          put(0xca), put_be(bits, 4);
        } else {
          std::uint64_t bits;
          std::memcpy(&bits, &value, 8);
          put(0xcb), put_be(bits, 8);
        }
      } else {
        put_integer();
      }
      continue;
    }
    const bool map_form = rng() % 40 == 0;
    put((map_form ? 0x80 : 0x90) | fields);
    for (int f = 0; f < fields; ++f) {
      if (map_form) put(0xa1), put('a' + f);
      if (rng() % 50 == 0) {
        put(0xc0);  // nil: a gap in a compact slot
      } else if (floats_at_1 && f == 1 && rng() % 4 != 0) {
        float value = static_cast<float>(rng() % 1000) / 8;
        std::uint32_t bits;
        std::memcpy(&bits, &value, 4);
        put(0xca), put_be(bits, 4);
      } else {
        put_integer();
      }
    }
  }
  if (rng() % 5 == 0) out.resize(out.size() - 1 - rng() % std::min<std::size_t>(out.size() - 3, 20));
  return out;
}

// The same bytes into a vector (whose elements are read in one tight loop while they are in
// their usual forms) and into a deque (always read element by element): the same values, or
// the same error at the same offset and path.
template <class T>
void expect_flat_reads_as_general_reads(std::mt19937& rng, int fields, bool floats_at_1, int& read_whole) {
  // From one element (read with each value's room checked, as at the input's end) to 48
  // (most of them read with one check per element).
  const auto bytes = random_element_array(rng, 1 + static_cast<int>(rng() % 48), fields, floats_at_1);
  for (bool reuse : {false, true}) {
    std::vector<T> flat(reuse ? 20 : 0);
    std::deque<T> general(flat.begin(), flat.end());
    auto a = savekit::from_msgpack(bytes, flat);
    auto b = savekit::from_msgpack(bytes, general);
    ASSERT_EQ(a.has_value(), b.has_value()) << (a ? b.error().to_string() : a.error().to_string());
    if (!a) {
      EXPECT_EQ(a.error().code(), b.error().code());
      EXPECT_EQ(a.error().offset(), b.error().offset());
      EXPECT_EQ(a.error().path(), b.error().path());
      continue;
    }
    ++read_whole;
    ASSERT_EQ(flat.size(), general.size());
    for (std::size_t i = 0; i < flat.size(); ++i) EXPECT_EQ(flat[i], general[i]) << "element " << i;
  }
}
}  // namespace

TEST(MsgpackRead, ArraysOfSmallStructsReadInOneLoopAsElementByElement) {
  std::mt19937 rng(20261201);
  int read_whole = 0;
  for (int round = 0; round < 3000; ++round) {
    expect_flat_reads_as_general_reads<Pair32>(rng, 2, false, read_whole);
    expect_flat_reads_as_general_reads<SmallAndFloat>(rng, 3, true, read_whole);
    expect_flat_reads_as_general_reads<std::int32_t>(rng, 0, false, read_whole);
    expect_flat_reads_as_general_reads<float>(rng, 0, true, read_whole);
    expect_flat_reads_as_general_reads<double>(rng, 0, true, read_whole);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(read_whole, 500) << "enough inputs are read whole, not only refused";
}

TEST(MsgpackSchema, CompactFormKeepsKeysStable) {
  HeroV2 hero{8, "Bo", "Sir"};
  auto packed = savekit::to_msgpack(hero, compact);
  // [8, nil, "Bo", "Sir"]: the removed field's slot stays nil.
  EXPECT_EQ(packed, with_text(bytes({0x94, 0x08, 0xc0, 0xa2}), "Bo\xa3Sir"));
  // An old reader sees level and name at their old keys and skips what it does not know.
  auto old = savekit::from_msgpack<HeroV1>(packed);
  ASSERT_TRUE(old);
  EXPECT_EQ(*old, (HeroV1{8, 0, "Bo"}));
  auto upgraded = savekit::from_msgpack<HeroV2>(savekit::to_msgpack(HeroV1{7, 100, "Ann"}, compact));
  ASSERT_TRUE(upgraded);
  EXPECT_EQ(upgraded->level, 7);
  EXPECT_EQ(upgraded->name, "Ann");
}

namespace {
struct Room {
  std::vector<int> items;
  int light = 0;
  bool operator==(const Room&) const = default;
};

// A map read into again holds exactly the input's keys, each entry read in place as a
// reused sequence's elements are: old keys the input lacks are gone, new ones start fresh,
// an old key's entry keeps its capacity and the members the input leaves out, a repeated
// key is read into the same entry again; in any key order. read(json, map) reads the JSON
// text, or its MessagePack.
template <class Map, class Read>
void expect_reused_map_holds_the_input(Read read) {
  Map rooms{{"attic", {{1, 2, 3}, 5}}, {"cellar", {{4}, 1}}, {"hall", {{7, 8}, 2}}};
  const int* attic_items = rooms["attic"].items.data();
  ASSERT_TRUE(
      read(R"({"hall":{"items":[9]},"attic":{"items":[6,6]},"y\u0061rd":{"light":3},"hall":{"light":4}})", rooms));
  EXPECT_EQ(rooms.size(), 3u);
  EXPECT_EQ(rooms["attic"], (Room{{6, 6}, 5}));
  EXPECT_EQ(rooms["attic"].items.data(), attic_items);
  EXPECT_EQ(rooms["hall"], (Room{{9}, 4}));
  EXPECT_EQ(rooms["yard"], (Room{{}, 3}));
  EXPECT_EQ(rooms.count("cellar"), 0u);
  std::map<int, int> levels{{1, 10}, {2, 20}, {3, 30}};
  ASSERT_TRUE(read(R"({"3":33,"1":11,"4":44})", levels));
  EXPECT_EQ(levels, (std::map<int, int>{{1, 11}, {3, 33}, {4, 44}}));
}
}  // namespace

TEST(Codecs, AReusedMapHoldsExactlyTheInputsEntries) {
  auto json = [](std::string_view text, auto& map) { return savekit::from_json(text, map); };
  auto msgpack = [](std::string_view text, auto& map) {
    auto bytes = savekit::json_to_msgpack(text);
    return bytes ? savekit::from_msgpack(*bytes, map) : savekit::status{bytes.error()};
  };
  expect_reused_map_holds_the_input<std::map<std::string, Room>>(json);
  expect_reused_map_holds_the_input<std::unordered_map<std::string, Room>>(json);
  expect_reused_map_holds_the_input<std::map<std::string, Room>>(msgpack);
  expect_reused_map_holds_the_input<std::unordered_map<std::string, Room>>(msgpack);
}

// A comparator that counts its calls, in text order or the reverse: how a reused map's read
// found its entries. In one pass, the next old entry each time, is a few calls per entry;
// by lookup, about log2(n) (10 here).
std::size_t comparisons = 0;
template <bool Descending>
struct counting_order {
  bool operator()(const std::string& a, const std::string& b) const {
    ++comparisons;
    return Descending ? b < a : a < b;
  }
};

// Read back into the map it came from, with one key dropped (first, middle, last) or one
// added (before all, in the middle, after all, in the map's order), in JSON and MessagePack:
// the map holds exactly the input, every kept entry read in place, found in one pass.
template <bool Descending>
void expect_a_reused_map_read_in_one_pass() {
  using Map = std::map<std::string, Room, counting_order<Descending>>;
  Map full;
  for (int i = 0; i < 1000; ++i) full["room " + std::to_string(1000 + i)] = {{i}, i};
  const std::string first = full.begin()->first, last = std::prev(full.end())->first;
  const std::string before_all = Descending ? "room 9999" : "room 0999";
  const std::string after_all = Descending ? "room 0999" : "room 9999";
  std::vector<std::function<void(Map&)>> edits{
      [&](Map& m) { m.erase(first); },
      [&](Map& m) { m.erase("room 1500"); },
      [&](Map& m) { m.erase(last); },
      [&](Map& m) {
        m[before_all] = {{-1}, -1};
      },
      [&](Map& m) {
        m["room 1500a"] = {{-1}, -1};
      },
      [&](Map& m) {
        m[after_all] = {{-1}, -1};
      },
  };
  for (std::size_t e = 0; e < edits.size(); ++e) {
    Map input = full;
    edits[e](input);
    for (auto& [name, room] : input) room.light += 10;
    for (bool json : {true, false}) {
      Map rooms = full;
      std::map<std::string, const int*> items;
      for (const auto& [name, room] : rooms) items[name] = room.items.data();
      comparisons = 0;
      if (json) {
        ASSERT_TRUE(savekit::from_json(savekit::to_json(input), rooms));
      } else {
        ASSERT_TRUE(savekit::from_msgpack(savekit::to_msgpack(input), rooms));
      }
      const std::size_t calls = comparisons;
      EXPECT_TRUE(rooms == input) << "edit " << e;
      EXPECT_LE(calls, 4 * input.size()) << "edit " << e << (json ? " JSON" : " MessagePack")
                                         << ": entries were looked up, not taken in one pass";
      for (const auto& [name, room] : rooms) {
        if (items.count(name) != 0) {
          EXPECT_EQ(room.items.data(), items[name]) << name << ", edit " << e;
        }
      }
    }
  }
}

TEST(Codecs, AReusedMapIsReadInOnePassInItsOwnOrderWhateverItsComparator) {
  expect_a_reused_map_read_in_one_pass<false>();
  expect_a_reused_map_read_in_one_pass<true>();
}

// Under a comparator that calls two spellings the same key, the entry read in place takes
// the input's spelling, as a fresh map would; and both codecs give the same error for a
// bad integer key, whatever memory is left.
struct case_insensitive {
  bool operator()(const std::string& a, const std::string& b) const {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                        [](char x, char y) { return std::tolower(x) < std::tolower(y); });
  }
};

TEST(Codecs, AMapEntryReadInPlaceTakesTheInputsKey) {
  std::map<std::string, int, case_insensitive> items{{"Sword", 1}};
  ASSERT_TRUE(savekit::from_json(R"({"sword":2})", items));
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items.begin()->first, "sword");
  EXPECT_EQ(items.begin()->second, 2);
  items = {{"Sword", 1}};
  ASSERT_TRUE(savekit::from_msgpack(savekit::to_msgpack(std::map<std::string, int>{{"sword", 2}}), items));
  EXPECT_EQ(items.begin()->first, "sword");

  std::map<int, int> levels;
  auto json = savekit::from_json(R"({"x":1})", levels, {.max_memory = 1});
  auto packed = savekit::json_to_msgpack(R"({"x":1})");
  ASSERT_TRUE(packed);
  auto msgpack = savekit::from_msgpack(*packed, levels, {.max_memory = 1});
  ASSERT_FALSE(json);
  ASSERT_FALSE(msgpack);
  EXPECT_EQ(json.error().code(), savekit::errc::type_mismatch);
  EXPECT_EQ(msgpack.error().code(), savekit::errc::type_mismatch);
}

TEST(MsgpackRead, IntoExistingObjectReusesCapacity) {
  auto packed = savekit::to_msgpack(seeds::seed_save_game());
  seeds::SaveGame save;
  save.Name.reserve(64);
  save.Inventory.reserve(8);
  const char* name = save.Name.data();
  const seeds::InventoryItem* items = save.Inventory.data();
  ASSERT_TRUE(savekit::from_msgpack(packed, save));
  EXPECT_EQ(save, seeds::seed_save_game());
  EXPECT_EQ(save.Name.data(), name);
  EXPECT_EQ(save.Inventory.data(), items);

  std::vector<std::byte> out;
  out.reserve(256);
  const std::byte* out_data = out.data();
  savekit::to_msgpack(save, out);
  EXPECT_EQ(out, packed);
  EXPECT_EQ(out.data(), out_data);
}

TEST(MsgpackRead, DepthLimit) {
  // {"x": [[[[...: the skipped value nests 100,000 deep.
  auto packed = with_text(bytes({0x81, 0xa1}), "x");
  packed.insert(packed.end(), 100000, std::byte{0x91});
  auto r = savekit::from_msgpack<seeds::InventoryItem>(packed);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), savekit::errc::depth_exceeded);
}

TEST(MsgpackRead, KeysThatAreNotFieldNamesAreSkipped) {
  // {1: 7, bin"Id": 5, "Quantity": 3}: an integer key is skipped with its value; a bin key
  // is read as a name.
  auto packed = bytes({0x83, 0x01, 0x07, 0xc4, 0x02, 'I', 'd', 0x05, 0xa8});
  packed = with_text(packed, "Quantity");
  packed.push_back(std::byte{0x03});
  auto r = savekit::from_msgpack<seeds::InventoryItem>(packed);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(*r, (seeds::InventoryItem{5, 3}));
}

namespace {
struct Note {
  std::string text;
  int mark = 0;
  std::vector<int> marks;
  bool operator==(const Note&) const = default;
};
}  // namespace

// A save is written through a first window on the stack and moves into the container when
// it outgrows it (detail/output.hpp): whatever the container held before, and wherever the
// move happens, the container ends with exactly the new save's bytes.
TEST(MsgpackWrite, AReusedBufferHoldsExactlyTheNewSaveWhateverItsSizeAndWhatItHeld) {
  const std::size_t lengths[] = {0, 1, 31, 32, 200, 480, 495, 500, 505, 511, 512, 513, 600, 1100, 5000};
  std::size_t checked = 0;
  for (std::size_t before : lengths) {
    for (std::size_t now : lengths) {
      Note previous{std::string(before, 'p'), 1, std::vector<int>(before / 3, 300)};
      Note note{std::string(now, 'n'), 70000, std::vector<int>(now / 7, -5)};
      for (auto options : {compact, savekit::msgpack_options{}}) {
        const std::vector<std::byte> fresh = savekit::to_msgpack(note, options);
        std::vector<std::byte> reused;
        savekit::to_msgpack(previous, reused, options);
        savekit::to_msgpack(note, reused, options);
        ASSERT_EQ(reused, fresh) << before << " then " << now;
        std::string reused_text;
        savekit::to_msgpack(previous, reused_text, options);
        savekit::to_msgpack(note, reused_text, options);
        ASSERT_EQ(reused_text.size(), fresh.size());
        ASSERT_EQ(std::memcmp(reused_text.data(), fresh.data(), fresh.size()), 0) << before << " then " << now;
        auto back = savekit::from_msgpack<Note>(reused);
        ASSERT_TRUE(back) << back.error().to_string();
        ASSERT_EQ(*back, note);
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 2 * std::size(lengths) * std::size(lengths));
}

// uint8, uint16 and uint32 are read inline with their own room checked: the input's last
// value (no room after it for a wider one) reads, and one cut short by a byte is an error.
TEST(MsgpackRead, AnIntegerThatEndsTheInputReadsAndOneCutShortIsAnError) {
  struct Case {
    std::vector<std::byte> encoded;
    std::uint32_t value;
  };
  const Case cases[] = {
      {bytes({0xcc, 0xc8}), 200}, {bytes({0xcd, 0x27, 0x10}), 10000}, {bytes({0xce, 0x00, 0x01, 0x86, 0xa0}), 100000}};
  for (const Case& c : cases) {
    for (std::size_t lead = 0; lead < 6; ++lead) {  // after an array header and `lead` fixints
      std::vector<std::byte> input = bytes({static_cast<int>(0x90 | (lead + 1))});
      for (std::size_t i = 0; i < lead; ++i) input.push_back(std::byte{7});
      input.insert(input.end(), c.encoded.begin(), c.encoded.end());
      auto read = savekit::from_msgpack<std::vector<std::uint32_t>>(input);
      ASSERT_TRUE(read) << read.error().to_string();
      ASSERT_EQ(read->size(), lead + 1);
      EXPECT_EQ(read->back(), c.value);
      std::vector<std::byte> cut(input.begin(), input.end() - 1);
      auto failed = savekit::from_msgpack<std::vector<std::uint32_t>>(cut);
      ASSERT_FALSE(failed);
      EXPECT_EQ(failed.error().code(), savekit::errc::unexpected_end) << failed.error().to_string();
      EXPECT_EQ(failed.error().path(), "$[" + std::to_string(lead) + "]");
    }
  }
}

// Regression (an attack review of the flat reader): its one check per element was for the
// widest encoding the writer uses for the type (2 bytes for an int8), but it takes wider
// ones (a uint32 that holds a small value): a value cut off by the end was read from the
// bytes after the input, and the cursor left past the end. Each input below is the start
// of a buffer whose next bytes would make it read "successfully"; the span ends before
// them, so the value is cut off: unexpected_end inside the input, at the element.
TEST(MsgpackRead, AFlatElementCutOffByTheEndIsNeverReadFromTheBytesAfterIt) {
  struct Byte1 {
    std::int8_t x = 0;
    bool operator==(const Byte1&) const = default;
  };
  struct Holder {
    std::vector<std::int16_t> a;
    int b = 0;
  };
  auto expect_cut = [](const std::vector<std::byte>& buffer, std::size_t length, auto into, const char* path) {
    // An exact-size copy too: under AddressSanitizer a read past it is a fault.
    const std::vector<std::byte> exact(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(length));
    for (const auto* input : {&buffer, &exact}) {
      auto target = into;
      auto read = savekit::from_msgpack(std::span(input->data(), length), target);
      ASSERT_FALSE(read) << path;
      EXPECT_EQ(read.error().code(), savekit::errc::unexpected_end) << read.error().to_string();
      EXPECT_LE(read.error().offset(), length) << read.error().to_string();
      EXPECT_EQ(read.error().path(), path) << read.error().to_string();
    }
  };
  expect_cut(bytes({0x91, 0xce, 0x00, 0x00, 0x00, 0x07}), 4, std::vector<std::int16_t>{}, "$[0]");
  expect_cut(bytes({0x92, 0x01, 0xcd, 0x00, 0x05}), 4, std::array<std::int8_t, 2>{}, "$[1]");
  expect_cut(bytes({0x91, 0x91, 0xd2, 0x00, 0x00, 0x00, 0x03}), 6, std::vector<Byte1>{}, "$[0].x");
  for (int lead = 0; lead < 10; ++lead) {  // after leading elements too (the tight loop's run)
    std::vector<std::byte> buffer = bytes({static_cast<int>(0x90 | (lead + 1))});
    for (int i = 0; i < lead; ++i) buffer.push_back(std::byte{1});
    const std::vector<std::byte> tail = bytes({0xce, 0x00, 0x00, 0x00, 0x07});
    buffer.insert(buffer.end(), tail.begin(), tail.end());
    expect_cut(buffer, buffer.size() - 1, std::vector<std::int8_t>{}, ("$[" + std::to_string(lead) + "]").c_str());
  }
  // A member after the cut-off array is not read from beyond the input either.
  const std::vector<std::byte> buffer = bytes({0x82, 0xa1, 'a', 0x91, 0xce, 0x00, 0x00, 0x00, 0x07, 0xa1, 'b', 0x05});
  Holder holder;
  auto read = savekit::from_msgpack(std::span(buffer.data(), 7), holder);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code(), savekit::errc::unexpected_end) << read.error().to_string();
  EXPECT_EQ(holder.b, 0);
}

// A string read into one that already has content: longer, shorter, as long (with other
// bytes), empty. Every length up to 33 — short ones are copied by overlapping words — and
// two long ones.
TEST(MsgpackRead, AStringReadOverAnotherHoldsExactlyTheInputsText) {
  auto text = [](std::size_t length, char first) {
    std::string out;
    for (std::size_t i = 0; i < length; ++i) out += static_cast<char>(first + (i * 7 + length) % 26);
    return out;
  };
  std::vector<std::string> befores, nows;
  for (std::size_t length : {std::size_t{40}, std::size_t{300}}) {
    befores.push_back(text(length, 'A'));
    nows.push_back(text(length, 'a'));
  }
  for (std::size_t length = 0; length <= 33; ++length) {
    befores.push_back(text(length, 'A'));
    nows.push_back(text(length, 'a'));
  }
  for (const std::string& before : befores) {
    for (const std::string& now : nows) {
      seeds::SaveGame save{before, 1, {{1, 2}}};
      auto packed = savekit::to_msgpack(seeds::SaveGame{now, 2, {}}, compact);
      ASSERT_TRUE(savekit::from_msgpack(packed, save));
      EXPECT_EQ(save.Name, now) << "over " << before.size() << " bytes";
      EXPECT_EQ(save.Name.size(), now.size());
      EXPECT_EQ(save.Name.c_str()[now.size()], '\0');
      EXPECT_TRUE(save.Inventory.empty());
    }
  }
}

namespace {
struct Ledger {
  int gold = 0;
  std::string owner;
  std::vector<int> debts;
  int day = 0;
  bool operator==(const Ledger&) const = default;
};

// One map entry: a fixstr key and an already encoded value.
void entry(std::vector<std::byte>& out, std::string_view key, const std::vector<int>& value) {
  out.push_back(static_cast<std::byte>(0xa0 | key.size()));
  for (char c : key) out.push_back(static_cast<std::byte>(c));
  for (int b : value) out.push_back(static_cast<std::byte>(b));
}
}  // namespace

// The map form is read in order unrolled while each key is the next field's, then by name:
// a save with its fields in another order, one missing, an unknown one or a key twice reads
// as the general reader reads it, wherever the order breaks; an error keeps its path.
TEST(MsgpackRead, MapFormFieldsReadInOrderThenByNameWhereverTheOrderBreaks) {
  using E = std::pair<std::string_view, std::vector<int>>;
  const E gold{"gold", {0xcd, 0x01, 0x2c}};          // 300
  const E owner{"owner", {0xa3, 'A', 'n', 'n'}};     // "Ann"
  const E debts{"debts", {0x92, 0x05, 0xd0, 0xf9}};  // [5, -7]
  const E day{"day", {0x0c}};                        // 12
  const E unknown{"tax", {0x81, 0xa1, 'x', 0x01}};   // {"x": 1}: skipped
  const E day_again{"day", {0x0d}};                  // 13: the last one wins
  const Ledger full{300, "Ann", {5, -7}, 12};
  struct Case {
    std::vector<E> entries;
    Ledger expected;
  };
  const Case cases[] = {
      {{gold, owner, debts, day}, full},
      {{owner, gold, debts, day}, full},
      {{gold, owner, day, debts}, full},
      {{day, debts, owner, gold}, full},
      {{gold, debts, day}, {300, "kept", {5, -7}, 12}},
      {{gold, owner, debts}, {300, "Ann", {5, -7}, 99}},
      {{unknown, gold, owner, debts, day}, full},
      {{gold, owner, unknown, debts, day}, full},
      {{gold, owner, debts, day, unknown}, full},
      {{gold, owner, debts, day, day_again}, {300, "Ann", {5, -7}, 13}},
      {{gold, gold, owner, debts, day}, full},
      {{}, {1, "kept", {}, 99}},
  };
  for (const Case& c : cases) {
    std::vector<std::byte> input = bytes({static_cast<int>(0x80 | c.entries.size())});
    std::string order;
    for (const E& e : c.entries) {
      entry(input, e.first, e.second);
      order += std::string(e.first) + " ";
    }
    Ledger into{1, "kept", {}, 99};
    auto read = savekit::from_msgpack(input, into);
    ASSERT_TRUE(read) << order << read.error().to_string();
    EXPECT_EQ(into, c.expected) << order;
  }
  // A value of the wrong type, in the in-order run and after it broke: the field's path and
  // the value's offset.
  for (bool reordered : {false, true}) {
    std::vector<std::byte> input = bytes({0x84});
    if (reordered) entry(input, owner.first, owner.second);
    entry(input, gold.first, gold.second);
    const std::size_t bad_at = input.size() + 1 + 5;
    entry(input, "debts", {0xa1, 'x'});
    if (!reordered) entry(input, owner.first, owner.second);
    entry(input, day.first, day.second);
    auto failed = savekit::from_msgpack<Ledger>(input);
    ASSERT_FALSE(failed);
    EXPECT_EQ(failed.error().code(), savekit::errc::type_mismatch);
    EXPECT_EQ(failed.error().path(), "$.debts") << (reordered ? "reordered" : "in order");
    EXPECT_EQ(failed.error().offset(), bad_at);
  }
}

// A sequence read from an input with more elements than it holds: the ones it has are read
// into, the rest made at once and read in place when max_memory affords them (else one by
// one, the budget checked at each); an error in a new element names its index.
TEST(MsgpackRead, ASequenceGrowsToTheInputsElementsWithinItsMemoryBudget) {
  const std::vector<seeds::InventoryItem> items = {{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}};
  const auto packed = savekit::to_msgpack(items, compact);
  for (std::size_t had = 0; had <= items.size(); ++had) {
    std::vector<seeds::InventoryItem> into(had, {-1, -1});
    ASSERT_TRUE(savekit::from_msgpack(packed, into));
    EXPECT_EQ(into, items) << had;
  }
  // Room for two new elements only: the third one read is over the budget, at its offset.
  savekit::msgpack_options tight{};
  tight.max_memory = 2 * sizeof(seeds::InventoryItem);
  std::vector<seeds::InventoryItem> into;
  auto over = savekit::from_msgpack(packed, into, tight);
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().code(), savekit::errc::value_too_large) << over.error().to_string();
  EXPECT_EQ(over.error().offset(), 1u + 2 * 3);  // the array header, then two 3-byte items
  tight.max_memory = 5 * sizeof(seeds::InventoryItem);
  into.clear();
  EXPECT_TRUE(savekit::from_msgpack(packed, into, tight));
  EXPECT_EQ(into, items);
  // A bad fourth element, into one that held one: its index in the path.
  auto bad = packed;
  bad[1 + 3 * 3 + 1] = std::byte{0xa1};  // the fourth item's Id becomes a one-byte string
  std::vector<seeds::InventoryItem> one(1);
  auto failed = savekit::from_msgpack(bad, one);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code(), savekit::errc::type_mismatch) << failed.error().to_string();
  EXPECT_EQ(failed.error().path(), "$[3].Id");
}

// More new elements than one batch (1 MiB of them): made and read a batch at a time, into a
// vector and a deque, from empty and from a few; a budget for fewer stops at the first
// element past it, at its offset.
TEST(MsgpackRead, ALongSequenceGrowsABatchAtATimeWithinItsMemoryBudget) {
  std::vector<std::int32_t> values(300000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int32_t>(i % 1000) - 10;
  const auto packed = savekit::to_msgpack(values);
  constexpr std::size_t affordable = 100000;
  auto check = [&](auto into, std::size_t had) {
    const auto before = into;
    ASSERT_TRUE(savekit::from_msgpack(packed, into));
    ASSERT_TRUE(std::equal(into.begin(), into.end(), values.begin(), values.end())) << had;
    into = before;
    savekit::msgpack_options tight{};
    tight.max_memory = affordable * sizeof(std::int32_t);
    auto over = savekit::from_msgpack(packed, into, tight);
    ASSERT_FALSE(over) << had;
    EXPECT_EQ(over.error().code(), savekit::errc::value_too_large) << over.error().to_string();
    // The offset of element had + affordable: the bytes of the ones before it (whose own
    // array32 header is as long as the whole input's).
    const std::vector<std::int32_t> first(values.begin(),
                                          values.begin() + static_cast<std::ptrdiff_t>(had + affordable));
    EXPECT_EQ(over.error().offset(), savekit::to_msgpack(first).size()) << had;
  };
  for (std::size_t had : {std::size_t{0}, std::size_t{7}}) {
    check(std::vector<std::int32_t>(had, 5), had);
    check(std::deque<std::int32_t>(had, 5), had);
  }
}

// Hostile headers for the sequence that grows at once: a count larger than the input is
// refused before anything is made, and one the input could just hold (one byte for each
// element) makes no more elements than the input has bytes.
TEST(MsgpackRead, AnArrayCountThatLiesMakesNoMoreElementsThanTheInputHasBytes) {
  std::vector<seeds::InventoryItem> into;
  auto huge = savekit::from_msgpack(bytes({0xdd, 0xff, 0xff, 0xff, 0xf0, 0x92, 1, 2}), into);
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().code(), savekit::errc::length_exceeds_input) << huge.error().to_string();
  EXPECT_LT(into.capacity(), 16u);
  // 40 declared, 40 bytes follow, but each item takes 3: the 14th's header declares more
  // than is left.
  std::vector<std::byte> input = bytes({0xdc, 0x00, 40});
  for (int i = 0; i < 13; ++i) input.insert(input.end(), {std::byte{0x92}, std::byte{1}, std::byte{2}});
  input.push_back(std::byte{0x92});
  ASSERT_EQ(input.size(), 3u + 40u);
  auto cut = savekit::from_msgpack(input, into);
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().code(), savekit::errc::length_exceeds_input) << cut.error().to_string();
  EXPECT_EQ(cut.error().path(), "$[13]");
  EXPECT_LE(into.size(), 40u);
}

// A key savekit would write as a fixstr, sent as a str8: not the in-order run's bytes, so
// the general loop reads it by name.
TEST(MsgpackRead, AMapKeyInALongerHeaderIsReadByName) {
  std::vector<std::byte> input = bytes({0x82, 0xd9, 4, 'g', 'o', 'l', 'd', 0x05});
  entry(input, "day", {0x07});
  Ledger into;
  ASSERT_TRUE(savekit::from_msgpack(input, into));
  EXPECT_EQ(into.gold, 5);
  EXPECT_EQ(into.day, 7);
}

namespace {
// A save whose compact form the fast path reads (numbers, strings, vectors of flat
// elements, a struct of those) and its twin, which the general reader reads: one shape, so
// the same bytes on the wire, and the same vectors (whose reader leaves the same elements
// behind after an error), but an enum where the inner struct has an integer, which the
// fast path does not read, so the whole twin goes the general way.
template <class Rank>
struct InnerOf {
  std::string tag;
  Rank rank{};
};
template <template <class...> class Sequence, class Rank>
struct SaveOf {
  std::string name;
  int score = 0;
  Sequence<Pair32> items;
  Sequence<float> heights;
  InnerOf<Rank> inner;
  std::uint16_t flags = 0;
};
enum class Rank : std::int8_t {};
using FastSave = SaveOf<std::vector, std::int8_t>;
using SlowSave = SaveOf<std::vector, Rank>;
static_assert(savekit::detail::fast_compact_depth<FastSave>() != 0, "FastSave takes the fast path");
static_assert(savekit::detail::fast_compact_depth<SlowSave>() == 0, "SlowSave does not");

void expect_same(const FastSave& fast, const SlowSave& slow) {
  EXPECT_EQ(fast.name, slow.name);
  EXPECT_EQ(fast.score, slow.score);
  EXPECT_TRUE(std::equal(fast.items.begin(), fast.items.end(), slow.items.begin(), slow.items.end()));
  auto same_bits = [](float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; };  // NaNs too
  EXPECT_TRUE(
      std::equal(fast.heights.begin(), fast.heights.end(), slow.heights.begin(), slow.heights.end(), same_bits));
  EXPECT_EQ(fast.inner.tag, slow.inner.tag);
  EXPECT_EQ(fast.inner.rank, static_cast<std::int8_t>(slow.inner.rank));
  EXPECT_EQ(fast.flags, slow.flags);
}

// Random MessagePack in (and around) FastSave's compact form: strings in every header and
// as bin, nil gaps, integers of every encoding in and out of range, element arrays as
// random_element_array makes them, the inner struct in either form, now and then a
// shorter or an array16 header, a flipped byte or a cut.
std::vector<std::byte> random_fast_save(std::mt19937& rng) {
  std::vector<std::byte> out;
  auto put = [&](unsigned b) { out.push_back(static_cast<std::byte>(b)); };
  auto put_text = [&](std::size_t length) {
    for (std::size_t i = 0; i < length; ++i) put(static_cast<unsigned>(rng() % 256));
  };
  auto put_string = [&] {
    switch (rng() % 12) {
      case 0:
        return put(0xc0);  // a gap
      case 1:
        return put(0xd9), put(40), put_text(40);  // str8
      case 2:
        return put(0xda), put(1), put(44), put_text(300);  // str16
      case 3:
        return put(0xdb), put(0), put(0), put(0), put(3), put_text(3);  // str32
      case 4:
        return put(0xc4), put(5), put_text(5);  // bin8
      case 5:
        return put(0x07);  // not a string
      default: {
        const std::size_t length = rng() % 32;
        return put(0xa0 | static_cast<unsigned>(length)), put_text(length);
      }
    }
  };
  auto put_integer = [&] {  // every encoding; the out-of-range ones for rank (int8) and flags (uint16) too
    switch (rng() % 40) {
      case 0:
        return put(0xc0);  // a gap
      case 1:
        return put(0xcc), put(200);  // uint8
      case 2:
        return put(0xcd), put(rng() % 256), put(rng() % 256);  // uint16
      case 3:
        return put(0xce), put(0), put(1), put(0), put(0);  // uint32
      case 4:
        return put(0xcf), put(0), put(0), put(0), put(0), put(0), put(0), put(0), put(9);  // uint64
      case 5:
        return put(0xe0 | (rng() % 32));  // negative fixint
      case 6:
        return put(0xd0), put(0x80);  // int8
      case 7:
        return put(0xd1), put(0xff), put(0x00);  // int16
      case 8:
        return put(0xd2), put(0x80), put(0), put(0), put(0);  // int32, the least
      case 9:
        return put(0xca), put(0x3f), put(0x80), put(0), put(0);  // a float: not an integer
      default:
        return put(rng() % 128);  // positive fixint
    }
  };

  auto put_elements = [&](int fields, bool floats) {
    if (rng() % 15 == 0) return put(0xc0);
    const int count = static_cast<int>(rng() % 12);
    if (rng() % 2) {  // as savekit writes them
      std::vector<Pair32> items(static_cast<std::size_t>(count));
      std::vector<float> heights(static_cast<std::size_t>(count));
      for (auto& item : items)
        item = {static_cast<std::int32_t>(rng() % 70000) - 100, static_cast<std::int32_t>(rng())};
      for (auto& height : heights) height = static_cast<float>(rng() % 4000) / 8;
      const auto clean = fields == 2 ? savekit::to_msgpack(items, compact) : savekit::to_msgpack(heights, compact);
      out.insert(out.end(), clean.begin(), clean.end());
      return;
    }
    if (count == 0) return put(rng() % 2 ? 0x90 : 0xdc), (out.back() == std::byte{0xdc} ? put(0), put(0) : void());
    auto array = random_element_array(rng, count, fields, floats);
    if (rng() % 2 && count < 16 && array.size() > 3) {  // as a fixarray, as savekit writes it
      array.erase(array.begin(), array.begin() + 3);
      array.insert(array.begin(), static_cast<std::byte>(0x90 | count));
    }
    out.insert(out.end(), array.begin(), array.end());
  };
  const unsigned header = rng() % 10;
  if (header == 0) {
    put(0x95);  // a field short
  } else if (header == 1) {
    put(0xdc), put(0), put(6);  // array16, as another writer may
  } else {
    put(0x96);
  }
  put_string();
  put_integer();
  put_elements(2, false);
  put_elements(0, true);
  switch (rng() % 8) {
    case 0:
      put(0xc0);
      break;
    case 1:
      put(0x82), put(0xa3), put('t'), put('a'), put('g'), put_string(), put(0xa4), put('r'), put('a'), put('n'),
          put('k'), put_integer();
      break;
    default:
      put(0x92), put_string(), put_integer();
  }
  if (header != 0) put_integer();
  if (rng() % 12 == 0) out[rng() % out.size()] = static_cast<std::byte>(rng() % 256);
  if (rng() % 12 == 0) out.resize(rng() % out.size());
  return out;
}
}  // namespace

// The compact form's fast path and the general reader agree on every input: the same
// values (a nil gap keeps what the object held), or the same error at the same offset and
// path and the same object left behind; with the default limits and with a tight
// max_depth or max_memory.
TEST(MsgpackRead, TheCompactFastPathReadsAsTheGeneralReaderReads) {
  std::mt19937 rng(20261203);
  int read_whole = 0;
  int refused = 0;
  for (int round = 0; round < 20000; ++round) {
    const auto input = random_fast_save(rng);
    savekit::msgpack_options options{};
    if (rng() % 10 == 0) options.max_depth = 1 + rng() % 3;  // the save, its items, an item: 3
    if (rng() % 10 == 0) options.max_memory = sizeof(Pair32) * (rng() % 12);
    for (bool reuse : {false, true}) {
      FastSave fast;
      SlowSave slow;
      if (reuse) {  // an object that held another save
        fast = {"previous save", -5, {{1, 2}, {3, 4}, {5, 6}}, {0.5f, 1.5f}, {"old", 9}, 77};
        slow = {"previous save", -5, {{1, 2}, {3, 4}, {5, 6}}, {0.5f, 1.5f}, {"old", Rank{9}}, 77};
      }
      auto a = savekit::from_msgpack(input, fast, options);
      auto b = savekit::from_msgpack(input, slow, options);
      ASSERT_EQ(a.has_value(), b.has_value())
          << (a ? b.error().to_string() : a.error().to_string()) << " round " << round;
      if (!a) {
        ++refused;
        ASSERT_EQ(a.error().code(), b.error().code()) << a.error().to_string() << " round " << round;
        ASSERT_EQ(a.error().offset(), b.error().offset()) << a.error().to_string() << " round " << round;
        ASSERT_EQ(a.error().path(), b.error().path()) << a.error().to_string() << " round " << round;
      } else {
        ++read_whole;
      }
      expect_same(fast, slow);  // after an error too: what each left in the object
      if (HasFailure()) return;
    }
  }
  EXPECT_GT(read_whole, 8000) << "enough inputs are read whole, not only refused";
  EXPECT_GT(refused, 8000) << "and enough are refused";
}

// A save cut off inside a struct's last bytes: the general reader refuses the struct at its
// header (fewer bytes left than fields) and writes none of it; the fast path must not have
// written its first fields before it gave up (found by an attack review).
TEST(MsgpackRead, TheCompactFastPathWritesNothingTheGeneralReaderWouldNot) {
  struct Cut {
    std::vector<int> values;
    std::string name;
    int count = 0;
  };
  Cut into{{1, 2, 3}, "keep", 9};
  const std::vector<std::byte> input{std::byte{0x93}, std::byte{0x91}, std::byte{0x07}};
  auto read = savekit::from_msgpack(input, into);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code(), savekit::errc::length_exceeds_input) << read.error().to_string();
  EXPECT_EQ(read.error().offset(), 0u);
  EXPECT_EQ(into.values, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(into.name, "keep");

  struct Point {
    int x = 0, y = 0;
  };
  struct Nested {
    Point point;
    std::string name;
  };
  Nested nested{{100, 200}, "keep"};
  const std::vector<std::byte> cut_inner{std::byte{0x92}, std::byte{0x92}, std::byte{0x11}};
  auto inner = savekit::from_msgpack(cut_inner, nested);
  ASSERT_FALSE(inner);
  EXPECT_EQ(inner.error().path(), "$.point") << inner.error().to_string();
  EXPECT_EQ(nested.point.x, 100);
}

// What the fast path makes it must count: a vector it grows spends max_memory as the
// general reader's would, and nesting past max_depth is refused where the general reader
// refuses it.
TEST(MsgpackRead, TheCompactFastPathKeepsTheMemoryAndDepthLimits) {
  const FastSave save{"hero", 10, {{1, 2}, {3, 4}, {5, 6}}, {1.0f}, {"t", 1}, 2};
  const auto packed = savekit::to_msgpack(save, compact);
  savekit::msgpack_options tight{};
  tight.max_memory = 2 * sizeof(Pair32) + sizeof(float);
  auto over = savekit::from_msgpack<FastSave>(packed, tight);
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().code(), savekit::errc::value_too_large) << over.error().to_string();
  tight.max_memory = 3 * sizeof(Pair32) + sizeof(float);
  auto fits = savekit::from_msgpack<FastSave>(packed, tight);
  ASSERT_TRUE(fits) << fits.error().to_string();
  EXPECT_EQ(fits->items.size(), 3u);
  savekit::msgpack_options shallow{};
  shallow.max_depth = 2;  // the save, its items, an item: 3
  auto deep = savekit::from_msgpack<FastSave>(packed, shallow);
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().code(), savekit::errc::depth_exceeded) << deep.error().to_string();
  EXPECT_EQ(deep.error().path(), "$.items[0]");
  shallow.max_depth = 3;
  EXPECT_TRUE(savekit::from_msgpack<FastSave>(packed, shallow));
}

namespace {
// 64-bit members (timestamps, ids): the fast path reads their uint64 and int64 encodings
// too; the twin, with an enum of the same width, goes the general way.
enum class Stamp : std::int64_t {};
template <class When>
struct WideOf {
  When when{};
  std::uint64_t id = 0;
  std::string name;
};
using FastWide = WideOf<std::int64_t>;
using SlowWide = WideOf<Stamp>;
static_assert(savekit::detail::has_fast_compact_path<FastWide>(), "FastWide takes the fast path");
static_assert(!savekit::detail::has_fast_compact_path<SlowWide>(), "SlowWide does not");
}  // namespace

namespace {
// Reads input into a struct the fast path reads and into its twin, which the general
// reader reads: both must read it, or both refuse it with the same code, offset and path.
// When the fast path alone declines the input, where it leaves its position is still
// inside the input (its callers start over from the beginning, but must never get null).
// Returns whether the input was read.
template <class Fast, class Slow>
bool expect_same_outcome(const std::vector<std::byte>& input, Fast& fast, Slow& slow) {
  auto a = savekit::from_msgpack(input, fast);
  auto b = savekit::from_msgpack(input, slow);
  EXPECT_EQ(a.has_value(), b.has_value()) << (a ? b.error().to_string() : a.error().to_string());
  if (!a && !b) {
    EXPECT_EQ(a.error().code(), b.error().code()) << a.error().to_string();
    EXPECT_EQ(a.error().offset(), b.error().offset()) << a.error().to_string();
    EXPECT_EQ(a.error().path(), b.error().path()) << a.error().to_string();
  }
  Fast alone{};
  const auto* begin = reinterpret_cast<const unsigned char*>(input.data());
  const unsigned char* p = begin;
  std::uint64_t memory_left = ~std::uint64_t{0};
  if (!savekit::detail::read_fast_compact(p, begin + input.size(), alone, memory_left)) {
    EXPECT_TRUE(p != nullptr && static_cast<std::size_t>(p - begin) <= input.size())
        << "declined at " << (p == nullptr ? -1 : p - begin);
  }
  return a.has_value();
}
}  // namespace

TEST(MsgpackRead, SixtyFourBitMembersReadOnTheFastPathAsTheGeneralReaderReadsThem) {
  constexpr std::int64_t least = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t most = std::numeric_limits<std::int64_t>::max();
  constexpr std::uint64_t most_unsigned = std::numeric_limits<std::uint64_t>::max();
  // Written by savekit: every width of encoding, each boundary.
  for (std::int64_t when :
       {std::int64_t{0}, std::int64_t{127}, std::int64_t{-33}, std::int64_t{2147483647}, std::int64_t{2147483648},
        std::int64_t{4294967296}, std::int64_t{-2147483649}, least, most}) {
    for (std::uint64_t id : {std::uint64_t{0}, std::uint64_t{4294967295}, std::uint64_t{4294967296}, most_unsigned}) {
      const FastWide value{when, id, "stamp"};
      const auto packed = savekit::to_msgpack(value, compact);
      FastWide fast;
      ASSERT_TRUE(savekit::from_msgpack(packed, fast));
      EXPECT_EQ(fast.when, when);
      EXPECT_EQ(fast.id, id);
      EXPECT_EQ(fast.name, "stamp");
    }
  }
  // Written by hand: out of range for int64, negative for uint64, cut off inside the number.
  auto be64 = [](std::vector<std::byte>& out, std::uint64_t v) {
    for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<std::byte>(v >> shift));
  };
  std::vector<std::vector<std::byte>> inputs;
  for (unsigned marker : {0xcfu, 0xd3u}) {
    for (std::uint64_t v : {std::uint64_t{1}, std::uint64_t{1} << 63, most_unsigned}) {
      for (int target = 0; target < 2; ++target) {
        std::vector<std::byte> in{std::byte{0x93}};
        if (target == 1) in.push_back(std::byte{0x05});
        in.push_back(static_cast<std::byte>(marker));
        be64(in, v);
        if (target == 0) in.push_back(std::byte{0x05});
        in.push_back(std::byte{0xa1});
        in.push_back(std::byte{'n'});
        inputs.push_back(in);
        inputs.push_back(std::vector<std::byte>(in.begin(), in.end() - 4));  // cut inside the number
      }
    }
  }
  int read_whole = 0;
  for (const auto& input : inputs) {
    FastWide fast{7, 8, "keep"};
    SlowWide slow{Stamp{7}, 8, "keep"};
    if (expect_same_outcome(input, fast, slow)) ++read_whole;
    EXPECT_EQ(fast.when, static_cast<std::int64_t>(slow.when));
    EXPECT_EQ(fast.id, slow.id);
    EXPECT_EQ(fast.name, slow.name);
  }
  EXPECT_GE(read_whole, 4) << "some of the hand-written inputs are in range";
}

namespace {
// Members of 8 to 32 bits: the fast path reads fixints and uint8/16 that fit inline, the
// other encodings out of line; the twin, whose first member is an enum of the same width,
// goes the general way.
enum class Small : std::int8_t {};
template <class First>
struct NarrowOf {
  First a{};
  std::uint8_t b = 0;
  std::int16_t c = 0;
  std::uint16_t d = 0;
  std::int32_t e = 0;
  std::uint32_t f = 0;
  std::string name;  // (a struct of numbers alone is read as a flat element: another path)
};
using FastNarrow = NarrowOf<std::int8_t>;
using SlowNarrow = NarrowOf<Small>;
static_assert(savekit::detail::has_fast_compact_path<FastNarrow>(), "FastNarrow takes the fast path");
static_assert(!savekit::detail::has_fast_compact_path<SlowNarrow>(), "SlowNarrow does not");
}  // namespace

TEST(MsgpackRead, NarrowMembersReadOnTheFastPathAsTheGeneralReaderReadsThem) {
  // Every encoding of an integer (and a few of other types) at each boundary, written by
  // hand into each member's slot, whole and cut off inside it.
  struct encoding {
    unsigned marker;  // 0x100: the value is the byte itself (a fixint)
    std::uint64_t bits;
    int size;  // bytes after the marker
  };
  const std::vector<encoding> encodings{
      {0x100, 0, 0},         {0x100, 127, 0},       {0x100, 0xff, 0},      {0x100, 0xe0, 0},      {0xcc, 0, 1},
      {0xcc, 127, 1},        {0xcc, 128, 1},        {0xcc, 255, 1},        {0xcd, 0, 2},          {0xcd, 255, 2},
      {0xcd, 256, 2},        {0xcd, 32767, 2},      {0xcd, 32768, 2},      {0xcd, 65535, 2},      {0xce, 65536, 4},
      {0xce, 0x7fffffff, 4}, {0xce, 0x80000000, 4}, {0xce, 0xffffffff, 4}, {0xcf, 0, 8},          {0xcf, 1ull << 32, 8},
      {0xcf, ~0ull, 8},      {0xd0, 0x80, 1},       {0xd0, 0xff, 1},       {0xd0, 5, 1},          {0xd1, 0x8000, 2},
      {0xd1, 0xff7f, 2},     {0xd1, 1, 2},          {0xd2, 0x80000000, 4}, {0xd2, 0xffff7fff, 4}, {0xd3, 1ull << 63, 8},
      {0xd3, ~0ull, 8},      {0xd3, 3, 8},          {0xc0, 0, 0},          {0xc3, 0, 0},          {0xca, 0x3f800000, 4},
  };
  std::vector<std::vector<std::byte>> inputs;
  for (int member = 0; member < 6; ++member) {
    for (const encoding& e : encodings) {
      std::vector<std::byte> in{std::byte{0x97}};
      std::size_t cut = 0;
      for (int slot = 0; slot < 6; ++slot) {
        if (slot != member) {
          in.push_back(std::byte{0x01});
          continue;
        }
        if (e.marker == 0x100) {
          in.push_back(static_cast<std::byte>(e.bits));
          continue;
        }
        in.push_back(static_cast<std::byte>(e.marker));
        cut = in.size() + static_cast<std::size_t>(e.size) / 2;  // inside the number
        for (int shift = 8 * (e.size - 1); shift >= 0; shift -= 8)
          in.push_back(static_cast<std::byte>(e.bits >> shift));
      }
      in.push_back(std::byte{0xa1});  // name: "n"
      in.push_back(std::byte{'n'});
      inputs.push_back(in);
      if (cut != 0 && e.size > 0) inputs.push_back(std::vector<std::byte>(in.begin(), in.begin() + cut));
    }
  }
  int read_whole = 0, refused = 0;
  for (const auto& input : inputs) {
    FastNarrow fast{7, 7, 7, 7, 7, 7, "keep"};
    SlowNarrow slow{Small{7}, 7, 7, 7, 7, 7, "keep"};
    if (expect_same_outcome(input, fast, slow))
      ++read_whole;
    else
      ++refused;
    EXPECT_EQ(fast.a, static_cast<std::int8_t>(slow.a));
    EXPECT_EQ(fast.b, slow.b);
    EXPECT_EQ(fast.c, slow.c);
    EXPECT_EQ(fast.d, slow.d);
    EXPECT_EQ(fast.e, slow.e);
    EXPECT_EQ(fast.f, slow.f);
    EXPECT_EQ(fast.name, slow.name);
  }
  EXPECT_GE(read_whole, 60) << "many of the encodings fit their member";
  EXPECT_GE(refused, 60) << "many do not, or are cut off";
}

// A save the fast path reads whole at the top of a document, with bytes after it: refused
// as the general reader refuses it (the fast path succeeds, the document does not end).
TEST(MsgpackRead, BytesAfterAFastPathSaveAreRefusedAsTheGeneralReaderRefusesThem) {
  const FastSave save{"hero", 10, {{1, 2}}, {1.0f}, {"t", 1}, 2};
  auto packed = savekit::to_msgpack(save, compact);
  const std::size_t save_size = packed.size();
  packed.push_back(std::byte{0x01});
  FastSave fast;
  SlowSave slow;
  auto a = savekit::from_msgpack(packed, fast);
  auto b = savekit::from_msgpack(packed, slow);
  ASSERT_FALSE(a);
  ASSERT_FALSE(b);
  EXPECT_EQ(a.error().code(), b.error().code()) << a.error().to_string();
  EXPECT_EQ(a.error().offset(), save_size) << a.error().to_string();
  EXPECT_EQ(a.error().offset(), b.error().offset());
  expect_same(fast, slow);
}

// The writers copy a small save out of their first window into the caller's container:
// whatever that container held before (shorter, longer, more capacity than the save, or
// none), it holds exactly the save afterwards, the same bytes a fresh write gives.
TEST(MsgpackWrite, AReusedContainerOfAnySizeHoldsExactlyTheSave) {
  struct Named {
    std::string name;
    std::vector<int> values;
  };
  for (std::size_t length : {0u, 5u, 16u, 17u, 31u, 32u, 33u, 64u, 200u, 480u, 600u, 5000u}) {
    const Named value{std::string(length, 'q'), {1, 300, -70000}};
    const auto fresh = savekit::to_msgpack(value, compact);
    const std::string fresh_json = savekit::to_json(value);
    for (std::size_t before : {0u, 1u, 20u, 40u, 100u, 700u, 6000u}) {
      for (bool spare_capacity : {false, true}) {
        std::vector<std::byte> bytes(before, std::byte{0xee});
        std::string text(before, 'z');
        if (spare_capacity) bytes.reserve(before + 1000), text.reserve(before + 1000);
        savekit::to_msgpack(value, bytes, compact);
        ASSERT_EQ(bytes, fresh) << length << " into " << before;
        std::string packed_text(before, 'z');
        savekit::to_msgpack(value, packed_text, compact);
        ASSERT_EQ(packed_text, std::string(reinterpret_cast<const char*>(fresh.data()), fresh.size()));
        savekit::to_json(value, text);
        ASSERT_EQ(text, fresh_json) << length << " into " << before;
      }
    }
  }
}
