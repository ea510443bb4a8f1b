// Reading the server's answers and writing the sync's metadata (wire.hpp).
#include "wire.hpp"

#include <savekit/base64.hpp>
#include <savekit/detail/percent_encode.hpp>
#include <savekit/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>

namespace savekit::cloud::detail::json_shapes {

// The contract's JSON (docs/server.md); members the contract may add later are ignored.
struct slot {
  std::string name;
  std::int64_t version = 0;
  std::int64_t bytes = 0;
  std::string saved_at;
  raw_json meta;
  std::optional<std::string> write_id;
  std::optional<bool> deleted;
};
struct listing {
  std::vector<slot> slots;
  std::optional<std::vector<slot>> deleted;
};
struct versions {
  std::vector<slot> versions;
};
struct error_detail {
  std::string code;
  std::string message;
  std::optional<json_shapes::slot> slot;
};
struct error_document {
  error_detail error;
};

// "sk" in a save's metadata: what a savekit device says of the save.
struct sync_meta {
  std::uint32_t v = 1;
  std::string device;
  std::string device_id;
  std::string content;
  std::int64_t saved_at = 0;  // Unix microseconds, the device's clock
  bool sealed = false;
};
struct meta_read {
  std::optional<std::string> title;
  std::optional<double> playtime;
  std::optional<double> progress;
  std::optional<std::map<std::string, std::string>> user;
  std::optional<sync_meta> sk;
};
struct meta_written {
  std::string title;
  std::int64_t playtime = 0;
  double progress = 0;
  std::optional<std::map<std::string, std::string>> user;
  sync_meta sk;
};

}  // namespace savekit::cloud::detail::json_shapes

