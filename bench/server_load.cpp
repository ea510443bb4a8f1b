// savekit-server under load, beside the same writes done straight through its database
// driver in the same run: a real server process on 127.0.0.1 (SQLite, then a PostgreSQL
// this program starts), 4 KB and 256 KB saves, 1, 8 and 64 players at once (a thread and a
// keep-alive connection each, every player writing its own slot), PUT only and half GET,
// half PUT; and GET /v1/slots for players with 100 slots each. Each case runs for --seconds
// (bounded); one JSON line per case on stdout.
//   server_load [--seconds S] [--players 1,8,64] [--backends sqlite,postgresql[,replicated]]
//               [--replicated-db URL]   (the savekit-server built beside it; "replicated": a
//                                        running cluster, scripts/cluster.sh, by its URL)
// bench/run.sh server makes the tables (bench/results/server.md).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "auth.hpp"
#include "server/http_client.hpp"
#include "server/test_postgres.hpp"
#include "slot_store.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "server_load: %s\n", what.c_str());
  std::exit(1);
}

struct outcome {
  std::vector<double> latencies_ms;
  std::uint64_t operations = 0;
  std::uint64_t errors = 0;
};

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

void report(const char* backend, const char* way, const char* mix, std::size_t bytes, int players, double seconds,
            outcome& o) {
  std::printf(
      "{\"backend\":\"%s\",\"way\":\"%s\",\"mix\":\"%s\",\"bytes\":%zu,\"players\":%d,\"operations\":%llu,"
      "\"errors\":%llu,\"seconds\":%.3f,\"per_second\":%.1f,\"p50_ms\":%.3f,\"p99_ms\":%.3f}\n",
      backend, way, mix, bytes, players, static_cast<unsigned long long>(o.operations),
      static_cast<unsigned long long>(o.errors), seconds, static_cast<double>(o.operations) / seconds,
      percentile(o.latencies_ms, 0.5), percentile(o.latencies_ms, 0.99));
  std::fflush(stdout);
}

// Runs op(player, n) on `players` threads for `seconds`; op returns false on an error.
template <class Op>
outcome run_players(int players, double seconds, Op op) {
  std::vector<outcome> per(static_cast<std::size_t>(players));
  std::atomic<bool> go{false};
  const auto stop_at = [&] { return clock_type::now() + std::chrono::duration<double>(seconds); };
  std::atomic<clock_type::rep> deadline{0};
  std::vector<std::thread> threads;
  for (int p = 0; p < players; ++p)
    threads.emplace_back([&, p] {
      while (!go) std::this_thread::yield();
      outcome& o = per[static_cast<std::size_t>(p)];
      for (std::uint64_t n = 0; clock_type::now().time_since_epoch().count() < deadline.load(); ++n) {
        const auto start = clock_type::now();
        const bool ok = op(p, n);
        o.latencies_ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - start).count());
        ++o.operations;
        if (!ok) ++o.errors;
      }
    });
  deadline = stop_at().time_since_epoch().count();
  go = true;
  for (auto& t : threads) t.join();
  outcome all;
  for (outcome& o : per) {
    all.operations += o.operations;
    all.errors += o.errors;
    all.latencies_ms.insert(all.latencies_ms.end(), o.latencies_ms.begin(), o.latencies_ms.end());
  }
  return all;
}

std::string payload(std::size_t bytes, std::uint64_t n) {
  std::string s(bytes, 'x');
  for (std::size_t i = 0; i < bytes; i += 64) s[i] = static_cast<char>('a' + (n + i / 64) % 26);
  return s;
}

