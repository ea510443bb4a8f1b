// Property tests: random values of every supported type survive every codec.
// Fixed seeds, so a failure is reproducible; the seed and iteration are printed.
#include <savekit/savekit.hpp>

#include <fast_float/fast_float.h>
#include <gtest/gtest.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <variant>
#include <vector>

namespace {

enum class Color : std::int16_t { red = -1, green = 0, blue = 300 };

struct Leaf {
  std::string text;
  std::int8_t i8 = 0;
  std::uint16_t u16 = 0;
  std::int32_t i32 = 0;
  std::uint64_t u64 = 0;
  std::int64_t i64 = 0;
  float f = 0;
  double d = 0;
  bool b = false;
  Color color = Color::red;
  bool operator==(const Leaf&) const = default;
};

struct Everything {
  Leaf leaf;
  std::vector<Leaf> leaves;
  std::array<int, 3> fixed{};
  std::int16_t c_array[2] = {};
  std::map<std::string, int> by_name;
  std::unordered_map<std::int32_t, std::string> by_id;
  std::map<std::uint64_t, double> by_number;
  std::optional<double> maybe;
  std::unique_ptr<Leaf> owned;
  std::shared_ptr<std::string> shared;
  std::variant<int, std::string, Leaf> either;
  std::pair<int, std::string> pair;
  std::tuple<bool, std::uint8_t, std::vector<int>> tuple;
  std::vector<std::byte> blob;
  std::vector<bool> bits;
  std::vector<std::vector<std::string>> nested;

  friend bool operator==(const Everything& a, const Everything& b) {
    auto same_pointee = [](const auto& x, const auto& y) { return (!x && !y) || (x && y && *x == *y); };
    return a.leaf == b.leaf && a.leaves == b.leaves && a.fixed == b.fixed && a.c_array[0] == b.c_array[0] &&
           a.c_array[1] == b.c_array[1] && a.by_name == b.by_name && a.by_id == b.by_id && a.by_number == b.by_number &&
           a.maybe == b.maybe && same_pointee(a.owned, b.owned) && same_pointee(a.shared, b.shared) &&
           a.either == b.either && a.pair == b.pair && a.tuple == b.tuple && a.blob == b.blob && a.bits == b.bits &&
           a.nested == b.nested;
  }
};

class generator {
 public:
  generator(std::uint64_t seed, bool utf8_only) : rng_(seed), utf8_only_(utf8_only) {}

  std::size_t size(std::size_t max) { return std::uniform_int_distribution<std::size_t>(0, max)(rng_); }
  bool coin() { return size(1) == 1; }

  template <class Int>
  Int integer() {
    // Mix extremes and small values: both are where encodings change.
    switch (size(3)) {
      case 0:
        return std::numeric_limits<Int>::min();
      case 1:
        return std::numeric_limits<Int>::max();
      case 2:
        return static_cast<Int>(static_cast<int>(size(300)) - 150);
      default:
        return static_cast<Int>(rng_());
    }
  }

  template <class Float>
  Float floating() {
    using Bits = std::conditional_t<sizeof(Float) == 4, std::uint32_t, std::uint64_t>;
    for (;;) {
      Float value;
      if (coin()) {
        auto bits = static_cast<Bits>(rng_());  // any bit pattern: subnormals, huge, tiny
        std::memcpy(&value, &bits, sizeof bits);
      } else {
        value = static_cast<Float>(std::uniform_real_distribution<double>(-1000, 1000)(rng_));
      }
      if (std::isfinite(value)) return value;  // JSON cannot carry NaN or infinity
    }
  }

  std::string text() {
    std::string out;
    std::size_t n = size(12);
    for (std::size_t i = 0; i < n; ++i) {
      if (!utf8_only_) {
        out.push_back(static_cast<char>(rng_()));
        continue;
      }
      static constexpr std::uint32_t samples[] = {'a',  '"',    '\\',   '\n',   0x01,    0x7f,
                                                  0xe9, 0x3042, 0x306c, 0xfffd, 0x1f600, 0x10ffff};
      std::uint32_t cp = coin() ? samples[size(std::size(samples) - 1)] : static_cast<std::uint32_t>(0x20 + size(0x5e));
      char buffer[4];
      out.append(buffer, static_cast<std::size_t>(savekit::detail::encode_utf8(cp, buffer)));
    }
    return out;
  }

