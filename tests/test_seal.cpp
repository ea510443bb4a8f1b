// Sealed saves (savekit/seal.hpp): every mode round-trips; every single-byte flip and
// every truncation of a small sealed save is an error, never garbage; contexts, keys and
// dictionaries are bound; a declared size above the limit is refused unread.
#include <gtest/gtest.h>
#include <sodium.h>
#include <zstd.h>

#include <algorithm>
#include <random>
#include <set>

#include "savekit/seal.hpp"

using savekit::errc;
using savekit::seal_compression;
using savekit::seal_protection;

namespace {

savekit::seal_key key_of(std::uint32_t id, unsigned char fill) {
  std::array<std::byte, savekit::seal_key_bytes> bytes;
  bytes.fill(std::byte{fill});
  return *savekit::seal_key::from_bytes(id, bytes);
}

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(rng());
  return out;
}

// A save-like JSON document of about `bytes` bytes.
std::string json_save(unsigned seed, std::size_t items = 12) {
  std::mt19937 rng(seed);
  std::string out = R"({"name":"hero )" + std::to_string(rng() % 1000) + R"(","level":)" + std::to_string(rng() % 99) +
                    R"(,"gold":)" + std::to_string(rng() % 100000) + R"(,"inventory":[)";
  for (std::size_t i = 0; i < items; ++i) {
    if (i) out += ',';
    out += R"({"id":)" + std::to_string(rng() % 500) + R"(,"count":)" + std::to_string(rng() % 20) +
           R"(,"name":"item )" + std::to_string(rng() % 50) + R"(","equipped":)" + (rng() % 2 ? "true" : "false") + "}";
  }
  return out + R"(],"position":{"x":)" + std::to_string(rng() % 1000) + R"(,"y":)" + std::to_string(rng() % 1000) +
         "}}";
}

struct mode {
  seal_compression compression;
  seal_protection protection;
};
const mode every_mode[] = {
    {seal_compression::none, seal_protection::none}, {seal_compression::none, seal_protection::mac},
    {seal_compression::none, seal_protection::aead}, {seal_compression::zstd, seal_protection::none},
    {seal_compression::zstd, seal_protection::mac},  {seal_compression::zstd, seal_protection::aead},
};
std::string describe(const mode& m) {
  return std::string{to_string(m.compression)} + "+" + std::string{to_string(m.protection)};
}

const savekit::seal_context here{.name = "slot1", .schema_version = 3, .player = "p-42"};
// A reader that expects the mode a save was sealed with (a keyed reader otherwise refuses
// digest-only saves: AReaderWithKeysOpensNoSaveWithLessThanAMac).
savekit::unseal_options expecting(const mode& m) {
  savekit::unseal_options options;
  options.minimum_protection = m.protection;
  return options;
}

}  // namespace

