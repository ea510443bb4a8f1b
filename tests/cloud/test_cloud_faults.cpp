// The outbox and the network's failures (sync_state.hpp's invariants): answers lost after
// the server applied a write, resets before it, 5xx and 429, a refused token, bad answers
// and a full local disk — each ends in a retry with the same write or a clear error, never
// a changed local save or a lost one. Against the real server, through fault_transport.
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "cloud_fixture.hpp"
#include "support/fault_fs.hpp"

namespace {

using namespace test_cloud;
using savekit::cloud::outcome;
using savekit::cloud::sync_state;

class CloudFaults : public cloud_test {};

const Game progress{"Aria", 30, {"sword"}};
const Game fresh{"Aria", 1, {}};

TEST_P(CloudFaults, AnAnswerLostAfterTheServerAppliedTheWriteIsResentTheSameAndStaysPending) {
  device& desk = make_device("desktop");
  write(desk, "slot1", progress);
  std::atomic<int> lost{0};
  desk.net->after =
      [&](const savekit::cloud::http_request& r,
          savekit::result<savekit::cloud::http_response> got) -> savekit::result<savekit::cloud::http_response> {
    if (r.method == "PUT" && got && lost.fetch_add(1) < 10) return dropped();  // every attempt of this run
    return got;
  };
  auto first = run(desk);
  EXPECT_EQ(said(first, "slot1").what, outcome::failed);
  EXPECT_EQ(said(first, "slot1").error->code(), savekit::errc::network);
  EXPECT_FALSE(first.all_synced());
  EXPECT_EQ(state_of(desk, "slot1"), sync_state::pending) << "synced only after the server's 2xx";
  EXPECT_EQ(server_versions("slot1"), 1u) << "the server did apply it";

  desk.net->after = nullptr;
  auto second = run(desk);
  EXPECT_EQ(said(second, "slot1").what, outcome::pushed);
  EXPECT_EQ(state_of(desk, "slot1"), sync_state::synced);
  EXPECT_EQ(server_versions("slot1"), 1u) << "the replay was answered as the first time, not applied again";
  // Every attempt, in both runs, sent the same write: id, precondition, metadata, bytes.
  auto puts = desk.net->requests("PUT");
  ASSERT_GE(puts.size(), 3u);
  for (const auto& p : puts) {
    EXPECT_EQ(p.header("Savekit-Write-Id"), puts[0].header("Savekit-Write-Id"));
    EXPECT_EQ(p.header("If-None-Match"), "*");
    EXPECT_EQ(p.header("Savekit-Meta"), puts[0].header("Savekit-Meta"));
    EXPECT_EQ(p.body, puts[0].body);
  }
  EXPECT_FALSE(puts[0].header("Savekit-Write-Id").empty());
}

// An outbox file damaged on the disk is never sent and never silently dropped: the report
// names it once (not all synced), it is set aside for a person to look at, and its slot is
// decided again from the slot and the server (the change it held lands through a new entry).
TEST_P(CloudFaults, ADamagedOutboxEntryIsReportedSetAsideAndItsSlotStillSyncs) {
  device& desk = make_device("desktop");
  write(desk, "slot1", progress);
  desk.net->before = [&](const savekit::cloud::http_request& r) -> std::optional<savekit::error> {
    if (r.method == "PUT") return dropped();
    return std::nullopt;
  };
  ASSERT_EQ(said(run(desk), "slot1").what, outcome::failed);
  std::filesystem::path entry;
  for (const auto& f : std::filesystem::directory_iterator(desk.dir))
    if (f.path().filename().string().starts_with(".savekit-sync.out.")) entry = f.path();
  ASSERT_FALSE(entry.empty());
  {
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.put('!');  // the body's last byte: its SHA-256 no longer matches
  }
  desk.net->before = nullptr;
  auto r = run(desk);
  ASSERT_EQ(r.unreadable_entries.size(), 1u);
  const std::string id = entry.filename().string().substr(std::string{".savekit-sync.out."}.size());
  EXPECT_EQ(std::filesystem::path{r.unreadable_entries[0]}.filename(), ".savekit-sync.damaged." + id);
  EXPECT_FALSE(r.all_synced());
  EXPECT_FALSE(std::filesystem::exists(entry));
  EXPECT_TRUE(std::filesystem::exists(desk.dir / (".savekit-sync.damaged." + id))) << "kept for a person";
  EXPECT_EQ(said(r, "slot1").what, outcome::pushed);
  EXPECT_EQ(server_versions("slot1"), 1u);
  EXPECT_EQ(read(desk, "slot1"), progress);
  auto again = run(desk);
  EXPECT_TRUE(again.unreadable_entries.empty()) << "named once";
  EXPECT_TRUE(again.all_synced());
}

// Pushes are recorded in batches (one outbox file for many slots). When some of a batch's
// answers are lost, the file is written again with those entries only: the next run resends
// exactly them (the same write ids), and every slot ends synced, each applied once.
TEST_P(CloudFaults, LostAnswersInABatchAreResentAloneAndTheRestIsDone) {
  device& desk = make_device("desktop", {}, [](savekit::cloud::options& o) { o.attempts = 1; });
  constexpr int slots = 40;  // more than a batch
  for (int i = 0; i < slots; ++i) write(desk, "slot" + std::to_string(i), Game{"h", i, {}});
  const std::set<std::string> lose = {"/v1/slots/slot3", "/v1/slots/slot17", "/v1/slots/slot35"};
  desk.net->after =
      [&](const savekit::cloud::http_request& r,
          savekit::result<savekit::cloud::http_response> got) -> savekit::result<savekit::cloud::http_response> {
    if (r.method == "PUT" && lose.contains(r.target)) return dropped();  // applied, its answer lost
    return got;
  };
  auto first = run(desk);
  EXPECT_EQ(first.count(outcome::pushed), std::size_t{slots - 3});
  EXPECT_EQ(first.count(outcome::failed), 3u);
  std::map<std::string, std::string> sent_ids;  // target -> write id of the first attempt
  for (const auto& p : desk.net->requests("PUT")) sent_ids.emplace(p.target, p.header("Savekit-Write-Id"));
  std::size_t files = 0;
  for (const auto& f : std::filesystem::directory_iterator(desk.dir))
    if (f.path().filename().string().starts_with(".savekit-sync.out.")) ++files;
  EXPECT_GE(files, 1u);
  EXPECT_LE(files, 2u) << "the entries left share their batches' files";

  desk.net->after = nullptr;
  const std::size_t before = desk.net->requests("PUT").size();
  auto second = run(desk);
  auto puts = desk.net->requests("PUT");
  ASSERT_EQ(puts.size() - before, 3u) << "only the unanswered ones are sent again";
  for (std::size_t i = before; i < puts.size(); ++i) {
    EXPECT_TRUE(lose.contains(puts[i].target)) << puts[i].target;
    EXPECT_EQ(puts[i].header("Savekit-Write-Id"), sent_ids[puts[i].target]) << "the same write";
  }
  EXPECT_EQ(second.count(outcome::pushed), 3u);
  EXPECT_TRUE(second.all_synced());
  for (const std::string name : {"slot3", "slot17", "slot35", "slot0"}) EXPECT_EQ(server_versions(name), 1u) << name;
  for (const auto& f : std::filesystem::directory_iterator(desk.dir))
    EXPECT_FALSE(f.path().filename().string().starts_with(".savekit-sync.out.")) << f.path();
}

TEST_P(CloudFaults, AResetBeforeTheRequestAndServerErrorsAreRetriedWithinTheRun) {
  device& desk = make_device("desktop");
  write(desk, "slot1", progress);
  std::atomic<int> calls{0};
  desk.net->before = [&](const savekit::cloud::http_request& r) -> std::optional<savekit::error> {
    if (r.method == "PUT" && calls.fetch_add(1) == 0) return dropped();  // reset before it was sent
    return std::nullopt;
  };
  std::atomic<int> answered{0};
  desk.net->after =
      [&](const savekit::cloud::http_request& r,
          savekit::result<savekit::cloud::http_response> got) -> savekit::result<savekit::cloud::http_response> {
    if (r.method == "GET" && answered.fetch_add(1) < 2) {  // the list: a 503, then a 429
      savekit::cloud::http_response busy;
      busy.status = answered == 1 ? 503 : 429;
      busy.headers = {{"retry-after", "0"}};
      busy.body = R"({"error":{"code":"unavailable","message":"try again"}})";
      return busy;
    }
    return got;
  };
  auto r = run(desk);
  EXPECT_EQ(said(r, "slot1").what, outcome::pushed);
  EXPECT_TRUE(r.all_synced());
  EXPECT_EQ(desk.net->requests("GET").size(), 3u);
  EXPECT_EQ(desk.net->requests("PUT").size(), 2u);
}

TEST_P(CloudFaults, AServerDownIsAClearErrorAndTheGamePlaysOn) {
  device& desk = make_device("desktop");
  write(desk, "slot1", progress);
  run(desk);
  server_.reset();  // stopped
  Game more = progress;
  more.level = 31;
  write(desk, "slot1", more);  // local first: a save never waits for the cloud
  auto r = desk.sync->run();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), savekit::errc::network);
  EXPECT_NE(r.error().message().find("127.0.0.1"), std::string::npos) << r.error().message();
  EXPECT_EQ(read(desk, "slot1"), more);
  EXPECT_EQ(state_of(desk, "slot1"), sync_state::pending);
}

