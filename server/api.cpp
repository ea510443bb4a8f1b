#include "api.hpp"

#include <savekit/json.hpp>

#include <sodium.h>

#include <algorithm>
#include <cctype>
#include <cmath>

// The JSON documents of the contract (docs/server.md).
namespace savekit::server::wire {

struct slot {
  std::string name;
  std::int64_t version = 0;
  std::int64_t bytes = 0;
  std::string saved_at;
  raw_json meta;
  std::optional<std::string> write_id;
  std::optional<bool> deleted;
};
struct slot_list {
  std::vector<slot> slots;
  std::optional<std::vector<slot>> deleted;  // GET /v1/slots?deleted=true only
};
struct version {
  std::int64_t version = 0;
  std::int64_t bytes = 0;
  std::string saved_at;
  raw_json meta;
  std::optional<std::string> write_id;
};
struct version_list {
  std::vector<version> versions;
};
struct error_detail {
  std::string code;
  std::string message;
  std::optional<wire::slot> slot;
};
struct error_document {
  error_detail error;
};
struct health {
  std::string status;
  std::string driver;
  std::optional<std::string> database;  // the node answering (PostgreSQL: "host:port")
  std::optional<std::string> message;
};

}  // namespace savekit::server::wire

namespace savekit::server {
namespace {

constexpr json_options compact_output{.skip_null_members = true};

std::optional<std::string> wire_write_id(const slot_entry& e) {
  return e.write_id.empty() ? std::nullopt : std::optional<std::string>{e.write_id};
}

wire::slot wire_slot(const slot_entry& e) {
  return {e.name,
          e.version,
          e.bytes,
          rfc3339_of(e.saved_at_us),
          raw_json{e.meta},
          wire_write_id(e),
          e.deleted ? std::optional<bool>{true} : std::nullopt};
}

api_response json_response(int status, const auto& document) {
  api_response r;
  r.status = status;
  r.body = to_json(document, compact_output);
  return r;
}

// A save's bytes with what describes them.
api_response bytes_response(slot_bytes found) {
  api_response r;
  r.content_type = "application/octet-stream";
  r.headers = {{"ETag", etag_of(found.entry.version)},
               {"Savekit-Meta", encode_meta(found.entry.meta)},
               {"Last-Modified", http_date_of(found.entry.saved_at_us)}};
  if (!found.entry.write_id.empty()) r.headers.push_back({"Savekit-Write-Id", found.entry.write_id});
  r.body = std::move(found.body);
  return r;
}

api_response slot_written(int status, const slot_entry& e) {
  api_response r = json_response(status, wire_slot(e));
  r.headers.push_back({"ETag", etag_of(e.version)});
  if (status == 201) r.headers.push_back({"Location", "/v1/slots/" + percent_encode(e.name)});
  return r;
}

api_response precondition_failed(const std::string& name, const std::optional<slot_entry>& now,
                                 std::optional<std::int64_t> expected) {
  std::string message;
  if (!now)
    message = "there is no slot \"" + name + "\"";
  else if (now->deleted)
    message = "slot \"" + name + "\" was deleted (version " + std::to_string(now->version) + ")";
  else if (!expected)
    message = "slot \"" + name + "\" exists (version " + std::to_string(now->version) + ")";
  else
    message =
        "slot \"" + name + "\" is at version " + std::to_string(now->version) + ", not " + std::to_string(*expected);
  api_response r = error_response(412, "precondition_failed", message, now);
  if (now) r.headers.push_back({"ETag", etag_of(now->version)});
  return r;
}

std::int64_t unix_micros(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

std::string_view bearer_token(std::string_view header) {
  if (header.size() < 7) return {};
  for (std::size_t i = 0; i < 6; ++i)
    if (std::tolower(static_cast<unsigned char>(header[i])) != "bearer"[i]) return {};
  if (header[6] != ' ') return {};
  header.remove_prefix(7);
  while (!header.empty() && header.front() == ' ') header.remove_prefix(1);
  while (!header.empty() && header.back() == ' ') header.remove_suffix(1);
  return header;
}

api_response method_not_allowed(std::string allow) {
  api_response r = error_response(405, "method_not_allowed", "this path answers " + allow);
  r.headers.push_back({"Allow", std::move(allow)});
  return r;
}

}  // namespace

int rate_limiter::admit(const std::string& player, std::chrono::steady_clock::time_point now) {
  if (per_second_ <= 0) return 0;
  std::lock_guard lock(mutex_);
  // Players who stopped sending are forgotten (a sweep at most every 10 s, and only when
  // the table is large), so the table holds only recent ones.
  if (buckets_.size() > 100000 && now - swept_ > std::chrono::seconds(10)) {
    swept_ = now;
    for (auto it = buckets_.begin(); it != buckets_.end();)
      it = now - it->second.at > std::chrono::seconds(60) ? buckets_.erase(it) : std::next(it);
  }
  auto [it, added] = buckets_.try_emplace(player, bucket{burst_, now});
  bucket& b = it->second;
  b.tokens = std::min(burst_, b.tokens + std::chrono::duration<double>(now - b.at).count() * per_second_);
  b.at = now;
  if (b.tokens >= 1) {
    b.tokens -= 1;
    return 0;
  }
  return std::max(1, static_cast<int>(std::ceil((1 - b.tokens) / per_second_)));
}

std::string cors_request_headers() {
  std::string out = "Authorization, Content-Type";
  for (const api_header_field& h : api_request_headers)
    if (h.name != "Authorization") out += ", " + std::string{h.name};
  return out;
}

api_response error_response(int status, std::string code, std::string message, const std::optional<slot_entry>& slot) {
  wire::error_document document{{code, std::move(message), std::nullopt}};
  if (slot) document.error.slot = wire_slot(*slot);
  api_response r = json_response(status, document);
  r.error = std::move(code);
  return r;
}

api::api(slot_store& store, token_secret secret, api_limits limits, metrics& counters)
    : store_(store),
      secret_(std::move(secret)),
      limits_(limits),
      metrics_(counters),
      rates_(limits.rate_per_second, limits.burst) {}

api_response api::handle(const api_request& r) {
  admission a = admit(r);
  if (a.answer) return std::move(*a.answer);
  return respond(a, r);
}

admission api::admit(const api_request& r) {
  admission a;
  auto finish = [&](api_response out) {
    out.route = a.at.pattern();
    if (!a.player.empty()) out.player = a.player;
    if (!a.at.name.empty()) out.slot = a.at.name;
    a.answer = std::move(out);
    return std::move(a);
  };
  auto parsed = parse_target(r.target);
  if (!parsed) {
    const errc code = parsed.error().code();
    api_response out = code == errc::not_found      ? error_response(404, "not_found", "no such path")
                       : code == errc::invalid_name ? error_response(400, "bad_name", parsed.error().message())
                                                    : error_response(400, "bad_request", parsed.error().message());
    out.route = "unknown";
    a.answer = std::move(out);
    return a;
  }
  a.at = std::move(*parsed);
  const route_row& row = row_of(a.at.kind);
  // The server's own routes answer anyone, at once (no database is waited on).
  if (!row.player_route) {
    if (!answers(row, r.method)) return finish(method_not_allowed(std::string{row.methods}));
    if (a.at.kind == route_kind::health) return finish(health());
    api_response out;
    out.content_type = "text/plain; version=0.0.4";
    out.body = metrics_.render(store_.stats(), store_.driver());
    return finish(std::move(out));
  }

  // Everything under /v1 belongs to the player the token names.
  const std::string_view token = r.authorization ? bearer_token(*r.authorization) : std::string_view{};
  auto unauthorized = [&](std::string message) {
    api_response out = error_response(401, "unauthorized", std::move(message));
    out.headers.push_back({"WWW-Authenticate", "Bearer realm=\"savekit\""});
    return finish(std::move(out));
  };
  if (token.empty()) return unauthorized("this needs Authorization: Bearer TOKEN");
  auto claims = verify_token(secret_, token, now());
  if (!claims) return unauthorized(claims.error().message());
  a.player = std::move(claims->player);

  if (!answers(row, r.method)) return finish(method_not_allowed(std::string{row.methods}));
  const bool put = r.method == "PUT", remove = r.method == "DELETE";
  if (int wait = rates_.admit(a.player, std::chrono::steady_clock::now()); wait > 0) {
    api_response out =
        error_response(429, "rate_limited", "too many requests: try again in " + std::to_string(wait) + " s");
    out.headers.push_back({"Retry-After", std::to_string(wait)});
    return finish(std::move(out));
  }
  if (put || remove) {
    if (remove && r.if_none_match)
      return finish(error_response(400, "bad_header", "a deletion takes If-Match: \"N\", not If-None-Match"));
    auto condition = parse_write_precondition(r.if_match, r.if_none_match);
    if (!condition)
      return finish(condition.error().code() == errc::missing_key
                        ? error_response(428, "precondition_required", condition.error().message())
                        : error_response(400, "bad_header", condition.error().message()));
    a.condition = *condition;
    if (r.write_id)
      if (status valid = check_write_id(*r.write_id); !valid)
        return finish(error_response(400, "bad_header", valid.error().message()));
  }
  if (put) {
    auto meta = decode_meta(r.meta, limits_.max_meta_bytes);
    if (!meta)
      return finish(meta.error().code() == errc::value_too_large
                        ? error_response(413, "too_large", meta.error().message())
                        : error_response(400, "bad_meta", meta.error().message()));
    // Never acknowledge a write whose metadata no answer can carry back (main refuses a
    // --max-meta-bytes that would let one in; this holds whatever the limits).
    if (encode_meta(*meta).size() > max_answer_header_value)
      return finish(error_response(413, "too_large",
                                   "Savekit-Meta of " + std::to_string(meta->size()) +
                                       " bytes would not fit the header that sends it back (at most " +
                                       std::to_string(max_answer_header_value / 4 * 3) + " bytes)"));
    a.meta_compact = compact_meta(*meta);
    a.meta = std::move(*meta);
  }
  return a;
}

std::optional<api_response> api::answer_before_body(const admission& a, const api_request& r,
                                                    std::optional<std::uint64_t> body_bytes) {
  if (a.at.kind != route_kind::slot || r.method != "PUT" || !a.condition) return std::nullopt;
  auto finish = [&](api_response out) {
    out.route = a.at.pattern();
    out.player = a.player;
    out.slot = a.at.name;
    return std::optional<api_response>{std::move(out)};
  };
  if (limits_.max_player_bytes != 0 && body_bytes && *body_bytes > limits_.max_player_bytes)
    return finish(error_response(413, "too_large",
                                 "a player keeps at most " + std::to_string(limits_.max_player_bytes) +
                                     " bytes of saves, and this one is " + std::to_string(*body_bytes)));
  // A write id comes first, as in the write itself: a remembered one is answered as the
  // first time whatever the slot is now.
  if (r.write_id) {
    auto earlier = store_.remembered(a.player, a.at.name, *r.write_id);
    if (!earlier) return finish(from_store(earlier.failure()));
    if (*earlier) {
      // The same write has the same metadata, size and precondition (a replace of N made
      // N + 1; a creation made the slot): if any differs it is another write, whatever its
      // bytes. If none does, only the bytes can tell.
      const remembered_write& made = **earlier;
      const std::optional<std::int64_t>& expected = a.condition->version;
      const bool same_condition = expected ? !made.created && made.made.version == *expected + 1 : made.created;
      const bool same_size = !body_bytes || static_cast<std::int64_t>(*body_bytes) == made.made.bytes;
      if (!made.made.deleted && same_condition && same_size && compact_meta(made.made.meta) == a.meta_compact)
        return std::nullopt;
      if (auto durable = store_.make_durable(a.player); !durable) return finish(from_store(durable.failure()));
      return finish(write_id_reused(*r.write_id, made.made));
    }
  }
  auto now = store_.info(a.player, a.at.name);
  if (!now) return finish(from_store(now.failure()));
  const std::optional<slot_entry>& slot = *now;
  const std::optional<std::int64_t>& expected = a.condition->version;
  const bool holds = expected ? slot && !slot->deleted && slot->version == *expected : !slot || slot->deleted;
  if (holds) return std::nullopt;  // the write decides (it checks again, in its transaction)
  // (What a 412 names is durable first: transactions::durable_answer says why.)
  if (auto durable = store_.make_durable(a.player); !durable) return finish(from_store(durable.failure()));
  return finish(precondition_failed(a.at.name, slot, expected));
}

api_response api::respond(const admission& a, const api_request& r) {
  const bool reads = r.method == "GET" || r.method == "HEAD";
  api_response out;
  switch (a.at.kind) {
    case route_kind::list:
      out = list(a.player, r.target);
      break;
    case route_kind::slot:
      out = reads ? get_slot(a.player, a.at.name, r) : r.method == "PUT" ? put_slot(a, r) : delete_slot(a, r);
      break;
    case route_kind::versions:
      out = list_versions(a.player, a.at.name);
      break;
    case route_kind::version:
      out = get_version(a.player, a.at.name, a.at.version);
      break;
    case route_kind::health:
    case route_kind::metrics:
      break;
  }
  out.route = a.at.pattern();
  out.player = a.player;
  if (!a.at.name.empty()) out.slot = a.at.name;
  return out;
}

void api::check_health() {
  {
    std::lock_guard lock(health_mutex_);
    health_asking_since_ = std::chrono::steady_clock::now();
  }
  auto alive = store_.ping();
  std::lock_guard lock(health_mutex_);
  health_state_ = alive ? 1 : 2;
  health_problem_ = alive ? "" : alive.failure().message;
  if (alive) health_node_ = alive->empty() ? std::nullopt : std::optional<std::string>{*alive};
  health_asking_since_.reset();
}

api_response api::health() {
  bool asked;
  {
    std::lock_guard lock(health_mutex_);
    asked = health_state_ != 0;
  }
  if (!asked) check_health();  // no monitor (in-process use): ask now
  std::lock_guard lock(health_mutex_);
  // A question the database has not answered within 2 s: it is not healthy, whatever it
  // said before.
  // (Unless other calls got answers meanwhile: the question waits behind them, the
  // database is busy, not gone.)
  const bool waiting = health_asking_since_ &&
                       std::chrono::steady_clock::now() - *health_asking_since_ > std::chrono::seconds(2) &&
                       !store_.answered_since(*health_asking_since_);
  if (health_state_ != 1 || waiting) {
    api_response r = json_response(
        503, wire::health{"unavailable", std::string{store_.driver()}, std::nullopt,
                          waiting ? std::string{"the database has not answered for more than 2 s"} : health_problem_});
    r.headers.push_back({"Retry-After", "1"});
    return r;
  }
  return json_response(200, wire::health{"ok", std::string{store_.driver()}, health_node_, std::nullopt});
}

api_response api::from_store(const store_failure& failure) {
  metrics_.store_failed();
  if (failure.kind == store_failure::unavailable) {
    api_response r = error_response(503, "unavailable", "the database does not answer now: try again");
    r.headers.push_back({"Retry-After", "1"});
    r.error = "unavailable: " + failure.message;
    return r;
  }
  api_response r = error_response(500, "internal", "the database failed");
  r.error = "internal: " + failure.message;  // logged, not sent
  return r;
}

namespace {

// Whether a list's target asks for the deleted slots too (?deleted=true); nullopt for a
// value of `deleted` other than true or false. Other query parameters are ignored.
std::optional<bool> lists_deleted(std::string_view target) {
  const std::size_t query = target.find('?');
  if (query == std::string_view::npos) return false;
  std::optional<bool> asked = false;
  std::string_view rest = target.substr(query + 1);
  while (!rest.empty()) {
    const std::size_t end = rest.find('&');
    const std::string_view parameter = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    if (parameter.substr(0, parameter.find('=')) != "deleted") continue;
    const std::string_view value =
        parameter.find('=') == std::string_view::npos ? std::string_view{} : parameter.substr(parameter.find('=') + 1);
    if (value != "true" && value != "false") return std::nullopt;
    asked = value == "true";
  }
  return asked;
}

}  // namespace

api_response api::list(const std::string& player, std::string_view target) {
  const std::optional<bool> with_deleted = lists_deleted(target);
  if (!with_deleted) return error_response(400, "bad_request", "the query parameter deleted takes true or false");
  auto slots = store_.list(player, *with_deleted);
  if (!slots) return from_store(slots.failure());
  std::sort(slots->begin(), slots->end(), [](const slot_entry& a, const slot_entry& b) { return a.name < b.name; });
  wire::slot_list document;
  if (*with_deleted) document.deleted.emplace();
  for (const slot_entry& e : *slots) (e.deleted ? *document.deleted : document.slots).push_back(wire_slot(e));
  return json_response(200, document);
}

api_response api::get_slot(const std::string& player, const std::string& name, const api_request& r) {
  auto found = store_.read(player, name, std::nullopt);
  if (!found) return from_store(found.failure());
  if (!*found) return error_response(404, "not_found", "there is no slot \"" + name + "\"");
  if (r.if_none_match && if_none_match_names(*r.if_none_match, (*found)->entry.version)) {
    api_response same;
    same.status = 304;
    same.content_type.clear();
    same.headers = {{"ETag", etag_of((*found)->entry.version)}};
    return same;
  }
  return bytes_response(std::move(**found));
}

namespace {
// What a write is, for its write id: the precondition, the metadata and the bytes.
std::string write_digest(const std::optional<std::int64_t>& expected, std::string_view meta, std::string_view body) {
  crypto_generichash_state state;
  crypto_generichash_init(&state, nullptr, 0, 32);
  const std::string condition = expected ? std::to_string(*expected) : "*";
  for (std::string_view part : {std::string_view{condition}, meta, body}) {
    const std::uint64_t size = part.size();  // each part's length first: no two writes hash alike by shifting bytes
    crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(&size), sizeof size);
    crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(part.data()), part.size());
  }
  unsigned char hash[32];
  crypto_generichash_final(&state, hash, sizeof hash);
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : hash) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}
}  // namespace

