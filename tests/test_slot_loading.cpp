// slots::load_async (issue 46), natively: on a disk every load is done at once; on a file
// system that holds only each file's first bytes until fetched — as the browser's slots do,
// tested in Chromium by tests/web/slots_tests.cpp — the load fetches what a read reads,
// falls back past damaged generations as a read does, and a read before it is
// errc::not_loaded, which sets nothing aside.
#include <savekit/slots.hpp>

#include <gtest/gtest.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "seed_types.hpp"
#include "support/temp_dir.hpp"

namespace {

using savekit::errc;
using savekit::file_system;
using seeds::SaveGame;
using test_support::temp_dir;

// Larger than the 4 KB a head holds at least (src/web/indexeddb_slots.cpp).
SaveGame game(int score) { return {std::string(6000, 'a') + "Speed Run", score, {{100, score % 7}, {200, 20}}}; }

// The posix file system, holding of each file only its first `head` bytes until fetched
// (as the browser's slots hold a file's first 4 KB and all before its payload);
// fetches answer when the test runs them (answer_fetches), as a browser's answers come.
class lazy_fs final : public file_system {
 public:
  explicit lazy_fs(std::size_t head) : head_(head) {}

  bool fetches() const override { return true; }
  void fetch(const std::string& path, std::function<void(savekit::status)> done) override {
    asked.push_back(path);
    answers_.push_back([this, path, done = std::move(done)] {
      fetched_.insert(path);
      done(savekit::status{});
    });
  }
  // Runs the fetches asked for so far, and those they ask for in turn; how many ran.
  int answer_fetches() {
    int ran = 0;
    while (!answers_.empty()) {
      auto answer = std::move(answers_.front());
      answers_.pop_front();
      answer();
      ++ran;
    }
    return ran;
  }
  std::vector<std::string> asked;

  savekit::result<int> open(const std::string& path, open_mode mode, std::uint32_t permissions) override {
    savekit::result<int> handle = disk().open(path, mode, permissions);
    if (handle) paths_[*handle] = path;
    return handle;
  }
  savekit::result<std::string> read(int handle, std::uint64_t max_bytes) override {
    savekit::result<file_info> info = disk().stat(handle);
    if (!info) return std::move(info).error();
    if (savekit::status held = holds(handle, 0, info->size); !held) return std::move(held).error();
    return disk().read(handle, max_bytes);
  }
  savekit::result<std::string> read_at(int handle, std::uint64_t offset, std::size_t n) override {
    if (savekit::status held = holds(handle, offset, n); !held) return std::move(held).error();
    return disk().read_at(handle, offset, n);
  }
  savekit::status write(int handle, const void* data, std::size_t n) override { return disk().write(handle, data, n); }
  savekit::status sync(int handle) override { return disk().sync(handle); }
  savekit::status truncate(int handle, std::uint64_t size) override { return disk().truncate(handle, size); }
  void close(int handle) override {
    paths_.erase(handle);
    disk().close(handle);
  }
  savekit::result<file_info> stat(int handle) override { return disk().stat(handle); }
  savekit::result<file_info> stat(const std::string& path) override { return disk().stat(path); }
  savekit::status copy_permissions(int handle, const file_info& like) override {
    return disk().copy_permissions(handle, like);
  }
  savekit::status rename(const std::string& from, const std::string& to) override {
    if (fetched_.erase(from)) fetched_.insert(to);
    return disk().rename(from, to);
  }
  savekit::status sync_directory(const std::string& directory) override { return disk().sync_directory(directory); }
  savekit::status remove(const std::string& path) override { return disk().remove(path); }
  savekit::result<std::vector<std::string>> create_directories(const std::string& directory) override {
    return disk().create_directories(directory);
  }
  savekit::result<std::vector<std::string>> list_directory(const std::string& directory) override {
    return disk().list_directory(directory);
  }
  savekit::result<std::string> resolve(const std::string& path) override { return disk().resolve(path); }
  savekit::result<std::unique_ptr<lock_token>> lock(const std::string& path, lock_mode mode, bool create) override {
    return disk().lock(path, mode, create);
  }
  savekit::status lock(int handle, lock_mode mode) override { return disk().lock(handle, mode); }

