// prefs::save_async with the file backend: the commit runs on the store's worker thread.
// A gated backend (a real file backend whose commits wait until the test lets them go: a
// slow fdatasync on demand) makes the races repeatable. Each test here is a way a first
// version lost or misreported a save (docs/design.md, "Background commits").
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "savekit/file_backend.hpp"
#include "savekit/prefs.hpp"
#include "support/fault_fs.hpp"
#include "support/temp_dir.hpp"

using namespace std::chrono_literals;
using savekit::errc;

namespace {

// How long a wait for something the test brings about may last: only a hang gets there (a
// loaded machine, a sanitizer build, may take seconds for what takes microseconds here).
// Every wait below returns as soon as what it waits for has happened.
constexpr auto hang = 120s;

// Commit number n waits until allow(n) (bounded: `hang`, then it goes on).
struct gate {
  std::mutex mutex;
  std::condition_variable changed;
  int started = 0, allowed = 1000000;
  void close() {
    std::lock_guard lock(mutex);
    allowed = started;
  }
  void allow(int n) {
    {
      std::lock_guard lock(mutex);
      allowed = n;
    }
    changed.notify_all();
  }
  bool wait_started(int n) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, hang, [&] { return started >= n; });
  }
};

class gated_backend final : public savekit::backend {
 public:
  gated_backend(std::unique_ptr<savekit::backend> inner, std::shared_ptr<gate> g)
      : inner_(std::move(inner)), gate_(std::move(g)) {}
  savekit::result<savekit::loaded_state> load() override { return inner_->load(); }
  void commit(const savekit::change_set& changes, std::function<void(savekit::status)> done) override {
    {
      std::unique_lock lock(gate_->mutex);
      const int me = ++gate_->started;
      gate_->changed.notify_all();
      gate_->changed.wait_for(lock, hang, [&] { return gate_->allowed >= me; });
    }
    inner_->commit(changes, std::move(done));
  }
  bool commits_in_background() const override { return inner_->commits_in_background(); }
  std::string describe() const override { return inner_->describe(); }
  savekit::status maintenance() const override { return inner_->maintenance(); }

 private:
  std::unique_ptr<savekit::backend> inner_;
  std::shared_ptr<gate> gate_;
};

class Background : public ::testing::Test {
 protected:
  std::string path() const { return (dir_.path() / "s.prefs").string(); }
  std::unique_ptr<savekit::prefs> open_gated() {
    auto p = savekit::prefs::open(
        std::make_unique<gated_backend>(savekit::make_file_backend(path(), savekit::posix_file_system()), gate_));
    if (!p) return nullptr;
    return std::make_unique<savekit::prefs>(std::move(*p));
  }
  // The store as a new process would find it (the worker may still be letting it go: bounded).
  std::optional<savekit::prefs> reopen() {
    const auto give_up = std::chrono::steady_clock::now() + hang;
    for (;;) {
      if (auto p = savekit::prefs::open(path())) return std::optional<savekit::prefs>(std::move(*p));
      if (std::chrono::steady_clock::now() >= give_up) return std::nullopt;
      std::this_thread::sleep_for(5ms);
    }
  }
  template <class Done>
  static bool eventually(Done done) {
    const auto give_up = std::chrono::steady_clock::now() + hang;
    while (!done()) {
      if (std::chrono::steady_clock::now() >= give_up) return false;
      std::this_thread::sleep_for(5ms);
    }
    return true;
  }
  static bool eventually(const std::atomic<bool>& flag) {
    return eventually([&] { return flag.load(); });
  }

  test_support::temp_dir dir_;
  std::shared_ptr<gate> gate_ = std::make_shared<gate>();
};

}  // namespace

TEST_F(Background, TheCallerAndOtherThreadsDoNotWaitForTheDisk) {
  auto p = open_gated();
  ASSERT_TRUE(p);
  gate_->close();
  ASSERT_TRUE(p->set_int("a", 1));
  std::atomic<bool> saved{false};
  p->save_async([&](savekit::status s) {
    EXPECT_TRUE(s);
    saved = true;
  });
  ASSERT_TRUE(gate_->wait_started(1));  // the write is in progress, and held there
  // The game goes on: reads, writes, even a second save_async, none waiting for the disk.
  std::atomic<bool> played{false};
  std::thread game([&] {
    EXPECT_EQ(p->get_int("a", 0), 1);
    EXPECT_TRUE(p->set_int("b", 2));
    p->save_async([](savekit::status) {});
    played = true;
  });
  EXPECT_TRUE(eventually(played)) << "a game thread waited for the commit in progress";
  EXPECT_FALSE(saved);
  gate_->allow(100);
  game.join();
  EXPECT_TRUE(eventually(saved));
  p.reset();  // waits for the second save
  auto again = reopen();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->get_int("a", 0), 1);
  EXPECT_EQ(again->get_int("b", 0), 2);
}

