// The inspection tree (savekit/inspect.hpp): every node's wire format, offset and size, as
// the bytes say them; errors with their offsets; paths; the rendering a terminal can take.
#include <savekit/inspect.hpp>
#include <savekit/msgpack.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace {

using savekit::inspect::kind;
using savekit::inspect::node;

struct Hero {
  std::string name;
  std::uint8_t level = 0;
  std::int64_t gold = 0;
  float speed = 0;
  double luck = 0;
  std::vector<std::byte> seed;
  std::vector<std::int32_t> marks;
  std::map<std::int32_t, std::string> by_id;
};

std::string bytes_of(std::initializer_list<int> list) {
  std::string out;
  for (int b : list) out += static_cast<char>(b);
  return out;
}

node read(const std::string& msgpack) {
  auto tree = savekit::inspect::read_msgpack(msgpack);
  EXPECT_TRUE(tree) << tree.error().to_string();
  return tree ? *tree : node{};
}

// Every node lies inside its parent, and a container's children follow each other; in
// MessagePack (tight: no brackets after the last child) the last one ends with its container.
void expect_nested(const node& n, bool tight = true) {
  std::uint64_t at = n.offset;
  for (const node& child : n.items) {
    EXPECT_GE(child.offset, at);
    EXPECT_LE(child.offset + child.size, n.offset + n.size);
    at = child.offset + child.size;
    expect_nested(child, tight);
  }
  if (tight && !n.items.empty()) {
    EXPECT_EQ(at, n.offset + n.size) << "the last child ends where its container ends";
  }
}

TEST(Inspect, MessagePackNodesKeepTheirExactFormats) {
  Hero h{"Aria",
         200,
         std::numeric_limits<std::int64_t>::min(),
         0.1f,
         0.1,
         {std::byte{1}, std::byte{0xff}},
         {-1, 70000},
         {{-5, "minus five"}}};
  std::string bytes;
  savekit::to_msgpack(h, bytes);
  const node root = read(bytes);
  EXPECT_EQ(root.kind, kind::map);
  EXPECT_EQ(root.format, "fixmap");
  EXPECT_EQ(root.offset, 0u);
  EXPECT_EQ(root.size, bytes.size());
  expect_nested(root);

  auto member = [&](const char* name) { return savekit::inspect::at(root, name); };
  ASSERT_TRUE(member("level"));
  EXPECT_EQ(member("level")->format, "uint8");
  EXPECT_EQ(member("level")->text, "200");
  EXPECT_EQ(member("gold")->format, "int64");
  EXPECT_EQ(member("gold")->text, "-9223372036854775808");
  EXPECT_EQ(member("speed")->format, "float32");
  EXPECT_EQ(member("speed")->text, "0.1") << "a float32's own shortest digits, not 0.10000000149011612";
  EXPECT_EQ(member("luck")->format, "float64");
  EXPECT_EQ(member("seed")->kind, kind::bytes);
  EXPECT_EQ(member("seed")->format, "bin8");
  EXPECT_EQ(member("seed")->text, std::string("\x01\xff", 2));
  ASSERT_TRUE(savekit::inspect::at(root, "marks[0]"));
  EXPECT_EQ(savekit::inspect::at(root, "marks[0]")->format, "negative fixint");
  EXPECT_EQ(savekit::inspect::at(root, "marks[1]")->format, "uint32");
  EXPECT_EQ(savekit::inspect::at(root, "marks[2]"), nullptr);
  ASSERT_TRUE(savekit::inspect::at(root, "by_id.-5"));
  EXPECT_EQ(savekit::inspect::at(root, "by_id.-5")->text, "minus five");
  EXPECT_EQ(savekit::inspect::at(root, "name")->format, "fixstr");
}

