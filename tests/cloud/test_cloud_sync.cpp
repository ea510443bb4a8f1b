// The sync's rules (savekit/cloud.hpp, docs/cloud.md), each against a real savekit-server
// on SQLite and on PostgreSQL, with two or three devices (slots folders) on loopback.
#include <algorithm>
#include <fstream>
#include <future>
#include <thread>

#include "cloud_fixture.hpp"

namespace {

using namespace test_cloud;
using savekit::cloud::choice;
using savekit::cloud::outcome;
using savekit::cloud::policy;
using savekit::cloud::sync_state;

class CloudSync : public cloud_test {};

const Game progress{"Aria", 30, {"sword", "lamp"}};
const Game fresh{"Aria", 1, {}};

TEST_P(CloudSync, ProgressOnOneDeviceAppearsOnTheOther) {
  device& desk = make_device("desktop");
  device& deck = make_device("deck");
  write(desk, "slot1", progress, 3600);
  auto pushed = run(desk);
  EXPECT_EQ(said(pushed, "slot1").what, outcome::pushed);
  EXPECT_TRUE(pushed.all_synced());
  EXPECT_EQ(state_of(desk, "slot1"), sync_state::synced);
  EXPECT_EQ(deck.sync->status("slot1").error().code(), savekit::errc::not_found) << "deck has not listed yet";

  auto pulled = run(deck);
  EXPECT_EQ(said(pulled, "slot1").what, outcome::pulled);
  EXPECT_EQ(read(deck, "slot1"), progress);
  auto info = deck.slots->info("slot1");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->meta.title, "Aria");
  EXPECT_EQ(info->meta.playtime, std::chrono::seconds{3600});
  EXPECT_EQ(state_of(deck, "slot1"), sync_state::synced);

  // The deck plays on; the desktop gets it; nothing was a conflict.
  Game further = progress;
  further.level = 31;
  write(deck, "slot1", further, 4000);
  EXPECT_EQ(state_of(deck, "slot1"), sync_state::pending) << "a write after a sync is pending without a run";
  EXPECT_EQ(said(run(deck), "slot1").what, outcome::pushed);
  EXPECT_EQ(said(run(desk), "slot1").what, outcome::pulled);
  EXPECT_EQ(read(desk, "slot1"), further);
  // The pull is a new generation: the desktop's own save before it restores.
  auto history = desk.slots->history("slot1");
  ASSERT_TRUE(history);
  ASSERT_EQ(history->size(), 2u);
  ASSERT_TRUE(desk.slots->restore("slot1", (*history)[1].generation));
  EXPECT_EQ(read(desk, "slot1"), progress);
}

TEST_P(CloudSync, ASyncWithNothingChangedIsOneRequestAndOneChangeOfManyIsTwo) {
  device& desk = make_device("desktop");
  for (int i = 0; i < 20; ++i) write(desk, "slot" + std::to_string(i), Game{"h", i, {}});
  auto first = run(desk);
  EXPECT_EQ(first.count(outcome::pushed), 20u);
  auto again = run(desk);
  EXPECT_EQ(again.requests, 1u);
  EXPECT_EQ(again.count(outcome::unchanged), 20u);
  write(desk, "slot7", Game{"h", 77, {}});
  auto one = run(desk);
  EXPECT_EQ(one.requests, 2u);
  EXPECT_EQ(said(one, "slot7").what, outcome::pushed);
}

// Acknowledgements are kept in batches (the state saved once per batch, the entries removed
// after it): a first sync of more slots than a batch leaves no entry behind and every
// slot synced, each applied once, and another device gets them all.
TEST_P(CloudSync, AFirstSyncOfMoreSlotsThanABatchLeavesNoEntryBehind) {
  device& desk = make_device("desktop");
  constexpr int slots = 70;  // two batches of 32, and some
  for (int i = 0; i < slots; ++i) write(desk, "slot" + std::to_string(i), Game{"h", i, {}});
  auto first = run(desk);
  EXPECT_EQ(first.count(outcome::pushed), std::size_t{slots});
  std::size_t entries = 0;
  for (const auto& f : std::filesystem::directory_iterator(desk.dir))
    if (f.path().filename().string().starts_with(".savekit-sync.out.")) ++entries;
  EXPECT_EQ(entries, 0u);
  for (int i = 0; i < slots; i += 23) {
    EXPECT_EQ(state_of(desk, "slot" + std::to_string(i)), sync_state::synced);
    EXPECT_EQ(server_versions("slot" + std::to_string(i)), 1u);
  }
  EXPECT_EQ(run(desk).requests, 1u) << "nothing is sent again";
  device& deck = make_device("deck");
  EXPECT_EQ(run(deck).count(outcome::pulled), std::size_t{slots});
  EXPECT_EQ(read(deck, "slot69"), (Game{"h", 69, {}}));
}