TEST_F(Background, ChangesMadeDuringTheWriteStayPendingAndNoOlderValueIsWrittenLast) {
  auto p = open_gated();
  ASSERT_TRUE(p);
  gate_->close();
  ASSERT_TRUE(p->set_int("a", 1));
  std::atomic<bool> first{false};
  p->save_async([&](savekit::status s) {
    EXPECT_TRUE(s);
    first = true;
  });
  ASSERT_TRUE(gate_->wait_started(1));  // a=1 taken, being written
  ASSERT_TRUE(p->set_int("a", 2));
  // save() now must come after the write in progress, never before it (a=1 would be the
  // last word on disk while memory says a=2 is saved). The write is let go once save() is
  // called, and a moment later for it to reach its wait, which nothing shows from outside:
  // should a loaded machine let go sooner, save() finds the write done and this checks
  // less, never wrongly.
  std::atomic<bool> saving{false};
  std::thread release([&] {
    eventually(saving);
    std::this_thread::sleep_for(50ms);
    gate_->allow(100);
  });
  saving = true;
  EXPECT_TRUE(p->save());
  release.join();
  // The first save's callback runs after its write, with no lock held (docs/design.md,
  // "Background commits"): save() waits for the write, not for that callback.
  EXPECT_TRUE(eventually(first));
  EXPECT_FALSE(p->has_pending_changes());
  p.reset();
  auto again = reopen();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->get_int("a", 0), 2);
}

TEST_F(Background, SaveFromACallbackWhileAnotherSaveIsQueued) {
  auto p = std::make_unique<savekit::prefs>(std::move(*savekit::prefs::open(path())));
  ASSERT_TRUE(p->set_int("a", 1));
  std::atomic<bool> done{false}, inner{false};
  savekit::status from_callback = savekit::error{errc::io_error, 0, "not called"};
  p->save_async([&](savekit::status) {
    EXPECT_TRUE(p->set_int("b", 2));
    p->save_async([&](savekit::status s) {
      EXPECT_TRUE(s);
      inner = true;
    });
    EXPECT_TRUE(p->set_int("c", 3));
    from_callback = p->save();  // on the worker, a save queued behind this callback
    done = true;
  });
  ASSERT_TRUE(eventually(done));
  ASSERT_TRUE(eventually(inner));
  EXPECT_TRUE(from_callback) << from_callback.error().to_string();
  p.reset();
  auto again = reopen();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->get_int("c", 0), 3);
}

TEST_F(Background, ACallbackThatClosesTheStoreLosesNoQueuedSave) {
  auto holder = open_gated();
  ASSERT_TRUE(holder);
  gate_->close();
  ASSERT_TRUE(holder->set_int("x", 1));
  holder->save_async([&](savekit::status) { holder.reset(); });  // "quit once this is saved"
  ASSERT_TRUE(gate_->wait_started(1));
  ASSERT_TRUE(holder->set_int("y", 2));
  std::atomic<bool> reported{false};
  savekit::status second = savekit::error{errc::io_error, 0, "not called"};
  holder->save_async([&](savekit::status s) {
    second = std::move(s);
    reported = true;
  });
  gate_->allow(100);
  ASSERT_TRUE(eventually(reported));
  EXPECT_TRUE(second) << second.error().to_string();
  auto again = reopen();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->get_int("y", 0), 2) << "reported saved, but not in the file";
}

TEST_F(Background, ACallbackThatSavesAsyncThenClosesTheStore) {
  auto holder = std::make_unique<savekit::prefs>(std::move(*savekit::prefs::open(path())));
  ASSERT_TRUE(holder->set_int("x", 1));
  std::atomic<bool> reported{false};
  savekit::status last = savekit::error{errc::io_error, 0, "not called"};
  holder->save_async([&](savekit::status) {
    EXPECT_TRUE(holder->set_int("z", 3));
    holder->save_async([&](savekit::status s) {
      last = std::move(s);
      reported = true;
    });
    holder.reset();
  });
  ASSERT_TRUE(eventually(reported));
  EXPECT_TRUE(last) << last.error().to_string();
  auto again = reopen();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->get_int("z", 0), 3);
}