TEST_P(CloudFaults, ARefusedTokenStopsTheRunAndIsNeverWritten) {
  device& desk = make_device("desktop");
  write(desk, "slot1", progress);
  open_sync(desk, [](savekit::cloud::options& o) { o.token = "sk1.forged.token"; });
  auto r = desk.sync->run();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), savekit::errc::network);
  EXPECT_NE(r.error().message().find("401"), std::string::npos) << r.error().message();
  // No file beside the slots holds the token.
  for (const auto& f : std::filesystem::directory_iterator(desk.dir)) {
    const std::string text = test_server::read_text(f.path());
    EXPECT_EQ(text.find(token_), std::string::npos) << f.path();
    EXPECT_EQ(text.find("sk1.forged.token"), std::string::npos) << f.path();
  }
}

TEST_P(CloudFaults, BadAnswersAreErrorsAndLocalSavesAreUntouched) {
  device& desk = make_device("desktop");
  device& deck = make_device("deck");
  write(desk, "slot1", progress);
  run(desk);
  Game mine{"Mine", 2, {}};
  write(deck, "other", mine);
  // A malformed list: the run fails, nothing changes here.
  deck.net->after =
      [](const savekit::cloud::http_request& r,
         savekit::result<savekit::cloud::http_response> got) -> savekit::result<savekit::cloud::http_response> {
    if (r.method == "GET" && got) got->body = R"({"slots":[{"name":"slot1","version":"x"}]})";
    return got;
  };
  auto bad_list = deck.sync->run();
  ASSERT_FALSE(bad_list);
  EXPECT_EQ(bad_list.error().code(), savekit::errc::network);
  // A save whose bytes are cut, or flipped, or without a version: the slot fails.
  for (int how = 0; how < 4; ++how) {
    deck.net->after =
        [how](const savekit::cloud::http_request& r,
              savekit::result<savekit::cloud::http_response> got) -> savekit::result<savekit::cloud::http_response> {
      if (r.method != "GET" || r.target.find("?") != std::string::npos || !got) return got;
      if (how == 0) got->body.resize(got->body.size() - 1);
      if (how == 1) got->body[got->body.size() - 2] ^= 1;
      if (how == 2)
        for (auto& [n, v] : got->headers)
          if (n == "etag") v = "W/\"1\"";
      if (how == 3) got->body = "not a save";
      return got;
    };
    auto r = run(deck);
    EXPECT_EQ(said(r, "slot1").what, outcome::failed) << how;
    EXPECT_FALSE(deck.slots->info("slot1")) << how << ": nothing was written";
  }
  EXPECT_EQ(read(deck, "other"), mine);
  deck.net->after = nullptr;
  EXPECT_EQ(said(run(deck), "slot1").what, outcome::pulled);
}