// A server whose database is one SQLite file, restarted on it, backed up by copying it and
// restored from that copy (the devices' syncs are opened again: a new port each start).
class CloudRestore : public CloudSync {
 protected:
  void SetUp() override {
    if (GetParam() != "sqlite") GTEST_SKIP() << "a restore from a backup is made here by copying SQLite's file";
    CloudSync::SetUp();
    db_ = "sqlite:" + file_.string();
    restart_server();
  }
  void back_up() {
    server_->stop();
    std::filesystem::copy_file(file_, backup_);
    restart_server();
  }
  void restore() {
    server_->stop();
    std::filesystem::copy_file(backup_, file_, std::filesystem::copy_options::overwrite_existing);
    restart_server();
  }
  const std::filesystem::path file_ = dir_.path() / "restored.db", backup_ = dir_.path() / "backup.db";
  const Game older{"Aria", 5, {}}, newer{"Aria", 40, {"crown"}};

  // The device saves the older save, the server is backed up, the device saves the newer
  // one (version 2), the server is restored (version 1: the older save).
  device& synced_then_restored() {
    device& desk = make_device("desktop");
    write(desk, "slot1", older);
    EXPECT_EQ(said(run(desk), "slot1").what, outcome::pushed);
    back_up();
    write(desk, "slot1", newer);
    EXPECT_EQ(said(run(desk), "slot1").what, outcome::pushed);
    EXPECT_EQ(server_versions("slot1"), 2u);
    restore();
    EXPECT_EQ(server_versions("slot1"), 1u) << "the server went back to the older save";
    return desk;
  }
};

// A server restored from a backup has gone back in time: the versions it acknowledged since
// are gone there. A device holding the newest acknowledged save pushes it again — it never
// pulls the older save over it — and another device gets it back from the server.
TEST_P(CloudRestore, AServerRestoredFromABackupGetsTheNewestSaveBackFromTheDevice) {
  device& desk = synced_then_restored();
  auto back = run(desk);
  EXPECT_EQ(said(back, "slot1").what, outcome::pushed);
  EXPECT_EQ(read(desk, "slot1"), newer) << "never the older save pulled over it";
  EXPECT_EQ(state_of(desk, "slot1"), sync_state::synced);
  device& deck = make_device("deck");
  EXPECT_EQ(said(run(deck), "slot1").what, outcome::pulled);
  EXPECT_EQ(read(deck, "slot1"), newer);
}

// Restored from a backup, then written by another device on the older save: the version
// number this device last agreed on now holds another save. Both sides changed from the
// older save — a conflict, kept both ways, never a pull over this device's newest save.
TEST_P(CloudRestore, AVersionRewrittenAfterARestoreIsAConflictKeptBothWays) {
  device& desk = synced_then_restored();
  const Game other{"Aria", 9, {"bow"}};
  device& deck = make_device("deck");
  ASSERT_EQ(said(run(deck), "slot1").what, outcome::pulled);  // the older save
  write(deck, "slot1", other);
  ASSERT_EQ(said(run(deck), "slot1").what, outcome::pushed);  // version 2 again: other

  auto r = run(desk);
  EXPECT_EQ(said(r, "slot1").what, outcome::conflict);
  EXPECT_EQ(read(desk, "slot1"), newer);
  ASSERT_FALSE(said(r, "slot1").copy.empty());
  EXPECT_EQ(read(desk, said(r, "slot1").copy), other);
}

