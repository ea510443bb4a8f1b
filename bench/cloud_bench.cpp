// The cloud sync beside its floor, in one run against a real savekit-server (SQLite, on
// 127.0.0.1, started here), ROUNDS interleaved rounds:
//   first_sync    a device's first sync of 100 slots of 64 KB (sync::open and run: the
//                 list, 100 PUTs, the outbox and the sync state kept durable)
//   curl_puts     the floor: the same 100 PUTs (the very requests the sync sent, recorded,
//                 for another player) by libcurl alone on one kept-alive handle
//   idle_sync     a sync with nothing changed (how many requests it makes, and its time)
//   curl_list     the floor: the one GET of the list it needs, by libcurl alone
//   run_async     the game's thread in run_async() (the call only; the run is the sync's)
// One JSON line per case and round on stdout; bench/run.sh cloud makes the table.
//   cloud_bench [--rounds N] [--slots N] [--bytes N]
#include <savekit/cloud.hpp>
#include <savekit/slots.hpp>

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../src/cloud/curl_transport.hpp"
#include "auth.hpp"
#include "server/server_process.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

struct Blob {
  std::string data;
};

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "cloud_bench: %s\n", what.c_str());
  std::exit(1);
}

double ns_since(clock_type::time_point start) {
  return std::chrono::duration<double, std::nano>(clock_type::now() - start).count();
}

void line(const char* name, int round, double ns, std::uint64_t requests, std::size_t slots, std::size_t bytes) {
  std::printf("{\"case\":\"%s\",\"round\":%d,\"ns\":%.0f,\"requests\":%llu,\"slots\":%zu,\"bytes\":%zu}\n", name, round,
              ns, static_cast<unsigned long long>(requests), slots, bytes);
  std::fflush(stdout);
}

// The real transport, keeping a copy of every PUT (the floor sends the same).
class recording_transport final : public savekit::cloud::transport {
 public:
  explicit recording_transport(std::shared_ptr<savekit::cloud::transport> real) : real_(std::move(real)) {}
  savekit::result<savekit::cloud::http_response> send(const savekit::cloud::http_request& r) override {
    if (r.method == "PUT") {
      std::lock_guard lock(mutex_);
      puts.push_back({r.method, r.target, r.headers, std::string{r.body}});
    }
    return real_->send(r);
  }
  struct copy {
    std::string method, target;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
  };
  std::vector<copy> puts;

 private:
  std::mutex mutex_;
  std::shared_ptr<savekit::cloud::transport> real_;
};

std::size_t discard(char*, std::size_t size, std::size_t n, void*) { return size * n; }