std::int64_t api::forget_writes_before(std::int64_t now_us) const {
  return now_us - std::chrono::duration_cast<std::chrono::microseconds>(limits_.keep_write_ids).count();
}

// 409: the write id names another write; the version that one made goes with it (its
// entry as "slot"), so that a client can tell which of its writes it was.
api_response api::write_id_reused(std::string_view write_id, const slot_entry& made) {
  api_response r =
      error_response(409, "write_id_reused",
                     "Savekit-Write-Id " + std::string{write_id} + " already names another write (version " +
                         std::to_string(made.version) + "): give each write its own id",
                     made);
  r.headers.push_back({"ETag", etag_of(made.version)});
  return r;
}

api_response api::put_slot(const admission& a, const api_request& r) {
  if (r.body.size() > limits_.max_save_bytes)
    return error_response(
        413, "too_large",
        "a save is at most " + std::to_string(limits_.max_save_bytes) + " bytes, not " + std::to_string(r.body.size()));
  if (limits_.max_player_bytes != 0 && r.body.size() > limits_.max_player_bytes)  // (it could never fit)
    return error_response(413, "too_large",
                          "a player keeps at most " + std::to_string(limits_.max_player_bytes) +
                              " bytes of saves, and this one is " + std::to_string(r.body.size()));
  const std::string digest = write_digest(a.condition->version, a.meta_compact, r.body);
  put_request q;
  q.player = a.player;
  q.name = a.at.name;
  q.body = r.body;
  q.meta = a.meta;
  q.write_id = r.write_id ? std::string_view{*r.write_id} : std::string_view{};
  q.digest = digest;
  q.expected_version = a.condition->version;
  q.saved_at_us = unix_micros(now());
  q.keep_versions = limits_.keep_versions;
  q.max_slots = limits_.max_slots;
  q.max_player_bytes = limits_.max_player_bytes;
  q.forget_writes_before_us = forget_writes_before(q.saved_at_us);
  q.keep_write_ids = limits_.write_ids_per_slot;
  auto written = store_.put(q);
  if (!written) return from_store(written.failure());
  switch (written->kind) {
    case write_outcome::created:
      return slot_written(201, *written->slot);
    case write_outcome::replaced:
      return slot_written(200, *written->slot);
    case write_outcome::repeated:
      return slot_written(written->created_slot ? 201 : 200, *written->slot);
    case write_outcome::write_id_reused:
      return write_id_reused(q.write_id, *written->slot);
    case write_outcome::too_many_slots:
      return error_response(
          409, "too_many_slots",
          "a player has at most " + std::to_string(limits_.max_slots) + " slots: delete one before creating another");
    case write_outcome::over_quota:
      return error_response(409, "over_quota",
                            "a player keeps at most " + std::to_string(limits_.max_player_bytes) +
                                " bytes of saves, counting the versions kept for restore: delete a slot to make room");
    case write_outcome::version_moved:
    case write_outcome::deleted:
      break;
  }
  return precondition_failed(a.at.name, written->slot, a.condition->version);
}