 private:
  static file_system& disk() { return savekit::posix_file_system(); }
  // Files written here (opened create_new) are held whole, as the browser's are.
  savekit::status holds(int handle, std::uint64_t offset, std::uint64_t n) {
    const std::string& path = paths_[handle];
    if (offset + n <= head_ || fetched_.count(path) || path.find(".tmp") != std::string::npos) return {};
    return savekit::error{errc::not_loaded, 0, path + " is not loaded"};
  }
  std::size_t head_;
  std::map<int, std::string> paths_;
  std::set<std::string> fetched_;
  std::deque<std::function<void()>> answers_;
};

// Writes generations 1..n of slot "a" (SaveGame with scores 1..n) with the posix file system.
void write_generations(const std::string& folder, int n) {
  auto s = savekit::slots::open(folder);
  ASSERT_TRUE(s);
  for (int i = 1; i <= n; ++i) ASSERT_TRUE(s->write("a", game(i)));
}

std::string generation_file(const std::string& folder, int generation) {
  return folder + "/s-a." + std::to_string(generation) + ".slot";  // docs/slot-format.md
}

void flip_last_byte(const std::string& path) {  // in the payload: the head stays intact
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(-1, std::ios::end);
  char c = 0;
  f.get(c);
  f.seekp(-1, std::ios::end);
  f.put(static_cast<char>(c ^ 0x5A));
}

TEST(SlotLoading, OnADiskALoadIsDoneAtOnce) {
  temp_dir dir;
  write_generations(dir.path().string(), 1);
  auto s = savekit::slots::open(dir.path().string());
  ASSERT_TRUE(s);
  int calls = 0;
  s->load_async("a", [&](savekit::status loaded) {
    EXPECT_TRUE(loaded);
    ++calls;
  });
  s->load_async("a", 1, [&](savekit::status loaded) {
    EXPECT_TRUE(loaded);
    ++calls;
  });
  s->load_history_async("a", [&](savekit::status loaded) {
    EXPECT_TRUE(loaded);
    ++calls;
  });
  EXPECT_EQ(calls, 3);
  s->load_async("", [&](savekit::status loaded) { EXPECT_EQ(loaded.error().code(), errc::invalid_name); });
}

TEST(SlotLoading, AReadBeforeTheLoadIsNotLoadedAndSetsNothingAside) {
  temp_dir dir;
  write_generations(dir.path().string(), 2);
  auto lazy = std::make_shared<lazy_fs>(4096);  // the header, name and metadata; not all of the payload
  auto s = savekit::slots::open(dir.path().string(), {}, lazy);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->list());
  EXPECT_EQ(s->list()->size(), 1u);
  EXPECT_EQ(s->read<SaveGame>("a").error().code(), errc::not_loaded);
  EXPECT_EQ(s->read_generation("a", 1).error().code(), errc::not_loaded);
  auto history = s->history("a");
  ASSERT_TRUE(history);
  ASSERT_EQ(history->size(), 2u);
  EXPECT_FALSE((*history)[0].damaged);
  EXPECT_FALSE((*history)[1].damaged);

  std::optional<savekit::status> outcome;
  s->load_async("a", [&](savekit::status loaded) { outcome = loaded; });
  EXPECT_FALSE(outcome);  // waits for the fetch
  lazy->answer_fetches();
  ASSERT_TRUE(outcome);
  EXPECT_TRUE(*outcome);
  EXPECT_EQ(lazy->asked, (std::vector<std::string>{generation_file(s->path(), 2)}));  // the newest alone
  EXPECT_EQ(s->read<SaveGame>("a").value_or(SaveGame{}), game(2));
  EXPECT_EQ(s->read_generation("a", 1).error().code(), errc::not_loaded);

  outcome.reset();
  s->load_async("a", 1, [&](savekit::status loaded) { outcome = loaded; });
  lazy->answer_fetches();
  ASSERT_TRUE(outcome && *outcome);
  EXPECT_TRUE(s->read_generation("a", 1));
}

