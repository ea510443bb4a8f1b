// The HTTP contract of docs/server.md, as one function from a request to its response,
// with no sockets: the HTTP layer (http_server.hpp) parses and limits the bytes, this
// decides what they mean. It calls the store, so it runs on the store's worker threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "auth.hpp"
#include "header_grammar.hpp"
#include "metrics.hpp"
#include "routes.hpp"
#include "slot_store.hpp"

namespace savekit::server {

struct api_limits {
  std::uint64_t max_save_bytes = std::uint64_t{16} << 20;
  std::uint32_t max_slots = 100;
  std::uint64_t max_player_bytes = 0;  // kept versions of a player's live slots; 0: no limit
  std::uint32_t max_meta_bytes = 16 * 1024;
  std::uint32_t keep_versions = 5;
  // How long a write id is remembered (whatever becomes of the version it made): a write
  // sent again within it is answered as the first time.
  std::chrono::seconds keep_write_ids = std::chrono::hours(24 * 30);
  std::uint32_t write_ids_per_slot = 1000;  // and only those of a slot's newest this many versions
  double rate_per_second = 20;              // requests per player and server process; 0: no limit
  double burst = 40;
};

struct api_request {
  std::string_view method;
  std::string_view target;
  // The headers the contract reads; a header given twice is refused before this (400).
  std::optional<std::string> authorization, if_match, if_none_match, meta, write_id;
  std::string_view body;
};

// The request headers the contract reads, each into its field of api_request: the HTTP
// layer copies them, refuses one given twice and lets a page send them (CORS), naming none.
struct api_header_field {
  std::string_view name;
  std::optional<std::string> api_request::*field;
};
inline constexpr api_header_field api_request_headers[] = {
    {"Authorization", &api_request::authorization}, {"If-Match", &api_request::if_match},
    {"If-None-Match", &api_request::if_none_match}, {"Savekit-Meta", &api_request::meta},
    {"Savekit-Write-Id", &api_request::write_id},
};
// What a page may send (a CORS preflight's Access-Control-Allow-Headers): those, and the
// body's Content-Type.
std::string cors_request_headers();
// The answer headers a page may read (Access-Control-Expose-Headers).
inline constexpr std::string_view cors_answer_headers = "ETag, Savekit-Meta, Savekit-Write-Id, Retry-After, Location";

struct api_response {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string content_type = "application/json";
  // For the log line and the metrics: never a token or the bytes.
  std::string_view route = "unknown";
  std::optional<std::string> player, slot, error;
};

// Requests per player per second, as a token bucket per player in this process.
class rate_limiter {
 public:
  rate_limiter(double per_second, double burst) : per_second_(per_second), burst_(burst) {}
  // 0 if the request may go now; otherwise the seconds to wait (at least 1).
  int admit(const std::string& player, std::chrono::steady_clock::time_point now);

 private:
  struct bucket {
    double tokens;
    std::chrono::steady_clock::time_point at;
  };
  double per_second_, burst_;
  std::mutex mutex_;
  std::unordered_map<std::string, bucket> buckets_;
  std::chrono::steady_clock::time_point swept_;
};

// What the headers alone decide, before any byte of a body is read (and before the
// database is asked): the answer itself for a request that is refused (no such route,
// method, token, rate limit, precondition, metadata or write id) or needs nothing more
// (health, metrics); otherwise what respond() needs.
struct admission {
  std::optional<api_response> answer;
  route at;
  std::string player;
  std::optional<precondition> condition;  // writes
  std::string meta = "{}";                // PUT: the metadata, as the client spelled it
  std::string meta_compact = "{}";        // and compact, for the write id's digest
};

class api {
 public:
  api(slot_store& store, token_secret secret, api_limits limits, metrics& counters);
  // Both halves, for a request whose body is there (tests; what the HTTP layer does in two steps).
  api_response handle(const api_request& request);
  // The headers: no database, nothing blocks (it runs on the connection's thread).
  admission admit(const api_request& headers);
  // The rest, with the body: calls the store (it runs on a worker thread).
  api_response respond(const admission& admitted, const api_request& request);
  // For a PUT that waits for 100 Continue (it runs on a worker thread): the answer if the
  // database decides it without the body — the precondition does not hold (412), or the
  // write id names another write (409) — so that no body is uploaded in vain. nullopt:
  // the body is needed (a write id remembered for a write of this size, metadata and
  // precondition is answered as the first time only if the bytes are the same too).
  // body_bytes: Content-Length, if given.
  std::optional<api_response> answer_before_body(const admission& admitted, const api_request& request,
                                                 std::optional<std::uint64_t> body_bytes);
  // Asks the database whether it answers (a monitor thread calls this every second);
  // /healthz reports the last answer, without waiting on the database itself.
  void check_health();
  // The clock (tests move it to expire tokens).
  std::function<std::chrono::system_clock::time_point()> now = [] { return std::chrono::system_clock::now(); };
  const api_limits& limits() const { return limits_; }

 private:
  api_response list(const std::string& player, std::string_view target);
  api_response get_slot(const std::string& player, const std::string& name, const api_request& r);
  api_response put_slot(const admission& a, const api_request& r);
  api_response delete_slot(const admission& a, const api_request& r);
  api_response list_versions(const std::string& player, const std::string& name);
  api_response get_version(const std::string& player, const std::string& name, std::int64_t version);
  api_response health();
  api_response from_store(const store_failure& failure);
  std::int64_t forget_writes_before(std::int64_t now_us) const;
  static api_response write_id_reused(std::string_view write_id, const slot_entry& made);

  slot_store& store_;
  token_secret secret_;
  api_limits limits_;
  metrics& metrics_;
  rate_limiter rates_;
  std::mutex health_mutex_;
  int health_state_ = 0;  // 0: not asked yet, 1: answers, 2: does not
  std::string health_problem_;
  std::optional<std::string> health_node_;  // what ping last named (PostgreSQL: "host:port")
  std::optional<std::chrono::steady_clock::time_point> health_asking_since_;
};

// An error response: {"error":{"code":…,"message":…}}, with the slot as it is if given.
api_response error_response(int status, std::string code, std::string message,
                            const std::optional<slot_entry>& slot = std::nullopt);

}  // namespace savekit::server