api_response api::delete_slot(const admission& a, const api_request& r) {
  remove_request q;
  q.player = a.player;
  q.name = a.at.name;
  q.write_id = r.write_id ? std::string_view{*r.write_id} : std::string_view{};
  q.expected_version = *a.condition->version;
  q.saved_at_us = unix_micros(now());
  q.drop_versions = limits_.max_player_bytes != 0;
  q.forget_writes_before_us = forget_writes_before(q.saved_at_us);
  q.keep_write_ids = limits_.write_ids_per_slot;
  auto removed = store_.remove(q);
  if (!removed) return from_store(removed.failure());
  if (removed->kind == write_outcome::write_id_reused) return write_id_reused(q.write_id, *removed->slot);
  if (removed->kind == write_outcome::deleted || removed->kind == write_outcome::repeated) {
    api_response r204;
    r204.status = 204;
    r204.content_type.clear();
    r204.headers = {{"ETag", etag_of(removed->slot->version)}};
    return r204;
  }
  return precondition_failed(a.at.name, removed->slot, a.condition->version);
}

api_response api::list_versions(const std::string& player, const std::string& name) {
  auto kept = store_.versions(player, name);
  if (!kept) return from_store(kept.failure());
  if (kept->empty()) return error_response(404, "not_found", "there is no slot \"" + name + "\"");
  wire::version_list document;
  for (const slot_entry& e : *kept)
    document.versions.push_back({e.version, e.bytes, rfc3339_of(e.saved_at_us), raw_json{e.meta}, wire_write_id(e)});
  return json_response(200, document);
}

api_response api::get_version(const std::string& player, const std::string& name, std::int64_t version) {
  auto found = store_.read(player, name, version);
  if (!found) return from_store(found.failure());
  if (!*found)
    return error_response(
        404, "not_found",
        "slot \"" + name + "\" keeps no version " + std::to_string(version) + " (GET …/versions lists those kept)");
  return bytes_response(std::move(**found));
}

}  // namespace savekit::server