// After a restore, the device holding the newest save put it back and played on; another
// device, unchanged since that save, finds the server's version number at its baseline's
// but another save in it. The server's kept versions show its baseline's save came back
// (the history goes on from it): the newer save is pulled — no conflict, nothing pushed over.
TEST_P(CloudRestore, AfterARestoreASaveThatCameBackIsTheBaselineAndTheNewerOneIsPulled) {
  device& desk = make_device("desktop");
  const Game s1{"Aria", 1, {}}, s2{"Aria", 2, {}}, s3{"Aria", 3, {}}, s4{"Aria", 4, {"crown"}};
  write(desk, "slot1", s1);
  ASSERT_EQ(said(run(desk), "slot1").what, outcome::pushed);  // version 1
  back_up();
  write(desk, "slot1", s2);
  ASSERT_EQ(said(run(desk), "slot1").what, outcome::pushed);
  write(desk, "slot1", s3);
  ASSERT_EQ(said(run(desk), "slot1").what, outcome::pushed);  // version 3
  device& deck = make_device("deck");
  ASSERT_EQ(said(run(deck), "slot1").what, outcome::pulled);  // baseline 3: s3
  restore();                                                  // version 1: s1
  ASSERT_EQ(said(run(desk), "slot1").what, outcome::pushed);  // s3 back, as version 2
  write(desk, "slot1", s4);
  ASSERT_EQ(said(run(desk), "slot1").what, outcome::pushed);  // version 3 again: s4

  auto r = run(deck);
  EXPECT_EQ(said(r, "slot1").what, outcome::pulled);
  EXPECT_EQ(read(deck, "slot1"), s4);
  EXPECT_EQ(names(deck), std::vector<std::string>{"slot1"}) << "no conflict copy";
  EXPECT_EQ(state_of(deck, "slot1"), sync_state::synced);
}

INSTANTIATE_TEST_SUITE_P(Backends, CloudRestore, ::testing::ValuesIn(test_server::backends()));

TEST_P(CloudSync, AFreshInstallsDefaultSaveNeverUploadsOverTheCloud) {
  device& desk = make_device("desktop");
  write(desk, "slot1", progress, 3600);
  run(desk);
  // A new install: the game wrote its default save before the first sync.
  device& fresh_install = make_device("laptop");
  write(fresh_install, "slot1", fresh, 5);
  EXPECT_EQ(state_of(fresh_install, "slot1"), sync_state::local_only);
  auto met = run(fresh_install, policy::ask);
  EXPECT_EQ(said(met, "slot1").what, outcome::conflict);
  EXPECT_EQ(said(met, "slot1").settled, choice::later);
  EXPECT_FALSE(met.all_synced());
  EXPECT_TRUE(fresh_install.net->requests("PUT").empty()) << "nothing is uploaded over the cloud's save";
  EXPECT_EQ(read(fresh_install, "slot1"), fresh) << "nothing is downloaded over the local save";
  EXPECT_EQ(state_of(fresh_install, "slot1"), sync_state::conflict);
  EXPECT_EQ(server_versions("slot1"), 1u);
  EXPECT_EQ(said(run(desk), "slot1").what, outcome::unchanged);
  EXPECT_EQ(read(desk, "slot1"), progress);

  // keep_both (the default): the desktop's progress becomes a second slot on the laptop,
  // named after its device; both devices list both after a sync.
  auto both = run(fresh_install);
  const auto& s = said(both, "slot1");
  EXPECT_EQ(s.what, outcome::conflict);
  EXPECT_EQ(s.settled, choice::keep_both);
  ASSERT_FALSE(s.copy.empty());
  EXPECT_EQ(s.copy.rfind("slot1 (desktop, ", 0), 0u) << s.copy;
  EXPECT_EQ(s.copy.substr(s.copy.size() - 5), " UTC)") << s.copy;
  EXPECT_EQ(read(fresh_install, s.copy), progress);
  EXPECT_EQ(read(fresh_install, "slot1"), fresh);
  EXPECT_TRUE(both.all_synced()) << "both copies were pushed";
  run(desk);
  EXPECT_EQ(names(desk), names(fresh_install));
  EXPECT_EQ(read(desk, s.copy), progress);
}

