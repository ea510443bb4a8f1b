// One test per error code: the code, the byte offset and the field path of each.
#include <savekit/savekit.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "seed_types.hpp"

namespace {

enum class Color { red, green };

struct Finite {
  double value = 0;
};

struct Palette {
  Color main = Color::red;
};

// For the regressions found by a review of the codecs' fast paths.
struct Pair {
  int a = 0;
  int b = 0;
};
struct HoldsPair {
  Pair p;
  std::optional<int> o;
};
struct Inner {
  int x = 0;
};
struct Mid {
  Inner in;
};
struct Chain {  // contains itself: its writers count depth
  Mid m;
  std::unique_ptr<Chain> next;
};

std::vector<std::byte> bytes(std::initializer_list<int> list) {
  std::vector<std::byte> out;
  for (int b : list) out.push_back(static_cast<std::byte>(b));
  return out;
}

void expect_error(const savekit::error& e, savekit::errc code, std::size_t offset, std::string_view path) {
  EXPECT_EQ(e.code(), code) << e.to_string();
  EXPECT_EQ(e.offset(), offset) << e.to_string();
  EXPECT_EQ(e.path(), path) << e.to_string();
  EXPECT_FALSE(e.message().empty());
}

template <class T>
void expect_json_error(std::string_view text, savekit::errc code, std::size_t offset, std::string_view path,
                       savekit::json_options options = {}) {
  auto r = savekit::from_json<T>(text, options);
  ASSERT_FALSE(r) << text;
  expect_error(r.error(), code, offset, path);
}

}  // namespace

template <>
struct savekit::adapter<Finite> {
  using wire_type = double;
  static wire_type to_wire(const Finite& f) { return f.value; }
  static bool from_wire(double w, Finite& f) {
    f.value = w;
    return std::isfinite(w);
  }
};

template <>
struct savekit::enum_names<Color> {
  static constexpr std::pair<Color, std::string_view> values[] = {{Color::red, "red"}, {Color::green, "green"}};
};

using savekit::errc;
using seeds::InventoryItem;
using seeds::SaveGame;

TEST(Errors, UnexpectedEnd) {
  expect_json_error<SaveGame>(R"({"Name":"Spe)", errc::unexpected_end, 12, "$.Name");
  expect_json_error<SaveGame>("", errc::unexpected_end, 0, "$");
  auto r = savekit::from_msgpack<SaveGame>(bytes({0x81, 0xa4, 'N', 'a', 'm', 'e'}));
  ASSERT_FALSE(r);
  expect_error(r.error(), errc::unexpected_end, 6, "$");
}

TEST(Errors, SyntaxError) { expect_json_error<InventoryItem>(R"({"Id":1;})", errc::syntax_error, 7, "$"); }

TEST(Errors, InvalidUtf8) {
  expect_json_error<SaveGame>("{\"Name\":\"a\xFF\"}", errc::invalid_utf8, 10, "$.Name");
  auto r = savekit::msgpack_to_json(bytes({0x91, 0xa2, 'a', 0xC0}));
  ASSERT_FALSE(r);
  expect_error(r.error(), errc::invalid_utf8, 3, "$[0]");
}

TEST(Errors, InvalidEscape) {
  expect_json_error<SaveGame>(R"({"Name":"\x"})", errc::invalid_escape, 9, "$.Name");
  expect_json_error<std::string>(R"("\ud800x")", errc::invalid_escape, 1, "$");
}

TEST(Errors, InvalidNumber) {
  expect_json_error<SaveGame>(R"({"HighScore":01})", errc::invalid_number, 13, "$.HighScore");
}

TEST(Errors, NumberOutOfRange) {
  expect_json_error<InventoryItem>(R"({"Id":2147483648})", errc::number_out_of_range, 6, "$.Id");
  expect_json_error<double>("1e999", errc::number_out_of_range, 0, "$");
  auto r = savekit::from_msgpack<std::uint8_t>(bytes({0xcd, 0x01, 0x00}));
  ASSERT_FALSE(r);
  expect_error(r.error(), errc::number_out_of_range, 0, "$");
}

TEST(Errors, NotAnInteger) { expect_json_error<InventoryItem>(R"({"Id":1.5})", errc::not_an_integer, 6, "$.Id"); }

