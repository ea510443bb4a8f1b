// Base64: RFC 4648 test vectors, both alphabets, strict decoding.
#include <savekit/base64.hpp>

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace {

std::string text_of(const std::vector<std::byte>& bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace

TEST(Base64, Rfc4648Vectors) {
  const std::pair<std::string_view, std::string_view> vectors[] = {{"", ""},
                                                                   {"f", "Zg=="},
                                                                   {"fo", "Zm8="},
                                                                   {"foo", "Zm9v"},
                                                                   {"foob", "Zm9vYg=="},
                                                                   {"fooba", "Zm9vYmE="},
                                                                   {"foobar", "Zm9vYmFy"}};
  for (auto [plain, encoded] : vectors) {
    EXPECT_EQ(savekit::base64_encode(plain), encoded);
    auto decoded = savekit::base64_decode(encoded);
    ASSERT_TRUE(decoded) << encoded;
    EXPECT_EQ(text_of(*decoded), plain);
  }
}

TEST(Base64, UrlAlphabetIsUnpaddedAndAcceptsPadding) {
  std::string_view plain = "\xfb\xff\xbf";
  EXPECT_EQ(savekit::base64_encode(plain), "+/+/");
  EXPECT_EQ(savekit::base64_encode(plain, savekit::base64_alphabet::url), "-_-_");
  EXPECT_EQ(savekit::base64_encode("f", savekit::base64_alphabet::url), "Zg");
  EXPECT_EQ(text_of(*savekit::base64_decode("Zg", savekit::base64_alphabet::url)), "f");
  EXPECT_EQ(text_of(*savekit::base64_decode("Zg==", savekit::base64_alphabet::url)), "f");
  EXPECT_FALSE(savekit::base64_decode("-_-_"));  // URL characters are not standard ones
  EXPECT_FALSE(savekit::base64_decode("+/+/", savekit::base64_alphabet::url));
}

TEST(Base64, ByteCleanForEveryByteValue) {
  std::vector<std::byte> all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<std::byte>(i));
  for (auto alphabet : {savekit::base64_alphabet::standard, savekit::base64_alphabet::url}) {
    auto decoded = savekit::base64_decode(savekit::base64_encode(all, alphabet), alphabet);
    ASSERT_TRUE(decoded);
    EXPECT_EQ(*decoded, all);
  }
}

TEST(Base64, StrictDecoding) {
  using savekit::errc;
  struct Case {
    std::string_view text;
    errc code;
    std::size_t offset;
  };
  const Case cases[] = {
      {"Zm9v\n", errc::invalid_base64_padding, 5},    // length not a multiple of 4
      {"Zm 9", errc::invalid_base64_character, 2},    // whitespace is not skipped
      {"Zm9=Zm9v", errc::invalid_base64_padding, 3},  // padding in the middle
      {"Z===", errc::invalid_base64_padding, 1},      // one character cannot make a byte
      {"Zh==", errc::invalid_base64_trailing_bits, 1},
      {"Zm9=", errc::invalid_base64_trailing_bits, 2},
      {"Zm8=", errc::ok, 0},
  };
  for (const Case& c : cases) {
    auto r = savekit::base64_decode(c.text);
    if (c.code == errc::ok) {
      EXPECT_TRUE(r) << c.text;
      continue;
    }
    ASSERT_FALSE(r) << c.text;
    EXPECT_EQ(r.error().code(), c.code) << c.text;
    EXPECT_EQ(r.error().offset(), c.offset) << c.text;
  }
  auto url = savekit::base64_decode("Zg=", savekit::base64_alphabet::url);
  ASSERT_FALSE(url);
  EXPECT_EQ(url.error().code(), errc::invalid_base64_padding);
}

TEST(Base64, DecodeIntoReusesCapacity) {
  std::vector<std::byte> out;
  out.reserve(64);
  const std::byte* data = out.data();
  ASSERT_TRUE(savekit::base64_decode("Zm9vYmFy", out));
  EXPECT_EQ(text_of(out), "foobar");
  EXPECT_EQ(out.data(), data);
}

// Every length to 100, random bytes, both alphabets: the encoder (four characters stored as
// one word) against a bit-by-bit reference, and the decoder (three bytes stored as a word
// while another group follows) back to the input.
TEST(Base64, WordStoresMatchABitByBitReference) {
  std::mt19937 rng(4648);
  for (auto alphabet : {savekit::base64_alphabet::standard, savekit::base64_alphabet::url}) {
    const char* chars = alphabet == savekit::base64_alphabet::standard
                            ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
                            : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for (std::size_t n = 0; n <= 100; ++n) {
      std::vector<std::byte> bytes(n);
      for (auto& b : bytes) b = static_cast<std::byte>(rng());
      std::string reference;
      unsigned bits = 0;
      int pending = 0;
      for (std::byte b : bytes) {
        bits = (bits << 8) | std::to_integer<unsigned>(b);
        for (pending += 8; pending >= 6; pending -= 6) reference += chars[(bits >> (pending - 6)) & 63];
      }
      if (pending > 0) reference += chars[(bits << (6 - pending)) & 63];
      if (alphabet == savekit::base64_alphabet::standard)
        while (reference.size() % 4 != 0) reference += '=';
      ASSERT_EQ(savekit::base64_encode(bytes, alphabet), reference) << n;
      std::vector<std::byte> decoded(3, std::byte{0x5a});  // reused, of another size
      ASSERT_TRUE(savekit::base64_decode(reference, decoded, alphabet)) << n;
      ASSERT_EQ(decoded, bytes) << n;
    }
  }
}