TEST_P(CloudSync, AFirstSyncOfAnEmptyDeviceOnlyPullsAndEqualSavesAreNoConflict) {
  device& desk = make_device("desktop");
  write(desk, "slot1", progress);
  run(desk);
  device& twin = make_device("twin");
  // The same save, made on both (a copied folder, say): adopted, not a conflict.
  write(twin, "slot1", progress);
  auto r = run(twin);
  // Saved at another time, the metadata matches and so does the payload: the content is
  // what the save is, not when it was made.
  EXPECT_EQ(said(r, "slot1").what, outcome::unchanged) << savekit::cloud::to_string(said(r, "slot1").what);
  EXPECT_EQ(state_of(twin, "slot1"), sync_state::synced);
  EXPECT_TRUE(twin.net->requests("PUT").empty());
}

TEST_P(CloudSync, BothChangedOfflineKeepsBothAndEveryDeviceListsThem) {
  device& desk = make_device("desktop");
  device& deck = make_device("deck");
  write(desk, "slot1", progress, 100);
  run(desk);
  run(deck);
  Game a = progress, b = progress;
  a.level = 40;
  b.items.push_back("map");
  write(desk, "slot1", a, 200);
  write(deck, "slot1", b, 300);
  EXPECT_EQ(said(run(desk), "slot1").what, outcome::pushed);
  auto met = run(deck);
  const auto& s = said(met, "slot1");
  EXPECT_EQ(s.what, outcome::conflict);
  EXPECT_EQ(s.settled, choice::keep_both);
  EXPECT_EQ(read(deck, "slot1"), b);
  EXPECT_EQ(read(deck, s.copy), a);
  run(desk);
  EXPECT_EQ(read(desk, "slot1"), b);
  EXPECT_EQ(read(desk, s.copy), a);
  EXPECT_EQ(names(desk), names(deck));
  EXPECT_EQ(state_of(desk, "slot1"), sync_state::synced);
  EXPECT_EQ(state_of(deck, s.copy), sync_state::synced);
  // The desktop's own save before the pull stays in its history.
  auto history = desk.slots->history("slot1");
  ASSERT_TRUE(history);
  EXPECT_GE(history->size(), 2u);
}

TEST_P(CloudSync, PreferRemoteKeepsTheLoserInHistoryAndPreferLocalOnTheServer) {
  device& desk = make_device("desktop");
  device& deck = make_device("deck");
  write(desk, "slot1", progress);
  run(desk);
  run(deck);
  Game a = progress, b = progress;
  a.level = 50;
  b.level = 60;
  write(desk, "slot1", a);
  write(deck, "slot1", b);
  run(desk);
  auto r = run(deck, policy::prefer_remote);
  EXPECT_EQ(said(r, "slot1").settled, choice::keep_remote);
  EXPECT_EQ(read(deck, "slot1"), a);
  auto history = deck.slots->history("slot1");
  ASSERT_TRUE(history);
  ASSERT_GE(history->size(), 2u);
  auto loser = deck.slots->read_generation("slot1", (*history)[1].generation);
  ASSERT_TRUE(loser);
  EXPECT_EQ(*savekit::from_msgpack<Game>(loser->bytes), b);

  // prefer_local: this device's save goes over the server's, which stays a kept version.
  Game c = a, d = a;
  c.hero = "C";
  d.hero = "D";
  write(desk, "slot1", c);
  write(deck, "slot1", d);
  run(desk);
  const std::size_t before = server_versions("slot1");
  auto l = run(deck, policy::prefer_local);
  EXPECT_EQ(said(l, "slot1").settled, choice::keep_local);
  EXPECT_TRUE(l.all_synced());
  EXPECT_EQ(server_versions("slot1"), before + 1);
  run(desk);
  EXPECT_EQ(read(desk, "slot1"), d);
  EXPECT_EQ(names(desk), std::vector<std::string>{"slot1"});
}

