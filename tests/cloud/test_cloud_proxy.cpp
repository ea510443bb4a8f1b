// The network's failures as libcurl meets them, through a TCP proxy of the tests' own
// (tcp_fault_proxy.hpp) between the sync and the real server: a connection reset as it
// opens, a reset after the server applied a write, an answer cut in the middle (a write's,
// a pulled save's), an answer that never comes. Each ends in a retry with the same write
// (applied once on the server) or a clear errc::network — never a changed local save or a
// lost one.
#include "cloud_fixture.hpp"
#include "support/temp_dir.hpp"
#include "tcp_fault_proxy.hpp"

namespace {

using namespace test_cloud;
using savekit::cloud::outcome;
using savekit::cloud::sync_state;

class CloudProxy : public cloud_test {
 protected:
  void SetUp() override {
    cloud_test::SetUp();
    if (HasFatalFailure()) return;
    proxy_ = std::make_unique<tcp_fault_proxy>(static_cast<std::uint16_t>(server_->port()));
  }
  void TearDown() override {
    devices_.clear();  // their connections go before the proxy does
    proxy_.reset();
    cloud_test::TearDown();
  }
  std::string sync_url() const override { return proxy_->url(); }
  std::unique_ptr<tcp_fault_proxy> proxy_;
};

const Game progress{"Aria", 30, {"sword"}};

TEST_P(CloudProxy, ResetsAsTheConnectionOpensAreRetriedWithinTheRun) {
  device& desk = make_device("desktop");
  write(desk, "slot1", progress);
  proxy_->fail_next(tcp_fault::reset_on_connect, 2);
  auto r = run(desk);
  EXPECT_EQ(said(r, "slot1").what, outcome::pushed);
  EXPECT_EQ(proxy_->faults_done(), 2);
  EXPECT_EQ(server_versions("slot1"), 1u);
  EXPECT_EQ(state_of(desk, "slot1"), sync_state::synced);
}

TEST_P(CloudProxy, AResetAfterTheServerAppliedAWriteIsResentTheSameAndAppliedOnce) {
  device& desk = make_device("desktop", {}, [](savekit::cloud::options& o) { o.attempts = 2; });
  write(desk, "slot1", progress);
  // Every attempt of this run (libcurl itself sends a request again, once, when a reused
  // connection dies before an answer: the same bytes, so the same write id).
  proxy_->fail_next(tcp_fault::reset_after_request, 100, "PUT");
  auto first = run(desk);
  EXPECT_GE(proxy_->faults_done(), 2);
  proxy_->fail_next(tcp_fault::none, 0);
  ASSERT_EQ(said(first, "slot1").what, outcome::failed);
  EXPECT_EQ(said(first, "slot1").error->code(), savekit::errc::network);
  EXPECT_EQ(state_of(desk, "slot1"), sync_state::pending) << "not synced without the server's answer";
  EXPECT_EQ(server_versions("slot1"), 1u) << "the server did apply it";

  auto second = run(desk);
  EXPECT_EQ(said(second, "slot1").what, outcome::pushed);
  EXPECT_EQ(server_versions("slot1"), 1u) << "the replays were answered, not applied again";
  auto puts = desk.net->requests("PUT");
  ASSERT_EQ(puts.size(), 3u);
  for (const auto& p : puts) EXPECT_EQ(p.header("Savekit-Write-Id"), puts[0].header("Savekit-Write-Id"));
  EXPECT_EQ(read(desk, "slot1"), progress);
}

TEST_P(CloudProxy, AWritesAnswerCutInTheMiddleIsNoAnswer) {
  device& desk = make_device("desktop", {}, [](savekit::cloud::options& o) { o.attempts = 1; });
  write(desk, "slot1", progress);
  proxy_->fail_next(tcp_fault::cut_answer, 1, "PUT", 40);  // in the middle of the status line and headers
  auto first = run(desk);
  ASSERT_EQ(said(first, "slot1").what, outcome::failed);
  EXPECT_EQ(said(first, "slot1").error->code(), savekit::errc::network);
  EXPECT_EQ(state_of(desk, "slot1"), sync_state::pending);
  EXPECT_EQ(said(run(desk), "slot1").what, outcome::pushed);
  EXPECT_EQ(server_versions("slot1"), 1u);
}

TEST_P(CloudProxy, APulledSaveCutInTheMiddleLeavesTheSlotAsItWasAndIsPulledWholeLater) {
  device& desk = make_device("desktop");
  Game big = progress;
  big.items.assign(200, std::string(64, 'x'));  // a body of some 13 KB: the cut is inside it
  write(desk, "slot1", big);
  ASSERT_EQ(said(run(desk), "slot1").what, outcome::pushed);

  device& deck = make_device("deck", {}, [](savekit::cloud::options& o) { o.attempts = 1; });
  ASSERT_EQ(said(run(deck), "slot1").what, outcome::pulled);
  EXPECT_EQ(read(deck, "slot1"), big);

  // Now the desktop saves again, and the deck's pull of it is cut.
  Game bigger = big;
  bigger.level = 31;
  write(desk, "slot1", bigger);
  ASSERT_EQ(said(run(desk), "slot1").what, outcome::pushed);
  // The proxy tells requests by method only: the download's answer is cut by arming it
  // just as that request goes (the list before it passes).
  deck.net->before = [&](const savekit::cloud::http_request& r) -> std::optional<savekit::error> {
    if (r.method == "GET" && r.target == "/v1/slots/slot1") proxy_->fail_next(tcp_fault::cut_answer, 1, "GET", 6000);
    return std::nullopt;
  };
  auto cut = run(deck);
  EXPECT_EQ(proxy_->faults_done(), 1);
  ASSERT_EQ(said(cut, "slot1").what, outcome::failed);
  EXPECT_EQ(said(cut, "slot1").error->code(), savekit::errc::network);
  EXPECT_EQ(read(deck, "slot1"), big) << "the slot is as it was";
  deck.net->before = nullptr;
  EXPECT_EQ(said(run(deck), "slot1").what, outcome::pulled);
  EXPECT_EQ(read(deck, "slot1"), bigger);
}

TEST_P(CloudProxy, AnAnswerThatNeverComesEndsAtTheStallTimeoutAndTheChangeIsKept) {
  // A stall timeout short enough for a test, long enough for a loaded machine's answers to
  // the other requests of the run (the list): a bound on waiting, not a timing — the held
  // answer never comes, and a slow one has ten seconds.
  device& desk = make_device("desktop", {}, [](savekit::cloud::options& o) {
    o.attempts = 1;
    o.stall_timeout = std::chrono::milliseconds{10'000};
  });
  write(desk, "slot1", progress);
  proxy_->fail_next(tcp_fault::stall_answer, 1, "PUT");
  auto first = run(desk);
  ASSERT_EQ(said(first, "slot1").what, outcome::failed);
  EXPECT_EQ(said(first, "slot1").error->code(), savekit::errc::network);
  EXPECT_EQ(state_of(desk, "slot1"), sync_state::pending);
  open_sync(desk);  // the default timeouts and attempts
  EXPECT_EQ(said(run(desk), "slot1").what, outcome::pushed);
  EXPECT_EQ(server_versions("slot1"), 1u) << "the stalled write was applied once, its replay answered";
}

INSTANTIATE_TEST_SUITE_P(Backends, CloudProxy, ::testing::ValuesIn(test_server::backends()));

// A hostile server on loopback: each request (read to its blank line; a body it declares is
// read too) is answered with what `answer` makes of its first line.
class hostile_server {
 public:
  explicit hostile_server(std::function<std::string(const std::string& request_line)> answer)
      : answer_(std::move(answer)) {
    listener_ = listen_on_loopback(port_);
    thread_ = std::thread([this] { serve(); });
  }
  ~hostile_server() {
    stop_ = true;
    thread_.join();
    ::close(listener_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  static std::string answer(const std::string& head, const std::string& body) {
    return head + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{listener_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int c = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      for (;;) {  // keep-alive: one request after another
        std::string got;
        char buffer[65536];
        std::size_t end = std::string::npos;
        while ((end = got.find("\r\n\r\n")) == std::string::npos) {
          const ssize_t r = ::recv(c, buffer, sizeof buffer, 0);
          if (r <= 0) break;
          got.append(buffer, static_cast<std::size_t>(r));
        }
        if (end == std::string::npos) break;
        std::size_t body = 0;
        if (auto at = got.find("Content-Length: "); at != std::string::npos && at < end)
          body = std::stoul(got.substr(at + 16));
        for (std::size_t have = got.size() - end - 4; have < body;) {
          const ssize_t r = ::recv(c, buffer, sizeof buffer, 0);
          if (r <= 0) break;
          have += static_cast<std::size_t>(r);
        }
        const std::string out = answer_(got.substr(0, got.find("\r\n")));
        if (::send(c, out.data(), out.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(out.size())) break;
      }
      ::close(c);
    }
  }
  std::function<std::string(const std::string&)> answer_;
  int listener_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Answers are capped by what the request can need, not by the largest save: a list of 65
// MiB and a write's answer of 2 MiB are cut (errc::network); the change stays to be sent.
TEST(CloudAnswers, AnswersLargerThanTheRequestCanNeedAreCut) {
  test_support::temp_dir dir;
  auto s = savekit::slots::open((dir.path() / "slots").string());
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->write("slot1", Game{"Aria", 3, {}}));
  const std::string ok = "HTTP/1.1 200 OK\r\n";
  auto sync_to = [&](const std::string& url) {
    auto c = savekit::cloud::sync::open(*s, {.url = url, .token = "t", .device = "desk", .attempts = 1});
    EXPECT_TRUE(c);
    return std::move(*c);
  };
  {
    hostile_server list([&](const std::string&) { return hostile_server::answer(ok, std::string(65u << 20, ' ')); });
    auto r = sync_to(list.url()).run();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code(), savekit::errc::network);
    EXPECT_NE(r.error().message().find("larger than this request can need"), std::string::npos)
        << r.error().to_string();
  }
  {
    hostile_server write([&](const std::string& line) {
      if (line.starts_with("GET")) return hostile_server::answer(ok, R"({"slots":[],"deleted":[]})");
      return hostile_server::answer(ok + "ETag: \"1\"\r\n", std::string(2u << 20, ' '));
    });
    savekit::cloud::sync c = sync_to(write.url());
    auto r = c.run();
    ASSERT_TRUE(r) << r.error().to_string();
    const savekit::cloud::slot_report* said = r->find("slot1");
    ASSERT_TRUE(said);
    ASSERT_EQ(said->what, savekit::cloud::outcome::failed);
    EXPECT_NE(said->error->message().find("larger than this request can need"), std::string::npos)
        << said->error->to_string();
    auto st = c.status("slot1");
    ASSERT_TRUE(st);
    EXPECT_EQ(st->state, savekit::cloud::sync_state::pending) << "the change stays in the outbox";
  }
}
}  // namespace