TEST(Errors, TypeMismatchWithNestedPath) {
  std::string_view text = R"({"Inventory":[{"Id":1},{"Id":"x"}]})";
  expect_json_error<SaveGame>(text, errc::type_mismatch, text.find("\"x\""), "$.Inventory[1].Id");

  // The same in MessagePack: {"Inventory": [{"Id": 1}, {"Id": "x"}]}
  auto packed = bytes({0x81, 0xa9, 'I', 'n', 'v',  'e',  'n',  't', 'o', 'r',  'y', 0x92,
                       0x81, 0xa2, 'I', 'd', 0x01, 0x81, 0xa2, 'I', 'd', 0xa1, 'x'});
  auto r = savekit::from_msgpack<SaveGame>(packed);
  ASSERT_FALSE(r);
  expect_error(r.error(), errc::type_mismatch, 21, "$.Inventory[1].Id");
}

TEST(Errors, UnknownKey) {
  expect_json_error<InventoryItem>(R"({"Id":1,"Bad":2})", errc::unknown_key, 8, "$.Bad",
                                   {.error_on_unknown_keys = true});
}

TEST(Errors, MissingKey) {
  expect_json_error<InventoryItem>(R"({"Id":1})", errc::missing_key, 7, "$.Quantity", {.error_on_missing_keys = true});
}

TEST(Errors, DepthExceeded) {
  expect_json_error<std::vector<std::vector<std::vector<int>>>>("[[[1]]]", errc::depth_exceeded, 2, "$[0][0]",
                                                                {.max_depth = 2});
  auto r = savekit::msgpack_to_json(bytes({0x91, 0x91, 0x91, 0x01}), {.max_depth = 2});
  ASSERT_FALSE(r);
  expect_error(r.error(), errc::depth_exceeded, 2, "$[0][0]");
}

TEST(Errors, TrailingData) {
  expect_json_error<InventoryItem>(R"({"Id":1} x)", errc::trailing_data, 9, "$");
  auto r = savekit::from_msgpack<int>(bytes({0x01, 0x02}));
  ASSERT_FALSE(r);
  expect_error(r.error(), errc::trailing_data, 1, "$");
}

TEST(Errors, LengthMismatch) {
  using Fixed = std::array<int, 2>;
  expect_json_error<Fixed>("[1,2,3]", errc::length_mismatch, 0, "$");
  expect_json_error<Fixed>("[1]", errc::length_mismatch, 0, "$");
}

TEST(Errors, LengthExceedsInputIsRejectedBeforeAllocating) {
  // str32 claiming 4 GiB, array32 claiming 4 billion elements, map32 likewise.
  for (auto packed : {bytes({0xdb, 0xff, 0xff, 0xff, 0xff, 'a'}), bytes({0xdd, 0xff, 0xff, 0xff, 0xff, 0x01}),
                      bytes({0xdf, 0xff, 0xff, 0xff, 0xff, 0x01})}) {
    auto as_string = savekit::from_msgpack<std::string>(packed);
    auto as_vector = savekit::from_msgpack<std::vector<int>>(packed);
    auto as_json = savekit::msgpack_to_json(packed);
    for (const savekit::error* e : {&as_string.error(), &as_vector.error(), &as_json.error()}) {
      if (e->code() == errc::type_mismatch) continue;  // e.g. a map read as a string
      expect_error(*e, errc::length_exceeds_input, 0, "$");
    }
    EXPECT_FALSE(as_json);
  }
}

TEST(Errors, InvalidMsgpack) {
  auto r = savekit::from_msgpack<std::vector<int>>(bytes({0x92, 0x01, 0xc1}));
  ASSERT_FALSE(r);
  expect_error(r.error(), errc::invalid_msgpack, 2, "$[1]");
}

TEST(Errors, UnknownEnumName) {
  expect_json_error<Palette>(R"({"main":"purple"})", errc::unknown_enum_name, 8, "$.main");
}

TEST(Errors, UnknownVariantIndex) {
  expect_json_error<std::variant<int, std::string>>("[5,1]", errc::unknown_variant_index, 1, "$");
}

TEST(Errors, UnsupportedType) {
  auto r = savekit::msgpack_to_json(bytes({0x91, 0xd4, 0x01, 0x00}));
  ASSERT_FALSE(r);
  expect_error(r.error(), errc::unsupported_type, 1, "$[0]");
}