TEST_P(CloudSync, NewestPrefersTheLaterSaveThenThePlayTimeAndTheCallbackChooses) {
  device& desk = make_device("desktop");
  device& deck = make_device("deck");
  write(desk, "slot1", progress);
  run(desk);
  run(deck);
  Game older = progress, newer = progress;
  older.level = 2;
  newer.level = 3;
  write(deck, "slot1", older, 10);
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));  // a later save, by the clocks
  write(desk, "slot1", newer, 5);
  run(desk);
  EXPECT_EQ(said(run(deck, policy::newest), "slot1").settled, choice::keep_remote);
  EXPECT_EQ(read(deck, "slot1"), newer);

  // The callback sees both saves' load-menu entries, on the sync's thread.
  Game x = newer, y = newer;
  x.hero = "x";
  y.hero = "y";
  write(desk, "slot1", x, 70);
  write(deck, "slot1", y, 80);
  run(desk);
  const auto game_thread = std::this_thread::get_id();
  std::string seen;
  open_sync(deck, [&](savekit::cloud::options& o) {
    o.policy = policy::callback;
    o.on_conflict = [&](const savekit::slot_info& local, const savekit::slot_info& remote) {
      seen = local.meta.title + "/" + remote.meta.title + "/" + std::to_string(remote.meta.playtime.count());
      EXPECT_NE(std::this_thread::get_id(), game_thread);
      return choice::keep_local;
    };
  });
  std::promise<savekit::result<savekit::cloud::report>> done;
  deck.sync->run_async([&](savekit::result<savekit::cloud::report> r) { done.set_value(std::move(r)); });
  auto r = done.get_future().get();
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(seen, "y/x/70");
  EXPECT_EQ(said(*r, "slot1").settled, choice::keep_local);
  run(desk);
  EXPECT_EQ(read(desk, "slot1"), y);
}

TEST_P(CloudSync, ResolveSettlesAnOpenConflictOffline) {
  device& desk = make_device("desktop");
  device& deck = make_device("deck");
  write(desk, "slot1", progress);
  run(desk);
  run(deck);
  Game a = progress, b = progress;
  a.level = 71;
  b.level = 72;
  write(desk, "slot1", a);
  write(deck, "slot1", b);
  run(desk);
  EXPECT_EQ(said(run(deck, policy::ask), "slot1").settled, choice::later);
  EXPECT_EQ(state_of(deck, "slot1"), sync_state::conflict);
  auto st = deck.sync->status("slot1");
  ASSERT_TRUE(st && st->remote);
  EXPECT_EQ(st->remote_device, "desktop");
  EXPECT_EQ(st->local->generation, 2u);
  // The server goes away; the player picks the desktop's save.
  server_.reset();
  ASSERT_TRUE(deck.sync->resolve("slot1", choice::keep_remote));
  EXPECT_EQ(read(deck, "slot1"), a);
  EXPECT_NE(state_of(deck, "slot1"), sync_state::conflict);
  EXPECT_EQ(deck.sync->resolve("slot1", choice::keep_remote).error().code(), savekit::errc::not_found);
}

TEST_P(CloudSync, ADeletionReachesTheOtherDeviceAndStaysRestorableOnTheServer) {
  device& desk = make_device("desktop");
  device& deck = make_device("deck");
  write(desk, "slot1", progress);
  write(desk, "slot2", fresh);
  run(desk);
  run(deck);
  ASSERT_TRUE(desk.slots->remove("slot1"));
  EXPECT_EQ(state_of(desk, "slot1"), sync_state::pending);
  auto r = run(desk);
  EXPECT_EQ(said(r, "slot1").what, outcome::deleted);
  EXPECT_FALSE(said(r, "slot1").deleted_here);
  auto d = run(deck);
  EXPECT_EQ(said(d, "slot1").what, outcome::deleted);
  EXPECT_TRUE(said(d, "slot1").deleted_here);
  EXPECT_EQ(names(deck), std::vector<std::string>{"slot2"});
  EXPECT_EQ(server_versions("slot1"), 1u) << "the server keeps the deleted slot's versions";
  EXPECT_EQ(said(run(deck), "slot1").what, outcome::unchanged);
  EXPECT_EQ(said(run(desk), "slot1").what, outcome::unchanged);
}