TEST(Seal, EveryModeRoundTripsEverySize) {
  savekit::keyring keys{key_of(1, 7)};
  for (const mode& m : every_mode)
    for (std::size_t size :
         {std::size_t{0}, std::size_t{1}, std::size_t{100}, std::size_t{10'000}, std::size_t{1'000'000}}) {
      for (const std::string& plain : {random_bytes(size, 1), std::string(size, 'a')}) {
        auto sealed = savekit::seal(plain, {.compression = m.compression, .protection = m.protection}, here, &keys);
        ASSERT_TRUE(sealed) << describe(m) << " " << size << ": " << sealed.error().to_string();
        EXPECT_TRUE(savekit::looks_sealed(*sealed));
        auto opened = savekit::unseal(*sealed, &keys, here, expecting(m));
        ASSERT_TRUE(opened) << describe(m) << " " << size << ": " << opened.error().to_string();
        EXPECT_EQ(*opened, plain) << describe(m) << " " << size;
        auto info = savekit::inspect_sealed(*sealed);
        ASSERT_TRUE(info);
        EXPECT_EQ(info->original_bytes, plain.size());
        EXPECT_EQ(info->key_id, m.protection == seal_protection::none ? 0u : 1u);
      }
    }
}

// The envelope and its MAC as docs/sealed-format.md defines them, computed apart from
// savekit by Python's hashlib (libsodium's crypto_kdf is BLAKE2b keyed with the key, the
// subkey id as the salt's first 8 bytes and the context as the personalization):
//   sub = blake2b(b"", digest_size=32, key=bytes(range(32)), salt=pack("<Q", 1) + bytes(8),
//                 person=b"SKsealv1" + bytes(8)).digest()
//   head = b"SKSL" + bytes([1, 0, 1, 0]) + pack("<IIQ", 7, 0, 14)
//   bound = b"savekit sealed save v1" + pack("<I", 5) + b"slot1" + pack("<II", 3, 9) + b"player-42" + pack("<I", 0)
//   head + b"a known answer" + blake2b(head + bound + b"a known answer", digest_size=32, key=sub).digest()
// Pins the format and the subkeys across changes to how seal computes them.
TEST(Seal, AMacSealMatchesTheFormatComputedApart) {
  std::array<std::byte, savekit::seal_key_bytes> bytes;
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = std::byte(i);
  const savekit::keyring keys{*savekit::seal_key::from_bytes(7, bytes)};
  const savekit::seal_context where{.name = "slot1", .schema_version = 3, .player = "player-42"};
  const savekit::seal_options mac_only{.compression = seal_compression::none, .protection = seal_protection::mac};
  const char* expected =
      "534b534c0100010007000000000000000e0000000000000061206b6e6f776e20616e73776572e4024f2bea032355012e14d491af25cd53"
      "28788775e3187365def93bb81596d6";
  auto sealed = savekit::seal("a known answer", mac_only, where, &keys);
  ASSERT_TRUE(sealed);
  std::string hex;
  for (unsigned char c : *sealed) hex += "0123456789abcdef"[c >> 4], hex += "0123456789abcdef"[c & 15];
  EXPECT_EQ(hex, expected);
  // An AEAD seal opens with the subkey the format names, used by libsodium directly.
  const savekit::seal_options aead_only{.compression = seal_compression::none, .protection = seal_protection::aead};
  auto encrypted = savekit::seal("a known answer", aead_only, where, &keys);
  ASSERT_TRUE(encrypted);
  unsigned char subkey[32];
  crypto_kdf_derive_from_key(subkey, sizeof subkey, 2, "SKsealv1",
                             reinterpret_cast<const unsigned char*>(bytes.data()));
  std::string associated = encrypted->substr(0, savekit::sealed_header_bytes + savekit::sealed_nonce_bytes);
  associated += std::string{"savekit sealed save v1"} +
                std::string{"\x05\0\0\0slot1\x03\0\0\0\x09\0\0\0player-42", 26} + std::string(4, '\0');
  const std::string cipher = encrypted->substr(savekit::sealed_header_bytes + savekit::sealed_nonce_bytes);
  std::string opened(cipher.size() - 16, '\0');
  unsigned long long length = 0;
  ASSERT_EQ(crypto_aead_xchacha20poly1305_ietf_decrypt(
                reinterpret_cast<unsigned char*>(opened.data()), &length, nullptr,
                reinterpret_cast<const unsigned char*>(cipher.data()), cipher.size(),
                reinterpret_cast<const unsigned char*>(associated.data()), associated.size(),
                reinterpret_cast<const unsigned char*>(encrypted->data() + savekit::sealed_header_bytes), subkey),
            0);
  EXPECT_EQ(opened, "a known answer");
}

// seal_into and unseal_into give what seal and unseal give, into a string the caller keeps;
// a string sealed or opened into itself works; a failure leaves the string empty.
TEST(Seal, IntoAReusedStringAsIntoANewOne) {
  const savekit::keyring keys{key_of(1, 0x42)};
  std::string sealed(1000, 'x');  // (holding something before: it is replaced)
  std::string opened;
  for (const mode& m : every_mode) {
    const std::string plain = json_save(5);
    const savekit::seal_options options{.compression = m.compression, .protection = m.protection};
    ASSERT_TRUE(savekit::seal_into(sealed, plain, options, here, &keys)) << describe(m);
    ASSERT_TRUE(savekit::unseal_into(opened, sealed, &keys, here, expecting(m))) << describe(m);
    EXPECT_EQ(opened, plain) << describe(m);
    EXPECT_EQ(*savekit::unseal(sealed, &keys, here, expecting(m)), plain) << describe(m);
    auto fresh = savekit::seal(plain, options, here, &keys);
    ASSERT_TRUE(fresh);
    EXPECT_EQ(fresh->size(), sealed.size()) << describe(m);
    if (m.protection != seal_protection::aead) {
      EXPECT_EQ(*fresh, sealed) << describe(m);  // (no nonce)
    }

    std::string in_place = plain;
    ASSERT_TRUE(savekit::seal_into(in_place, in_place, options, here, &keys)) << describe(m);
    ASSERT_TRUE(savekit::unseal_into(in_place, in_place, &keys, here, expecting(m))) << describe(m);
    EXPECT_EQ(in_place, plain) << describe(m);
  }
  std::string damaged = *savekit::seal("hello", {}, here, &keys);
  damaged[damaged.size() / 2] ^= 1;
  opened = "left over";
  EXPECT_EQ(savekit::unseal_into(opened, damaged, &keys, here).error().code(), errc::tampered);
  EXPECT_TRUE(opened.empty());
  // Opened into itself and refused after decryption (too large): no plaintext left behind.
  const savekit::seal_options encrypted_only{.compression = seal_compression::none};
  std::string in_place = *savekit::seal(std::string(100, 's'), encrypted_only, here, &keys);
  savekit::unseal_options small;
  small.max_original_bytes = 10;
  EXPECT_EQ(savekit::unseal_into(in_place, in_place, &keys, here, small).error().code(), errc::value_too_large);
  EXPECT_TRUE(in_place.empty());
  // A context that is a view of the string sealed into: bound to the name as it was.
  std::string reused = "slot1";
  ASSERT_TRUE(savekit::seal_into(reused, "bytes", {}, {.name = reused, .schema_version = 3, .player = "p-42"}, &keys));
  EXPECT_EQ(*savekit::unseal(reused, &keys, here), "bytes");
  sealed = "left over";
  EXPECT_EQ(savekit::seal_into(sealed, "x", {.level = 99}, here, &keys).error().code(), errc::invalid_value);
  EXPECT_TRUE(sealed.empty());
}

// A game that saves from a static destructor, at exit: after this thread's thread_local
// buffers are destroyed (ASan saw their freed memory written before they were guarded).
struct seals_at_exit {
  ~seals_at_exit() {
    const savekit::keyring keys{key_of(1, 0x42)};
    auto sealed = savekit::seal("goodbye", {}, here, &keys);
    if (!sealed || *savekit::unseal(*sealed, &keys, here) != "goodbye") std::abort();
  }
} seal_at_exit;

TEST(Seal, CompressionShrinksWhatRepeatsAndEncryptionHidesIt) {
  savekit::keyring keys{key_of(1, 7)};
  const std::string plain = json_save(1, 400);
  auto packed = savekit::seal(plain, {.protection = seal_protection::mac}, here, &keys);
  ASSERT_TRUE(packed);
  EXPECT_LT(packed->size(), plain.size() / 3);
  auto readable =
      savekit::seal(plain, {.compression = seal_compression::none, .protection = seal_protection::mac}, here, &keys);
  ASSERT_TRUE(readable);
  EXPECT_NE(readable->find(plain), std::string::npos) << "a MAC leaves the save readable";
  auto hidden =
      savekit::seal(plain, {.compression = seal_compression::none, .protection = seal_protection::aead}, here, &keys);
  ASSERT_TRUE(hidden);
  EXPECT_EQ(hidden->find(plain.substr(0, 16)), std::string::npos);
  auto again =
      savekit::seal(plain, {.compression = seal_compression::none, .protection = seal_protection::aead}, here, &keys);
  EXPECT_NE(*hidden, *again) << "a fresh random nonce per seal";
}

// Every byte of the nonce comes from the random source (in WebAssembly savekit fills it
// through Web Crypto itself): over 64 seals, no position keeps one value.
TEST(Seal, EveryByteOfTheNonceIsFreshAndGeneratedKeysDiffer) {
  savekit::keyring keys{key_of(1, 7)};
  std::vector<std::set<char>> seen(savekit::sealed_nonce_bytes);
  for (int i = 0; i < 64; ++i) {
    auto sealed = savekit::seal("x", {.compression = seal_compression::none}, here, &keys);
    ASSERT_TRUE(sealed);
    for (std::size_t at = 0; at < savekit::sealed_nonce_bytes; ++at)
      seen[at].insert((*sealed)[savekit::sealed_header_bytes + at]);
  }
  for (std::size_t at = 0; at < savekit::sealed_nonce_bytes; ++at)
    EXPECT_GT(seen[at].size(), 1u) << "nonce byte " << at;
  auto first = savekit::seal_key::generate(1), second = savekit::seal_key::generate(1);
  ASSERT_TRUE(first && second);
  EXPECT_FALSE(std::equal(first->bytes().begin(), first->bytes().end(), second->bytes().begin()));
  std::set<unsigned char> key_bytes(first->bytes().begin(), first->bytes().end());
  EXPECT_GT(key_bytes.size(), 8u);
}

TEST(Seal, EverySingleByteFlipAndEveryTruncationIsAnError) {
  savekit::keyring keys{key_of(1, 7)};
  for (const mode& m : every_mode) {
    auto sealed = savekit::seal(json_save(2), {.compression = m.compression, .protection = m.protection}, here, &keys);
    ASSERT_TRUE(sealed);
    for (std::size_t at = 0; at < sealed->size(); ++at)
      for (unsigned char flip : {0x01, 0x80, 0xFF}) {
        std::string bad = *sealed;
        bad[at] = static_cast<char>(bad[at] ^ flip);
        auto opened = savekit::unseal(bad, &keys, here, expecting(m));
        ASSERT_FALSE(opened) << describe(m) << ": a flip at " << at << " opened";
        const errc code = opened.error().code();
        // The version and algorithm bytes may name what this build lacks, and the key id
        // of a keyed save a key the keyring lacks; everything else is tampered.
        const bool own_code =
            (at >= 4 && at <= 6 && code == errc::unsupported_algorithm) ||
            (at >= 8 && at <= 11 && m.protection != seal_protection::none && code == errc::key_not_held);
        EXPECT_TRUE(code == errc::tampered || own_code)
            << describe(m) << " flip at " << at << ": " << opened.error().to_string();
      }
    for (std::size_t length = 0; length < sealed->size(); ++length) {
      auto opened = savekit::unseal(std::string_view{*sealed}.substr(0, length), &keys, here, expecting(m));
      ASSERT_FALSE(opened) << describe(m) << ": cut to " << length << " opened";
      EXPECT_EQ(opened.error().code(), errc::tampered) << describe(m) << " cut to " << length;
    }
    auto longer = savekit::unseal(*sealed + "x", &keys, here, expecting(m));
    EXPECT_EQ(longer.error().code(), errc::tampered) << describe(m);
  }
}

// Found by an attack review: a digest-only save is anyone's to write, and opened under a
// keyed reader it passed for the key holder's.
TEST(Seal, AReaderWithKeysOpensNoSaveWithLessThanAMac) {
  savekit::keyring keys{key_of(1, 7)};
  auto forged = savekit::seal(R"({"gold":999999999})", {.protection = seal_protection::none}, here);
  ASSERT_TRUE(forged);
  auto opened = savekit::unseal(*forged, &keys, here);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code(), errc::tampered);
  auto mac = savekit::seal("x", {.protection = seal_protection::mac}, here, &keys);
  savekit::unseal_options aead_only;
  aead_only.minimum_protection = seal_protection::aead;
  EXPECT_EQ(savekit::unseal(*mac, &keys, here, aead_only).error().code(), errc::tampered);
  EXPECT_TRUE(savekit::unseal(*mac, &keys, here));
  savekit::unseal_options anything;
  anything.minimum_protection = seal_protection::none;
  EXPECT_TRUE(savekit::unseal(*forged, &keys, here, anything)) << "when the reader says so";
  EXPECT_TRUE(savekit::unseal(*forged, nullptr, here)) << "a reader without keys checks a digest only";
  auto sealer = savekit::make_slot_sealer(savekit::keyring{key_of(1, 7)}, {.protection = seal_protection::aead}, "p");
  auto forged_for_slot = savekit::seal("x", {.protection = seal_protection::none}, {"slot1", 1, "p"});
  EXPECT_EQ(sealer->unseal(*forged_for_slot, "slot1", 1, {}).error().code(), errc::tampered);
}

// Also from the review: the body is one zstd frame holding its size, nothing else.
TEST(Seal, OnlyOneZstdFrameOfTheDeclaredSizeInflates) {
  ASSERT_GE(sodium_init(), 0);
  auto frame = [](std::string_view text, bool with_size) {
    std::string out(ZSTD_compressBound(text.size()) + 16, '\0');
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, with_size ? 1 : 0);
    const std::size_t n = ZSTD_compress2(cctx, out.data(), out.size(), text.data(), text.size());
    ZSTD_freeCCtx(cctx);
    out.resize(n);
    return out;
  };
  const std::string skippable("\x50\x2a\x4d\x18\x00\x00\x00\x00", 8);
  const std::string text = "hello hello hello";
  struct bodies {
    std::string body;
    std::uint64_t declared;
  };
  for (const auto& [body, declared] :
       {bodies{frame(text, true) + skippable, text.size()}, bodies{frame(text, true) + frame("", true), text.size()},
        bodies{skippable + frame(text, true), text.size()}, bodies{frame(text, false), text.size()},
        bodies{frame(text, true).substr(0, 10), text.size()}}) {
    // A digest-only envelope around it, digest recomputed (no key is needed to forge one).
    std::string forged = "SKSL";
    forged += '\x01', forged += '\x01', forged += '\x00', forged += '\x00';
    forged += std::string(8, '\0');
    for (int i = 0; i < 8; ++i) forged += static_cast<char>((declared >> (8 * i)) & 0xFF);
    forged += body;
    std::string context = "savekit sealed save v1";
    auto put_u32 = [&](std::uint32_t v) {
      for (int i = 0; i < 4; ++i) context.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
    };
    put_u32(5), context += "slot1", put_u32(3), put_u32(4), context += "p-42", put_u32(0);  // no binding
    unsigned char tag[32];
    crypto_generichash_state state;
    crypto_generichash_init(&state, nullptr, 0, 32);
    crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(forged.data()), 24);
    crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(context.data()), context.size());
    crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(forged.data() + 24), forged.size() - 24);
    crypto_generichash_final(&state, tag, 32);
    forged.append(reinterpret_cast<const char*>(tag), 32);
    auto opened = savekit::unseal(forged, nullptr, here);
    ASSERT_FALSE(opened) << "a body of " << body.size() << " bytes opened";
    EXPECT_EQ(opened.error().code(), errc::tampered) << opened.error().to_string();
  }
}

