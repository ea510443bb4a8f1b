// What the sync reads from a server and how it names a save's content, without a server:
// the answer parsers refuse what the contract does not allow, and SHA-256 gives FIPS 180-2's
// published digests.
#include <gtest/gtest.h>

#include <savekit/base64.hpp>

#include "../../src/cloud/wire.hpp"
#include "../../src/sha256.hpp"

namespace {

using namespace savekit::cloud::detail;

TEST(CloudWire, Sha256GivesThePublishedDigests) {
  EXPECT_EQ(savekit::detail::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(savekit::detail::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(savekit::detail::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // A million 'a's, fed in uneven pieces (the block boundary crossed mid-update).
  savekit::detail::sha256 h;
  const std::string piece(997, 'a');
  std::size_t fed = 0;
  while (fed + piece.size() <= 1'000'000) {
    h.update(piece);
    fed += piece.size();
  }
  h.update(std::string(1'000'000 - fed, 'a'));
  EXPECT_EQ(h.hex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// An empty save's bytes reach the hash as a view without storage (a null pointer): the
// sanitizer build once stopped there, in the middle of a sync, on a memcpy of nothing.
TEST(CloudWire, Sha256TakesAnEmptyViewWithoutStorage) {
  savekit::detail::sha256 h;
  h.update("ab");
  h.update(std::string_view{});
  h.update("c");
  h.update(std::string_view{});
  EXPECT_EQ(h.hex(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(savekit::detail::sha256_hex(std::string_view{}),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(CloudWire, EtagsAreQuotedPositiveVersions) {
  EXPECT_EQ(parse_etag("\"7\""), 7);
  EXPECT_EQ(parse_etag("\"999999999999999\""), 999999999999999);  // 15 digits: the contract's most
  for (const char* bad : {"7", "W/\"7\"", "\"0\"", "\"07\"", "\"-1\"", "\"\"", "\"1 \"", "\"9007199254740991\""})
    EXPECT_FALSE(parse_etag(bad)) << bad;
}

TEST(CloudWire, TimesAreRfc3339InUtc) {
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_rfc3339("2026-12-01T20:00:00.000Z"), 1796155200000000);
  EXPECT_EQ(parse_rfc3339("2000-03-01T00:00:01.5Z"), 951868801500000);
  for (const char* bad : {"", "2026-12-01", "2026-12-01T20:00:00", "2026-13-01T20:00:00Z", "2026-12-01T20:00:00.Z",
                          "2026-12-01T20:00:00+01:00", "2026-12-01 20:00:00Z"})
    EXPECT_FALSE(parse_rfc3339(bad)) << bad;
}

TEST(CloudWire, AListIsCheckedEntryByEntry) {
  auto ok = parse_listing(
      R"({"slots":[{"name":"a","version":2,"bytes":3,"saved_at":"2026-12-01T20:00:00.000Z","meta":{"title":"T","playtime":60,"sk":{"v":1,"device":"deck","device_id":"x","content":"c","saved_at":5,"sealed":true}},"write_id":"w"}],"deleted":[{"name":"b","version":4,"bytes":0,"saved_at":"2026-12-01T20:00:00.000Z","meta":{}}]})");
  ASSERT_TRUE(ok) << ok.error().to_string();
  EXPECT_TRUE(ok->lists_deleted);
  ASSERT_EQ(ok->live.size(), 1u);
  EXPECT_EQ(ok->live[0].device, "deck");
  EXPECT_EQ(ok->live[0].title, "T");
  EXPECT_EQ(ok->live[0].playtime_s, 60);
  EXPECT_TRUE(ok->live[0].sealed);
  EXPECT_EQ(ok->live[0].write_id, "w");
  ASSERT_EQ(ok->deleted.size(), 1u);
  EXPECT_TRUE(ok->deleted[0].deleted);
  // An older server: no "deleted" member.
  auto old = parse_listing(R"({"slots":[]})");
  ASSERT_TRUE(old);
  EXPECT_FALSE(old->lists_deleted);
  // Metadata another client wrote is not an error.
  EXPECT_TRUE(parse_listing(
      R"({"slots":[{"name":"a","version":1,"bytes":3,"saved_at":"2026-12-01T20:00:00Z","meta":{"title":5,"sk":"x"}}]})"));
  for (
      const char* bad :
      {R"({"slots":[{"name":"","version":1,"bytes":0,"saved_at":"2026-12-01T20:00:00Z","meta":{}}]})",
       R"({"slots":[{"name":"a\u0000b","version":1,"bytes":0,"saved_at":"2026-12-01T20:00:00Z","meta":{}}]})",
       R"({"slots":[{"name":"a","version":0,"bytes":0,"saved_at":"2026-12-01T20:00:00Z","meta":{}}]})",
       R"({"slots":[{"name":"a","version":1,"bytes":-1,"saved_at":"2026-12-01T20:00:00Z","meta":{}}]})",
       R"({"slots":[{"name":"a","version":1,"bytes":0,"saved_at":"yesterday","meta":{}}]})",
       R"({"slots":[{"name":"a","version":1,"bytes":0,"saved_at":"2026-12-01T20:00:00Z","meta":{}}],"deleted":[{"name":"a","version":2,"bytes":0,"saved_at":"2026-12-01T20:00:00Z","meta":{}}]})",
       R"({"slots":{}})", "", "[]"}) {
    auto r = parse_listing(bad);
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_EQ(r.error().code(), savekit::errc::network) << bad;
    }
  }
}

TEST(CloudWire, TheMetadataSentFitsTheServersLimit) {
  savekit::slot_info info;
  info.meta.title = std::string(20000, 'x');
  for (int i = 0; i < 2000; ++i) info.meta.user["field" + std::to_string(i)] = std::string(20, 'v');
  const std::string header = encode_meta({&info, "deck", "id", "content"});
  EXPECT_LE(header.size() * 3 / 4, 16u * 1024);
  remote_entry back;
  auto decoded = savekit::base64_decode(header, savekit::base64_alphabet::url);
  ASSERT_TRUE(decoded);
  read_meta(std::string(reinterpret_cast<const char*>(decoded->data()), decoded->size()), back);
  EXPECT_EQ(back.device, "deck");
  EXPECT_EQ(back.content, "content");
  EXPECT_TRUE(back.user.empty()) << "the game's own fields go first";
  EXPECT_EQ(back.title.size(), 1024u);
}

TEST(CloudWire, SlotNamesArePercentEncodedAsOneSegment) {
  EXPECT_EQ(slot_target("slot1"), "/v1/slots/slot1");
  EXPECT_EQ(slot_target("a/b c%"), "/v1/slots/a%2Fb%20c%25");
  EXPECT_EQ(slot_target("café"), "/v1/slots/caf%C3%A9");
}

}  // namespace