TEST(Inspect, ExtsNonFiniteFloatsAndEveryWidthByHand) {
  // [fixext4 type 5, float32 NaN, float64 -inf, uint16 65535, int8 -128, str8 "ab", nil, true]
  const std::string bytes =
      bytes_of({0x98, 0xd6, 0x05, 1, 2, 3,    4,    0xca, 0x7f, 0xc0, 0,    0, 0xcb, 0xff, 0xf0, 0,
                0,    0,    0,    0, 0, 0xcd, 0xff, 0xff, 0xd0, 0x80, 0xd9, 2, 'a',  'b',  0xc0, 0xc3});
  const node root = read(bytes);
  ASSERT_EQ(root.items.size(), 8u);
  EXPECT_EQ(root.items[0].kind, kind::ext);
  EXPECT_EQ(root.items[0].format, "fixext4");
  EXPECT_EQ(root.items[0].ext_type, 5);
  EXPECT_EQ(root.items[0].size, 6u);
  EXPECT_EQ(root.items[1].text, "NaN");
  EXPECT_EQ(root.items[2].text, "-Infinity");
  EXPECT_EQ(root.items[3].format, "uint16");
  EXPECT_EQ(root.items[3].text, "65535");
  EXPECT_EQ(root.items[4].text, "-128");
  EXPECT_EQ(root.items[5].format, "str8");
  EXPECT_EQ(root.items[6].kind, kind::null);
  expect_nested(root);
}

TEST(Inspect, BadMessagePackIsAnErrorAtItsOffset) {
  struct bad {
    std::string bytes;
    savekit::errc code;
    std::uint64_t offset;
  };
  const std::vector<bad> cases = {
      {bytes_of({0x92, 0x01}), savekit::errc::length_exceeds_input, 0},  // 2 values cannot fit in 1 byte
      {bytes_of({0x92, 0x01, 0xcd}), savekit::errc::unexpected_end, 3},
      {bytes_of({0x91, 0xc1}), savekit::errc::invalid_msgpack, 1},
      {bytes_of({0xdd, 0xff, 0xff, 0xff, 0xff}), savekit::errc::length_exceeds_input, 0},
      {bytes_of({0xc6, 0x00, 0x00, 0x10, 0x00, 1}), savekit::errc::length_exceeds_input, 0},
      {bytes_of({0x01, 0x02}), savekit::errc::trailing_data, 1},
      {bytes_of({0xcd, 0x01}), savekit::errc::unexpected_end, 1},
  };
  for (const bad& b : cases) {
    auto tree = savekit::inspect::read_msgpack(b.bytes);
    ASSERT_FALSE(tree);
    EXPECT_EQ(tree.error().code(), b.code) << tree.error().to_string();
    EXPECT_EQ(tree.error().offset(), b.offset) << tree.error().to_string();
  }
  // Nesting and the node count are bounded.
  const std::string deep(300, static_cast<char>(0x91));
  EXPECT_EQ(savekit::inspect::read_msgpack(deep + bytes_of({0x00})).error().code(), savekit::errc::depth_exceeded);
  EXPECT_EQ(savekit::inspect::read_msgpack(bytes_of({0x93, 0, 0, 0}), {.max_nodes = 3}).error().code(),
            savekit::errc::value_too_large);
}

TEST(Inspect, JsonNumbersAreKeptAsWrittenAndStringsDecoded) {
  const std::string text =
      R"( {"a": 1.50, "b": 1e3, "big": 18446744073709551616, "s": "\u00e9\ud83d\ude00\n", "l": [true, null]} )";
  auto tree = savekit::inspect::read_json(text);
  ASSERT_TRUE(tree) << tree.error().to_string();
  EXPECT_EQ(tree->offset, 1u);
  EXPECT_EQ(savekit::inspect::at(*tree, "a")->text, "1.50");
  EXPECT_EQ(savekit::inspect::at(*tree, "a")->kind, kind::floating);
  EXPECT_EQ(savekit::inspect::at(*tree, "b")->text, "1e3");
  EXPECT_EQ(savekit::inspect::at(*tree, "big")->kind, kind::integer);
  EXPECT_EQ(savekit::inspect::at(*tree, "big")->text, "18446744073709551616");
  EXPECT_EQ(savekit::inspect::at(*tree, "s")->text, "\xc3\xa9\xf0\x9f\x98\x80\n");
  EXPECT_EQ(savekit::inspect::at(*tree, "l[1]")->kind, kind::null);
  const node* b = savekit::inspect::at(*tree, "b");
  EXPECT_EQ(text.substr(b->offset, b->size), "1e3");
  expect_nested(*tree, false);
}