  Leaf leaf() {
    static constexpr Color colors[] = {Color::red, Color::green, Color::blue};
    return {text(),
            integer<std::int8_t>(),
            integer<std::uint16_t>(),
            integer<std::int32_t>(),
            integer<std::uint64_t>(),
            integer<std::int64_t>(),
            floating<float>(),
            floating<double>(),
            coin(),
            colors[size(2)]};
  }

  void fill(Everything& e) {
    e.leaf = leaf();
    for (std::size_t i = size(3); i > 0; --i) e.leaves.push_back(leaf());
    e.fixed = {integer<int>(), integer<int>(), integer<int>()};
    e.c_array[0] = integer<std::int16_t>();
    e.c_array[1] = integer<std::int16_t>();
    for (std::size_t i = size(3); i > 0; --i) e.by_name[text()] = integer<int>();
    for (std::size_t i = size(3); i > 0; --i) e.by_id[integer<std::int32_t>()] = text();
    for (std::size_t i = size(3); i > 0; --i) e.by_number[integer<std::uint64_t>()] = floating<double>();
    if (coin()) e.maybe = floating<double>();
    if (coin()) e.owned = std::make_unique<Leaf>(leaf());
    if (coin()) e.shared = std::make_shared<std::string>(text());
    switch (size(2)) {
      case 0:
        e.either = integer<int>();
        break;
      case 1:
        e.either = text();
        break;
      default:
        e.either = leaf();
    }
    e.pair = {integer<int>(), text()};
    std::get<0>(e.tuple) = coin();
    std::get<1>(e.tuple) = integer<std::uint8_t>();
    for (std::size_t i = size(4); i > 0; --i) std::get<2>(e.tuple).push_back(integer<int>());
    for (std::size_t i = size(20); i > 0; --i) e.blob.push_back(static_cast<std::byte>(rng_()));
    for (std::size_t i = size(10); i > 0; --i) e.bits.push_back(coin());
    for (std::size_t i = size(3); i > 0; --i) {
      e.nested.emplace_back();
      for (std::size_t j = size(3); j > 0; --j) e.nested.back().push_back(text());
    }
  }

 private:
  std::mt19937_64 rng_;
  bool utf8_only_;
};

constexpr int iterations = 3000;

}  // namespace

TEST(Property, JsonRoundTrip) {
  for (std::uint64_t seed : {1u, 2u}) {
    generator gen(seed, true);
    Everything reused;  // reading into the same object every time exercises capacity reuse
    for (int i = 0; i < iterations; ++i) {
      Everything value;
      gen.fill(value);
      std::string text = savekit::to_json(value);
      ASSERT_TRUE(savekit::from_json(text, reused)) << "seed " << seed << " iteration " << i << ": " << text;
      ASSERT_TRUE(reused == value) << "seed " << seed << " iteration " << i << ": " << text;
      auto pretty = savekit::from_json<Everything>(savekit::to_json(value, {.pretty = true}));
      ASSERT_TRUE(pretty && *pretty == value) << "seed " << seed << " iteration " << i;
    }
  }
}

TEST(Property, MsgpackRoundTripBothForms) {
  for (auto form : {savekit::msgpack_form::map, savekit::msgpack_form::compact}) {
    generator gen(3, false);  // strings of arbitrary bytes: MessagePack is byte-clean
    Everything reused;
    for (int i = 0; i < iterations; ++i) {
      Everything value;
      gen.fill(value);
      auto packed = savekit::to_msgpack(value, {.form = form});
      ASSERT_TRUE(savekit::from_msgpack(packed, reused)) << "iteration " << i;
      ASSERT_TRUE(reused == value) << "iteration " << i;
    }
  }
}

TEST(Property, MsgpackKeepsEveryFloatBitPattern) {
  std::mt19937_64 rng(4);
  for (int i = 0; i < 20000; ++i) {
    std::uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, 8);
    auto back = savekit::from_msgpack<double>(savekit::to_msgpack(d));
    std::uint64_t back_bits;
    std::memcpy(&back_bits, &*back, 8);
    ASSERT_EQ(back_bits, bits);
  }
}

