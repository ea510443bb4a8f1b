// What the cloud sync's tests share: a real savekit-server (the built binary, on SQLite or
// on the shared PostgreSQL: server_fixture.hpp), devices (a slots folder each, with its
// sync), and a transport that injects faults around the real libcurl one.
#pragma once

#include <savekit/cloud.hpp>
#include <savekit/slots.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../../src/cloud/curl_transport.hpp"
#include "server/server_fixture.hpp"

namespace test_cloud {

struct Game {
  std::string hero;
  int level = 1;
  std::vector<std::string> items;
  bool operator==(const Game&) const = default;
};

// The real transport, with hooks: `before` may refuse to send (a reset before the request:
// nothing reaches the server), `after` may drop the answer of a request the server applied
// (a reset after it was sent) or replace it (a bad server). Every request is recorded.
class fault_transport final : public savekit::cloud::transport {
 public:
  explicit fault_transport(std::shared_ptr<savekit::cloud::transport> real) : real_(std::move(real)) {}
  savekit::result<savekit::cloud::http_response> send(const savekit::cloud::http_request& r) override {
    {
      std::lock_guard lock(mutex);
      sent.push_back({r.method, r.target, r.headers, std::string{r.body}});
    }
    if (before)
      if (std::optional<savekit::error> refused = before(r)) return *refused;
    savekit::result<savekit::cloud::http_response> got = real_->send(r);
    if (after) return after(r, std::move(got));
    return got;
  }
  struct recorded {
    std::string method, target;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::string header(const std::string& name) const {
      for (const auto& [n, v] : headers)
        if (n == name) return v;
      return {};
    }
  };
  std::vector<recorded> requests(const std::string& method) {
    std::lock_guard lock(mutex);
    std::vector<recorded> out;
    for (const recorded& r : sent)
      if (r.method == method) out.push_back(r);
    return out;
  }
  std::function<std::optional<savekit::error>(const savekit::cloud::http_request&)> before;
  std::function<savekit::result<savekit::cloud::http_response>(const savekit::cloud::http_request&,
                                                               savekit::result<savekit::cloud::http_response>)>
      after;
  std::mutex mutex;
  std::vector<recorded> sent;

 private:
  std::shared_ptr<savekit::cloud::transport> real_;
};

inline savekit::error dropped() { return savekit::error{savekit::errc::network, 0, "the test dropped the answer"}; }

class cloud_test : public test_server::server_test {
 protected:
  struct device {
    std::string name;
    std::filesystem::path dir;
    std::unique_ptr<savekit::slots> slots;
    std::shared_ptr<fault_transport> net;
    std::unique_ptr<savekit::cloud::sync> sync;
  };

  void SetUp() override {
    server_test::SetUp();
    db_ = database();
    server_ = start_server(server_arguments(), db_);
    ASSERT_TRUE(server_);
    player_ = unique_player("cloud");
    token_ = creds_.token(player_);
    ASSERT_FALSE(token_.empty());
  }

  // The server's arguments besides its database: no rate limit (the 429 path is the fault
  // tests').
  virtual std::vector<std::string> server_arguments() { return {"--rate", "0"}; }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_->port()); }
  // The server stopped (SIGTERM) and started again on the same database: a new port, so
  // every device's sync opens again (their state is on disk; a pending fault hook goes).
  void restart_server() {
    if (server_) server_->stop();
    server_ = start_server(server_arguments(), db_);
    ASSERT_TRUE(server_);
    for (auto& d : devices_) open_sync(*d);
  }

  // Where the devices send their requests (a proxy's tests put one in between).
  virtual std::string sync_url() const { return url(); }

  savekit::cloud::options options_for(const std::string& device_name) {
    return {.url = sync_url(),
            .token = token_,
            .device = device_name,
            .backoff_first = std::chrono::milliseconds{1},
            .backoff_cap = std::chrono::milliseconds{20}};
  }

  // A device: a slots folder of its own, synced through a fault_transport.
  device& make_device(const std::string& name, savekit::slots_options so = {},
                      std::function<void(savekit::cloud::options&)> adjust = {}) {
    auto d = std::make_unique<device>();
    d->name = name;
    d->dir = dir_.path() / ("device-" + name);
    auto s = savekit::slots::open(d->dir.string(), so);
    EXPECT_TRUE(s) << s.error().to_string();
    d->slots = std::make_unique<savekit::slots>(std::move(*s));
    open_sync(*d, adjust);
    devices_.push_back(std::move(d));
    return *devices_.back();
  }
  void open_sync(device& d, std::function<void(savekit::cloud::options&)> adjust = {}) {
    d.sync.reset();
    savekit::cloud::options o = options_for(d.name);
    if (adjust) adjust(o);  // first: the transport takes its timeouts from the options
    auto real = savekit::cloud::detail::make_curl_transport(o);
    EXPECT_TRUE(real);
    d.net = std::make_shared<fault_transport>(*real);
    if (!o.transport) o.transport = d.net;
    auto c = savekit::cloud::sync::open(*d.slots, o);
    EXPECT_TRUE(c) << c.error().to_string();
    d.sync = std::make_unique<savekit::cloud::sync>(std::move(*c));
  }

  static savekit::cloud::report run(device& d, std::optional<savekit::cloud::policy> p = {}) {
    auto r = p ? d.sync->run("slot1", p) : d.sync->run();
    EXPECT_TRUE(r) << d.name << ": " << r.error().to_string();
    return r ? *r : savekit::cloud::report{};
  }
  static const savekit::cloud::slot_report& said(const savekit::cloud::report& r, const std::string& name) {
    static const savekit::cloud::slot_report none{.name = "(none)", .what = savekit::cloud::outcome::failed};
    const savekit::cloud::slot_report* s = r.find(name);
    EXPECT_TRUE(s) << "the report says nothing of " << name;
    return s ? *s : none;
  }
  static savekit::cloud::sync_state state_of(device& d, const std::string& name) {
    auto s = d.sync->status(name);
    EXPECT_TRUE(s) << s.error().to_string();
    return s ? s->state : savekit::cloud::sync_state::local_only;
  }
  static std::vector<std::string> names(device& d) {
    std::vector<std::string> out;
    auto menu = d.slots->list();
    EXPECT_TRUE(menu);
    if (menu)
      for (const auto& s : *menu) out.push_back(s.name);
    std::sort(out.begin(), out.end());
    return out;
  }
  static Game read(device& d, const std::string& name) {
    auto g = d.slots->read<Game>(name);
    EXPECT_TRUE(g) << name << ": " << g.error().to_string();
    return g ? *g : Game{};
  }
  static void write(device& d, const std::string& name, const Game& g, std::int64_t playtime = 0) {
    ASSERT_TRUE(d.slots->write(name, g, {.title = g.hero, .playtime = std::chrono::seconds{playtime}}));
  }

  // The server's versions of a slot (its restore list).
  std::size_t server_versions(const std::string& name) {
    test_server::http_client c(server_->port());
    auto r = c.request("GET", "/v1/slots/" + name + "/versions", auth(player_));
    std::size_t n = 0;
    for (std::size_t at = r.body.find("\"version\""); at != std::string::npos; at = r.body.find("\"version\"", at + 1))
      ++n;
    return n;
  }

  std::unique_ptr<test_server::server_process> server_;
  std::string db_;  // the server's --db
  std::string player_, token_;
  std::vector<std::unique_ptr<device>> devices_;
};

}  // namespace test_cloud
