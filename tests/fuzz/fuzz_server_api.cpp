// savekit-server's API in-process (server/api.hpp: api::handle, and answer_before_body) over a
// real SQLite store, without sockets: up to four requests an input, separated by '\x1e',
// each '\n'-separated fields: method, target, If-Match, If-None-Match, Savekit-Meta,
// Savekit-Write-Id, then the body (the rest). Every input is one new player's, with a
// valid token. Nothing may crash, and what the API answers must hold its promises:
//  - never a 500 (the database is healthy here);
//  - a JSON answer is JSON;
//  - a write the API acknowledged reads back, byte for byte (a save acknowledged that
//    cannot be returned is the worst thing a save server can do);
//  - what a PUT's headers decided before its body (answer_before_body, for a client that
//    waits for 100 Continue) is what the write itself answers.
#include <savekit/document.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "api.hpp"
#include "auth.hpp"
#include "fuzz/fuzz_common.hpp"

using namespace savekit::server;

namespace {

// The database lives on a memory file system where there is one (SQLite syncs every commit),
// and starts afresh every so often, so that a long run does not fill it.
struct server_in_process {
  std::filesystem::path folder;
  std::unique_ptr<slot_store> store;
  metrics counters;
  std::unique_ptr<api> handler;
  const token_secret secret = *token_secret::from_bytes(std::string(32, 'f'));
  std::uint64_t inputs = 0;

  server_in_process() {
    const std::filesystem::path base =
        std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
    folder = base / ("savekit-fuzz-api-" + std::to_string(::getpid()));
    reopen();
  }
  ~server_in_process() {
    handler.reset();
    store.reset();
    std::error_code ignored;
    std::filesystem::remove_all(folder, ignored);
  }
  void reopen() {
    handler.reset();
    store.reset();
    std::error_code ignored;
    std::filesystem::remove_all(folder, ignored);
    std::filesystem::create_directories(folder);
    std::string problem;
    store = open_sqlite_store((folder / "saves.db").string(), problem);
    FUZZ_CHECK(store);
    api_limits limits;
    limits.max_save_bytes = 4096;
    limits.max_slots = 4;
    limits.keep_versions = 2;
    limits.rate_per_second = 0;  // no limit: every request reaches the rules behind it
    handler = std::make_unique<api>(*store, secret, limits, counters);
    handler->now = [] { return std::chrono::system_clock::time_point{} + std::chrono::seconds(1'767'225'600); };
  }
};

std::vector<std::string_view> split(std::string_view in, char separator, std::size_t most) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < most) {
    const std::size_t at = in.find(separator);
    if (at == std::string_view::npos) break;
    parts.push_back(in.substr(0, at));
    in.remove_prefix(at + 1);
  }
  parts.push_back(in);
  return parts;
}

std::optional<std::string> header(const std::vector<std::string_view>& fields, std::size_t i) {
  if (i >= fields.size() || fields[i].empty()) return std::nullopt;
  return std::string{fields[i]};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static server_in_process server;
  if (++server.inputs % 2000 == 0) server.reopen();
  const std::string player = "p" + std::to_string(server.inputs);
  const std::string token =
      "Bearer " + *issue_token(server.secret, player, server.handler->now() + std::chrono::hours(1));
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  for (std::string_view one : split(in, '\x1e', 4)) {
    const std::vector<std::string_view> fields = split(one, '\n', 7);
    const std::string method{fields[0]};
    const std::string target{fields.size() > 1 ? fields[1] : std::string_view{}};
    api_request request;
    request.method = method;
    request.target = target;
    request.authorization = token;
    request.if_match = header(fields, 2);
    request.if_none_match = header(fields, 3);
    request.meta = header(fields, 4);
    request.write_id = header(fields, 5);
    request.body = fields.size() > 6 ? fields[6] : std::string_view{};

    std::optional<api_response> before;
    if (method == "PUT")
      if (admission admitted = server.handler->admit(request); !admitted.answer)
        before = server.handler->answer_before_body(admitted, request, request.body.size());
    const api_response answer = server.handler->handle(request);
    if (before) FUZZ_CHECK(before->status == answer.status);
    FUZZ_CHECK(answer.status >= 200 && answer.status <= 599 && answer.status != 500);
    if (answer.content_type == "application/json") FUZZ_CHECK(savekit::document::from_json(answer.body));
    // Acknowledged: the version it names reads back. (Not always the newest: a replayed write
    // id is answered as the first time, with the version it made, even after newer ones;
    // docs/server.md. A version no longer kept is gone, and then a newer one is the slot.)
    if (method == "PUT" && (answer.status == 200 || answer.status == 201)) {
      std::string etag;
      for (const auto& [name, value] : answer.headers)
        if (name == "ETag") etag = value;
      FUZZ_CHECK(etag.size() > 2 && etag.front() == '"' && etag.back() == '"');
      const std::string version_target = target + "/versions/" + etag.substr(1, etag.size() - 2);
      api_request get;  // (its fields are views: what they name must outlive it)
      get.method = "GET";
      get.target = version_target;
      get.authorization = token;
      api_response back = server.handler->handle(get);
      if (back.status == 200) {
        FUZZ_CHECK(back.body == request.body);
      } else {
        FUZZ_CHECK(back.status == 404 || back.status == 410);
        get.target = target;
        api_response newest = server.handler->handle(get);
        FUZZ_CHECK(newest.status == 404 || newest.status == 200);  // deleted since, or newer
      }
    }
  }
  return 0;
}