TEST(Property, JsonFloatsAreShortestAndExact) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 50000; ++i) {
    std::uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, 8);
    if (!std::isfinite(d)) continue;
    std::string text = savekit::to_json(d);
    auto back = savekit::from_json<double>(text);
    ASSERT_TRUE(back) << text;
    ASSERT_EQ(std::memcmp(&*back, &d, 8), 0) << text;
    // Shortest: no representation with fewer significant digits reads back the same.
    ASSERT_LE(text.size(), 25u) << text;
  }
}

// Numbers with digits on both sides of the point are written in plain notation, the
// point put in place by an 8-byte merge when it falls within the first eight characters
// (by a move past them): every position, both types, both signs, read back exactly (by
// strtod, not by savekit's own reader).
template <class Float>
void expect_plain_notation_reads_back(Float value) {
  std::string text = savekit::to_json(value);
  ASSERT_EQ(text.find_first_not_of("-0123456789."), std::string::npos) << text;
  ASSERT_NE(text.find('.'), std::string::npos) << text;
  Float back = static_cast<Float>(std::strtod(text.c_str(), nullptr));
  if constexpr (std::is_same_v<Float, float>) back = std::strtof(text.c_str(), nullptr);
  ASSERT_EQ(std::memcmp(&back, &value, sizeof(Float)), 0) << text;
}

TEST(Property, JsonFloatsWithAPointInsideAreWrittenInPlace) {
  std::mt19937_64 rng(13);
  for (int i = 0; i < 100000; ++i) {
    int integer_digits = 1 + static_cast<int>(rng() % 15);  // 1 to 15 digits before the point
    double scale = std::pow(10.0, static_cast<double>(integer_digits - 1));
    double magnitude = scale * (1.0 + static_cast<double>(rng() % 1000000007) / 1000000007.0 * 8.99);
    double value = (i % 2 ? -1 : 1) * magnitude;
    if (value == std::floor(value)) continue;  // no fraction: written with ".0", another path
    expect_plain_notation_reads_back(value);
    if (integer_digits <= 7) {
      float single = static_cast<float>(value);
      if (single != std::floor(single)) expect_plain_notation_reads_back(single);
    }
  }
}

// Every kind of float (random bit patterns: all exponents, all digit counts) is written with
// as many significant digits as std::to_chars's shortest form and reads back exactly (by
// strtof, not by savekit's own reader).
TEST(Property, JsonFloatsOfEveryKindAreShortestAndReadBackExactly) {
  std::mt19937 rng(23);
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    std::uint32_t bits = rng();
    float value;
    std::memcpy(&value, &bits, 4);
    if (!std::isfinite(value) || value == 0) continue;
    const std::string text = savekit::to_json(value);
    const float back = std::strtof(text.c_str(), nullptr);
    ASSERT_EQ(std::memcmp(&back, &value, 4), 0) << text;
#if defined(__cpp_lib_to_chars)  // (not in the libc++ of Debian's emscripten: there, round trips only)
    auto significant_digits = [](std::string_view t) {
      t = t.substr(0, t.find('e'));
      std::string digits;
      for (char c : t)
        if (c >= '0' && c <= '9') digits += c;
      digits.erase(0, digits.find_first_not_of('0'));
      while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
      return digits;
    };
    char shortest[64];
    auto [end, ec] = std::to_chars(shortest, shortest + sizeof shortest, value, std::chars_format::scientific);
    ASSERT_EQ(ec, std::errc{});
    ASSERT_EQ(significant_digits(text), significant_digits(std::string_view(shortest, end))) << text;
#endif
    ++checked;
  }
  EXPECT_GT(checked, 190000);
}