TEST(Seal, AnotherSlotSchemaOrPlayerDoesNotOpenIt) {
  savekit::keyring keys{key_of(1, 7)};
  for (const mode& m : every_mode) {
    auto sealed = savekit::seal("progress", {.compression = m.compression, .protection = m.protection}, here, &keys);
    ASSERT_TRUE(sealed);
    for (const savekit::seal_context& other :
         {savekit::seal_context{"slot2", 3, "p-42"}, savekit::seal_context{"slot1", 4, "p-42"},
          savekit::seal_context{"slot1", 3, "p-43"}, savekit::seal_context{"slot1", 3, ""},
          savekit::seal_context{"slot13", 3, "p-42"}})
      EXPECT_EQ(savekit::unseal(*sealed, &keys, other, expecting(m)).error().code(), errc::tampered)
          << describe(m) << " opened as " << other.name << "/" << other.schema_version << "/" << other.player;
    EXPECT_TRUE(savekit::unseal(*sealed, &keys, here, expecting(m))) << describe(m);
  }
}

TEST(Seal, KeysRotateAndAWrongOrMissingKeyIsNamed) {
  savekit::keyring keys{key_of(1, 7)};
  auto old = savekit::seal("old save", {}, here, &keys);
  ASSERT_TRUE(old);
  keys.add(key_of(2, 9));
  ASSERT_TRUE(keys.use(2));
  auto fresh = savekit::seal("new save", {}, here, &keys);
  ASSERT_TRUE(fresh);
  EXPECT_EQ(savekit::inspect_sealed(*fresh)->key_id, 2u);
  EXPECT_EQ(*savekit::unseal(*old, &keys, here), "old save");  // rotation: older keys still open
  EXPECT_EQ(*savekit::unseal(*fresh, &keys, here), "new save");

  savekit::keyring only_new{key_of(2, 9)};
  EXPECT_EQ(savekit::unseal(*old, &only_new, here).error().code(), errc::key_not_held);
  EXPECT_EQ(savekit::unseal(*old, nullptr, here).error().code(), errc::key_not_held);
  savekit::keyring impostor{key_of(1, 8)};  // the same id, other bytes
  EXPECT_EQ(savekit::unseal(*old, &impostor, here).error().code(), errc::tampered);
  EXPECT_EQ(keys.use(5).error().code(), errc::key_not_held);
  EXPECT_EQ(savekit::seal("x", {}, here, nullptr).error().code(), errc::key_not_held);
  auto generated = savekit::seal_key::generate(3);
  ASSERT_TRUE(generated);
  EXPECT_EQ(generated->id(), 3u);
  std::array<std::byte, 31> short_key{};
  EXPECT_EQ(savekit::seal_key::from_bytes(1, short_key).error().code(), errc::invalid_value);
}