TEST_P(CloudFaults, AFullLocalDiskSendsNothing) {
  test_support::fault_fs fs;
  // The device is the fixture's and the file system this test's: the device closes first,
  // however the test ends (its lock released through fs while fs still lives).
  struct close_devices_first {
    std::vector<std::unique_ptr<device>>& devices;
    ~close_devices_first() { devices.clear(); }
  } closer{devices_};
  device& desk = make_device("desktop", {.fs = &fs});
  write(desk, "slot1", progress);
  fs.fail_creating(".tmp");  // no file can be made: neither the outbox entry nor the state
  auto r = desk.sync->run();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), savekit::errc::io_error);
  EXPECT_TRUE(desk.net->requests("PUT").empty()) << "a change is sent only once it is recorded";
  EXPECT_EQ(read(desk, "slot1"), progress);
  fs.fail_creating("");
  EXPECT_EQ(said(run(desk), "slot1").what, outcome::pushed);
}

TEST_P(CloudFaults, TheServersRefusalIsFinalUntilTheSaveChanges) {
  server_ = start_server({"--rate", "0", "--max-save-bytes", "2000"});
  ASSERT_TRUE(server_);
  device& desk = make_device("desktop");
  write(desk, "a", progress);
  write(desk, "b", Game{"Aria", 30, std::vector<std::string>(300, "a potion")});
  auto r = run(desk);
  EXPECT_EQ(said(r, "a").what, outcome::pushed);
  EXPECT_EQ(said(r, "b").what, outcome::failed);
  EXPECT_EQ(said(r, "b").http_status, 413);
  EXPECT_EQ(said(r, "b").server_code, "too_large");
  const std::size_t puts = desk.net->requests("PUT").size();
  EXPECT_EQ(said(run(desk), "b").what, outcome::failed);
  EXPECT_EQ(desk.net->requests("PUT").size(), puts) << "the same save is not sent again";
  EXPECT_EQ(state_of(desk, "b"), sync_state::local_only);
  write(desk, "b", progress);  // a new save of it is
  EXPECT_EQ(said(run(desk), "b").what, outcome::pushed);
}