TEST(Errors, Base64Errors) {
  auto bad_char = savekit::base64_decode("QQ*=");
  ASSERT_FALSE(bad_char);
  expect_error(bad_char.error(), errc::invalid_base64_character, 2, "$");
  auto bad_padding = savekit::base64_decode("QQ=");
  ASSERT_FALSE(bad_padding);
  expect_error(bad_padding.error(), errc::invalid_base64_padding, 3, "$");
  auto trailing = savekit::base64_decode("QR==");
  ASSERT_FALSE(trailing);
  expect_error(trailing.error(), errc::invalid_base64_trailing_bits, 1, "$");
  // Inside a JSON document the offset points into the document.
  expect_json_error<std::vector<std::byte>>(R"("QQ*=")", errc::invalid_base64_character, 3, "$");
}

TEST(Errors, InvalidValueFromAdapter) {
  expect_json_error<std::vector<Finite>>("[1.0,null]", errc::invalid_value, 5, "$[1]");
}

TEST(Errors, EveryCodeHasAName) {
  for (int code = 0; code <= static_cast<int>(errc::not_loaded); ++code)
    EXPECT_NE(savekit::to_string(static_cast<errc>(code)), "unknown") << code;
}

TEST(Errors, BinaryPrinterShowsHexAndCaret) {
  auto packed = bytes({0x92, 0x01, 0xc1});
  auto r = savekit::from_msgpack<std::vector<int>>(packed);
  ASSERT_FALSE(r);
  std::string_view view(reinterpret_cast<const char*>(packed.data()), packed.size());
  EXPECT_EQ(savekit::format_binary_error(r.error(), view),
            "byte 2: invalid_msgpack at $[1]: byte 0xc1 is never used in MessagePack\n"
            "92 01 c1 \n"
            "      ^\n");
}

// A small struct's compact header is read on a fast path; a count larger than the input is
// still refused at the header, as everywhere else.
TEST(Errors, CompactHeaderLongerThanTheInput) {
  auto flat = savekit::from_msgpack<Pair>(bytes({0x92, 0x01}));
  ASSERT_FALSE(flat);
  expect_error(flat.error(), savekit::errc::length_exceeds_input, 0, "$");
  auto nested = savekit::from_msgpack<HoldsPair>(bytes({0x92, 0x92, 0x01}));
  ASSERT_FALSE(nested);
  expect_error(nested.error(), savekit::errc::length_exceeds_input, 1, "$.p");
  auto in_vector = savekit::from_msgpack<std::vector<Pair>>(bytes({0x91, 0x92, 0x01}));
  ASSERT_FALSE(in_vector);
  expect_error(in_vector.error(), savekit::errc::length_exceeds_input, 1, "$[0]");
}

// A container of the wrong kind is a mismatch at its header's first byte, whatever the
// header's width.
TEST(Errors, WrongContainerKindAtItsHeader) {
  auto map_from_array16 = savekit::from_msgpack<std::map<int, int>>(bytes({0xdc, 0x00, 0x01, 0x01}));
  ASSERT_FALSE(map_from_array16);
  expect_error(map_from_array16.error(), savekit::errc::type_mismatch, 0, "$");
  auto list_from_map16 = savekit::from_msgpack<std::vector<int>>(bytes({0xde, 0x00, 0x01, 0x01, 0x01}));
  ASSERT_FALSE(list_from_map16);
  expect_error(list_from_map16.error(), savekit::errc::type_mismatch, 0, "$");
}

// Objects of bounded size are written on a fast path; in a type that contains itself each
// one still counts against max_depth, so what cannot be read back is not written.
TEST(Errors, NestedObjectsCountAgainstMaxDepthWhenWriting) {
  Chain chain;
  std::string text = "untouched";
  auto written = savekit::to_json(chain, text, {.max_depth = 2});
  ASSERT_FALSE(written);
  expect_error(written.error(), savekit::errc::depth_exceeded, 0, "$");
  EXPECT_TRUE(text.empty());
  EXPECT_TRUE(savekit::to_json(chain, text, {.max_depth = 3}));
  EXPECT_TRUE(savekit::from_json<Chain>(text, {.max_depth = 3}));
}