TEST(Seal, ADeclaredSizeAboveTheLimitIsRefusedBeforeTheOutputIsAllocated) {
  savekit::keyring keys{key_of(1, 7)};
  auto sealed = savekit::seal(std::string(100'000, 'z'), {}, here, &keys);
  ASSERT_TRUE(sealed);
  savekit::unseal_options small;
  small.max_original_bytes = 99'999;
  auto refused = savekit::unseal(*sealed, &keys, here, small);
  EXPECT_EQ(refused.error().code(), errc::value_too_large);
  small.max_original_bytes = 100'000;
  EXPECT_TRUE(savekit::unseal(*sealed, &keys, here, small));
  // A header declaring 2^60 bytes over garbage: the check fails first (nothing is inflated).
  std::string bomb = sealed->substr(0, savekit::sealed_header_bytes);
  for (int i = 0; i < 8; ++i) bomb[16 + i] = static_cast<char>(i == 7 ? 0x10 : 0);
  bomb += std::string(100, '\0');
  EXPECT_EQ(savekit::unseal(bomb, &keys, here).error().code(), errc::tampered);
}

// A digest-only save whose header lies about the size, with the digest recomputed (what
// someone editing the file would do): the body must inflate to exactly the declared size.
TEST(Seal, ABodyThatInflatesToAnotherSizeIsTampered) {
  ASSERT_GE(sodium_init(), 0);
  auto sealed = savekit::seal(std::string(5000, 'q'), {.protection = seal_protection::none}, here);
  ASSERT_TRUE(sealed);
  for (std::uint64_t declared :
       {std::uint64_t{10}, std::uint64_t{4999}, std::uint64_t{5001}, std::uint64_t{1 << 20}, std::uint64_t{1} << 60}) {
    std::string forged = *sealed;
    for (int i = 0; i < 8; ++i) forged[16 + i] = static_cast<char>((declared >> (8 * i)) & 0xFF);
    // Recompute BLAKE2b-256 over header, context and body, as seal does.
    std::string context = "savekit sealed save v1";
    auto put_u32 = [&](std::uint32_t v) {
      for (int i = 0; i < 4; ++i) context.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
    };
    put_u32(5), context += "slot1", put_u32(3), put_u32(4), context += "p-42", put_u32(0);  // no binding
    const std::size_t body_end = forged.size() - savekit::sealed_tag_bytes_digest;
    crypto_generichash_state state;
    crypto_generichash_init(&state, nullptr, 0, 32);
    crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(forged.data()), 24);
    crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(context.data()), context.size());
    crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(forged.data() + 24), body_end - 24);
    crypto_generichash_final(&state, reinterpret_cast<unsigned char*>(forged.data() + body_end), 32);
    auto opened = savekit::unseal(forged, nullptr, here);
    ASSERT_FALSE(opened) << declared;
    // Over the limit (1 GiB by default): refused on the size; under it: found by zstd.
    EXPECT_EQ(opened.error().code(), declared > (std::uint64_t{1} << 30) ? errc::value_too_large : errc::tampered)
        << declared << ": " << opened.error().to_string();
  }
}