TEST(SlotLoading, ALoadFallsBackPastADamagedGenerationAsAReadDoes) {
  temp_dir dir;
  write_generations(dir.path().string(), 3);
  flip_last_byte(generation_file(dir.path().string(), 3));
  flip_last_byte(generation_file(dir.path().string(), 2));
  auto lazy = std::make_shared<lazy_fs>(4096);
  auto s = savekit::slots::open(dir.path().string(), {}, lazy);
  ASSERT_TRUE(s);
  std::optional<savekit::status> outcome;
  s->load_async("a", [&](savekit::status loaded) { outcome = loaded; });
  EXPECT_EQ(lazy->answer_fetches(), 3);  // 3, then 2 (both damaged, set aside), then 1
  ASSERT_TRUE(outcome);
  EXPECT_TRUE(*outcome);
  savekit::read_report report;
  EXPECT_EQ(s->read<SaveGame>("a", &report).value_or(SaveGame{}), game(1));
  EXPECT_EQ(report.skipped.size(), 2u);
}

TEST(SlotLoading, ALoadSaysWhatTheReadWouldSay) {
  temp_dir dir;
  write_generations(dir.path().string(), 1);
  flip_last_byte(generation_file(dir.path().string(), 1));
  auto lazy = std::make_shared<lazy_fs>(4096);
  auto s = savekit::slots::open(dir.path().string(), {}, lazy);
  ASSERT_TRUE(s);
  std::vector<errc> outcomes;
  auto record = [&](savekit::status loaded) { outcomes.push_back(loaded ? errc::ok : loaded.error().code()); };
  s->load_async("a", record);
  s->load_async("nobody", record);
  s->load_async("a", 7, record);
  s->load_history_async("nobody", record);
  lazy->answer_fetches();
  EXPECT_EQ(outcomes, (std::vector<errc>{errc::not_found, errc::not_found, errc::not_found, errc::damaged}));
}

TEST(SlotLoading, ARenameCarriesEveryGenerationOnceTheHistoryIsLoaded) {
  temp_dir dir;
  write_generations(dir.path().string(), 2);
  auto lazy = std::make_shared<lazy_fs>(4096);
  auto s = savekit::slots::open(dir.path().string(), {}, lazy);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->rename("a", "b").error().code(), errc::not_loaded);
  EXPECT_TRUE(s->read<SaveGame>("b").error().code() == errc::not_found);  // nothing half done
  std::optional<savekit::status> outcome;
  s->load_history_async("a", [&](savekit::status loaded) { outcome = loaded; });
  EXPECT_EQ(lazy->answer_fetches(), 2);
  ASSERT_TRUE(outcome && *outcome);
  ASSERT_TRUE(s->rename("a", "b"));
  EXPECT_EQ(s->history("b").value_or(std::vector<savekit::generation_info>{}).size(), 2u);
}

// Found by an attack review: with the newest loaded (what a game reads) and an older one
// not, a rename copied the newest under the new name, then stopped.
TEST(SlotLoading, ARenameMissingAGenerationWritesNothing) {
  temp_dir dir;
  write_generations(dir.path().string(), 2);
  auto lazy = std::make_shared<lazy_fs>(4096);
  auto s = savekit::slots::open(dir.path().string(), {}, lazy);
  ASSERT_TRUE(s);
  s->load_async("a", [](savekit::status loaded) { EXPECT_TRUE(loaded); });
  lazy->answer_fetches();
  EXPECT_EQ(s->rename("a", "b").error().code(), errc::not_loaded);
  EXPECT_EQ(s->info("b").error().code(), errc::not_found);
  EXPECT_EQ(s->list().value_or(std::vector<savekit::slot_info>{}).size(), 1u);
}

// Found by an attack review: a load under way held the slots, and with them their lock.
TEST(SlotLoading, SlotsClosedWhileALoadWaitsAreLetGoAtOnce) {
  temp_dir dir;
  write_generations(dir.path().string(), 1);
  auto lazy = std::make_shared<lazy_fs>(4096);
  std::optional<savekit::status> outcome;
  {
    auto s = savekit::slots::open(dir.path().string(), {}, lazy);
    ASSERT_TRUE(s);
    s->load_async("a", [&](savekit::status loaded) { outcome = loaded; });
    EXPECT_EQ(lazy->asked.size(), 1u);
  }
  auto again = savekit::slots::open(dir.path().string());  // the lock is free
  ASSERT_TRUE(again) << again.error().to_string();
  lazy->answer_fetches();
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->error().code(), errc::io_error);
}

}  // namespace
