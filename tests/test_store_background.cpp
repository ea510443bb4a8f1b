// prefs::save_async with the file backend: the snapshot is taken on the calling thread and
// written, synced, on the store's worker thread; save(), maintenance() and the destructor
// wait for it; a failure leaves the changes pending; changes made meanwhile stay pending.
#include <savekit/prefs.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "support/fault_fs.hpp"
#include "support/temp_dir.hpp"

namespace {

// Waits (bounded) until flag is set.
bool eventually(const std::atomic<bool>& flag) {
  for (int i = 0; i < 1000 && !flag; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return flag;
}

}  // namespace

TEST(StoreBackground, SaveAsyncWritesOnAWorkerAndTheDataIsThere) {
  test_support::temp_dir dir;
  const std::string path = (dir.path() / "s.prefs").string();
  std::atomic<bool> done{false};
  std::atomic<bool> elsewhere{false};
  savekit::status outcome;
  {
    auto p = savekit::prefs::open(path);
    ASSERT_TRUE(p);
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(p->set_int("k" + std::to_string(i), i));
    const auto caller = std::this_thread::get_id();
    p->save_async([&](savekit::status s) {
      outcome = std::move(s);
      elsewhere = std::this_thread::get_id() != caller;
      done = true;
    });
    ASSERT_TRUE(eventually(done));
    EXPECT_TRUE(outcome) << outcome.error().to_string();
    EXPECT_TRUE(elsewhere.load());
    EXPECT_FALSE(p->has_pending_changes());
  }
  auto again = savekit::prefs::open(path);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->get_int("k99", -1), 99);
}

TEST(StoreBackground, ChangesMadeDuringABackgroundCommitStayPendingAndSaveWaitsForIt) {
  test_support::temp_dir dir;
  const std::string path = (dir.path() / "s.prefs").string();
  {
    auto p = savekit::prefs::open(path);
    ASSERT_TRUE(p);
    ASSERT_TRUE(p->set_string("a", "first"));
    std::atomic<bool> done{false};
    p->save_async([&](savekit::status s) {
      EXPECT_TRUE(s);
      done = true;
    });
    ASSERT_TRUE(p->set_string("a", "second"));  // after the snapshot: not in that commit
    ASSERT_TRUE(p->set_string("b", "new"));
    ASSERT_TRUE(p->save());  // waits for the background commit, then commits these
    EXPECT_TRUE(done.load());
    EXPECT_FALSE(p->has_pending_changes());
  }
  auto again = savekit::prefs::open(path);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->get_string("a", ""), "second");
  EXPECT_EQ(again->get_string("b", ""), "new");
}

TEST(StoreBackground, TheDestructorFinishesWhatSaveAsyncTook) {
  test_support::temp_dir dir;
  const std::string path = (dir.path() / "s.prefs").string();
  std::atomic<int> called{0};
  {
    auto p = savekit::prefs::open(path);
    ASSERT_TRUE(p);
    ASSERT_TRUE(p->set_string("blob", std::string(1 << 20, 'x')));
    p->save_async([&](savekit::status s) {
      EXPECT_TRUE(s);
      ++called;
    });
    ASSERT_TRUE(p->set_int("later", 1));
    p->save_async([&](savekit::status s) {  // waits for the first, then carries this
      EXPECT_TRUE(s);
      ++called;
    });
  }  // the store goes at once: both commits are done before it is released
  EXPECT_EQ(called.load(), 2);
  auto again = savekit::prefs::open(path);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->get_string("blob", "").size(), std::size_t{1} << 20);
  EXPECT_EQ(again->get_int("later", 0), 1);
}

TEST(StoreBackground, AFailedBackgroundCommitLeavesTheChangesPending) {
  test_support::fault_fs disk;
  auto p = savekit::prefs::open(savekit::make_file_backend("/s.prefs", disk));
  ASSERT_TRUE(p);
  ASSERT_TRUE(p->set_int("hp", 10));
  ASSERT_TRUE(p->save());
  ASSERT_TRUE(p->set_int("hp", 11));
  disk.arm(test_support::fault_fs::fault::fail, disk.operations());  // the commit's first write
  std::atomic<bool> done{false};
  savekit::status outcome;
  p->save_async([&](savekit::status s) {
    outcome = std::move(s);
    done = true;
  });
  ASSERT_TRUE(eventually(done));
  EXPECT_FALSE(outcome);
  EXPECT_TRUE(p->has_pending_changes());
  ASSERT_TRUE(p->save());  // the next save carries them
  disk.power_cut();
  auto again = savekit::prefs::open(savekit::make_file_backend("/s.prefs", disk));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->get_int("hp", 0), 11);
}

TEST(StoreBackground, ACallbackMayLetGoOfTheStore) {
  test_support::temp_dir dir;
  const std::string path = (dir.path() / "s.prefs").string();
  auto holder = std::make_unique<savekit::prefs>(std::move(*savekit::prefs::open(path)));
  ASSERT_TRUE(holder->set_int("k", 1));
  std::atomic<bool> released{false};
  holder->save_async([&](savekit::status) {
    holder.reset();  // on the worker: the store closes once this callback returns
    released = true;
  });
  ASSERT_TRUE(eventually(released));
  std::optional<savekit::prefs> again;
  for (int i = 0; i < 500 && !again; ++i) {
    auto opened = savekit::prefs::open(path);
    if (opened)
      again.emplace(std::move(*opened));
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(again);
  EXPECT_EQ(again->get_int("k", 0), 1);
}