TEST_F(Background, ACallbackHoldingTheLastReferenceReleasesTheStore) {
  std::atomic<bool> called{false};
  {
    auto shared = std::make_shared<savekit::prefs>(std::move(*savekit::prefs::open(path())));
    ASSERT_TRUE(shared->set_int("k", 1));
    shared->save_async([shared, &called](savekit::status) { called = true; });
  }  // the game lets go; the callback's copy is the last
  ASSERT_TRUE(eventually(called));
  auto again = reopen();  // the worker closed the store (its lock released), and did not hang
  ASSERT_TRUE(again);
  EXPECT_EQ(again->get_int("k", 0), 1);
}

TEST_F(Background, CallbacksRunInTheOrderOfTheCalls) {
  auto p = open_gated();
  ASSERT_TRUE(p);
  gate_->close();
  std::mutex order_mutex;
  std::string order;
  auto note = [&](const char* what) {
    std::lock_guard lock(order_mutex);
    order += what;
  };
  std::atomic<int> reported{0};
  ASSERT_TRUE(p->set_int("a", 1));
  p->save_async([&](savekit::status) {
    note("A");
    // another thread's save_async, made while A's callback runs (after B was called)
    std::thread other([&] {
      EXPECT_TRUE(p->set_int("d", 4));
      p->save_async([&](savekit::status) {
        note("D");
        ++reported;
      });
    });
    other.join();
    ++reported;
  });
  ASSERT_TRUE(gate_->wait_started(1));
  ASSERT_TRUE(p->set_int("b", 2));
  p->save_async([&](savekit::status) {
    note("B");
    ++reported;
  });
  gate_->allow(100);
  EXPECT_TRUE(eventually([&] { return reported >= 3; }));
  std::lock_guard lock(order_mutex);
  EXPECT_EQ(order, "ABD");
}

TEST_F(Background, TheDestructorWaitsForEveryQueuedSave) {
  {
    auto p = open_gated();
    ASSERT_TRUE(p);
    gate_->close();
    for (int i = 0; i < 20; ++i) {
      ASSERT_TRUE(p->set_int("k" + std::to_string(i), i));
      p->save_async({});
    }
    // Let go once the destructor is called, and a moment later for it to reach its wait (as
    // above: sooner only checks less).
    std::atomic<bool> closing{false};
    std::thread release([&] {
      eventually(closing);
      std::this_thread::sleep_for(30ms);
      gate_->allow(1000);
    });
    closing = true;
    p.reset();
    release.join();
  }
  auto again = reopen();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->size(), 20u);
  EXPECT_EQ(again->get_int("k19", 0), 19);
}

TEST_F(Background, AFailedBackgroundCommitKeepsTheChangesPendingForARetry) {
  test_support::fault_fs disk;
  auto opened = savekit::prefs::open(savekit::make_file_backend("/s.prefs", disk));
  ASSERT_TRUE(opened);
  savekit::prefs p = std::move(*opened);
  ASSERT_TRUE(p.set_int("a", 1));
  disk.arm(test_support::fault_fs::fault::fail, disk.operations());  // the commit's first operation
  std::atomic<bool> reported{false};
  savekit::status outcome;
  p.save_async([&](savekit::status s) {
    outcome = std::move(s);
    reported = true;
  });
  ASSERT_TRUE(eventually(reported));
  EXPECT_FALSE(outcome);
  EXPECT_TRUE(p.has_pending_changes());
  EXPECT_TRUE(p.save());
  EXPECT_FALSE(p.has_pending_changes());
}

#if defined(__cpp_exceptions)
TEST_F(Background, ACallbackThatThrowsDoesNotStopTheSavesQueuedBehindIt) {
  auto p = open_gated();
  ASSERT_TRUE(p);
  gate_->close();
  ASSERT_TRUE(p->set_int("a", 1));
  p->save_async([](savekit::status) { throw std::runtime_error("the menu it would update is gone"); });
  ASSERT_TRUE(p->set_int("b", 2));
  std::atomic<bool> second{false};
  p->save_async([&](savekit::status s) {
    EXPECT_TRUE(s);
    second = true;
  });
  gate_->allow(100);
  ASSERT_TRUE(eventually(second));
  p.reset();
  auto again = reopen();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->get_int("b", 0), 2);
}
#endif