// Too many slots is cured by freeing one: the change is kept and sent again, not dropped.
TEST_P(CloudFaults, TooManySlotsKeepsTheChangeUntilASlotIsFreed) {
  server_ = start_server({"--rate", "0", "--max-slots", "1"});
  ASSERT_TRUE(server_);
  device& desk = make_device("desktop");
  write(desk, "a", progress);
  write(desk, "b", fresh);
  auto r = run(desk);
  EXPECT_EQ(said(r, "a").what, outcome::pushed);
  EXPECT_EQ(said(r, "b").what, outcome::failed);
  EXPECT_EQ(said(r, "b").server_code, "too_many_slots");
  EXPECT_EQ(state_of(desk, "b"), sync_state::pending);
  ASSERT_TRUE(desk.slots->remove("a"));
  r = run(desk);  // the kept change goes first (still too many), then the deletion
  EXPECT_EQ(said(r, "a").what, outcome::deleted);
  EXPECT_EQ(said(run(desk), "b").what, outcome::pushed) << "the kept change is sent once a slot is free";
  EXPECT_EQ(state_of(desk, "b"), sync_state::synced);
}

// Any answer that is not the server's own refusal of the change — a proxy's 404 or 408,
// a 3xx — keeps it to send again (once it was dropped as refused, never sent again).
TEST_P(CloudFaults, AnAnswerThatIsNoRefusalKeepsTheChange) {
  device& desk = make_device("desktop");
  write(desk, "slot1", progress);
  int answered = 0;
  desk.net->after =
      [&](const savekit::cloud::http_request& rq,
          savekit::result<savekit::cloud::http_response> got) -> savekit::result<savekit::cloud::http_response> {
    if (rq.method != "PUT" || answered++ != 0) return got;
    return savekit::cloud::http_response{.status = 408, .headers = {}, .body = "<html>Request Timeout</html>"};
  };
  EXPECT_EQ(said(run(desk), "slot1").what, outcome::failed);
  EXPECT_EQ(state_of(desk, "slot1"), sync_state::pending);
  EXPECT_EQ(said(run(desk), "slot1").what, outcome::pushed);
  EXPECT_EQ(state_of(desk, "slot1"), sync_state::synced);
}

// An acknowledgement that is not of the change sent (another slot's entry, a version that
// cannot follow the one replaced) is no acknowledgement: the change stays pending.
TEST_P(CloudFaults, AnAcknowledgementOfAnotherWriteIsNotTaken) {
  device& desk = make_device("desktop");
  device& deck = make_device("deck");
  write(desk, "slot1", fresh);
  run(desk);
  run(deck);
  write(desk, "slot1", progress);
  desk.net->after =
      [&](const savekit::cloud::http_request& rq,
          savekit::result<savekit::cloud::http_response> got) -> savekit::result<savekit::cloud::http_response> {
    if (rq.method != "PUT") return got;
    desk.net->after = nullptr;
    return savekit::cloud::http_response{.status = 200, .headers = {{"etag", "\"1\""}}, .body = {}};
  };
  EXPECT_EQ(said(run(desk), "slot1").what, outcome::failed);
  EXPECT_EQ(state_of(desk, "slot1"), sync_state::pending);
  EXPECT_EQ(said(run(desk), "slot1").what, outcome::pushed);
  EXPECT_EQ(said(run(deck), "slot1").what, outcome::pulled);
  EXPECT_EQ(read(deck, "slot1"), progress);
}

INSTANTIATE_TEST_SUITE_P(Backends, CloudFaults, ::testing::ValuesIn(test_server::backends()));

}  // namespace