TEST(Seal, ATrainedDictionaryShrinksSmallSavesAndIsNeededToOpenThem) {
  std::vector<std::string> samples;
  for (unsigned i = 0; i < 1000; ++i) samples.push_back(json_save(100 + i));
  auto dictionary = savekit::zstd_dictionary::train(samples);
  ASSERT_TRUE(dictionary) << dictionary.error().to_string();
  EXPECT_NE(dictionary->id(), 0u);
  savekit::keyring keys{key_of(1, 7)};
  std::size_t plain_bytes = 0, without = 0, with = 0;
  for (unsigned i = 0; i < 50; ++i) {  // saves the dictionary was not trained on
    const std::string save = json_save(5000 + i);
    plain_bytes += save.size();
    without += savekit::seal(save, {.protection = seal_protection::none}, here)->size();
    auto sealed = savekit::seal(save, {.dictionary = &*dictionary, .protection = seal_protection::none}, here);
    ASSERT_TRUE(sealed);
    with += sealed->size();
    savekit::unseal_options given;
    given.dictionaries = {&*dictionary};
    EXPECT_EQ(*savekit::unseal(*sealed, nullptr, here, given), save);
    EXPECT_EQ(savekit::unseal(*sealed, nullptr, here).error().code(), errc::key_not_held);
  }
  // The compressed bodies (the envelope's 56 bytes apart): at least a third smaller. (The
  // benchmark measures the ratio on its corpus: bench/run.sh seal.)
  const std::size_t envelope = 50 * (savekit::sealed_header_bytes + savekit::sealed_tag_bytes_digest);
  EXPECT_LT((with - envelope) * 3, (without - envelope) * 2)
      << plain_bytes << " bytes: " << without << " sealed without, " << with << " with";
  EXPECT_EQ(savekit::zstd_dictionary::from_bytes("not a dictionary").error().code(), errc::invalid_value);
  auto reloaded = savekit::zstd_dictionary::from_bytes(dictionary->bytes());
  ASSERT_TRUE(reloaded);
  EXPECT_EQ(reloaded->id(), dictionary->id());
}