// Integers: the reader's inline path (up to nine digits, no sign) and the general one it
// hands everything else to must agree on every text — value, error code and offset.
template <class Int>
void expect_integer_paths_agree(const std::string& text) {
  using savekit::detail::json_cursor;
  Int inline_value{}, general_value{};
  json_cursor inline_cursor{text, 8}, general_cursor{text, 8};
  bool inline_read = savekit::detail::read_json_integer(inline_cursor, inline_value);
  bool general_read = savekit::detail::read_json_any_integer(general_cursor, general_value);
  ASSERT_EQ(inline_read, general_read) << text;
  if (inline_read) {
    ASSERT_EQ(inline_value, general_value) << text;
    ASSERT_EQ(inline_cursor.p, general_cursor.p) << text;
  } else {
    ASSERT_EQ(inline_cursor.err.code(), general_cursor.err.code()) << text;
    ASSERT_EQ(inline_cursor.err.offset(), general_cursor.err.offset()) << text;
  }
}

TEST(Property, JsonIntegersReadInlineAsTheGeneralPathReadsThem) {
  std::mt19937_64 rng(14);
  const char* endings[] = {"", ",", "}", " ", ".5", "e3", "E-1", "0", "x"};
  for (int i = 0; i < 200000; ++i) {
    std::string text = rng() % 5 == 0 ? "-" : "";
    int digits = 1 + static_cast<int>(rng() % 21);
    for (int d = 0; d < digits; ++d) text += static_cast<char>('0' + rng() % 10);
    text += endings[rng() % std::size(endings)];
    expect_integer_paths_agree<int>(text);
    expect_integer_paths_agree<std::int8_t>(text);
    expect_integer_paths_agree<std::uint16_t>(text);
    expect_integer_paths_agree<std::uint32_t>(text);
    expect_integer_paths_agree<std::int64_t>(text);
    expect_integer_paths_agree<std::uint64_t>(text);
  }
}

// The JSON reader converts common decimals itself (Clinger's fast path) and leaves the rest
// to fast_float: either way the result must be fast_float's, bit for bit. Two kinds of text:
// decimals of 14 to 17 digits next to a point halfway between two floats, where reading
// through a double rounds twice (the reader must notice and not do it), and random decimals
// of every shape for both float and double.
template <class Float>
void expect_read_as_fast_float_reads(const std::string& text) {
  Float reference{};
  fast_float::from_chars(text.data(), text.data() + text.size(), reference);
  Float ours{};
  savekit::status read = savekit::from_json(text, ours);
  if (std::isinf(reference)) {  // beyond the type's range: refused, not infinity
    ASSERT_FALSE(read) << text;
    ASSERT_EQ(read.error().code(), savekit::errc::number_out_of_range) << text;
    return;
  }
  ASSERT_TRUE(read) << text << ": " << read.error().to_string();
  ASSERT_EQ(std::memcmp(&ours, &reference, sizeof(Float)), 0) << text;
}

TEST(Property, JsonFloatsNearHalfwayPointsRoundOnce) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200000; ++i) {
    std::uint32_t bits = static_cast<std::uint32_t>(rng()) & 0x7f7fffffu;  // finite, positive
    float f;
    std::memcpy(&f, &bits, 4);
    double halfway = (static_cast<double>(f) + static_cast<double>(std::nextafter(f, INFINITY))) / 2;
    char text[64];
    std::snprintf(text, sizeof text, "%.*g", 14 + static_cast<int>(rng() % 4), (i % 2 ? -1 : 1) * halfway);
    expect_read_as_fast_float_reads<float>(text);
  }
}

TEST(Property, JsonDecimalsOfEveryShapeReadAsFastFloatReadsThem) {
  std::mt19937_64 rng(12);
  for (int i = 0; i < 200000; ++i) {
    std::string text = rng() % 2 ? "-" : "";
    int digits = 1 + static_cast<int>(rng() % 24);
    int point = static_cast<int>(rng() % static_cast<unsigned>(digits + 1));  // digits before the point
    if (point == 0) text += '0';
    for (int d = 0; d < digits; ++d) {
      if (d == point && point > 0) text += '.';
      char c = static_cast<char>('0' + rng() % 10);
      if (d == 0 && point > 1 && c == '0') c = '1';  // no leading zero
      text += c;
    }
    if (point == 0) text.insert(text.size() - static_cast<std::size_t>(digits), ".");
    if (rng() % 2) text += "e" + std::to_string(static_cast<int>(rng() % 61) - 30);
    expect_read_as_fast_float_reads<double>(text);
    expect_read_as_fast_float_reads<float>(text);
  }
}

