// Issue 40, 6: an exception on a background worker must not end the game. The slots' worker
// let bad_alloc (encoding a large save in write_async) and a throwing callback escape its
// thread, and std::terminate ended the process; prefs' worker caught both. Both share one
// worker and one rule now (src/background_worker.hpp, invariant 5).
//
// Out of memory is real here: this program's operator new throws std::bad_alloc for large
// blocks asked for by any thread but the test's own while `starve_other_threads` is set —
// the worker's encoding buffer, never the snapshot the game's thread copies.
#include <savekit/prefs.hpp>
#include <savekit/slots.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

#include "support/temp_dir.hpp"

namespace {
std::atomic<bool> starve_other_threads{false};
std::thread::id test_thread;
constexpr std::size_t large = 1 << 20;
}  // namespace

// (malloc and free behind new and delete: g++ -O3 sees the pair once inlined, and warns.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t size) {
  if (size >= large && starve_other_threads && std::this_thread::get_id() != test_thread) throw std::bad_alloc();
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace {

using savekit::errc;

struct starved {
  starved() {
    test_thread = std::this_thread::get_id();
    starve_other_threads = true;
  }
  ~starved() { starve_other_threads = false; }
};

TEST(BackgroundExceptions, OutOfMemoryEncodingASlotInTheBackgroundIsThatWritesFailure) {
  test_support::temp_dir dir;
  auto s = savekit::slots::open((dir.path() / "saves").string());
  ASSERT_TRUE(s);
  const std::vector<std::int64_t> first(10, 1), big(large / 4, 1'000'000'007);  // ~2 MiB encoded
  ASSERT_TRUE(s->write("slot1", first));
  std::atomic<int> reported{0};
  savekit::status outcome;
  {
    starved no_memory;
    s->write_async("slot1", big, {}, [&](savekit::status st) {
      outcome = st;
      ++reported;
    });
    EXPECT_FALSE(s->flush());
  }
  ASSERT_EQ(reported, 1);
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code(), errc::io_error);
  EXPECT_NE(outcome.error().message().find("bad_alloc"), std::string::npos) << outcome.error().message();
  EXPECT_EQ(*s->read<std::vector<std::int64_t>>("slot1"), first) << "the previous save is kept";
  ASSERT_TRUE(s->write("slot1", big)) << "and the slots go on";
}

TEST(BackgroundExceptions, ASlotCallbackThatThrowsDoesNotStopTheWritesQueuedBehindIt) {
  test_support::temp_dir dir;
  auto s = savekit::slots::open((dir.path() / "saves").string());
  ASSERT_TRUE(s);
  std::atomic<bool> second{false};
  s->write_async("slot1", 3, {}, [](savekit::status) { throw std::runtime_error("the menu it would update is gone"); });
  s->write_async("slot2", 4, {}, [&](savekit::status st) {
    EXPECT_TRUE(st);
    second = true;
  });
  EXPECT_TRUE(s->flush());
  EXPECT_TRUE(second);
  EXPECT_EQ(*s->read<int>("slot1"), 3);
  EXPECT_EQ(*s->read<int>("slot2"), 4);
}

TEST(BackgroundExceptions, OutOfMemoryInABackgroundCommitKeepsTheChangesPending) {
  test_support::temp_dir dir;
  auto p = savekit::prefs::open((dir.path() / "player.prefs").string());
  ASSERT_TRUE(p);
  ASSERT_TRUE(p->set_string("blob", std::string(2 * large, 'x')));
  std::atomic<bool> reported{false};
  savekit::status outcome;
  {
    starved no_memory;
    p->save_async([&](savekit::status st) {
      outcome = st;
      reported = true;
    });
    while (!reported) std::this_thread::yield();  // bounded by the test's own timeout
  }
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code(), errc::io_error);
  EXPECT_TRUE(p->has_pending_changes());
  EXPECT_TRUE(p->save());
}

}  // namespace
