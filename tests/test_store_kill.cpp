// kill -9 at random instants: a child process commits in a loop on a real file; the
// parent kills it a random 0.2-8 ms after its first acknowledged commit, reopens the store and checks that the state is
// one the child committed — all keys of one commit, never a mix — and no older than the last commit the child
// acknowledged.
#include <savekit/prefs.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <thread>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/kill_child.hpp"
#include "support/temp_dir.hpp"

namespace {

constexpr savekit::file_backend_options small_log{.compact_ratio = 2.0, .compact_min_bytes = 16 * 1024};

std::string blob_for(std::int64_t i) {
  return std::string(static_cast<std::size_t>(i % 997), static_cast<char>(i % 251));
}

// The child: commits counter = i, mirror = "i", blob = blob_for(i) together, then
// acknowledges i on the pipe. Never returns.
[[noreturn]] void commit_forever(const std::string& path, int ack_fd) {
  auto p = savekit::prefs::open(path, small_log);
  if (!p) _exit(3);
  std::int64_t i = p->get_int("counter", 0);
  for (;;) {
    ++i;
    if (!p->set_int("counter", i) || !p->set_string("mirror", std::to_string(i)) ||
        !p->set_string("blob", blob_for(i)) || !p->save())
      _exit(4);
    if (::write(ack_fd, &i, sizeof i) != sizeof i) _exit(5);
  }
}

}  // namespace

TEST(StoreKill, KillNineAtRandomInstants) {
  test_support::temp_dir dir;
  const std::string path = (dir.path() / "killed.prefs").string();
  std::mt19937 rng(12345);
  const int kills = 200;
  std::int64_t previous_state = 0;
  for (int round = 0; round < kills; ++round) {
    auto child =
        test_support::run_then_kill([&](int ack_fd) { commit_forever(path, ack_fd); }, sizeof(std::int64_t),
                                    std::chrono::microseconds(std::uniform_int_distribution<int>(200, 8000)(rng)));
    ASSERT_TRUE(child.acknowledged_before_kill) << "the child never committed: exit " << child.exit_code;
    ASSERT_TRUE(child.killed) << "the child stopped by itself: exit " << child.exit_code;

    std::int64_t acknowledged = 0;
    for (std::size_t at = 0; at + sizeof acknowledged <= child.acknowledgements.size(); at += sizeof acknowledged)
      std::memcpy(&acknowledged, child.acknowledgements.data() + at, sizeof acknowledged);

    auto p = savekit::prefs::open(path, small_log);
    ASSERT_TRUE(p) << p.error().to_string();
    std::int64_t counter = p->get_int("counter", 0);
    EXPECT_EQ(p->get_string("mirror", "0"), std::to_string(counter)) << "round " << round;  // one commit, not a mix
    EXPECT_EQ(p->get_string("blob", blob_for(0)), blob_for(counter)) << "round " << round;
    EXPECT_GE(counter, acknowledged) << "round " << round;  // nothing acknowledged was lost
    EXPECT_GE(counter, previous_state) << "round " << round;
    previous_state = counter;
  }
  EXPECT_GE(previous_state, kills);  // the children did commit: at least once a round
}

TEST(StoreKill, SecondProcessGetsLockedUntilTheFirstDies) {
  test_support::temp_dir dir;
  const std::string path = (dir.path() / "shared.prefs").string();
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    auto p = savekit::prefs::open(path);
    char opened = p ? 1 : 0;
    (void)::write(pipe_fds[1], &opened, 1);
    for (;;) ::pause();  // holds the store until killed
  }
  ::close(pipe_fds[1]);
  char opened = 0;
  ASSERT_EQ(::read(pipe_fds[0], &opened, 1), 1);
  ::close(pipe_fds[0]);
  ASSERT_EQ(opened, 1);
  auto second = savekit::prefs::open(path);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code(), savekit::errc::locked);
  EXPECT_NE(second.error().message().find("shared.prefs"), std::string::npos);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_TRUE(savekit::prefs::open(path));  // the lock died with its process
}