TEST(Property, TranscodingMatchesTheTypedJson) {
  generator gen(6, true);
  for (int i = 0; i < iterations; ++i) {
    Everything value;
    gen.fill(value);
    auto text = savekit::msgpack_to_json(savekit::to_msgpack(value));
    ASSERT_TRUE(text) << "iteration " << i << ": " << text.error().to_string();
    // The same text as the typed writer, but for float members: the transcoder has no
    // type, so it prints a float32 as the double it equals (exact for any JSON reader).
    auto typed = savekit::from_json<Everything>(*text);
    ASSERT_TRUE(typed && *typed == value) << "iteration " << i << ": " << *text;
    Everything no_floats = std::move(value);
    no_floats.leaf.f = 0;
    for (auto& leaf : no_floats.leaves) leaf.f = 0;
    if (no_floats.owned) no_floats.owned->f = 0;
    if (auto* leaf = std::get_if<Leaf>(&no_floats.either)) leaf->f = 0;
    ASSERT_EQ(*savekit::msgpack_to_json(savekit::to_msgpack(no_floats)), savekit::to_json(no_floats));
    auto packed = savekit::json_to_msgpack(*text);
    ASSERT_TRUE(packed);
    ASSERT_EQ(*savekit::msgpack_to_json(*packed), *text) << "iteration " << i;
  }
}

TEST(Property, TypedReadersAgreeWithTheTranscoder) {
  // What a player does to inspect or edit a binary save: MessagePack to JSON, perhaps an
  // edit, and back. Bytes become Base64 text and integer map keys strings on the way; the
  // typed MessagePack reader must read the result as the JSON reader reads the text.
  // (Regression: bytes came back as their Base64 characters, integer-keyed maps never.)
  generator gen(9, true);
  for (int i = 0; i < iterations; ++i) {
    Everything value;
    gen.fill(value);
    auto text = savekit::msgpack_to_json(savekit::to_msgpack(value));
    ASSERT_TRUE(text);
    auto back = savekit::json_to_msgpack(*text);
    ASSERT_TRUE(back);
    auto typed = savekit::from_msgpack<Everything>(*back);
    ASSERT_TRUE(typed) << "iteration " << i << ": " << typed.error().to_string() << " in " << *text;
    ASSERT_TRUE(*typed == value) << "iteration " << i << ": " << *text;
    auto through_typed_json = savekit::json_to_msgpack(savekit::to_json(value));
    ASSERT_TRUE(through_typed_json);
    auto typed_again = savekit::from_msgpack<Everything>(*through_typed_json);
    ASSERT_TRUE(typed_again && *typed_again == value) << "iteration " << i;
  }
}

TEST(Property, Base64RoundTrip) {
  std::mt19937_64 rng(7);
  for (auto alphabet : {savekit::base64_alphabet::standard, savekit::base64_alphabet::url}) {
    std::vector<std::byte> decoded;
    for (int i = 0; i < 20000; ++i) {
      std::vector<std::byte> data(rng() % 100);
      for (auto& b : data) b = static_cast<std::byte>(rng());
      std::string text = savekit::base64_encode(data, alphabet);
      ASSERT_TRUE(savekit::base64_decode(text, decoded, alphabet));
      ASSERT_EQ(decoded, data);
    }
  }
}

TEST(Property, JsonOutputIsValidForArbitraryBytes) {
  std::mt19937_64 rng(8);
  for (int i = 0; i < 20000; ++i) {
    std::string bytes(rng() % 40, '\0');
    for (auto& b : bytes) b = static_cast<char>(rng() % 4 == 0 ? rng() : (rng() % 2 ? 0xE3 : 0x80 + rng() % 64));
    std::string text = savekit::to_json(bytes);
    auto back = savekit::from_json<std::string>(text);
    ASSERT_TRUE(back) << "iteration " << i << ": " << back.error().to_string();
    if (savekit::detail::find_invalid_utf8(bytes.data(), bytes.size()) == bytes.size()) {
      ASSERT_EQ(*back, bytes);
    }
  }
}
