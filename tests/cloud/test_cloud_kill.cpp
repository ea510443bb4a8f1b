// The game killed (SIGKILL) in the middle of a sync, at every request of it in turn,
// before the request leaves and after the server answered it: a device holding a conflict,
// a deletion, a new slot, a slot only on the server and a change, all in one run
// (cloud_sync_child). After each kill the device opens again and the two devices sync in
// peace; the checker (cloud_checker.hpp) demands that nothing was lost and that they agree.
// The kills fall between the sync's requests; a kill inside a slot's file write is the
// slots' own crash tests' (tests/test_slots_crash*.cpp).
#include <sys/wait.h>
#include <unistd.h>

#include "cloud_checker.hpp"

namespace {

using namespace test_cloud;
using savekit::cloud::policy;
using savekit::cloud::sync_state;

class CloudKill : public cloud_test {
 protected:
  std::vector<std::string> server_arguments() override { return {"--rate", "0", "--keep-versions", "1000"}; }

  // Runs the child on a device's folder; its wait status.
  int run_child(const device& d, unsigned kill_at, const char* when) {
    const pid_t child = ::fork();
    if (child == 0) {
      const std::string at = std::to_string(kill_at);
      ::execl(SAVEKIT_SYNC_CHILD, SAVEKIT_SYNC_CHILD, d.dir.c_str(), url().c_str(), token_.c_str(), d.name.c_str(),
              at.c_str(), when, static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return status;
  }

  static void save(device& d, const std::string& slot, const std::string& marker) {
    write(d, slot, Game{"hero " + marker, 1, {}});
  }

  // One kill point; false once the run ended before reaching it.
  bool kill_at(unsigned n, const char* when) {
    SCOPED_TRACE(std::string("killed at request ") + std::to_string(n) + " " + when);
    player_ = unique_player("kill");
    token_ = creds_.token(player_);
    const savekit::slots_options keep_all{.keep_generations = 1000};
    const std::string stem = "k" + std::to_string(n) + when;
    device& a = make_device(stem + "-A", keep_all);
    device& b = make_device(stem + "-B", keep_all);
    save(a, "s1", "[A1]");
    save(a, "s2", "[A2]");
    run(a);
    run(b);
    save(b, "s1", "[B1]");  // and A changes it too: a conflict
    EXPECT_TRUE(b.slots->remove("s2"));
    save(b, "s4", "[B2]");  // new here
    save(b, "s5", "[B3]");  // a change of a synced slot, below
    save(a, "s1", "[A3]");
    save(a, "s3", "[A4]");  // new there: B pulls it
    run(a);
    save(b, "s5", "[B4]");
    std::set<std::string> required;
    for (device* d : {&a, &b})
      for (const auto& [name, marker] : menu_of(*d->slots)) required.insert(marker);
    required.insert("[B3]");

    // B's game is killed in the middle of its sync (its folder closed here first: the
    // child takes the slots' lock).
    b.sync.reset();
    b.slots.reset();
    const int status = run_child(b, n, when);
    const bool killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    EXPECT_TRUE(killed || (WIFEXITED(status) && WEXITSTATUS(status) == 0)) << "the child ended with " << status;

    // It starts again; both sync in peace.
    auto reopened = savekit::slots::open(b.dir.string(), keep_all);
    EXPECT_TRUE(reopened) << reopened.error().to_string();
    if (!reopened) return false;
    b.slots = std::make_unique<savekit::slots>(std::move(*reopened));
    open_sync(b);
    for (int round = 0; round < 3; ++round)
      for (device* d : {&b, &a}) {
        auto r = d->sync->run(policy::keep_both);
        EXPECT_TRUE(r) << r.error().to_string();
      }

    std::set<std::string> found = markers_on_server(server_->port(), auth(player_));
    for (device* d : {&a, &b}) found.merge(markers_on_device(*d->slots));
    for (const std::string& m : required) EXPECT_TRUE(found.contains(m)) << "the save " << m << " was lost";
    EXPECT_EQ(menu_of(*a.slots), menu_of(*b.slots));
    EXPECT_EQ(menu_of(*b.slots).count("s2"), 0u) << "B's deletion was undone";
    for (device* d : {&a, &b}) {
      auto states = d->sync->status();
      EXPECT_TRUE(states);
      if (!states) continue;
      for (const auto& s : *states) {
        if (s.local) {
          EXPECT_EQ(s.state, sync_state::synced) << d->name << " " << s.name;
        }
      }
    }
    return killed;
  }
};

TEST_P(CloudKill, AKillAtAnyRequestOfASyncLosesNothing) {
  for (const char* when : {"before", "after"}) {
    unsigned n = 1;
    for (; n <= 40 && kill_at(n, when) && !HasFailure(); ++n) {
    }
    EXPECT_GT(n, 4u) << "the run should make several requests";
    EXPECT_LE(n, 40u) << "the run never ended";
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, CloudKill, ::testing::ValuesIn(test_server::backends()));

}  // namespace