TEST(Inspect, BadJsonIsAnErrorAtItsOffset) {
  struct bad {
    std::string text;
    savekit::errc code;
    std::uint64_t offset;
  };
  const std::vector<bad> cases = {
      {"[1,]", savekit::errc::syntax_error, 3},          {"{\"a\" 1}", savekit::errc::syntax_error, 5},
      {"01", savekit::errc::trailing_data, 1},           {"-", savekit::errc::invalid_number, 1},
      {"\"\\ud800\"", savekit::errc::invalid_escape, 1}, {"\"\xff\"", savekit::errc::invalid_utf8, 1},
      {"[1", savekit::errc::unexpected_end, 2},          {"\"a\x01\"", savekit::errc::syntax_error, 2},
  };
  for (const bad& b : cases) {
    auto tree = savekit::inspect::read_json(b.text);
    ASSERT_FALSE(tree) << b.text;
    EXPECT_EQ(tree.error().code(), b.code) << b.text << ": " << tree.error().to_string();
    EXPECT_EQ(tree.error().offset(), b.offset) << b.text << ": " << tree.error().to_string();
  }
}

TEST(Inspect, PathsTakeQuotedKeysAndTheLastOfARepeatedKey) {
  auto tree = savekit::inspect::read_json(R"({"a.b": {"c": [10, 20]}, "x": 1, "x": 2})");
  ASSERT_TRUE(tree);
  ASSERT_TRUE(savekit::inspect::at(*tree, R"("a.b".c[1])"));
  EXPECT_EQ(savekit::inspect::at(*tree, R"("a.b".c[1])")->text, "20");
  EXPECT_EQ(savekit::inspect::at(*tree, "x")->text, "2");
  EXPECT_EQ(savekit::inspect::at(*tree, "")->kind, kind::map);
  EXPECT_EQ(savekit::inspect::at(*tree, "nope"), nullptr);
  EXPECT_EQ(savekit::inspect::at(*tree, "x[0]"), nullptr);
}

TEST(Inspect, RenderingNamesFormatsAndNeverPassesAControlSequence) {
  auto tree = savekit::inspect::read_json("{\"evil\": \"\\u001b[2Jgone\", \"n\": 7}");
  ASSERT_TRUE(tree);
  const std::string shown = savekit::inspect::render(*tree);
  EXPECT_EQ(shown.find('\x1b'), std::string::npos) << "an escape sequence would reach the terminal";
  EXPECT_NE(shown.find("\\x1b[2Jgone"), std::string::npos) << shown;
  EXPECT_NE(shown.find("\"n\": number 7  @"), std::string::npos) << shown;
  EXPECT_NE(shown.find("object (2 entries)  @0 +"), std::string::npos) << shown;
}

TEST(Inspect, RenderEscapesC1ControlsAndBytesThatAreNotUtf8) {
  // A str holding CSI as U+009B (C2 9B) and as a lone byte 9B, and é kept as it is.
  const std::string save(
      "\xa7\xc2\x9b"
      "2J\x9b\xc3\xa9",
      8);
  const std::string shown = savekit::inspect::render(read(save));
  EXPECT_EQ(shown.find('\x9b'), std::string::npos) << "failed before: the bytes reached the terminal";
  EXPECT_NE(shown.find("\\u009b2J\\x9b\xc3\xa9"), std::string::npos) << shown;
}

TEST(Inspect, RenderWithoutChildrenIsOneLine) {
  const std::string array("\x92\x01\x02", 3);
  EXPECT_EQ(savekit::inspect::render(read(array), {.offsets = false, .children = false}), "fixarray (2 elements)\n");
}

}  // namespace
