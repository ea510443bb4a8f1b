// kill -9 at random instants (0.5-20 ms after the child's first acknowledged save) while a
// child process writes slots in the background (write_async): every slot then opens at a
// save the child wrote whole — never a mix, never damage — no older than the last one the
// child's callbacks acknowledged.
#include <savekit/slots.hpp>

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <thread>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/kill_child.hpp"
#include "support/temp_dir.hpp"

namespace {

constexpr int slot_count = 3;

struct Progress {
  std::int64_t counter = 0;
  std::string mirror;     // the counter again, as text
  std::vector<int> blob;  // its size and content follow the counter
};

Progress progress_for(std::int64_t i) {
  Progress p{i, std::to_string(i), {}};
  p.blob.assign(static_cast<std::size_t>(i % 1999), static_cast<int>(i % 251));
  return p;
}

std::string slot_name(int k) { return "slot " + std::to_string(k); }

struct ack {
  std::int32_t slot;
  std::int64_t counter;
};

// The child: queues saves of each slot in turn, faster than they can be synced (so some
// are superseded), and acknowledges each from its callback. Never returns.
[[noreturn]] void write_forever(const std::string& folder, int ack_fd) {
  auto s = savekit::slots::open(folder);
  if (!s) _exit(3);
  std::int64_t i = 0;
  for (int k = 0; k < slot_count; ++k) {
    auto p = s->read<Progress>(slot_name(k));
    if (p && p->counter > i) i = p->counter;
  }
  for (;;) {
    ++i;
    int k = static_cast<int>(i % slot_count);
    s->write_async(slot_name(k), progress_for(i), {.title = std::to_string(i)}, [ack_fd, k, i](savekit::status st) {
      if (!st) _exit(4);
      ack a{k, i};
      if (::write(ack_fd, &a, sizeof a) != sizeof a) _exit(5);
    });
    if (s->pending_writes() > 8) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace

TEST(SlotsKill, KillNineDuringBackgroundWrites) {
  test_support::temp_dir dir;
  const std::string folder = (dir.path() / "saves").string();
  std::mt19937 rng(4242);
  const int kills = 100;
  std::array<std::int64_t, slot_count> seen{};
  std::int64_t acknowledged_total = 0;
  for (int round = 0; round < kills; ++round) {
    auto child =
        test_support::run_then_kill([&](int ack_fd) { write_forever(folder, ack_fd); }, sizeof(ack),
                                    std::chrono::microseconds(std::uniform_int_distribution<int>(500, 20000)(rng)));
    ASSERT_TRUE(child.acknowledged_before_kill) << "the child never wrote: exit " << child.exit_code;
    ASSERT_TRUE(child.killed) << "the child stopped by itself: exit " << child.exit_code;

    std::array<std::int64_t, slot_count> acknowledged{};
    for (std::size_t at = 0; at + sizeof(ack) <= child.acknowledgements.size(); at += sizeof(ack)) {
      ack a{};
      std::memcpy(&a, child.acknowledgements.data() + at, sizeof a);
      ASSERT_TRUE(a.slot >= 0 && a.slot < slot_count);
      acknowledged[static_cast<std::size_t>(a.slot)] = a.counter;
      ++acknowledged_total;
    }

    auto s = savekit::slots::open(folder);  // the dead child's lock is gone with it
    ASSERT_TRUE(s) << s.error().to_string();
    for (int k = 0; k < slot_count; ++k) {
      const auto K = static_cast<std::size_t>(k);
      savekit::read_report report;
      auto p = s->read<Progress>(slot_name(k), &report);
      if (!p) {
        ASSERT_EQ(p.error().code(), savekit::errc::not_found) << p.error().to_string();
        EXPECT_EQ(acknowledged[K], 0) << "round " << round;
        continue;
      }
      EXPECT_FALSE(report.fell_back()) << "round " << round << ": a kill is not damage";
      EXPECT_EQ(p->mirror, std::to_string(p->counter)) << "round " << round;  // one save, not a mix
      EXPECT_EQ(p->blob, progress_for(p->counter).blob) << "round " << round;
      EXPECT_EQ(s->info(slot_name(k))->meta.title, std::to_string(p->counter)) << "round " << round;
      EXPECT_GE(p->counter, acknowledged[K]) << "round " << round;  // nothing acknowledged was lost
      EXPECT_GE(p->counter, seen[K]) << "round " << round;
      seen[K] = p->counter;
    }
  }
  EXPECT_GE(acknowledged_total, kills);  // the children did write: at least once a round
}