TEST_P(CloudSync, DeletedAgainstChangedIsAConflictAndTheChangeSurvives) {
  device& desk = make_device("desktop");
  device& deck = make_device("deck");
  write(desk, "slot1", progress);
  run(desk);
  run(deck);
  ASSERT_TRUE(desk.slots->remove("slot1"));
  Game changed = progress;
  changed.level = 99;
  write(deck, "slot1", changed);
  run(desk);
  auto r = run(deck);
  EXPECT_EQ(said(r, "slot1").what, outcome::conflict);
  EXPECT_EQ(said(r, "slot1").settled, choice::keep_local);
  EXPECT_EQ(read(deck, "slot1"), changed);
  auto back = run(desk);
  EXPECT_EQ(said(back, "slot1").what, outcome::pulled);
  EXPECT_EQ(read(desk, "slot1"), changed);

  // And the other way: deleted here, changed there: pulled back.
  ASSERT_TRUE(deck.slots->remove("slot1"));
  changed.level = 100;
  write(desk, "slot1", changed);
  run(desk);
  auto again = run(deck);
  EXPECT_EQ(said(again, "slot1").what, outcome::conflict);
  EXPECT_EQ(said(again, "slot1").settled, choice::keep_remote);
  EXPECT_EQ(read(deck, "slot1"), changed);
}

TEST_P(CloudSync, AServerThatLostASlotNeverDeletesItLocally) {
  device& desk = make_device("desktop");
  write(desk, "slot1", progress);
  run(desk);
  // A new server, an empty database: the slot was lost (a restore from an old backup, say).
  server_ = start_server({"--rate", "0"}, "sqlite:" + (dir_.path() / "restored.db").string());
  ASSERT_TRUE(server_);
  open_sync(desk);
  auto r = run(desk);
  EXPECT_EQ(said(r, "slot1").what, outcome::pushed);
  EXPECT_EQ(read(desk, "slot1"), progress);
  EXPECT_EQ(server_versions("slot1"), 1u);
}

TEST_P(CloudSync, AWipedFolderPushesNoDeletions) {
  device& desk = make_device("desktop");
  for (int i = 0; i < 4; ++i) write(desk, "slot" + std::to_string(i), Game{"h", i, {}});
  run(desk);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(desk.slots->remove("slot" + std::to_string(i)));
  auto r = run(desk);
  EXPECT_EQ(said(r, "slot0").what, outcome::failed);
  EXPECT_TRUE(desk.net->requests("DELETE").empty());
  device& deck = make_device("deck");
  run(deck);
  EXPECT_EQ(names(deck).size(), 4u) << "the other device keeps every save";
}

TEST_P(CloudSync, SealedSavesSyncWithoutKeysAndStayListable) {
  // The game's own bytes, as a sealed save would be to the server: opaque. (The sealed
  // payload itself is tested with keys in test_cloud_sealed.cpp when libsodium is built.)
  device& desk = make_device("desktop");
  ASSERT_TRUE(desk.slots->write_bytes("slot1", std::string("\x00\x01\xff\xfe", 4), savekit::object_encoding::bytes, 3,
                                      {.title = "Chapter 9"}));
  run(desk);
  device& deck = make_device("deck");
  run(deck);
  auto p = deck.slots->read_payload("slot1");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->bytes, std::string("\x00\x01\xff\xfe", 4));
  EXPECT_EQ(p->schema_version, 3u);
  EXPECT_EQ(p->encoding, savekit::object_encoding::bytes);
  auto st = deck.sync->status("slot1");
  ASSERT_TRUE(st && st->remote);
  EXPECT_EQ(st->remote->meta.title, "Chapter 9");
}

// A slot's generation files in a device's folder (s-NAME.N.slot for a plain name), oldest first.
std::vector<std::filesystem::path> generation_files(const std::filesystem::path& folder, const std::string& base) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const std::string file = entry.path().filename().string();
    if (file.starts_with(base + ".") && file.ends_with(".slot")) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}
void flip_byte(const std::filesystem::path& file, std::streamoff at) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(at);
  char c = 0;
  f.get(c);
  f.seekp(at);
  f.put(static_cast<char>(c ^ 0x5A));
}

