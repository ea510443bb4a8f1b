// Sealed slots (slots_options::sealer): saves are sealed on disk, opened on reading, sealed
// again for a new name; and nothing outside the seal can change what a sealed folder reads —
// not an unsealed generation planted beside the sealed ones, not the header's encoding byte,
// not the compact layout stored in the metadata (all covered by CRC-32C only, which anyone
// can recompute).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "savekit/seal.hpp"
#include "savekit/slots.hpp"
#include "slot_format.hpp"
#include "support/fault_fs.hpp"
#include "support/temp_dir.hpp"

using savekit::errc;
using savekit::seal_protection;
namespace fs = std::filesystem;

namespace {

savekit::seal_key key_of(std::uint32_t id, unsigned char fill) {
  std::array<std::byte, savekit::seal_key_bytes> bytes;
  bytes.fill(std::byte{fill});
  return *savekit::seal_key::from_bytes(id, bytes);
}

struct Hero {
  std::string name = "nobody";
  int level = 1;
  std::vector<int> inventory;
  bool operator==(const Hero&) const = default;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
void write_file(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string file_bytes(const fs::path& folder, const std::string& prefix) {
  std::string all;
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.path().filename().string().rfind(prefix, 0) == 0) all += read_file(entry.path());
  return all;
}

// A generation file taken apart, to be changed and put together with every checksum
// recomputed: what anyone can do with the public format and no key.
struct generation_file {
  savekit::detail::slot_header header;
  std::string name, meta, thumbnail, payload;