TEST(Seal, BadOptionsAreRefused) {
  savekit::keyring keys{key_of(1, 7)};
  EXPECT_EQ(savekit::seal("x", {.level = 0}, here, &keys).error().code(), errc::invalid_value);
  EXPECT_EQ(savekit::seal("x", {.level = 99}, here, &keys).error().code(), errc::invalid_value);
  savekit::keyring zero{key_of(0, 7)};
  EXPECT_EQ(savekit::seal("x", {}, here, &zero).error().code(), errc::invalid_value);
  EXPECT_EQ(savekit::seal("x", {.compression = static_cast<seal_compression>(2)}, here, &keys).error().code(),
            errc::invalid_value);
  EXPECT_EQ(savekit::seal("x", {.protection = static_cast<seal_protection>(3)}, here, &keys).error().code(),
            errc::invalid_value);
  EXPECT_FALSE(savekit::looks_sealed("SKS"));
  EXPECT_EQ(savekit::unseal("plain bytes, not sealed at all", &keys, here).error().code(), errc::tampered);
}

// Sealed slots: tests/test_sealed_slots.cpp.

// ---- sealed prefs entries ----

#include <filesystem>
#include <fstream>
#include <iterator>

#include "savekit/prefs.hpp"
#include "support/temp_dir.hpp"

