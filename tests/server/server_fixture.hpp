// What the server tests share: one PostgreSQL for the whole test program (started on first
// use), a fresh SQLite file per server, a secret and tokens, servers started as processes,
// and a player id no other test uses (so tests sharing a database never see each other).
#pragma once

#include <savekit/base64.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "http_client.hpp"
#include "server_process.hpp"
#include "support/temp_dir.hpp"
#include "test_postgres.hpp"

namespace test_server {

// The backends every API behaviour runs against.
inline const std::vector<std::string>& backends() {
  static const std::vector<std::string> all = {"sqlite", "postgresql"};
  return all;
}

inline test_postgres* shared_postgres(std::string& problem) {
  static std::string start_problem;
  static std::unique_ptr<test_postgres> pg = test_postgres::start(start_problem);
  problem = start_problem;
  return pg.get();
}

class server_test : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { creds_ = credentials::make(dir_.path()); }

  // The --db of a new server: a new SQLite file, or the shared PostgreSQL.
  std::string database() {
    if (GetParam() == "sqlite")
      return "sqlite:" + (dir_.path() / ("saves" + std::to_string(++files_) + ".db")).string();
    std::string problem;
    test_postgres* pg = shared_postgres(problem);
    if (!pg) ADD_FAILURE() << "PostgreSQL did not start: " << problem;
    return pg ? pg->url() : "postgresql://127.0.0.1:1/none";
  }

  std::unique_ptr<server_process> start_server(const std::vector<std::string>& more = {}, std::string db = {}) {
    return start_server_with(launch_options{}, more, std::move(db));
  }
  std::unique_ptr<server_process> start_server_with(const launch_options& how,
                                                    const std::vector<std::string>& more = {}, std::string db = {}) {
    if (db.empty()) db = database();
    std::string problem;
    auto s = server_process::start(dir_.path(), "server" + std::to_string(++servers_), db, creds_.secret_file.string(),
                                   more, problem, how);
    if (!s) ADD_FAILURE() << problem;
    return s;
  }

  // A player id unique in this program run.
  static std::string unique_player(const std::string& stem = "p") {
    static std::atomic<int> next{0};
    return stem + "-" + std::to_string(::getpid()) + "-" + std::to_string(next.fetch_add(1));
  }

  header_list auth(const std::string& player) { return {{"Authorization", "Bearer " + creds_.token(player)}}; }
  static header_list with(header_list headers, const header_list& more) {
    headers.insert(headers.end(), more.begin(), more.end());
    return headers;
  }
  static std::string meta_header(const std::string& json) {
    return savekit::base64_encode(json, savekit::base64_alphabet::url);
  }

  test_support::temp_dir dir_;
  credentials creds_;
  int files_ = 0, servers_ = 0;
};

inline std::string backend_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

}  // namespace test_server
