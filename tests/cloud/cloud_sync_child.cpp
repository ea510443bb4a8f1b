// A game that is killed in the middle of a sync, for test_cloud_kill: opens the slots
// folder DIR and runs one sync of every slot (keep_both), over libcurl; at its KILL_AT-th
// request the transport sends SIGKILL to this process — before the request leaves
// (WHEN=before) or after the server answered it, before the sync reads the answer
// (WHEN=after). The kill point is a count of requests, not a time: it falls at the same
// step of the sync however loaded the machine is.
//   cloud_sync_child DIR URL TOKEN DEVICE KILL_AT before|after
// Exit 0: the run ended before its KILL_AT-th request; 3: it could not open or run.
#include <savekit/cloud.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "../../src/cloud/curl_transport.hpp"

namespace {

class killing_transport final : public savekit::cloud::transport {
 public:
  killing_transport(std::shared_ptr<savekit::cloud::transport> real, unsigned kill_at, bool after)
      : real_(std::move(real)), kill_at_(kill_at), after_(after) {}
  savekit::result<savekit::cloud::http_response> send(const savekit::cloud::http_request& r) override {
    const bool last = ++sent_ == kill_at_;
    if (last && !after_) std::raise(SIGKILL);
    auto got = real_->send(r);
    if (last) std::raise(SIGKILL);
    return got;
  }

 private:
  std::shared_ptr<savekit::cloud::transport> real_;
  unsigned kill_at_, sent_ = 0;
  bool after_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: cloud_sync_child DIR URL TOKEN DEVICE KILL_AT before|after\n");
    return 2;
  }
  auto slots = savekit::slots::open(argv[1], {.keep_generations = 1000});
  if (!slots) {
    std::fprintf(stderr, "%s\n", slots.error().to_string().c_str());
    return 3;
  }
  savekit::cloud::options o{.url = argv[2], .token = argv[3], .device = argv[4]};
  auto real = savekit::cloud::detail::make_curl_transport(o);
  if (!real) return 3;
  o.transport = std::make_shared<killing_transport>(*real, static_cast<unsigned>(std::atoi(argv[5])),
                                                    std::string(argv[6]) == "after");
  auto sync = savekit::cloud::sync::open(*slots, o);
  if (!sync) {
    std::fprintf(stderr, "%s\n", sync.error().to_string().c_str());
    return 3;
  }
  auto r = sync->run(savekit::cloud::policy::keep_both);
  if (!r) {
    std::fprintf(stderr, "%s\n", r.error().to_string().c_str());
    return 3;
  }
  return 0;
}
