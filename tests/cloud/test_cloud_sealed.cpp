// Sealed saves through the sync with real keys (libsodium's AEAD): they travel as they are,
// the server never sees the game's bytes, and a device without the keys (a tool) syncs the
// folder without ever losing a save it could not seal again under another name.
#include <savekit/seal.hpp>

#include "cloud_fixture.hpp"

namespace {

using namespace test_cloud;
using savekit::cloud::outcome;
using savekit::cloud::policy;

const Game progress{"Aria of the sealed north", 30, {"sword of dawn"}};
const Game fresh{"Aria of the sealed north", 1, {}};

std::shared_ptr<const savekit::payload_sealer> sealer() {
  std::array<std::byte, savekit::seal_key_bytes> bytes;
  bytes.fill(std::byte{7});
  return savekit::make_slot_sealer(savekit::keyring{*savekit::seal_key::from_bytes(1, bytes)},
                                   {.protection = savekit::seal_protection::aead}, "player-1");
}

class CloudSealed : public cloud_test {};

TEST_P(CloudSealed, KeyedDevicesShareSealedSavesTheServerCannotRead) {
  device& desk = make_device("desktop", {.sealer = sealer()});
  device& deck = make_device("deck", {.sealer = sealer()});
  write(desk, "slot1", progress);
  EXPECT_EQ(said(run(desk), "slot1").what, outcome::pushed);
  test_server::http_client c(server_->port());
  auto stored = c.request("GET", "/v1/slots/slot1", auth(player_));
  ASSERT_EQ(stored.status, 200);
  // The title is metadata (the load menu reads it without keys); the items are the payload.
  EXPECT_NE(stored.body.find("sealed north"), std::string::npos) << "the title stays listable";
  EXPECT_EQ(stored.body.find("sword of dawn"), std::string::npos) << "the server holds the game's bytes in clear";
  EXPECT_EQ(said(run(deck), "slot1").what, outcome::pulled);
  EXPECT_EQ(read(deck, "slot1"), progress);
  auto info = deck.slots->info("slot1");
  ASSERT_TRUE(info);
  EXPECT_TRUE(info->sealed);
}

// A tool syncing the folder without the keys: a pull keeps the sealed save as it came; a
// conflict's loser that would have to be sealed again under another name to be kept when
// the slot is deleted elsewhere keeps the slot instead (it once went with it).
TEST_P(CloudSealed, ADeviceWithoutKeysNeverDeletesASaveItCannotKeepUnderAnotherName) {
  device& deck = make_device("deck", {.sealer = sealer()});
  device& tool = make_device("tool");  // no keys: what savekit cloud sync sees of a sealed folder
  write(deck, "slot1", fresh);
  run(deck);
  // A save made on the desktop (with the keys) lands in the tool's folder unsynced: the
  // same folder opened once by the game, then by the tool.
  {
    tool.sync.reset();
    tool.slots.reset();
    auto game = savekit::slots::open(tool.dir.string(), {.sealer = sealer()});
    ASSERT_TRUE(game) << game.error().to_string();
    ASSERT_TRUE(game->write("slot1", progress, {.title = "desktop"}));
  }
  auto keyless = savekit::slots::open(tool.dir.string());
  ASSERT_TRUE(keyless) << keyless.error().to_string();
  tool.slots = std::make_unique<savekit::slots>(std::move(*keyless));
  open_sync(tool);
  device& desk = tool;
  EXPECT_EQ(said(run(desk, policy::prefer_remote), "slot1").what, outcome::conflict);
  ASSERT_TRUE(deck.slots->remove("slot1"));
  run(deck);
  auto r = run(desk);
  EXPECT_EQ(said(r, "slot1").what, outcome::failed) << "the loser cannot be kept under another name without keys";
  auto history = desk.slots->history("slot1");
  ASSERT_TRUE(history) << "the slot holding the only copy of the losing save was deleted";
  EXPECT_EQ(history->size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Backends, CloudSealed, ::testing::ValuesIn(test_server::backends()));

}  // namespace