  explicit generation_file(const std::string& bytes) {
    using namespace savekit::detail;
    EXPECT_EQ(parse_slot_header(bytes, bytes.size(), header).damage, slot_damage::none);
    std::size_t at = slot_header_size;
    name = bytes.substr(at, header.name_bytes);
    meta = bytes.substr(at += header.name_bytes, header.meta_bytes);
    thumbnail = bytes.substr(at += header.meta_bytes, header.thumbnail_bytes);
    payload = bytes.substr(at += header.thumbnail_bytes);
  }
  std::string bytes() { return savekit::detail::encode_slot_head(header, name, meta, thumbnail, payload) + payload; }
};

class SealedSlots : public ::testing::Test {
 protected:
  test_support::temp_dir dir;
  std::shared_ptr<const savekit::payload_sealer> sealer =
      savekit::make_slot_sealer(savekit::keyring{key_of(1, 7)}, {}, "player-1");
  fs::path folder() const { return dir.path() / "saves"; }
  savekit::slots open(savekit::slots_options options) {
    auto s = savekit::slots::open(folder().string(), std::move(options));
    if (!s) ADD_FAILURE() << s.error().to_string();
    return std::move(*s);
  }
  fs::path only_file(std::string_view prefix) {
    fs::path found;
    for (const auto& entry : fs::directory_iterator(folder()))
      if (entry.path().filename().string().rfind(prefix, 0) == 0) found = entry.path();
    return found;
  }
};

}  // namespace

TEST_F(SealedSlots, AreWrittenSealedReadOpenedAndResealedWhenCopiedOrRenamed) {
  const Hero hero{"Ayla the unmistakable", 12, {1, 2, 3}};
  {
    auto s = open({});
    ASSERT_TRUE(s.write("plain", hero));
  }
  {
    auto s = open({.sealer = sealer});
    ASSERT_TRUE(s.write("slot1", hero, {.title = "Chapter 2"}));
    EXPECT_EQ(*s.read<Hero>("slot1"), hero);
    EXPECT_TRUE(s.info("slot1")->sealed);
    EXPECT_FALSE(s.info("plain")->sealed);
    ASSERT_TRUE(s.copy("slot1", "slot2"));
    ASSERT_TRUE(s.rename("slot2", "slot3"));
    EXPECT_EQ(*s.read<Hero>("slot3"), hero) << "sealed again for its new name";
    ASSERT_TRUE(s.write("slot1", Hero{}, {}));
    ASSERT_TRUE(s.restore("slot1", 1));
    EXPECT_EQ(*s.read<Hero>("slot1"), hero);
  }
  EXPECT_EQ(file_bytes(folder(), "s-slot1.").find("unmistakable"), std::string::npos) << "encrypted on disk";
  EXPECT_NE(file_bytes(folder(), "s-plain.").find("unmistakable"), std::string::npos);

  // Without keys: the load menu still shows, saves do not open, nothing is set aside.
  auto keyless = open({.read_only = true});
  auto menu = keyless.list();
  ASSERT_TRUE(menu);
  EXPECT_EQ(menu->size(), 3u);
  EXPECT_EQ(keyless.read<Hero>("slot1").error().code(), errc::key_not_held);
  EXPECT_EQ(*keyless.read<Hero>("plain"), hero);
  // Another player's keys (same key, other player id): tampered, and still not set aside.
  auto other = open({.sealer = savekit::make_slot_sealer(savekit::keyring{key_of(1, 7)}, {}, "player-2")});
  EXPECT_EQ(other.read<Hero>("slot1").error().code(), errc::tampered);
  auto history = other.history("slot1");
  ASSERT_TRUE(history);
  for (const auto& g : *history) EXPECT_FALSE(g.damaged);
  EXPECT_EQ(other.copy("slot1", "stolen").error().code(), errc::tampered) << "nothing is resealed that did not open";
}

TEST_F(SealedSlots, ASealedWriteWithoutASealerIsRefused) {
  auto s = open({});
  EXPECT_EQ(s.write("slot1", Hero{}, {}, {.sealed = true}).error().code(), errc::key_not_held);
  EXPECT_EQ(s.read<Hero>("slot1").error().code(), errc::not_found);
}

// Issue 40, 1: a plain generation (written by anyone: savekit without keys, or by hand)
// was read as the game's own in a sealed folder.
TEST_F(SealedSlots, AnUnsealedGenerationIsTamperedUnlessMigrationIsAskedFor) {
  const Hero real{"Ayla", 12, {1}}, forged{"Ayla", 99, {9, 9, 9}};
  {
    auto s = open({.sealer = sealer});
    ASSERT_TRUE(s.write("slot1", real));
  }
  {
    auto keyless = open({});  // the forger: savekit itself, no key
    ASSERT_TRUE(keyless.write("slot1", forged));
  }
  auto s = open({.sealer = sealer});
  auto read = s.read<Hero>("slot1");
  ASSERT_FALSE(read) << "the forged generation was read as the game's own";
  EXPECT_EQ(read.error().code(), errc::tampered) << read.error().to_string();
  EXPECT_EQ(s.read_generation("slot1", 2).error().code(), errc::tampered);
  EXPECT_TRUE(s.read_generation("slot1", 1)) << "the sealed generation still opens";
  // Nor can the game write one it could not read back.
  EXPECT_EQ(s.write("slot2", real, {}, {.sealed = false}).error().code(), errc::invalid_value);

  // A digest-only sealer proves nothing about who wrote a save: plain ones are read.
  auto digest_only = savekit::make_slot_sealer(savekit::keyring{}, {.protection = seal_protection::none}, "player-1");
  EXPECT_FALSE(digest_only->authenticates());
  EXPECT_TRUE(sealer->authenticates());
}

TEST_F(SealedSlots, SavesMadeBeforeSealingMigrateWhenAskedAndAreSealedAtTheirNextWrite) {
  const Hero old_save{"Ayla", 3, {}};
  {
    auto s = open({});
    ASSERT_TRUE(s.write("slot1", old_save));
  }
  auto s = open({.sealer = sealer, .accept_unsealed = true});
  auto read = s.read<Hero>("slot1");
  ASSERT_TRUE(read) << read.error().to_string();
  EXPECT_EQ(*read, old_save);
  ASSERT_TRUE(s.write("slot1", *read));
  EXPECT_TRUE(s.info("slot1")->sealed);
}

// Review of issue 40: restore and copy put a generation in place as the newest without
// reading it, so a plain one (or a forged sealed one) became a newest generation the
// folder refuses, hiding the real saves behind it.
TEST_F(SealedSlots, RestoreAndCopyPutInPlaceOnlyWhatTheGameCanRead) {
  const Hero real{"Ayla", 12, {1}}, forged{"Ayla", 99, {9, 9, 9}};
  {
    auto s = open({.sealer = sealer});
    ASSERT_TRUE(s.write("slot1", real));
  }
  {
    auto keyless = open({});  // the forger: generation 2, plain
    ASSERT_TRUE(keyless.write("slot1", forged));
  }
  {
    auto s = open({.sealer = sealer});
    ASSERT_TRUE(s.write("slot1", real));  // generation 3, sealed
    EXPECT_EQ(s.restore("slot1", 2).error().code(), errc::tampered);
    EXPECT_EQ(s.info("slot1")->generation, 3u) << "nothing was put in place";
    ASSERT_TRUE(s.restore("slot1", 1));
    EXPECT_EQ(*s.read<Hero>("slot1"), real);
  }
  // A sealed generation whose payload was changed (every checksum made valid again).
  const fs::path newest = only_file("s-slot1.4.");
  ASSERT_FALSE(newest.empty());
  generation_file file(read_file(newest));
  file.payload.back() ^= 1;
  write_file(newest, file.bytes());
  auto s = open({.sealer = sealer});
  EXPECT_EQ(s.restore("slot1", 4).error().code(), errc::tampered);
  EXPECT_EQ(s.copy("slot1", "slot2").error().code(), errc::tampered) << "the newest fails its seal: no fallback";
  EXPECT_EQ(s.read<Hero>("slot2").error().code(), errc::not_found);
  EXPECT_EQ(s.info("slot1")->generation, 4u);
}

TEST_F(SealedSlots, APlainSaveRestoredOrCopiedDuringMigrationIsSealedOnTheWay) {
  const Hero old_save{"Ayla", 3, {}};
  {
    auto s = open({});
    ASSERT_TRUE(s.write("slot1", old_save));
    ASSERT_TRUE(s.write("slot1", Hero{}));
  }
  {
    auto refusing = open({.sealer = sealer});
    EXPECT_EQ(refusing.copy("slot1", "slot2").error().code(), errc::tampered);
    EXPECT_EQ(refusing.restore("slot1", 1).error().code(), errc::tampered);
  }
  {
    auto migrating = open({.sealer = sealer, .accept_unsealed = true});
    ASSERT_TRUE(migrating.restore("slot1", 1));
    ASSERT_TRUE(migrating.copy("slot1", "slot2"));
    EXPECT_TRUE(migrating.info("slot1")->sealed);
    EXPECT_TRUE(migrating.info("slot2")->sealed);
  }
  auto sealed_only = open({.sealer = sealer});
  EXPECT_EQ(*sealed_only.read<Hero>("slot1"), old_save);
  EXPECT_EQ(*sealed_only.read<Hero>("slot2"), old_save);
  EXPECT_EQ(sealed_only.info("slot1")->restored_from, 1u);
}

// Review of issue 40: migrating (accept_unsealed) read any plain generation, so a forger
// could put one beside the game's sealed saves and have it read while the game migrates.
TEST_F(SealedSlots, MigratingReadsPlainSavesOnlyInSlotsSealedNowhere) {
  const Hero real{"Ayla", 12, {1}}, forged{"Ayla", 99, {9, 9, 9}}, old_save{"Bea", 3, {}};
  {
    auto s = open({.sealer = sealer});
    ASSERT_TRUE(s.write("slot1", real));
  }
  {
    auto keyless = open({});  // the forger, and a save made before sealing
    ASSERT_TRUE(keyless.write("slot1", forged));
    ASSERT_TRUE(keyless.write("slot2", old_save));
  }
  auto s = open({.sealer = sealer, .accept_unsealed = true});
  auto read = s.read<Hero>("slot1");
  ASSERT_FALSE(read) << "a plain save beside sealed ones was read while migrating";
  EXPECT_EQ(read.error().code(), errc::tampered) << read.error().to_string();
  EXPECT_EQ(s.read<Hero>("slot2").value_or(Hero{}), old_save);
}

// Issue 40, 2: the encoding byte and the compact layout decide which member a value goes
// into, and were covered by CRC-32C alone.
struct Purse {
  int level = 0;
  int gold = 0;
  bool operator==(const Purse&) const = default;
};
struct PurseV2 {
  static constexpr std::uint32_t savekit_schema_version = 2;
  int level = 0;
  int gold = 0;
  int gems = 5;
  bool operator==(const PurseV2&) const = default;
};
template <>
inline const std::vector<savekit::migration_step> savekit::migrations<PurseV2> = {
    {2, [](savekit::document&) -> savekit::status { return {}; }}};

TEST_F(SealedSlots, TheCompactLayoutIsCoveredSoSwappedNamesDoNotMoveValues) {
  for (seal_protection protection : {seal_protection::mac, seal_protection::aead}) {
    SCOPED_TRACE(protection == seal_protection::mac ? "mac" : "aead");
    fs::remove_all(folder());
    auto with = savekit::make_slot_sealer(savekit::keyring{key_of(1, 7)}, {.protection = protection}, "player-1");
    {
      auto s = open({.sealer = with});
      ASSERT_TRUE(s.write("slot1", Purse{3, 900}, {}, {.encoding = savekit::object_encoding::msgpack_compact}));
    }
    const fs::path file = only_file("s-slot1.");
    generation_file g(read_file(file));
    std::vector<std::string> layout;
    auto meta = savekit::detail::decode_slot_meta(g.meta, &layout);
    ASSERT_TRUE(meta);
    ASSERT_EQ(layout.size(), 2u);
    // "$@0=level", "$@1=gold" become "$@0=gold", "$@1=level": the positions kept, the names swapped.
    const std::size_t eq0 = layout[0].find('='), eq1 = layout[1].find('=');
    ASSERT_EQ(layout[0].substr(eq0 + 1), "level");
    layout = {layout[0].substr(0, eq0 + 1) + layout[1].substr(eq1 + 1),
              layout[1].substr(0, eq1 + 1) + layout[0].substr(eq0 + 1)};
    g.meta = savekit::detail::encode_slot_meta(*meta, layout);
    write_file(file, g.bytes());

    auto s = open({.sealer = with});
    auto read = s.read<PurseV2>("slot1");  // migrated: the layout names the positions
    ASSERT_FALSE(read) << "read into swapped members: level " << read->level << ", gold " << read->gold;
    EXPECT_EQ(read.error().code(), errc::tampered) << read.error().to_string();
  }
}

TEST_F(SealedSlots, TheEncodingByteIsCoveredSoAPayloadIsNotReadAsAnotherEncoding) {
  for (auto [from, to] : {std::pair{savekit::object_encoding::msgpack_compact, savekit::object_encoding::msgpack},
                          std::pair{savekit::object_encoding::msgpack, savekit::object_encoding::json}}) {
    fs::remove_all(folder());
    {
      auto s = open({.sealer = sealer});
      ASSERT_TRUE(s.write("slot1", Purse{3, 900}, {}, {.encoding = from}));
    }
    const fs::path file = only_file("s-slot1.");
    generation_file g(read_file(file));
    g.header.encoding = to;
    write_file(file, g.bytes());
    auto s = open({.sealer = sealer});
    auto read = s.read<Purse>("slot1");
    ASSERT_FALSE(read);
    EXPECT_EQ(read.error().code(), errc::tampered) << read.error().to_string();
    auto payload = s.read_payload("slot1");
    EXPECT_EQ(payload.error().code(), errc::tampered);
  }
}

// Issue 40, 7: a sealed slot's copies are sealed again for the new name, so their payloads
// differ from the originals: a rename killed after its first copy could not be run again.
TEST_F(SealedSlots, ARenameKilledBetweenAnyTwoStepsCanBeRunAgain) {
  for (int at = 0;; ++at) {
    test_support::fault_fs disk;
    {
      auto s = savekit::slots::open("/saves", {.fs = &disk, .sealer = sealer});
      ASSERT_TRUE(s);
      for (int i = 1; i <= 3; ++i) ASSERT_TRUE(s->write("from", Hero{"Ayla", i, {}}));
      disk.arm(test_support::fault_fs::fault::kill, disk.operations() + at);
      (void)s->rename("from", "to");
    }
    const bool killed = disk.crashed();
    disk.restart();  // no power cut: every step done before the kill is on disk
    auto s = savekit::slots::open("/saves", {.fs = &disk, .sealer = sealer});
    ASSERT_TRUE(s);
    if (s->read<Hero>("from")) {
      auto again = s->rename("from", "to");
      ASSERT_TRUE(again) << "killed at operation " << at << ": " << again.error().to_string();
    }
    EXPECT_EQ(s->read<Hero>("to")->level, 3) << at;
    EXPECT_EQ(s->read<Hero>("from").error().code(), errc::not_found) << at;
    for (std::uint64_t g = 1; g <= 3; ++g) EXPECT_EQ(s->read_generation("to", g)->generation, g) << at;
    if (!killed) break;
    ASSERT_LT(at, 80);
  }
}

// Review of issue 40: a rename re-seals every generation for the new name; one sealed with
// a key since dropped from the keyring failed it at every try, leaving the slot under both
// names. Such an older generation now moves as it is; the newest must still open.
TEST_F(SealedSlots, ARenameFinishesWhenAnOlderGenerationNeedsADroppedKey) {
  auto old_key = savekit::make_slot_sealer(savekit::keyring{key_of(1, 7)}, {}, "player-1");
  savekit::keyring both{key_of(2, 9)};  // the new key current, the old one kept
  both.add(key_of(1, 7));
  auto rotated = savekit::make_slot_sealer(both, {}, "player-1");
  auto new_only = savekit::make_slot_sealer(savekit::keyring{key_of(2, 9)}, {}, "player-1");
  {
    auto s = open({.sealer = old_key});
    ASSERT_TRUE(s.write("from", Hero{"Ayla", 1, {}}));
  }
  {
    auto s = open({.sealer = rotated});
    ASSERT_TRUE(s.write("from", Hero{"Ayla", 2, {}}));
    ASSERT_TRUE(s.write("from", Hero{"Ayla", 3, {}}));
  }
  {
    auto s = open({.sealer = new_only});
    EXPECT_EQ(s.read_generation("from", 1).error().code(), errc::key_not_held);
    auto renamed = s.rename("from", "to");
    ASSERT_TRUE(renamed) << renamed.error().to_string();
    EXPECT_EQ(s.read<Hero>("to").value_or(Hero{}).level, 3);
    EXPECT_EQ(s.read<Hero>("from").error().code(), errc::not_found);
    EXPECT_EQ(s.history("to").value_or(std::vector<savekit::generation_info>{}).size(), 3u) << "nothing left behind";
    EXPECT_NE(s.read_generation("to", 1).error().code(), errc::ok) << "it opens under no name, as before";
  }
  // A newest generation that does not open is never renamed away from its key's reach.
  auto keyless_newest = open({.sealer = old_key});
  EXPECT_EQ(keyless_newest.rename("to", "elsewhere").error().code(), errc::key_not_held);
  EXPECT_EQ(keyless_newest.history("elsewhere").error().code(), errc::not_found);
}