namespace {
struct Hero {
  std::string name = "nobody";
  int level = 1;
  std::vector<int> inventory;
  bool operator==(const Hero&) const = default;
};
}  // namespace

TEST(SealedPrefs, AnEntrySealedForItsKeyOpensThereAndNowhereElse) {
  test_support::temp_dir dir;
  const std::string path = (dir.path() / "player.prefs").string();
  auto sealer = savekit::make_slot_sealer(savekit::keyring{key_of(1, 7)}, {}, "player-1");
  const Hero hero{"Ayla the unmistakable", 12, {1, 2, 3}};
  {
    auto p = savekit::prefs::open(path);
    ASSERT_TRUE(p);
    ASSERT_TRUE(p->set_sealed("hero", hero, *sealer));
    ASSERT_TRUE(p->set_sealed("coins", savekit::value_type::integer, "\x2a", *sealer));  // MessagePack 42
    EXPECT_EQ(p->set_sealed("nested", savekit::value_type::sealed, "SKSL", *sealer).error().code(), errc::wrong_type);
    EXPECT_EQ(p->set_sealed("bad", savekit::value_type::integer, "not msgpack", *sealer).error().code(),
              errc::invalid_value);
    ASSERT_TRUE(p->save());
  }
  std::ifstream file(path, std::ios::binary);
  const std::string on_disk{std::istreambuf_iterator<char>(file), {}};
  EXPECT_EQ(on_disk.find("unmistakable"), std::string::npos) << "encrypted in the store file";

  auto p = savekit::prefs::open(path);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p->type_of("hero"), savekit::value_type::sealed);
  EXPECT_EQ(*p->get_sealed<Hero>("hero", *sealer), hero);
  auto coins = p->open_sealed("coins", *sealer);
  ASSERT_TRUE(coins);
  EXPECT_EQ(coins->type, savekit::value_type::integer);
  EXPECT_EQ(coins->bytes, "\x2a");
  EXPECT_EQ(p->get<Hero>("hero").error().code(), errc::wrong_type) << "a sealed entry is not read unopened";
  EXPECT_EQ(p->get_sealed<Hero>("coins", *sealer).error().code(), errc::wrong_type);
  // Copied under another key (raw bytes, as an editor would): it does not open there.
  auto raw = p->get_raw("hero");
  ASSERT_TRUE(raw);
  ASSERT_TRUE(p->set_raw("stolen", savekit::value_type::sealed, raw->bytes));
  EXPECT_EQ(p->open_sealed("stolen", *sealer).error().code(), errc::tampered);
  auto other_player = savekit::make_slot_sealer(savekit::keyring{key_of(1, 7)}, {}, "player-2");
  EXPECT_EQ(p->open_sealed("hero", *other_player).error().code(), errc::tampered);
  EXPECT_EQ(p->set_raw("junk", savekit::value_type::sealed, "not sealed at all").error().code(), errc::invalid_value);
}