namespace savekit::cloud::detail {

namespace {

constexpr json_options lenient{.max_depth = 40};
// The server's metadata limit is 16 KiB decoded; the game's own fields are dropped past it
// (the load menu's title, play time and progress always fit).
constexpr std::size_t max_meta_bytes = 15 * 1024;

error bad_answer(std::string what) { return error{errc::network, 0, "the server's answer is malformed: " + what}; }

result<remote_entry> entry_of(const json_shapes::slot& s, bool deleted_list) {
  if (status valid = slots::check_name(s.name); !valid)
    return bad_answer("a slot name that is not one: " + valid.error().message());
  if (s.version <= 0) return bad_answer("slot \"" + s.name + "\" has version " + std::to_string(s.version));
  if (s.bytes < 0) return bad_answer("slot \"" + s.name + "\" has a negative size");
  std::optional<std::int64_t> at = parse_rfc3339(s.saved_at);
  if (!at) return bad_answer("slot \"" + s.name + "\" has saved_at \"" + s.saved_at + "\"");
  remote_entry e;
  e.name = s.name;
  e.version = s.version;
  e.bytes = s.bytes;
  e.saved_at_us = *at;
  e.write_id = s.write_id.value_or("");
  e.deleted = deleted_list || s.deleted.value_or(false);
  read_meta(s.meta.text, e);
  return e;
}

int digits(std::string_view text, std::size_t at, std::size_t n) {
  if (at + n > text.size()) return -1;
  int v = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

// Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

}  // namespace

std::optional<std::int64_t> parse_rfc3339(std::string_view t) {
  // YYYY-MM-DDTHH:MM:SS[.fraction]Z
  const int year = digits(t, 0, 4), month = digits(t, 5, 2), day = digits(t, 8, 2);
  const int hour = digits(t, 11, 2), minute = digits(t, 14, 2), second = digits(t, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || minute < 0 ||
      minute > 59 || second < 0 || second > 60 || t[4] != '-' || t[7] != '-' || (t[10] != 'T' && t[10] != 't') ||
      t[13] != ':' || t[16] != ':')
    return std::nullopt;
  std::size_t at = 19;
  std::int64_t micros = 0;
  if (at < t.size() && t[at] == '.') {
    std::size_t n = 0;
    for (++at; at < t.size() && t[at] >= '0' && t[at] <= '9'; ++at, ++n)
      if (n < 6) micros = micros * 10 + (t[at] - '0');
    if (n == 0) return std::nullopt;
    for (; n < 6; ++n) micros *= 10;
  }
  if (at + 1 != t.size() || (t[at] != 'Z' && t[at] != 'z')) return std::nullopt;
  const std::int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return ((days * 24 + hour) * 60 + minute) * 60'000'000 + std::int64_t{second} * 1'000'000 + micros;
}

std::optional<std::int64_t> parse_etag(std::string_view etag) {
  if (etag.size() < 3 || etag.size() > 17 || etag.front() != '"' || etag.back() != '"') return std::nullopt;
  const std::string_view n = etag.substr(1, etag.size() - 2);
  if (n[0] == '0') return std::nullopt;
  std::int64_t v = 0;
  for (char c : n) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

result<slot_listing> parse_listing(std::string_view body) {
  result<json_shapes::listing> doc = from_json<json_shapes::listing>(body, lenient);
  if (!doc) return bad_answer("the list does not read: " + doc.error().to_string());
  result<slot_listing> out{std::in_place};
  std::set<std::string_view> seen;
  auto take = [&](const std::vector<json_shapes::slot>& from, bool deleted, std::vector<remote_entry>& into) -> status {
    for (const json_shapes::slot& s : from) {
      result<remote_entry> e = entry_of(s, deleted);
      if (!e) return std::move(e).error();
      if (!seen.insert(s.name).second) return bad_answer("slot \"" + s.name + "\" is listed twice");
      into.push_back(std::move(*e));
    }
    return {};
  };
  if (status live = take(doc->slots, false, out->live); !live) return std::move(live).error();
  if (doc->deleted) {
    out->lists_deleted = true;
    if (status gone = take(*doc->deleted, true, out->deleted); !gone) return std::move(gone).error();
  }
  return out;
}

result<std::vector<remote_entry>> parse_versions(std::string_view body, std::string_view name) {
  result<json_shapes::versions> doc = from_json<json_shapes::versions>(body, lenient);
  if (!doc) return bad_answer("the versions do not read: " + doc.error().to_string());
  result<std::vector<remote_entry>> out{std::in_place};
  for (json_shapes::slot& s : doc->versions) {
    s.name = std::string{name};  // the list names its slot in the URL, not in each version
    result<remote_entry> e = entry_of(s, false);
    if (!e) return std::move(e).error();
    out->push_back(std::move(*e));
  }
  return out;
}

result<error_answer> parse_error_answer(std::string_view body) {
  result<json_shapes::error_document> doc = from_json<json_shapes::error_document>(body, lenient);
  if (!doc) return bad_answer("an error answer does not read: " + doc.error().to_string());
  result<error_answer> out{std::in_place};
  out->code = doc->error.code;
  out->message = doc->error.message;
  if (doc->error.slot) {
    result<remote_entry> e = entry_of(*doc->error.slot, false);
    if (!e) return std::move(e).error();
    out->slot = std::move(*e);
  }
  return out;
}

result<remote_entry> parse_entry(std::string_view body) {
  result<json_shapes::slot> doc = from_json<json_shapes::slot>(body, lenient);
  if (!doc) return bad_answer("a slot's entry does not read: " + doc.error().to_string());
  return entry_of(*doc, false);
}

void read_meta(std::string_view meta_json, remote_entry& into) {
  result<json_shapes::meta_read> m = from_json<json_shapes::meta_read>(meta_json, lenient);
  if (!m) return;
  into.title = m->title.value_or("");
  if (m->playtime && std::isfinite(*m->playtime) && *m->playtime >= 0 && *m->playtime < 9e15)
    into.playtime_s = static_cast<std::int64_t>(*m->playtime);
  if (m->progress && std::isfinite(*m->progress)) into.progress = *m->progress;
  if (m->user) into.user = std::move(*m->user);
  if (m->sk) {
    into.device = m->sk->device;
    into.device_id = m->sk->device_id;
    into.content = m->sk->content;
    // Another device's clock, as it says: kept within years 1970-9999 (it is compared and
    // turned into a time point, where a forged INT64_MIN would overflow).
    constexpr std::int64_t latest_us = 253402300799'000'000;
    into.local_saved_at_us = std::clamp<std::int64_t>(m->sk->saved_at, 0, latest_us);
    into.sealed = m->sk->sealed;
  }
}

std::string encode_meta(const sent_meta& m) {
  json_shapes::meta_written w;
  w.title = m.info->meta.title;
  w.playtime = m.info->meta.playtime.count();
  w.progress = std::isfinite(m.info->meta.progress) ? m.info->meta.progress : 0;
  w.sk.device = std::string{m.device};
  w.sk.device_id = std::string{m.device_id};
  w.sk.content = std::string{m.content};
  w.sk.saved_at = std::chrono::duration_cast<std::chrono::microseconds>(m.info->saved_at.time_since_epoch()).count();
  w.sk.sealed = m.info->sealed;
  if (!m.info->meta.user.empty()) w.user = m.info->meta.user;
  constexpr json_options out{.skip_null_members = true};
  std::string text = to_json(w, out);
  if (text.size() > max_meta_bytes) {
    w.user.reset();
    text = to_json(w, out);
  }
  if (text.size() > max_meta_bytes) {  // a title of many kilobytes
    w.title.resize(1024);
    while (!w.title.empty() && (static_cast<unsigned char>(w.title.back()) & 0xC0) == 0x80) w.title.pop_back();
    if (!w.title.empty() && static_cast<unsigned char>(w.title.back()) >= 0xC0) w.title.pop_back();
    text = to_json(w, out);
  }
  return base64_encode(text, base64_alphabet::url);
}

std::string slot_target(std::string_view name) {
  if (name == ".") return "/v1/slots/%2E";
  if (name == "..") return "/v1/slots/%2E%2E";
  return "/v1/slots/" + savekit::detail::percent_encode(name);
}

}  // namespace savekit::cloud::detail

std::string savekit::cloud::http_response::header(std::string_view name) const {
  for (const auto& [n, v] : headers)
    if (n == name) return v;
  return {};
}