// A slot whose saves cannot be read here is not a deleted slot: no deletion is sent, and
// the other device keeps it.
TEST_P(CloudSync, ASlotThatCannotBeReadHereIsNeverDeletedAnywhere) {
  device& desk = make_device("desktop");
  device& deck = make_device("deck");
  write(desk, "slot1", progress);
  run(desk);
  run(deck);
  for (const auto& file : generation_files(desk.dir, "s-slot1")) flip_byte(file, 12);
  auto r = run(desk);
  EXPECT_EQ(said(r, "slot1").what, outcome::failed);
  EXPECT_TRUE(desk.net->requests("DELETE").empty()) << "an unreadable slot was taken for a deleted one";
  EXPECT_EQ(said(run(deck), "slot1").what, outcome::unchanged);
  EXPECT_EQ(read(deck, "slot1"), progress);
  auto all = desk.sync->status();
  ASSERT_TRUE(all) << all.error().to_string() << " (one unreadable slot must not hide the others)";
}

// A newest save that is damaged falls back to an older one when read: that older save is
// no change of the player's and is never pushed over the cloud's; the cloud's is pulled.
TEST_P(CloudSync, ADamagedNewestSaveNeverPushesTheOlderOneBack) {
  device& desk = make_device("desktop");
  device& deck = make_device("deck");
  write(desk, "slot1", fresh);
  write(desk, "slot1", progress);
  run(desk);
  const auto files = generation_files(desk.dir, "s-slot1");
  ASSERT_EQ(files.size(), 2u);
  flip_byte(files.back(), static_cast<std::streamoff>(std::filesystem::file_size(files.back()) - 3));
  // The game loads the slot: the damage is found, the older save read (a run reads the load
  // menu's headers only while nothing changed, and cannot see a payload's damage first).
  EXPECT_EQ(read(desk, "slot1"), fresh);
  auto r = run(desk);
  EXPECT_TRUE(desk.net->requests("PUT").size() == 1) << "the older save was pushed over the newer one";
  EXPECT_EQ(said(r, "slot1").what, outcome::pulled);
  EXPECT_EQ(read(desk, "slot1"), progress) << "the cloud's copy repairs the slot";
  run(deck);
  EXPECT_EQ(read(deck, "slot1"), progress);
}

// Deleted and started again here (its generations count from 1 again) while the other
// device saved: both changed, a conflict — never a pull over the new game.
TEST_P(CloudSync, ASlotDeletedAndSavedAgainIsAChangeEvenAtTheSameGenerationNumber) {
  device& desk = make_device("desktop");
  device& deck = make_device("deck");
  write(desk, "slot1", fresh);
  run(desk);
  run(deck);
  ASSERT_TRUE(desk.slots->remove("slot1"));
  const Game new_game{"Brand", 2, {"stick"}};
  write(desk, "slot1", new_game);
  write(deck, "slot1", progress);
  run(deck);
  auto r = run(desk);
  EXPECT_EQ(said(r, "slot1").what, outcome::conflict);
  bool both = false;
  for (const std::string& n : names(desk))
    if (n != "slot1" && read(desk, n) == progress) both = read(desk, "slot1") == new_game;
  EXPECT_TRUE(both) << "the new game and the deck's save must both be kept";
}

// A conflict left open, then the slot deleted here: the next run pulls the cloud's save
// back, and the conflict is over (it once stayed "conflict" for ever: the model test).
TEST_P(CloudSync, AConflictIsOverOnceTheSlotIsPulledBack) {
  device& desk = make_device("desktop");
  device& deck = make_device("deck");
  write(desk, "slot1", fresh);
  run(desk);
  run(deck);
  write(desk, "slot1", progress);
  write(deck, "slot1", Game{"Deck", 9, {}});
  run(deck);
  EXPECT_EQ(said(run(desk, policy::ask), "slot1").what, outcome::conflict);
  EXPECT_EQ(state_of(desk, "slot1"), sync_state::conflict);
  ASSERT_TRUE(desk.slots->remove("slot1"));
  run(desk);
  EXPECT_EQ(read(desk, "slot1"), (Game{"Deck", 9, {}}));
  EXPECT_EQ(state_of(desk, "slot1"), sync_state::synced);
  EXPECT_FALSE(desk.sync->resolve("slot1", choice::keep_both)) << "no conflict is left to resolve";
}