void measure_backend(const char* backend, const std::string& server_db, const std::string& direct_db,
                     const std::filesystem::path& dir, double seconds, const std::vector<int>& player_counts) {
  auto secret = savekit::server::token_secret::generate();
  if (!secret) fail("no secret");
  const auto secret_file = dir / "bench.secret";
  std::ofstream(secret_file) << secret->base64() << "\n";
  std::string problem;
  auto server =
      test_server::server_process::start(dir, std::string{"server-"} + backend, server_db, secret_file.string(),
                                         {"--rate", "0", "--workers", "16", "--db-pool", "16"}, problem);
  if (!server) fail(problem);
  const auto later = std::chrono::system_clock::now() + 24h;
  savekit::server::store_options pool;
  pool.pool_size = 16;
  auto direct = savekit::server::open_slot_store(direct_db, pool);
  if (!direct) fail("direct store: " + direct.failure().message);

  for (std::size_t bytes : {std::size_t{4096}, std::size_t{256 * 1024}}) {
    for (int players : player_counts) {
      const std::string tag = std::to_string(bytes) + "-" + std::to_string(players);
      // Each player: a token, a connection, a slot created before the clock starts.
      std::vector<std::string> tokens;
      std::vector<std::unique_ptr<test_server::http_client>> clients;
      std::vector<std::int64_t> versions(static_cast<std::size_t>(players), 0);
      for (int p = 0; p < players; ++p) {
        tokens.push_back(*savekit::server::issue_token(*secret, "bench-" + tag + "-" + std::to_string(p), later));
        clients.push_back(std::make_unique<test_server::http_client>(server->port()));
        auto r = clients.back()->request("PUT", "/v1/slots/s",
                                         {{"Authorization", "Bearer " + tokens.back()}, {"If-None-Match", "*"}},
                                         payload(bytes, 0));
        if (r.status != 201) fail("could not create a slot: " + std::to_string(r.status) + " " + r.body);
        versions[static_cast<std::size_t>(p)] = 1;
      }
      auto put = [&](int p, std::uint64_t n) {
        auto& v = versions[static_cast<std::size_t>(p)];
        auto r = clients[static_cast<std::size_t>(p)]->request(
            "PUT", "/v1/slots/s",
            {{"Authorization", "Bearer " + tokens[static_cast<std::size_t>(p)]},
             {"If-Match", "\"" + std::to_string(v) + "\""}},
            payload(bytes, n + 1));
        if (r.status != 200) return false;
        ++v;
        return true;
      };
      auto get = [&](int p) {
        auto r = clients[static_cast<std::size_t>(p)]->request(
            "GET", "/v1/slots/s", {{"Authorization", "Bearer " + tokens[static_cast<std::size_t>(p)]}});
        return r.status == 200 && r.body.size() == bytes;
      };
      outcome puts = run_players(players, seconds, put);
      report(backend, "http", "put", bytes, players, seconds, puts);
      outcome mixed = run_players(players, seconds, [&](int p, std::uint64_t n) { return n % 2 ? get(p) : put(p, n); });
      report(backend, "http", "get+put", bytes, players, seconds, mixed);

      // The same writes straight through the driver: the same statements, no HTTP.
      std::vector<std::string> bodies(static_cast<std::size_t>(players));
      std::vector<std::int64_t> direct_versions(static_cast<std::size_t>(players), 0);
      const auto now_us = [] {
        return std::chrono::duration_cast<std::chrono::microseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
      };
      for (int p = 0; p < players; ++p) {
        savekit::server::put_request q;
        const std::string player = "direct-" + tag + "-" + std::to_string(p);
        const std::string body = payload(bytes, 0);
        q.player = player;
        q.name = "s";
        q.body = body;
        q.meta = "{}";
        q.saved_at_us = now_us();
        auto done = (*direct)->put(q);
        if (!done || done->kind != savekit::server::write_outcome::created) fail("direct create failed");
        direct_versions[static_cast<std::size_t>(p)] = 1;
      }
      outcome straight = run_players(players, seconds, [&](int p, std::uint64_t n) {
        const std::string player = "direct-" + tag + "-" + std::to_string(p);
        const std::string body = payload(bytes, n + 1);
        savekit::server::put_request q;
        q.player = player;
        q.name = "s";
        q.body = body;
        q.meta = "{}";
        q.expected_version = direct_versions[static_cast<std::size_t>(p)];
        q.saved_at_us = now_us();
        auto done = (*direct)->put(q);
        if (!done || done->kind != savekit::server::write_outcome::replaced) return false;
        ++direct_versions[static_cast<std::size_t>(p)];
        return true;
      });
      report(backend, "direct", "put", bytes, players, seconds, straight);
    }
  }
  // The load menu: GET /v1/slots of a player with 100 slots (small ones: the list does not
  // read bytes), each player listing their own.
  for (int players : player_counts) {
    const std::string tag = "list-" + std::to_string(players);
    std::vector<std::string> tokens;
    std::vector<std::unique_ptr<test_server::http_client>> clients;
    for (int p = 0; p < players; ++p) {
      tokens.push_back(*savekit::server::issue_token(*secret, "bench-" + tag + "-" + std::to_string(p), later));
      clients.push_back(std::make_unique<test_server::http_client>(server->port()));
      for (int s = 0; s < 100; ++s) {
        auto r = clients.back()->request("PUT", "/v1/slots/s" + std::to_string(s),
                                         {{"Authorization", "Bearer " + tokens.back()}, {"If-None-Match", "*"}},
                                         payload(64, static_cast<std::uint64_t>(s)));
        if (r.status != 201) fail("could not create a slot: " + std::to_string(r.status) + " " + r.body);
      }
    }
    outcome lists = run_players(players, seconds, [&](int p, std::uint64_t) {
      auto r = clients[static_cast<std::size_t>(p)]->request(
          "GET", "/v1/slots", {{"Authorization", "Bearer " + tokens[static_cast<std::size_t>(p)]}});
      return r.status == 200 && r.body.find("\"s99\"") != std::string::npos;
    });
    report(backend, "http", "list-100", 64, players, seconds, lists);
  }
  if (server->stop() != 0) fail("the server did not stop cleanly: " + server->log());
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 3;
  std::vector<int> players = {1, 8, 64};
  std::string backends = "sqlite,postgresql";
  std::string replicated_db;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    if (option == "--seconds") seconds = std::atof(argv[i + 1]);
    if (option == "--backends") backends = std::string{","} + argv[i + 1] + ",";
    if (option == "--replicated-db") replicated_db = argv[i + 1];
    if (option == "--players") {
      players.clear();
      for (std::string_view rest = argv[i + 1]; !rest.empty();) {
        const std::size_t comma = rest.find(',');
        players.push_back(std::atoi(std::string{rest.substr(0, comma)}.c_str()));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      }
    }
  }
  if (backends.front() != ',') backends = "," + backends + ",";
  const auto wanted = [&](const char* name) {
    return backends.find(std::string{","} + name + ",") != std::string::npos;
  };
  test_support::temp_dir dir;
  if (wanted("sqlite"))
    measure_backend("sqlite", "sqlite:" + (dir.path() / "server.db").string(),
                    "sqlite:" + (dir.path() / "direct.db").string(), dir.path(), seconds, players);
  if (wanted("postgresql")) {
    std::string problem;
    auto pg = test_server::test_postgres::start(problem);
    if (!pg) fail("PostgreSQL: " + problem);
    if (!pg->create_database("direct", problem)) fail(problem);
    measure_backend("postgresql", pg->url(), pg->url("direct"), dir.path(), seconds, players);
  }
  if (wanted("replicated")) {  // (its players' names are this run's: the cluster's database is shared)
    if (replicated_db.empty()) fail("--backends replicated needs --replicated-db URL (scripts/cluster.sh's)");
    measure_backend("replicated", replicated_db, replicated_db, dir.path(), seconds, players);
  }
  return 0;
}