// The floor: requests by libcurl alone on one handle (kept alive), as a plain client sends
// them; each must be answered 2xx.
class bare_curl {
 public:
  bare_curl() : h_(curl_easy_init()) {
    if (!h_) fail("curl_easy_init");
    curl_easy_setopt(h_, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h_, CURLOPT_WRITEFUNCTION, discard);
  }
  ~bare_curl() { curl_easy_cleanup(h_); }
  void send(const std::string& url, const std::string& method, const std::vector<std::string>& header_lines,
            const std::string& body) {
    curl_slist* headers = nullptr;
    for (const std::string& h : header_lines) headers = curl_slist_append(headers, h.c_str());
    curl_easy_setopt(h_, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h_, CURLOPT_HTTPHEADER, headers);
    if (method == "GET") {
      curl_easy_setopt(h_, CURLOPT_HTTPGET, 1L);
    } else {
      curl_easy_setopt(h_, CURLOPT_CUSTOMREQUEST, method.c_str());
      curl_easy_setopt(h_, CURLOPT_POSTFIELDS, body.data());
      curl_easy_setopt(h_, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    }
    const CURLcode done = curl_easy_perform(h_);
    long status = 0;
    curl_easy_getinfo(h_, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_setopt(h_, CURLOPT_HTTPHEADER, nullptr);
    curl_easy_setopt(h_, CURLOPT_CUSTOMREQUEST, nullptr);
    curl_slist_free_all(headers);
    if (done != CURLE_OK || status / 100 != 2)
      fail(method + " " + url + ": " + curl_easy_strerror(done) + ", HTTP " + std::to_string(status));
  }

 private:
  CURL* h_;
};

}  // namespace

int main(int argc, char** argv) {
  int rounds = 5;
  std::size_t slot_count = 100, bytes = 64 * 1024;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--rounds")
      rounds = std::atoi(argv[i + 1]);
    else if (flag == "--slots")
      slot_count = static_cast<std::size_t>(std::atoll(argv[i + 1]));
    else if (flag == "--bytes")
      bytes = static_cast<std::size_t>(std::atoll(argv[i + 1]));
    else
      fail("unknown flag " + flag);
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  test_support::temp_dir dir;
  auto secret = savekit::server::token_secret::generate();
  if (!secret) fail("no secret");
  const auto secret_file = dir.path() / "bench.secret";
  std::ofstream(secret_file) << secret->base64() << "\n";
  std::string problem;
  auto server = test_server::server_process::start(dir.path(), "server", "sqlite:" + (dir.path() / "saves.db").string(),
                                                   secret_file.string(), {"--rate", "0"}, problem);
  if (!server) fail(problem);
  const std::string url = "http://127.0.0.1:" + std::to_string(server->port());
  const auto later = std::chrono::system_clock::now() + 24h;

  for (int round = 1; round <= rounds; ++round) {
    const std::string tag = std::to_string(round);
    // A device with the slots, written before the clock starts.
    auto slots = savekit::slots::open((dir.path() / ("device" + tag)).string());
    if (!slots) fail(slots.error().to_string());
    for (std::size_t i = 0; i < slot_count; ++i) {
      Blob b{std::string(bytes, 'x')};
      for (std::size_t at = 0; at < bytes; at += 61) b.data[at] = static_cast<char>('a' + (at / 61 + i) % 26);
      if (!slots->write("slot" + std::to_string(i), b, {.title = "Slot " + std::to_string(i)})) fail("write failed");
    }

    // The first sync.
    const std::string token = *savekit::server::issue_token(*secret, "sync-" + tag, later);
    savekit::cloud::options o{.url = url, .token = token, .device = "bench"};
    auto real = savekit::cloud::detail::make_curl_transport(o);
    if (!real) fail(real.error().to_string());
    auto recorder = std::make_shared<recording_transport>(*real);
    o.transport = recorder;
    auto start = clock_type::now();
    auto sync = savekit::cloud::sync::open(*slots, o);
    if (!sync) fail(sync.error().to_string());
    auto first = sync->run();
    const double first_ns = ns_since(start);
    if (!first || !first->all_synced() || first->count(savekit::cloud::outcome::pushed) != slot_count)
      fail("the first sync did not push every slot");
    line("first_sync", round, first_ns, first->requests, slot_count, bytes);

    // The floor: the same PUTs by libcurl alone, for another player.
    const std::string floor_token = *savekit::server::issue_token(*secret, "curl-" + tag, later);
    {
      bare_curl c;
      start = clock_type::now();
      for (const auto& put : recorder->puts) {
        std::vector<std::string> headers;
        for (const auto& [name, value] : put.headers)
          headers.push_back(name == "Authorization" ? "Authorization: Bearer " + floor_token : name + ": " + value);
        headers.push_back("Content-Type: application/octet-stream");
        headers.push_back("Expect:");  // no wait for 100 Continue: the fastest a plain client goes
        c.send(url + put.target, "PUT", headers, put.body);
      }
      line("curl_puts", round, ns_since(start), recorder->puts.size(), slot_count, bytes);
    }

    // Nothing changed: the sync and the one GET it needs.
    start = clock_type::now();
    auto idle = sync->run();
    const double idle_ns = ns_since(start);
    if (!idle || !idle->all_synced() || idle->count(savekit::cloud::outcome::unchanged) != slot_count)
      fail("the idle sync changed something");
    line("idle_sync", round, idle_ns, idle->requests, slot_count, bytes);
    {
      bare_curl c;
      start = clock_type::now();
      c.send(url + "/v1/slots?deleted=true", "GET", {"Authorization: Bearer " + token}, {});
      line("curl_list", round, ns_since(start), 1, slot_count, bytes);
    }

    // run_async: what the game's thread spends in the call (each run waited for).
    for (int call = 0; call < 10; ++call) {
      std::atomic<bool> done{false};
      start = clock_type::now();
      sync->run_async([&done](savekit::result<savekit::cloud::report>) { done = true; });
      line("run_async", round, ns_since(start), 0, slot_count, bytes);
      while (!done) std::this_thread::sleep_for(100us);
    }
  }
  curl_global_cleanup();
  return 0;
}