// A save answered for another slot's name (a confused server or proxy) is never written.
TEST_P(CloudSync, ASaveAnsweredUnderAnotherNameIsNeverWritten) {
  device& desk = make_device("desktop");
  device& deck = make_device("deck");
  write(desk, "a", fresh);
  write(desk, "b", progress);
  run(desk);
  test_server::http_client c(server_->port());
  auto a_bytes = c.request("GET", "/v1/slots/a", auth(player_));
  ASSERT_EQ(a_bytes.status, 200);
  deck.net->after =
      [&](const savekit::cloud::http_request& rq,
          savekit::result<savekit::cloud::http_response> got) -> savekit::result<savekit::cloud::http_response> {
    if (rq.method != "GET" || rq.target != "/v1/slots/b" || !got) return got;
    got->body = a_bytes.body;  // as if b moved on since the list (another version: no content to compare)
    for (auto& [name, value] : got->headers)
      if (name == "etag") value = "\"2\"";
    return got;
  };
  auto r = run(deck);
  EXPECT_EQ(said(r, "b").what, outcome::failed);
  EXPECT_EQ(said(r, "b").error->code(), savekit::errc::damaged);
  EXPECT_FALSE(deck.slots->info("b")) << "a's save was written as b";
}

// Plain http carries the token in the clear: only to this machine, unless asked.
TEST_P(CloudSync, PlainHttpIsForThisMachineOnly) {
  auto s = savekit::slots::open((dir_.path() / "plain").string());
  ASSERT_TRUE(s);
  auto open = [&](std::string url, bool allow = false) {
    return savekit::cloud::sync::open(
        *s, {.url = std::move(url), .token = token_, .device = "d", .allow_plain_http = allow});
  };
  EXPECT_FALSE(open("http://saves.example.com"));
  EXPECT_FALSE(open("http://10.0.0.2:8080/"));
  EXPECT_FALSE(open("http://127.attacker.example/")) << "a name, not a loopback address";
  EXPECT_TRUE(open("http://127.0.0.1:8080"));
  EXPECT_FALSE(open("https://user:secret@saves.example.com")) << "credentials in the url";
  EXPECT_TRUE(open("https://saves.example.com"));
  EXPECT_TRUE(open("http://localhost:8080"));
  EXPECT_TRUE(open("http://[::1]:8080"));
  EXPECT_TRUE(open("http://10.0.0.2:8080", true));
}

// Two syncs of one folder would write one state over each other: the second is refused
// while the first is open.
TEST_P(CloudSync, OneFolderHasOneSyncAtATime) {
  device& desk = make_device("desktop");
  auto second = savekit::cloud::sync::open(*desk.slots, options_for("desktop"));
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code(), savekit::errc::locked);
  desk.sync.reset();
  EXPECT_TRUE(savekit::cloud::sync::open(*desk.slots, options_for("desktop")));
}

// A save that lost a conflict (prefer_remote) lives in this device's history only; a
// deletion made on the other device must not take it along (the model test, seed 47).
TEST_P(CloudSync, ADeletionFromElsewhereKeepsASaveThatLostAConflictHere) {
  device& desk = make_device("desktop");
  device& deck = make_device("deck");
  write(deck, "slot1", fresh);
  run(deck);
  write(desk, "slot1", progress);  // never synced here: a conflict with the deck's
  EXPECT_EQ(said(run(desk, policy::prefer_remote), "slot1").settled, choice::keep_remote);
  EXPECT_EQ(read(desk, "slot1"), fresh);
  ASSERT_TRUE(deck.slots->remove("slot1"));
  run(deck);
  auto r = run(desk);
  EXPECT_EQ(said(r, "slot1").what, outcome::deleted);
  const std::string copy = said(r, "slot1").copy;
  ASSERT_FALSE(copy.empty()) << "the losing save went with the slot";
  EXPECT_EQ(read(desk, copy), progress);
  run(deck);
  EXPECT_EQ(read(deck, copy), progress) << "and it reaches the other device";
}

INSTANTIATE_TEST_SUITE_P(Backends, CloudSync, ::testing::ValuesIn(test_server::backends()));

}  // namespace
