// The sync engine (savekit/cloud.hpp): one run lists the server's slots once, then brings
// each slot in step, deciding from three things only — the slot here, the server's entry,
// and the baseline (the version both sides last agreed on, sync_state.hpp invariant 4).
//
// Invariants (each pinned by a test in tests/cloud/):
//  1. Local first: a run changes a local slot only by a compare-and-set against the
//     generation it decided on (slot_sync_access): a game save made meanwhile is never
//     replaced; the slot is decided again at the next run.
//  2. A change is pushed through the outbox (sync_state.hpp): durable before it is sent,
//     resent the same until a definite answer.
//  3. A slot with no baseline is pushed only when the server has none (or a deletion),
//     pulled only when this device has none; both holding it, with other content, is a
//     conflict (a fresh install's default save never goes over the cloud's progress).
//  4. A conflict never loses a save: keep_both writes the remote one as a second slot;
//     keep_local leaves it a kept version on the server; keep_remote leaves the local one a
//     generation (or, in a folder keeping one generation only, keeps both). A deletion
//     against a change keeps the change.
//  5. "pushed" and synced are said only after the server's 2xx (or its entry naming our
//     write id).
#include <savekit/cloud.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <ctime>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "../background_worker.hpp"
#include "../slot_sync_access.hpp"
#include "sync_state.hpp"
#include "wire.hpp"
#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>

#include "../web/fetch_transport.hpp"
#else
#include "curl_transport.hpp"
#endif

namespace savekit::cloud {

using savekit::detail::parse_generation_file;
using savekit::detail::slot_snapshot;
using savekit::detail::slot_sync_access;
using namespace detail;

namespace {

std::int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::int64_t us_of(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

// "2026-12-06 14:05 UTC"
std::string minute_of(std::int64_t us) {
  const std::time_t seconds = static_cast<std::time_t>(us / 1'000'000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &utc);
  return text;
}

// Cuts UTF-8 text to at most n bytes on a character boundary.
std::string cut_utf8(std::string text, std::size_t n) {
  if (text.size() <= n) return text;
  text.resize(n);
  while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xC0) == 0x80) text.pop_back();
  if (!text.empty() && static_cast<unsigned char>(text.back()) >= 0xC0) text.pop_back();
  return text;
}

slot_info info_of_remote(const remote_entry& r) {
  slot_info i;
  i.name = r.name;
  i.saved_at = std::chrono::system_clock::time_point{
      std::chrono::microseconds{r.local_saved_at_us != 0 ? r.local_saved_at_us : r.saved_at_us}};
  i.bytes = static_cast<std::uint64_t>(r.bytes);
  i.sealed = r.sealed;
  i.meta.title = r.title;
  i.meta.playtime = std::chrono::seconds{r.playtime_s};
  i.meta.progress = r.progress;
  i.meta.user = r.user;
  return i;
}

bool is_retryable(int status) { return status == 429 || status >= 500; }

// What an answer can need: a write's is an entry or an error (a few KB); a list holds at
// most the server's slots per player with their metadata. A server sending more is cut, not
// believed (and not given the memory).
constexpr std::uint64_t max_write_answer = std::uint64_t{1} << 20;
constexpr std::uint64_t max_list_answer = std::uint64_t{64} << 20;

#ifndef __EMSCRIPTEN__
// Natively a wait is a sleep (the run has a thread of its own), and a file system is
// durable when its sync calls return. In the browser both let the page run
// (web/fetch_transport.hpp).
void pause_for(std::chrono::milliseconds d) { std::this_thread::sleep_for(d); }
savekit::status wait_until_durable(slots& folder) {
  file_system& fs = slot_sync_access::fs(folder);
  std::optional<savekit::status> outcome;
  fs.when_durable([&outcome](savekit::status s) { outcome = std::move(s); });
  return outcome ? std::move(*outcome) : savekit::status{};
}
savekit::status wait_until_loaded(slots&, std::string_view, std::optional<std::uint64_t>) { return {}; }
#endif

// Whether a load's error is one a read of the slot gives too (no slot, nothing intact, a
// newer savekit's, a seal that does not open): the read then says it. Any other (IndexedDB
// failed, a save other code deleted before it was loaded, the slots closed) stops the
// slot's sync: what the read would find then is not the player's save.
bool a_read_says_it(const savekit::status& loaded) {
  if (loaded) return true;
  switch (loaded.error().code()) {
    case errc::not_found:
    case errc::damaged:
    case errc::unsupported_version:
    case errc::tampered:
    case errc::key_not_held:
      return true;
    default:
      return false;
  }
}

// A slot's newest save (or one generation), whole: in the browser its bytes are fetched
// from IndexedDB first. Only from a run (in the browser, it waits through Asyncify).
result<std::optional<slot_snapshot>> newest_whole(slots& folder, std::string_view name) {
  if (savekit::status loaded = wait_until_loaded(folder, name, std::nullopt); !a_read_says_it(loaded))
    return std::move(loaded).error();
  return slot_sync_access::newest(folder, name);
}
result<slot_snapshot> generation_whole(slots& folder, std::string_view name, std::uint64_t generation) {
  if (savekit::status loaded = wait_until_loaded(folder, name, generation); !a_read_says_it(loaded))
    return std::move(loaded).error();
  return slot_sync_access::generation(folder, name, generation);
}

}  // namespace

// ---- the engine ----------------------------------------------------------------------------

struct sync::impl {
  slots* folder;
  options o;
  std::shared_ptr<cloud::transport> net;
  sync_files files;
  std::string device_id;
  // One run (or resolve) at a time. (In the browser, without threads, a mutex is a stub:
  // there runs come one at a time from run_async, and resolve() is refused during one.)
  std::mutex run_mutex;
  std::atomic<bool> closing{false};

  // run_async: callbacks of the run queued and not yet started; finished ones for poll().
  std::mutex async_mutex;
  std::vector<std::function<void(result<report>)>> waiting;
  bool run_queued = false;
  std::vector<std::pair<std::function<void(result<report>)>, result<report>>> finished;
  savekit::detail::background_worker worker;
  void run_queued_now();
  bool async_running = false;  // browser: run_async's run is under way (suspended, perhaps)
  bool orphaned = false;       // browser: the sync was closed meanwhile; the run frees this

  impl(slots& s, options opts, std::shared_ptr<cloud::transport> t)
      : folder(&s),
        o(std::move(opts)),
        net(std::move(t)),
        files(slot_sync_access::fs(s), slot_sync_access::folder(s)) {}
  ~impl() { release_folder(); }
  impl(const impl&) = delete;
  impl& operator=(const impl&) = delete;

  // One open sync per folder in a process: two would write one state file over each
  // other (another process cannot hold the folder writable: the slots' lock).
  static std::mutex& claims_mutex() {
    static std::mutex m;
    return m;
  }
  static std::set<std::string>& claims() {
    static std::set<std::string> held;
    return held;
  }
  bool claim_folder() {
    std::lock_guard lock(claims_mutex());
    if (!claims().insert(folder->path()).second) return false;
    claimed = folder->path();
    return true;
  }
  void release_folder() {
    if (claimed.empty()) return;
    std::lock_guard lock(claims_mutex());
    claims().erase(claimed);
    claimed.clear();
  }
  std::string claimed;

  // A push decided, waiting for its batch to be recorded (queue_push).
  struct queued_push {
    outbox_entry e;
    slot_report said;
  };

  // What one run carries from slot to slot.
  struct run_state {
    state_document doc;
    report out;
    std::map<std::string, slot_info> local;
    std::map<std::string, remote_entry> remote;     // live and deleted, by name
    std::set<std::string> blocked;                  // an entry still unanswered: nothing more this run
    std::map<std::string, std::string> unreadable;  // listed here, but no save of it reads: why
    std::optional<cloud::policy> policy;
    bool lists_deleted = true;
    std::optional<error> fatal;  // the token was refused: the run stops
    // Entries the server acknowledged, whose answers are learned in doc but not yet durable:
    // removed by save_state(rs) once they are (sync_state.hpp invariant 3). Saving the state
    // once per batch, not per acknowledgement, is what a first sync of many slots costs.
    std::vector<outbox_entry> acknowledged;
    // A change of this run's that the file system undid after accepting it (in the browser:
    // an IndexedDB transaction that failed). The state in memory may then describe slots
    // as they are not: it is never written again this run, and the run stops.
    std::optional<error> undone;
    // Pushes decided, not yet recorded (queue_push): while deferring, a slot's push waits
    // for its batch.
    bool deferring = false;
    std::vector<queued_push> queued;
    std::uint64_t queued_bytes = 0;
  };
  static constexpr std::size_t acknowledgement_batch = 32;

  // Saves the run's state, then removes the entries whose answers it holds.
  // removed: whether the entries went too (one left behind is resent and answered as
  // before; only a new entry of the same slot must wait for it to go, invariant 2).
  savekit::status save_state(run_state& rs, savekit::status* removed = nullptr) {
    if (rs.undone) return *rs.undone;
    savekit::status saved = files.save_state(rs.doc);
    if (saved) {
      savekit::status gone = files.remove_entries(rs.acknowledged);
      if (removed) *removed = std::move(gone);
      rs.acknowledged.clear();
    }
    return saved;
  }

  // ---- requests ----

  std::vector<std::pair<std::string, std::string>> auth() const { return {{"Authorization", "Bearer " + o.token}}; }

  // Sends, trying again on no answer, 429 and 5xx (options.attempts, backoff with jitter).
  std::mt19937_64 jitter{std::random_device{}()};  // the backoff's (seeded once: a device read per request costs)
  result<http_response> exchange(run_state& rs, const http_request& request) {
    std::mt19937_64& random = jitter;
    std::chrono::milliseconds wait = o.backoff_first;
    result<http_response> last = error{errc::network, 0, "not sent"};
    const std::uint32_t attempts = std::max<std::uint32_t>(o.attempts, 1);
    for (std::uint32_t attempt = 0; attempt < attempts && !closing; ++attempt) {
      if (attempt != 0) {
        std::chrono::milliseconds pause{std::uniform_int_distribution<std::int64_t>{0, wait.count()}(random)};
        if (last) {  // the server's Retry-After, up to the cap
          const std::string after = last->header("retry-after");
          if (!after.empty() && after.size() < 6 && std::all_of(after.begin(), after.end(), ::isdigit))
            pause = std::max(pause, std::chrono::milliseconds{std::stoll(after) * 1000});
        }
        pause_for(std::min(pause, o.backoff_cap));
        wait = std::min(wait * 2, o.backoff_cap);
      }
      // What the request stands on (the outbox entry above all) is durable before it goes:
      // at once on a disk; in the browser, once IndexedDB's transaction has completed.
      if (savekit::status durable = wait_until_durable(*folder); !durable) {
        rs.undone = error{durable.error().code(), 0,
                          "a change of this run was not kept (" + durable.error().message() + "): the run stops"};
        rs.fatal = rs.undone;
        return *rs.undone;
      }
      ++rs.out.requests;
      last = net->send(request);
      if (last && !is_retryable(last->status)) return last;
    }
    return last;
  }

  // A failure of one slot, from an answer or its absence.
  static slot_report failed(std::string name, error e, int http_status = 0, std::string code = {}) {
    slot_report r;
    r.name = std::move(name);
    r.what = outcome::failed;
    r.error = std::move(e);
    r.http_status = http_status;
    r.server_code = std::move(code);
    return r;
  }
  static slot_report failed_on(std::string name, const result<http_response>& got, std::string_view doing) {
    if (!got) return failed(std::move(name), got.error());
    std::string code, message;
    if (result<error_answer> e = parse_error_answer(got->body)) {
      code = e->code;
      message = e->message;
    }
    return failed(std::move(name),
                  error{errc::network, 0,
                        std::string{doing} + ": the server answered " + std::to_string(got->status) +
                            (message.empty() ? std::string{} : " (" + code + ": " + message + ")")},
                  got->status, code);
  }
  bool token_refused(run_state& rs, const result<http_response>& got) {
    if (!got || (got->status != 401 && got->status != 403)) return false;
    std::string message = "the server refused the token (" + std::to_string(got->status) + ")";
    if (result<error_answer> e = parse_error_answer(got->body); e && !e->message.empty()) message += ": " + e->message;
    rs.fatal = error{errc::network, 0, message + ": get a new one"};
    return true;
  }

  void add(run_state& rs, slot_report r) {
    slot_record& rec = rs.doc.slots[r.name];
    rec.last_error = r.what == outcome::failed && r.error ? r.error->message() : std::string{};
    rs.out.slots.push_back(std::move(r));
  }

  // ---- the outbox ----

  http_request request_of(const outbox_entry& e) const {
    http_request r;
    r.method = e.op == "put" ? "PUT" : "DELETE";
    r.max_answer_bytes = max_write_answer;
    r.target = slot_target(e.slot);
    r.headers = auth();
    r.headers.push_back({"Savekit-Write-Id", e.write_id});
    if (e.if_match)
      r.headers.push_back({"If-Match", "\"" + std::to_string(*e.if_match) + "\""});
    else
      r.headers.push_back({"If-None-Match", "*"});
    if (e.op == "put") {
      r.headers.push_back({"Savekit-Meta", e.meta});
      r.body = e.body;
    }
    return r;
  }

  // What became of an entry.
  enum class sent { acknowledged, moved, refused, unanswered, stop };

  // Sends an entry until a definite answer and learns from it (sync_state.hpp 1-4).
  // moved: the slot moved on the server before it (the entry is gone; the slot is decided
  // again from the server's entry, put in rs.remote).
  sent send_entry(run_state& rs, const outbox_entry& e, slot_report& said) {
    said.name = e.slot;
    result<http_response> got = exchange(rs, request_of(e));
    if (token_refused(rs, got)) return sent::stop;
    slot_record& rec = rs.doc.slots[e.slot];
    auto learned = [&](std::int64_t version, std::int64_t server_saved_at_us) -> sent {
      const bool put = e.op == "put";
      agree(rec, baseline{version, put ? e.content : std::string{}, put ? e.local_generation : 0,
                          put ? e.local_saved_at_us : 0, server_saved_at_us});
      rec.refused.reset();
      remote_entry now;
      now.name = e.slot;
      now.version = version;
      now.deleted = e.op == "delete";
      now.write_id = e.write_id;
      now.content = e.content;
      now.device = o.device;
      now.device_id = device_id;
      now.saved_at_us = now_us();
      rec.listed = now;
      rs.remote[e.slot] = now;
      rs.acknowledged.push_back(e);
      if (rs.acknowledged.size() >= acknowledgement_batch)
        if (savekit::status saved = save_state(rs); !saved) {
          said = failed(e.slot, saved.error());
          return sent::unanswered;  // the entries stay: their replays are answered as these
        }
      said.what = e.op == "put" ? outcome::pushed : outcome::deleted;
      said.version = static_cast<std::uint64_t>(version);
      return sent::acknowledged;
    };
    if (!got || is_retryable(got->status)) {
      said = failed_on(e.slot, got, "the change is kept and sent again at the next run");
      return sent::unanswered;
    }
    const int status = got->status;
    if (status >= 200 && status < 300) {
      // An acknowledgement must be of this change: the version it made follows the one it
      // replaced, and the entry answered names this slot and this write. Anything else (a
      // proxy's answer to another request, a confused server) is no answer: sent again.
      std::optional<std::int64_t> version = parse_etag(got->header("etag"));
      std::string wrong;
      std::int64_t written_at = 0;  // the server's clock, where its answer says
      if (!version)
        wrong = "without a version (ETag)";
      else if (e.if_match ? *version != *e.if_match + 1 : *version < 1)
        wrong = "as version " + std::to_string(*version) + ", which cannot follow the version it replaced";
      else if (e.op == "put" && !got->body.empty())
        if (result<remote_entry> entry = parse_entry(got->body)) {
          if (entry->name != e.slot || entry->version != *version ||
              (!entry->write_id.empty() && entry->write_id != e.write_id))
            wrong = "with the entry of another write";
          written_at = entry->saved_at_us;
        }
      if (!wrong.empty()) {
        said = failed(e.slot,
                      error{errc::network, 0, "the server acknowledged the change " + wrong + ": it is sent again"},
                      status);
        return sent::unanswered;
      }
      return learned(*version, written_at);
    }
    result<error_answer> answer = parse_error_answer(got->body);
    const bool about_this = answer && answer->slot && answer->slot->name == e.slot;
    if ((status == 412 || status == 409) && about_this) {
      const remote_entry& now = *answer->slot;
      // Our own write: it landed (a replay past the server's memory, or a race).
      if (now.write_id == e.write_id || (status == 409 && !e.content.empty() && now.content == e.content))
        return learned(now.version, now.saved_at_us);
      if (status == 412) {
        (void)files.remove_entry(e);
        rs.remote[e.slot] = now;
        return sent::moved;
      }
    }
    // Only the server's own refusal of this change as it is (its error answer, in a status
    // that says the change can never be taken) drops it; any other answer (a proxy's 404 or
    // 408, a 409 for too many slots, which freeing one cures) keeps it to send again.
    const bool definite = answer && (status == 400 || status == 413 || status == 428 ||
                                     (status == 409 && answer->code == "write_id_reused"));
    if (!definite) {
      said = failed_on(e.slot, got, "the change is kept and sent again at the next run");
      return sent::unanswered;
    }
    // A definite refusal: the save stays here, not sent again until it changes.
    said = failed_on(e.slot, got, "the server refused the change");
    rec.refused = refused_change{e.content, status, said.server_code, said.error ? said.error->message() : ""};
    (void)save_state(rs);
    (void)files.remove_entry(e);
    return sent::refused;
  }

  // Records a change in the outbox, then sends it.
  outbox_entry entry_for(const std::string& name, const std::optional<slot_snapshot>& snap,
                         std::optional<std::int64_t> if_match) const {
    outbox_entry e;
    e.slot = name;
    e.op = snap ? "put" : "delete";
    e.write_id = sync_files::new_id();
    e.if_match = if_match;
    e.created_us = now_us();
    if (snap) {
      e.content = snap->content;
      e.local_generation = snap->info.generation;
      e.local_saved_at_us = us_of(snap->info.saved_at);
      e.meta = encode_meta({&snap->info, o.device, device_id, snap->content});
      e.body = snap->file;
    }
    return e;
  }

  // One entry per slot on disk (sync_state.hpp invariant 2): an acknowledged one of these
  // slots still there goes first.
  savekit::status clear_acknowledged(run_state& rs, const std::set<std::string>& slots) {
    if (std::none_of(rs.acknowledged.begin(), rs.acknowledged.end(),
                     [&](const outbox_entry& a) { return slots.contains(a.slot); }))
      return {};
    savekit::status removed;
    savekit::status saved = save_state(rs, &removed);
    return saved ? removed : saved;
  }

  static slot_report not_recorded(const std::string& name, const error& why) {
    return failed(
        name, error{why.code(), 0, "the change could not be recorded to send (nothing was sent): " + why.message()});
  }

  // Records a change in the outbox, then sends it.
  sent push(run_state& rs, const std::string& name, const std::optional<slot_snapshot>& snap,
            std::optional<std::int64_t> if_match, slot_report& said) {
    outbox_entry e = entry_for(name, snap, if_match);
    savekit::status recorded = clear_acknowledged(rs, {name});
    if (recorded) recorded = files.add_entry(e);
    if (!recorded) {
      said = not_recorded(name, recorded.error());
      return sent::unanswered;
    }
    return send_entry(rs, e, said);
  }

  // A run's pushes are recorded in batches, one outbox file (one fsync) for the changes of
  // many slots, then sent one by one: what a first sync of many slots costs.
  void queue_push(run_state& rs, const std::string& name, const std::optional<slot_snapshot>& snap,
                  std::optional<std::int64_t> if_match, slot_report said) {
    rs.queued_bytes += snap ? snap->file.size() : 0;
    rs.queued.push_back({entry_for(name, snap, if_match), std::move(said)});
    if (rs.queued.size() >= outbox_batch_entries || rs.queued_bytes >= outbox_batch_bytes) send_queued(rs);
  }
  void send_queued(run_state& rs) {
    std::vector<queued_push> batch = std::exchange(rs.queued, {});
    rs.queued_bytes = 0;
    if (batch.empty()) return;
    std::set<std::string> slots;
    std::vector<outbox_entry*> entries;
    for (queued_push& q : batch) {
      slots.insert(q.e.slot);
      entries.push_back(&q.e);
    }
    savekit::status recorded = clear_acknowledged(rs, slots);
    if (recorded) recorded = files.add_entries(entries);
    if (!recorded) {
      for (queued_push& q : batch) add(rs, not_recorded(q.e.slot, recorded.error()));
      return;
    }
    const bool was = std::exchange(rs.deferring, false);  // a slot decided again pushes at once
    for (queued_push& q : batch) {
      if (rs.fatal) {  // recorded, never sent: the next run sends it
        add(rs, failed(q.e.slot, error{errc::network, 0, "not sent: " + rs.fatal->message()}));
        continue;
      }
      sent how = send_entry(rs, q.e, q.said);
      if (how == sent::moved) {
        bring(rs, q.e.slot, 1);
        continue;
      }
      if (how == sent::stop) {
        add(rs, failed(q.e.slot, error{errc::network, 0, "not sent: " + rs.fatal->message()}));
        continue;
      }
      add(rs, std::move(q.said));
    }
    rs.deferring = was;
  }

  // ---- pulling ----

  result<std::string> download_file(run_state& rs, const std::string& name, remote_entry& r, slot_report& said) {
    http_request q;
    q.method = "GET";
    q.target = slot_target(name);
    q.headers = auth();
    result<http_response> got = exchange(rs, q);
    if (token_refused(rs, got)) return *rs.fatal;
    if (!got || got->status != 200) {
      said = failed_on(name, got, "the server's save could not be had");
      return *said.error;
    }
    std::optional<std::int64_t> version = parse_etag(got->header("etag"));
    if (!version) {
      said = failed(name, error{errc::network, 0, "the server sent a save without its version (ETag)"}, 200);
      return *said.error;
    }
    result<savekit::detail::parsed_generation> parsed = parse_generation_file(got->body);
    if (!parsed) {
      said = failed(name, error{parsed.error().code(), 0,
                                "the server's save of " + name +
                                    " is not a savekit save (nothing was written): " + parsed.error().message()});
      return *said.error;
    }
    if (parsed->name != name) {  // a save is bound to its slot's name (a sealed one by its seal)
      said = failed(name, error{errc::damaged, 0,
                                "the server answered for " + name + " with the save of \"" + parsed->name +
                                    "\" (nothing was written)"});
      return *said.error;
    }
    const std::string content =
        savekit::detail::content_of(parsed->header, parsed->meta, parsed->compact_layout, parsed->payload);
    if (*version == r.version && !r.content.empty() && content != r.content) {
      said = failed(
          name, error{errc::damaged, 0,
                      "the server's save of " + name + " is not the one its metadata describes (nothing was written)"});
      return *said.error;
    }
    if (*version != r.version) {  // it moved since the list: what came is what is known
      r.version = *version;
      r.write_id = got->header("savekit-write-id");
    }
    r.content = content;
    return std::move(got->body);
  }

  // Writes a downloaded save as the slot's next generation, if the slot has not moved.
  result<std::uint64_t> write_remote(const std::string& name, std::string_view file, std::uint64_t expected) {
    result<savekit::detail::parsed_generation> parsed = parse_generation_file(file);
    if (!parsed) return std::move(parsed).error();
    return slot_sync_access::write_if_unmoved(*folder, name, *parsed, expected);
  }

  // ---- one slot ----

  // A name for the remote save beside the local one: "NAME (DEVICE, YYYY-MM-DD HH:MM UTC)".
  std::string copy_name(run_state& rs, const std::string& name, const remote_entry& r) {
    std::string device = r.device.empty() ? "cloud" : r.device;
    const std::string suffix =
        " (" + cut_utf8(device, 40) + ", " + minute_of(r.local_saved_at_us ? r.local_saved_at_us : r.saved_at_us) + ")";
    std::string stem = cut_utf8(name, slots::max_name_bytes - suffix.size() - 4);
    for (int n = 1; n < 1000; ++n) {
      std::string candidate = stem + suffix + (n == 1 ? std::string{} : " #" + std::to_string(n));
      if (!rs.local.contains(candidate) && !rs.remote.contains(candidate) && slots::check_name(candidate))
        return candidate;
    }
    return stem + suffix + " #" + sync_files::new_id().substr(0, 6);
  }

  choice decide(run_state& rs, const slot_info& local, const remote_entry& r) {
    switch (rs.policy.value_or(o.policy)) {
      case policy::keep_both:
        return choice::keep_both;
      case policy::prefer_local:
        return choice::keep_local;
      case policy::prefer_remote:
        return choice::keep_remote;
      case policy::newest: {
        const std::int64_t remote_at = r.local_saved_at_us ? r.local_saved_at_us : r.saved_at_us;
        const std::int64_t local_at = us_of(local.saved_at);
        if (std::llabs(remote_at - local_at) > 2'000'000)
          return remote_at > local_at ? choice::keep_remote : choice::keep_local;
        if (r.playtime_s != local.meta.playtime.count())
          return r.playtime_s > local.meta.playtime.count() ? choice::keep_remote : choice::keep_local;
        return choice::keep_both;
      }
      case policy::callback:
        if (o.on_conflict) return o.on_conflict(local, info_of_remote(r));
        return choice::later;
      case policy::ask:
        return choice::later;
    }
    return choice::later;
  }

  // After a conflict was settled for the local save (keep_local, keep_both): pushed over
  // the server's version r, now the baseline. The conflict's report says how it went.
  void push_over(run_state& rs, const std::string& name, const slot_snapshot& snap, const remote_entry& r,
                 slot_report& said) {
    slot_report pushed;
    const sent how = push(rs, name, snap, r.version, pushed);
    if (how == sent::acknowledged) {
      said.version = pushed.version;
    } else if (how == sent::moved) {
      said.error = error{errc::network, 0, "the server's save changed again meanwhile: the next run decides"};
    } else if (how != sent::stop) {
      said.error = pushed.error;
      said.http_status = pushed.http_status;
      said.server_code = pushed.server_code;
    }
  }

  // Settles a conflict between the local save `snap` and the server's `r`, whose file is
  // `remote_file` (downloaded, or held since an earlier run). Online (a run), what the
  // choice keeps of this device is pushed at once; offline (resolve), at the next run.
  void settle(run_state& rs, const std::string& name, const slot_snapshot& snap, const remote_entry& r,
              const std::string& remote_file, choice c, slot_report& said, bool online) {
    slot_record& rec = rs.doc.slots[name];
    said.what = outcome::conflict;
    said.settled = c;
    // keep_remote leaves the local save as a generation: a folder keeping one keeps both.
    if (c == choice::keep_remote && slot_sync_access::keep_generations(*folder) < 2) c = choice::keep_both;
    std::optional<held_conflict> was = rec.conflict;
    switch (c) {
      case choice::keep_local:
        rec.base =
            baseline{r.version, r.content, 0, 0, r.saved_at_us};  // the local save differs from it: pushed over it
        if (online) push_over(rs, name, snap, r, said);
        break;
      case choice::keep_remote: {
        result<std::uint64_t> written = write_remote(name, remote_file, snap.info.generation);
        if (!written) {
          hold(rs, name, r, remote_file);
          said.settled = choice::later;
          said.error = std::move(written).error();
          return;
        }
        rec.base = baseline{r.version, r.content, *written, 0, r.saved_at_us};
        // The local save lost: it stays in history here only (the server never had it).
        if (std::find(rec.kept_here.begin(), rec.kept_here.end(), snap.content) == rec.kept_here.end())
          rec.kept_here.push_back(snap.content);
        if (rec.kept_here.size() > 16) rec.kept_here.erase(rec.kept_here.begin());
        said.version = static_cast<std::uint64_t>(r.version);
        break;
      }
      case choice::keep_both: {
        const std::string copy = copy_name(rs, name, r);
        result<std::uint64_t> written = write_remote(copy, remote_file, 0);
        if (!written) {
          // A sealed save is bound to its name: kept under another only with the key. Held.
          hold(rs, name, r, remote_file);
          said.settled = choice::later;
          said.error = std::move(written).error();
          return;
        }
        said.copy = copy;
        rec.base = baseline{r.version, r.content, 0, 0, r.saved_at_us};
        if (online) {
          push_over(rs, name, snap, r, said);
          result<std::optional<slot_snapshot>> kept = newest_whole(*folder, copy);
          if (kept && *kept) {
            rs.local[copy] = (*kept)->info;
            slot_report copied;
            copied.name = copy;
            if (push(rs, copy, *kept, std::nullopt, copied) != sent::stop) add(rs, std::move(copied));
          }
        }
        break;
      }
      case choice::later:
        hold(rs, name, r, remote_file);
        return;
    }
    if (was) files.drop_held(was->held_file);
    rs.doc.slots[name].conflict.reset();
  }

  // Both sides agree on the slot again (a push acknowledged, a pull written, a deletion
  // taken): the new baseline, and a conflict held from an earlier run is over — its remote
  // save stays a version on the server.
  void agree(slot_record& rec, baseline b) {
    rec.base = std::move(b);
    if (rec.conflict) {
      files.drop_held(rec.conflict->held_file);
      rec.conflict.reset();
    }
  }

  void hold(run_state& rs, const std::string& name, const remote_entry& r, const std::string& remote_file) {
    slot_record& rec = rs.doc.slots[name];
    if (rec.conflict && rec.conflict->remote.version == r.version && rec.conflict->remote.content == r.content)
      return;  // held already
    std::string held;
    if (savekit::status kept = files.hold(sync_files::new_id(), remote_file, held); !kept) {
      rec.last_error = kept.error().message();
      return;
    }
    if (rec.conflict) files.drop_held(rec.conflict->held_file);
    rec.conflict = held_conflict{r, held};
  }

  // Before a slot is deleted here for a deletion made elsewhere: the newest generation of
  // it holding a save that lost a conflict here (rec.kept_here) becomes a slot of its own,
  // named as a keep_both copy after this device, and is pushed. An error if it could not
  // be kept (a sealed save cannot take another name without the key): the slot then stays.
  savekit::status keep_losers(run_state& rs, const std::string& name, slot_report& said) {
    slot_record& rec = rs.doc.slots[name];
    result<std::vector<generation_info>> gens = folder->history(name);
    if (!gens) return std::move(gens).error();
    for (const generation_info& g : *gens) {  // newest first
      if (g.damaged) continue;
      result<slot_snapshot> loser = generation_whole(*folder, name, g.generation);
      // One that cannot be read now (not loaded, IndexedDB failed) may be a loser: the slot stays.
      if (!loser && !a_read_says_it(loser.error())) return std::move(loser).error();
      if (!loser || std::find(rec.kept_here.begin(), rec.kept_here.end(), loser->content) == rec.kept_here.end())
        continue;
      remote_entry mine;
      mine.device = o.device;
      mine.local_saved_at_us = us_of(loser->info.saved_at);
      const std::string copy = copy_name(rs, name, mine);
      if (result<std::uint64_t> written = write_remote(copy, loser->file, 0); !written)
        return std::move(written).error();
      said.copy = copy;
      result<std::optional<slot_snapshot>> kept = newest_whole(*folder, copy);
      if (kept && *kept) {
        rs.local[copy] = (*kept)->info;
        slot_report copied;
        copied.name = copy;
        if (push(rs, copy, **kept, std::nullopt, copied) != sent::stop) add(rs, std::move(copied));
      }
      return {};
    }
    return {};
  }

  // Brings one slot in step (the table in docs/cloud.md, "How a slot is decided").
  // The server's kept version of a slot that holds the save of this content, if any (one
  // request: GET …/versions). An error (no answer) is in said.
  result<std::optional<remote_entry>> kept_version_holding(run_state& rs, const std::string& name,
                                                           const std::string& content, slot_report& said) {
    if (content.empty()) return std::optional<remote_entry>{};
    http_request q;
    q.method = "GET";
    q.target = slot_target(name) + "/versions";
    q.headers = auth();
    q.max_answer_bytes = max_list_answer;
    result<http_response> got = exchange(rs, q);
    if (token_refused(rs, got)) return *rs.fatal;
    if (!got || got->status != 200) {
      said = failed_on(name, got, "the server's versions of the slot could not be had");
      return *said.error;
    }
    result<std::vector<remote_entry>> kept = parse_versions(got->body, name);
    if (!kept) {
      said = failed(name, kept.error());
      return std::move(kept).error();
    }
    for (remote_entry& v : *kept)
      if (v.content == content) return std::optional{std::move(v)};
    return std::optional<remote_entry>{};
  }

  void bring(run_state& rs, const std::string& name, int depth = 0) {
    slot_record& rec = rs.doc.slots[name];
    const auto local_it = rs.local.find(name);
    const auto remote_it = rs.remote.find(name);
    std::optional<remote_entry> r = remote_it == rs.remote.end() ? std::nullopt : std::optional{remote_it->second};
    const bool remote_live = r && !r->deleted;
    slot_report said;
    said.name = name;
    said.version = r ? static_cast<std::uint64_t>(r->version) : 0;

    if (auto bad = rs.unreadable.find(name); bad != rs.unreadable.end())
      return add(rs, failed(name, error{errc::damaged, 0,
                                        "the slot here cannot be read (" + bad->second +
                                            "): it is not synced, and not deleted anywhere, until it can"}));
    // Nothing changed on either side, told from the load menu's entry alone (no save read,
    // nothing hashed): the common case of a run.
    if (const std::optional<baseline>& b = rec.base;
        b && b->local_saved_at_us != 0 && local_it != rs.local.end() && r && !r->deleted && r->version == b->version &&
        (r->content.empty() || r->content == b->content) && local_it->second.generation == b->local_generation &&
        !local_it->second.fell_back() && us_of(local_it->second.saved_at) == b->local_saved_at_us)
      return add(rs, std::move(said));
    std::optional<slot_snapshot> snap;
    if (local_it != rs.local.end()) {
      result<std::optional<slot_snapshot>> got = newest_whole(*folder, name);
      if (!got) return add(rs, failed(name, std::move(got).error()));
      snap = std::move(*got);
    }
    const std::optional<baseline>& b = rec.base;
    // Changed here: another save than the one both sides last agreed on (by its content: a
    // slot deleted and saved again starts its generations at 1 again).
    const bool local_changed = b ? (snap ? snap->content != b->content : b->local_generation != 0) : snap.has_value();
    if (b && snap && !local_changed) {  // the same save (again, by a restore): its generation now
      rec.base->local_generation = snap->info.generation;
      rec.base->local_saved_at_us = us_of(snap->info.saved_at);
    }
    // Changed there: another version than the baseline's — or the same version number with
    // another save in it (the server's history was rewritten: restored from a backup, then
    // written to again by another device).
    const bool remote_changed =
        b ? (!r || r->version != b->version ||
             (remote_live && !r->content.empty() && !b->content.empty() && r->content != b->content))
          : remote_live;

    auto pushing = [&](std::optional<std::int64_t> if_match) {
      if (snap && rec.refused && rec.refused->content == snap->content) {
        said = failed(name, error{errc::network, 0, "the server refused this save before: " + rec.refused->message},
                      rec.refused->http_status, rec.refused->code);
        return add(rs, std::move(said));
      }
      if (rs.deferring) return queue_push(rs, name, snap, if_match, std::move(said));
      sent how = push(rs, name, snap, if_match, said);
      if (how == sent::moved && depth == 0) return bring(rs, name, 1);
      if (how == sent::stop) return;
      add(rs, std::move(said));
    };
    auto pulling = [&]() {
      remote_entry remote = *r;
      result<std::string> file = download_file(rs, name, remote, said);
      if (!file) {
        if (!rs.fatal) add(rs, std::move(said));
        return;
      }
      if (snap && snap->content == remote.content) {  // the same save: nothing to write
        agree(rec, baseline{remote.version, remote.content, snap->info.generation, 0, remote.saved_at_us});
        said.version = static_cast<std::uint64_t>(remote.version);
        return add(rs, std::move(said));
      }
      result<std::uint64_t> written = write_remote(name, *file, snap ? snap->info.generation : 0);
      if (!written) {
        if (written.error().code() == errc::already_exists) return add(rs, std::move(said));  // saved meanwhile
        return add(rs, failed(name, std::move(written).error()));
      }
      agree(rec, baseline{remote.version, remote.content, *written, 0, remote.saved_at_us});
      said.what = outcome::pulled;
      said.version = static_cast<std::uint64_t>(remote.version);
      add(rs, std::move(said));
    };
    auto conflict = [&]() {
      remote_entry remote = *r;
      if (rec.conflict && rec.conflict->remote.version == remote.version &&
          rec.conflict->remote.content == remote.content && !rec.conflict->held_file.empty()) {
        result<std::string> held = files.read_held(rec.conflict->held_file);
        if (held) {
          const choice c = decide(rs, snap->info, remote);
          settle(rs, name, *snap, rec.conflict->remote, *held, c, said, true);
          return add(rs, std::move(said));
        }
      }
      result<std::string> file = download_file(rs, name, remote, said);
      if (!file) {
        if (!rs.fatal) add(rs, std::move(said));
        return;
      }
      if (snap->content == remote.content) {  // both sides made the same save
        agree(rec, baseline{remote.version, remote.content, snap->info.generation, 0, remote.saved_at_us});
        said.version = static_cast<std::uint64_t>(remote.version);
        return add(rs, std::move(said));
      }
      const choice c = decide(rs, snap->info, remote);
      settle(rs, name, *snap, remote, *file, c, said, true);
      add(rs, std::move(said));
    };

    // The newest save here is damaged and an older one reads: that older save is no change
    // of the player's, never pushed over the server's. The server's save, if it differs,
    // is pulled (the damaged one stays set aside, the older one in history).
    if (snap && snap->info.fell_back()) {
      if (remote_live && r->content != snap->content) return pulling();
      return add(rs, failed(name, error{errc::damaged, 0,
                                        "the newest save here is damaged (an older one reads): it is not pushed"}));
    }
    if (!b) {
      if (snap && !remote_live) return pushing(std::nullopt);  // only here: pushed (a tombstone is no save)
      if (!snap && remote_live) return pulling();              // only there: pulled
      if (snap && remote_live) return conflict();              // both, never synced: never a silent copy
      add(rs, std::move(said));                                // neither
      return;
    }
    if (!r && !rs.lists_deleted) return add(rs, std::move(said));  // an older server: deleted or lost, unknown
    if (!r) {
      // The server lost it (never listed, not even deleted): pushed again, never deleted here.
      if (snap) return pushing(std::nullopt);
      rec.base.reset();
      return add(rs, std::move(said));
    }
    // The server's entry is not newer than the baseline, yet is not the baseline's save: the
    // server went back (restored from a backup), and may have been written on since.
    if (r->version <= b->version && (r->version < b->version || remote_changed) && depth < 2) {
      auto rebase = [&](const remote_entry& to) {
        rec.base->version = to.version;
        rec.base->server_saved_at_us = to.saved_at_us;
        return bring(rs, name, depth + 1);
      };
      if (remote_live && !r->content.empty() && r->content == b->content) return rebase(*r);  // renumbered
      // Another device put the baseline's save back since: that version is the baseline.
      result<std::optional<remote_entry>> back = kept_version_holding(rs, name, b->content, said);
      if (!back) {
        if (!rs.fatal) add(rs, std::move(said));
        return;
      }
      if (*back) return rebase(**back);
      // What the server holds was written before the baseline's save (a restore, nothing
      // since): this device's save goes back — never the older one pulled over it.
      const bool older = b->server_saved_at_us != 0 && r->saved_at_us != 0 && r->saved_at_us < b->server_saved_at_us;
      if (older && snap) return pushing(r->deleted ? std::nullopt : std::optional{r->version});
      // Written since, on a history without the baseline's save: both sides changed from
      // an older save — a conflict (this device's save never pulled over silently).
      if (snap && remote_live) return conflict();
    }
    if (!remote_changed) {
      if (!local_changed) return add(rs, std::move(said));
      if (snap) return pushing(r->deleted ? std::nullopt : std::optional{r->version});
      if (rs.blocked.contains(name)) return add(rs, std::move(said));
      return pushing(r->version);  // deleted here: the deletion is pushed
    }
    // The server's slot changed since the baseline.
    if (r->deleted) {
      if (!snap) {  // deleted on both sides
        agree(rec, baseline{r->version, {}, 0, 0, r->saved_at_us});
        return add(rs, std::move(said));
      }
      if (local_changed) {  // deleted there, changed here: the change is kept (pushed again)
        said.what = outcome::conflict;
        said.settled = choice::keep_local;
        slot_report pushed;
        sent how = push(rs, name, snap, std::nullopt, pushed);
        if (how == sent::stop) return;
        if (how != sent::acknowledged) said = std::move(pushed);
        said.version = pushed.version;
        return add(rs, std::move(said));
      }
      // Deleted there, unchanged here: deleted here too (the server keeps its versions) —
      // but a save that lost a conflict here and that the server never had is first kept
      // as a slot of its own, as keep_both would have.
      if (!rec.kept_here.empty())
        if (savekit::status kept = keep_losers(rs, name, said); !kept)
          return add(rs, failed(name, error{kept.error().code(), 0,
                                            "deleted on another device, but a save that lost a conflict here could "
                                            "not be kept as a slot of its own (" +
                                                kept.error().message() + "): not deleted here"}));
      savekit::status removed = slot_sync_access::remove_if_unmoved(*folder, name, snap->info.generation);
      if (!removed) {
        if (removed.error().code() == errc::already_exists) return add(rs, std::move(said));
        return add(rs, failed(name, removed.error()));
      }
      agree(rec, baseline{r->version, {}, 0, 0, r->saved_at_us});
      rec.kept_here.clear();
      said.what = outcome::deleted;
      said.deleted_here = true;
      return add(rs, std::move(said));
    }
    if (!local_changed) return pulling();
    if (!snap) {  // deleted here, changed there: the change is kept (pulled back)
      said.what = outcome::conflict;
      said.settled = choice::keep_remote;
      remote_entry remote = *r;
      slot_report pulled;
      result<std::string> file = download_file(rs, name, remote, pulled);
      if (!file) {
        if (!rs.fatal) add(rs, std::move(pulled));
        return;
      }
      result<std::uint64_t> written = write_remote(name, *file, 0);
      if (!written) return add(rs, failed(name, std::move(written).error()));
      agree(rec, baseline{remote.version, remote.content, *written, 0, remote.saved_at_us});
      said.version = static_cast<std::uint64_t>(remote.version);
      return add(rs, std::move(said));
    }
    conflict();
  }

  // ---- a run ----

  result<report> run_locked(std::optional<std::string> only, std::optional<cloud::policy> p) {
    if (slot_sync_access::read_only(*folder))
      return error{errc::invalid_value, 0, "a read-only slots folder cannot be synced (it could not take a pull)"};
    run_state rs;
    rs.policy = p;
    result<state_document> doc = files.load_state();
    if (!doc) return std::move(doc).error();
    rs.doc = std::move(*doc);
    rs.doc.device = o.device;
    rs.doc.url = o.url;
    device_id = rs.doc.device_id;

    // 1. What an earlier run left unanswered, first (invariant 2 of sync_state.hpp).
    result<std::vector<outbox_entry>> entries = files.load_outbox(&rs.out.unreadable_entries);
    if (!entries) return std::move(entries).error();
    std::vector<slot_report> resent;
    for (const outbox_entry& e : *entries) {
      if (only && e.slot != *only) continue;
      if (rs.blocked.contains(e.slot)) continue;
      slot_report said;
      sent how = send_entry(rs, e, said);
      if (how == sent::stop) break;
      if (how == sent::acknowledged) {
        resent.push_back(std::move(said));
      } else if (how != sent::moved) {
        rs.blocked.insert(e.slot);
        add(rs, std::move(said));
      }
    }
    if (rs.fatal) {
      (void)save_state(rs);
      return *rs.fatal;
    }

    // 2. The server's slots, once.
    http_request list;
    list.method = "GET";
    list.max_answer_bytes = max_list_answer;
    list.target = "/v1/slots?deleted=true";
    list.headers = auth();
    result<http_response> got = exchange(rs, list);
    if (token_refused(rs, got)) {
      (void)save_state(rs);
      return *rs.fatal;
    }
    if (!got || got->status != 200) {
      (void)save_state(rs);
      slot_report why = failed_on("", got, "the server's list of slots could not be had");
      return *why.error;
    }
    result<slot_listing> listing = parse_listing(got->body);
    if (!listing) {
      (void)save_state(rs);
      return std::move(listing).error();
    }
    rs.lists_deleted = listing->lists_deleted;
    for (remote_entry& e : listing->live) rs.remote[e.name] = std::move(e);
    for (remote_entry& e : listing->deleted) rs.remote[e.name] = std::move(e);
    rs.doc.listed_at_us = now_us();

    // 3. The slots here.
    result<std::vector<slot_info>> here = folder->list();
    if (!here) return std::move(here).error();
    // A slot whose saves cannot be read here is not a deleted one: it is never deleted on
    // the server (nor, through it, on the other devices) for it.
    for (slot_info& i : *here)
      if (!i.damaged && i.problem_code == errc::ok)
        rs.local[i.name] = std::move(i);
      else
        rs.unreadable[i.name] = i.problem.empty() ? std::string{"its saves here are damaged"} : i.problem;

    std::set<std::string> names;
    for (const auto& [name, info] : rs.local) names.insert(name);
    for (const auto& [name, e] : rs.remote) names.insert(name);
    for (const auto& [name, rec] : rs.doc.slots)
      if (rec.base || rec.conflict) names.insert(name);
    for (const auto& [name, rec] : rs.doc.slots) {
      (void)rec;
      if (!only || name == *only) {
        auto it = rs.remote.find(name);
        rs.doc.slots[name].listed = it == rs.remote.end() ? std::nullopt : std::optional{it->second};
      }
    }
    for (const auto& [name, e] : rs.remote)
      if (!only || name == *only) rs.doc.slots[name].listed = e;

    // A folder whose saves vanished wholesale (wiped, not deleted one by one) pushes no
    // deletion: at least 3 synced slots, and more than half of them, gone.
    std::size_t synced = 0, gone = 0;
    for (const auto& [name, rec] : rs.doc.slots)
      if (rec.base && rec.base->local_generation != 0) {
        ++synced;
        if (!rs.local.contains(name)) ++gone;
      }
    const bool wiped = gone >= 3 && gone * 2 > synced;

    // 4. Each slot (a conflict's kept copy is pushed by the conflict, and skipped here).
    // Pushes are recorded and sent in batches (send_queued).
    rs.deferring = true;
    for (const std::string& name : names) {
      if (only && name != *only) continue;
      if (rs.blocked.contains(name) || rs.fatal || closing) continue;
      if (std::any_of(rs.out.slots.begin(), rs.out.slots.end(), [&](const slot_report& s) { return s.name == name; }))
        continue;
      slot_record& rec = rs.doc.slots[name];
      if (wiped && rec.base && rec.base->local_generation != 0 && !rs.local.contains(name)) {
        add(rs, failed(name, error{errc::invalid_value, 0,
                                   "most synced slots are missing from the folder: no deletion is pushed (delete "
                                   "slots one by one, or sync a restored folder)"}));
        continue;
      }
      const std::size_t reported = rs.out.slots.size();
      bring(rs, name);
      // What the slot did is kept before the next one: a pull, a deletion here, a conflict
      // (a push saved the state when it was acknowledged). Nothing done, nothing written —
      // a run with nothing changed writes the state once, at its end.
      const bool acted =
          std::any_of(rs.out.slots.begin() + static_cast<std::ptrdiff_t>(reported), rs.out.slots.end(),
                      [](const slot_report& s) { return s.what != outcome::unchanged && s.what != outcome::pushed; });
      if (acted)
        if (savekit::status saved = save_state(rs); !saved) return std::move(saved).error();
    }
    send_queued(rs);
    rs.deferring = false;
    // Records with nothing left to say are dropped.
    for (auto it = rs.doc.slots.begin(); it != rs.doc.slots.end();)
      it = it->second.empty() ? rs.doc.slots.erase(it) : std::next(it);
    if (savekit::status saved = save_state(rs); !saved) return std::move(saved).error();
    // What the report says is kept here (in the browser: once IndexedDB has it).
    if (savekit::status durable = wait_until_durable(*folder); !durable) return std::move(durable).error();
    if (rs.undone) return *rs.undone;
    if (rs.fatal) return *rs.fatal;
    // A change an earlier run left unanswered, acknowledged now: "pushed", unless the slot
    // did more since.
    for (slot_report& r : resent) {
      auto same = std::find_if(rs.out.slots.begin(), rs.out.slots.end(),
                               [&](const slot_report& s) { return s.name == r.name; });
      if (same == rs.out.slots.end())
        rs.out.slots.push_back(std::move(r));
      else if (same->what == outcome::unchanged)
        *same = std::move(r);
    }
    std::sort(rs.out.slots.begin(), rs.out.slots.end(),
              [](const slot_report& a, const slot_report& b) { return a.name < b.name; });
    return std::move(rs.out);
  }

  result<report> run(std::optional<std::string> only, std::optional<cloud::policy> p) {
    if (o.token.empty()) return error{errc::invalid_value, 0, "no token: the sync was opened for status only"};
    std::lock_guard lock(run_mutex);
    return run_locked(std::move(only), p);
  }

  // ---- status ----

  result<slot_state> state_of(const state_document& doc, const std::vector<outbox_entry>& outbox,
                              const std::string& name) {
    slot_state s;
    s.name = name;
    const auto it = doc.slots.find(name);
    const slot_record empty;
    const slot_record& rec = it == doc.slots.end() ? empty : it->second;
    // status() is the game's call, which cannot wait: a save not loaded yet is
    // errc::not_loaded here (in the browser, slots::load_async it first).
    result<std::optional<slot_snapshot>> snap = slot_sync_access::newest(*folder, name);
    if (!snap) return std::move(snap).error();
    if (*snap) s.local = (*snap)->info;
    if (rec.listed) {
      s.remote_version = static_cast<std::uint64_t>(rec.listed->version);
      s.remote_deleted = rec.listed->deleted;
      if (!rec.listed->deleted) {
        s.remote = info_of_remote(*rec.listed);
        s.remote_device = rec.listed->device;
      }
    }
    if (rec.base) s.baseline_version = static_cast<std::uint64_t>(rec.base->version);
    if (!rec.last_error.empty()) s.last_error = error{errc::network, 0, rec.last_error};
    const bool remote_live = rec.listed && !rec.listed->deleted;
    const bool queued =
        std::any_of(outbox.begin(), outbox.end(), [&](const outbox_entry& e) { return e.slot == name; });
    if (rec.conflict) {
      s.state = sync_state::conflict;
    } else if (queued) {
      s.state = sync_state::pending;
    } else if (!rec.base) {
      if (*snap && remote_live)
        s.state = (*snap)->content == rec.listed->content ? sync_state::synced : sync_state::conflict;
      else if (*snap)
        s.state = sync_state::local_only;
      else if (remote_live)
        s.state = sync_state::remote_only;
      else
        return error{errc::not_found, 0, "no slot '" + name + "' here or on the server"};
    } else {
      const baseline& b = *rec.base;
      const bool local_changed = *snap ? (*snap)->content != b.content : b.local_generation != 0;
      // A server gone back (bring's rule, without its one request): holding a save older
      // than the baseline's, this device's is pushed again; written since, a conflict.
      const bool went_back = rec.listed && !rec.listed->deleted && rec.listed->version <= b.version &&
                             !rec.listed->content.empty() && rec.listed->content != b.content;
      const bool rolled_back =
          went_back && *snap && b.server_saved_at_us != 0 && rec.listed->saved_at_us < b.server_saved_at_us;
      const bool remote_changed = !rolled_back && (!rec.listed || rec.listed->version != b.version ||
                                                   (!rec.listed->deleted && !rec.listed->content.empty() &&
                                                    !b.content.empty() && rec.listed->content != b.content));
      if (!*snap && !remote_live && b.local_generation == 0)
        return error{errc::not_found, 0, "slot '" + name + "' is deleted here and on the server"};
      if ((local_changed || (went_back && !rolled_back && *snap)) && remote_changed &&
          !(rec.listed && rec.listed->deleted && !*snap))
        s.state = sync_state::conflict;
      else if (local_changed || rolled_back)
        s.state = sync_state::pending;
      else if (remote_changed)
        s.state = sync_state::remote_only;
      else
        s.state = sync_state::synced;
    }
    return s;
  }
};

// ---- the public face -------------------------------------------------------------------------

sync::sync(std::unique_ptr<impl> i) : impl_(std::move(i)) {}
sync::sync(sync&&) noexcept = default;
sync& sync::operator=(sync&& other) noexcept {
  if (this != &other) {
    retire(std::move(impl_));
    impl_ = std::move(other.impl_);
  }
  return *this;
}
sync::~sync() { retire(std::move(impl_)); }

result<sync> sync::open(slots& s, options o) {
  if (o.device.empty() || o.device.size() > 64 || !slots::check_name(o.device))
    return error{errc::invalid_value, 0, "options.device must name this device (1 to 64 bytes of UTF-8 text)"};
  if (!o.url.starts_with("http://") && !o.url.starts_with("https://"))
    return error{errc::invalid_value, 0, "options.url must start with http:// or https://"};
  {
    // The authority: no credentials in it (they would show in messages and the state), and
    // plain http only to this machine unless asked (the token would cross a network in
    // the clear).
    const std::string_view rest = std::string_view{o.url}.substr(o.url.find("//") + 2);
    const std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
    if (authority.find('@') != std::string_view::npos)
      return error{errc::invalid_value, 0, "options.url must not hold credentials (user@): give options.token"};
    const std::string_view host = authority.starts_with("[") ? authority.substr(0, authority.find(']') + 1)
                                                             : authority.substr(0, authority.find(':'));
    // 127.0.0.0/8 written as an address: "127.example.com" is a name anyone may own.
    const bool loopback_v4 =
        host.starts_with("127.") && host.find_first_not_of("0123456789.") == std::string_view::npos;
    const bool loopback = host == "localhost" || host == "[::1]" || loopback_v4;
    if (o.url.starts_with("http://") && !loopback && !o.allow_plain_http)
      return error{errc::invalid_value, 0,
                   "options.url is plain http to another machine: the token would cross the network in the clear "
                   "(use https://, or options.allow_plain_http for a test server on a trusted network)"};
  }
  if (o.token.find_first_of("\r\n") != std::string::npos)
    return error{errc::invalid_value, 0, "options.token must be the player's token (one line)"};
  std::shared_ptr<cloud::transport> net = o.transport;
  if (!net) {
#ifdef __EMSCRIPTEN__
    result<std::shared_ptr<cloud::transport>> made = make_fetch_transport(o);
#else
    result<std::shared_ptr<cloud::transport>> made = make_curl_transport(o);
#endif
    if (!made) return std::move(made).error();
    net = std::move(*made);
  }
  auto i = std::make_unique<impl>(s, std::move(o), std::move(net));
  if (!slot_sync_access::read_only(s)) {
    if (!i->claim_folder())
      return error{errc::locked, 0, "a sync of " + s.path() + " is open already in this program: use that one"};
    result<state_document> doc = i->files.load_state();
    if (!doc) return std::move(doc).error();
    const bool fresh = doc->url.empty();
    i->device_id = doc->device_id;
    const bool new_token_file = !i->o.token_file.empty() && doc->token_file != i->o.token_file;
    if (fresh || doc->url != i->o.url || doc->device != i->o.device || new_token_file) {
      doc->url = i->o.url;
      doc->device = i->o.device;
      if (new_token_file) doc->token_file = i->o.token_file;
      if (savekit::status saved = i->files.save_state(*doc); !saved) return std::move(saved).error();
    }
  } else if (result<state_document> doc = i->files.load_state()) {
    i->device_id = doc->device_id;
  }
  return sync{std::move(i)};
}

// In the browser a run suspends its caller's stack at every request; a caller's stack is
// the game's, which may be freed meanwhile (the sync closed, the slots too): only
// run_async's run, started from a timer of its own, is safe there.
static std::optional<error> blocking_run_refused() {
#ifdef __EMSCRIPTEN__
  return error{errc::invalid_value, 0, "in the browser a sync runs with run_async (it cannot block the page)"};
#else
  return std::nullopt;
#endif
}
result<report> sync::run() {
  if (std::optional<error> refused = blocking_run_refused()) return *refused;
  return impl_->run(std::nullopt, std::nullopt);
}
result<report> sync::run(cloud::policy p) {
  if (std::optional<error> refused = blocking_run_refused()) return *refused;
  return impl_->run(std::nullopt, p);
}

result<report> sync::run(std::string_view name, std::optional<cloud::policy> p) {
  if (savekit::status valid = slots::check_name(name); !valid) return std::move(valid).error();
  if (std::optional<error> refused = blocking_run_refused()) return *refused;
  return impl_->run(std::string{name}, p);
}

// run_async's run: takes the callbacks queued so far, runs, and hands them the report.
void sync::impl::run_queued_now() {
  std::vector<std::function<void(result<report>)>> callbacks;
  {
    std::lock_guard l(async_mutex);
    callbacks.swap(waiting);
    run_queued = false;
  }
  result<report> r = error{errc::io_error, 0, "the run failed"};
  if (closing) {
    r = error{errc::io_error, 0, "the sync was closed before its run began"};
  } else {
    savekit::status ran = savekit::detail::guarded("cloud sync", [&]() -> savekit::status {
      r = run(std::nullopt, std::nullopt);
      return {};
    });
    if (!ran) r = std::move(ran).error();
  }
  for (auto& cb : callbacks) {
    if (!cb) continue;
    if (o.completions == completion_thread::worker || orphaned) {  // an orphan is never polled again
      savekit::detail::call_safely(cb, r);
    } else {
      std::lock_guard l(async_mutex);
      finished.emplace_back(std::move(cb), r);
    }
  }
}

#ifdef __EMSCRIPTEN__
// clang-format off
EM_JS(void, savekit_cloud_schedule_run, (void* pointer, int delay_ms), {
  setTimeout(function() { Module._savekit_cloud_run_queued(pointer); }, delay_ms);
});
// clang-format on
// In the browser run_async's run starts from a timer of its own, never inside the game's
// call: its requests suspend that stack (Asyncify), and the game's call has returned long
// before. A sync closed meanwhile is freed here, when its run has ended.
extern "C" EMSCRIPTEN_KEEPALIVE void savekit_cloud_run_queued(void* pointer) {
  auto* i = static_cast<sync::impl*>(pointer);
  if (i->async_running) {  // a run_async made while a run was under way: after it
    savekit_cloud_schedule_run(i, 50);
    return;
  }
  i->async_running = true;
  i->run_queued_now();
  i->async_running = false;
  if (i->orphaned) delete i;
}
// clang-format off
// clang-format on
#endif

// Closes a sync: natively after its thread has run what is queued; in the browser, a run
// under way or queued keeps the state alive and frees it when it ends (closing stops it at
// its next slot; the slots must stay open until its callbacks have run).
void sync::retire(std::unique_ptr<impl> i) {
  if (!i) return;
  i->closing = true;
  auto finished_callbacks = [&i] {
    std::vector<std::pair<std::function<void(result<report>)>, result<report>>> ready;
    {
      std::lock_guard lock(i->async_mutex);
      ready.swap(i->finished);
    }
    for (auto& [cb, r] : ready) savekit::detail::call_safely(cb, r);
  };
#ifdef __EMSCRIPTEN__
  if (i->async_running || i->run_queued) {
    finished_callbacks();  // of earlier runs: never polled now
    i->orphaned = true;
    (void)i.release();
    return;
  }
#endif
  i->worker.stop();
  finished_callbacks();
}
void sync::run_async(std::function<void(result<report>)> done) {
  impl* i = impl_.get();
  std::lock_guard lock(i->async_mutex);
  i->waiting.push_back(std::move(done));
  if (i->run_queued) return;  // joins the run queued
  i->run_queued = true;
#ifdef __EMSCRIPTEN__
  savekit_cloud_schedule_run(i, 0);
#else
  const bool posted = i->worker.post([i] { i->run_queued_now(); });
  if (!posted) {
    i->run_queued = false;
    std::vector<std::function<void(result<report>)>> callbacks;
    callbacks.swap(i->waiting);
    for (auto& cb : callbacks)
      if (cb) i->finished.emplace_back(std::move(cb), error{errc::io_error, 0, "the sync's thread could not start"});
  }
#endif
}

std::size_t sync::poll() {
  std::vector<std::pair<std::function<void(result<report>)>, result<report>>> ready;
  {
    std::lock_guard lock(impl_->async_mutex);
    ready.swap(impl_->finished);
  }
  for (auto& [cb, r] : ready) savekit::detail::call_safely(cb, r);
  return ready.size();
}

result<slot_state> sync::status(std::string_view name) {
  if (savekit::status valid = slots::check_name(name); !valid) return std::move(valid).error();
  result<state_document> doc = impl_->files.load_state();
  if (!doc) return std::move(doc).error();
  result<std::vector<outbox_entry>> outbox = impl_->files.load_outbox();
  if (!outbox) return std::move(outbox).error();
  return impl_->state_of(*doc, *outbox, std::string{name});
}

result<remembered_settings> remembered(slots& s) {
  sync_files files(slot_sync_access::fs(s), slot_sync_access::folder(s));
  result<state_document> doc = files.load_state();
  if (!doc) return std::move(doc).error();
  if (doc->url.empty()) return error{errc::not_found, 0, s.path() + " was never synced"};
  return remembered_settings{doc->url, doc->device, doc->device_id, doc->token_file};
}

result<std::vector<slot_state>> sync::status() {
  result<state_document> doc = impl_->files.load_state();
  if (!doc) return std::move(doc).error();
  result<std::vector<outbox_entry>> outbox = impl_->files.load_outbox();
  if (!outbox) return std::move(outbox).error();
  std::set<std::string> names;
  result<std::vector<slot_info>> here = impl_->folder->list();
  if (!here) return std::move(here).error();
  for (const slot_info& i : *here) names.insert(i.name);
  for (const auto& [name, rec] : doc->slots)
    if (rec.listed || rec.base || rec.conflict) names.insert(name);
  for (const outbox_entry& e : *outbox) names.insert(e.slot);
  result<std::vector<slot_state>> out{std::in_place};
  for (const std::string& name : names) {
    result<slot_state> s = impl_->state_of(*doc, *outbox, name);
    if (s) {
      out->push_back(std::move(*s));
    } else if (s.error().code() != errc::not_found) {  // a slot that cannot be read here
      slot_state bad;
      bad.name = name;
      bad.state = sync_state::pending;
      bad.last_error = std::move(s).error();
      out->push_back(std::move(bad));
    }
  }
  return out;
}

savekit::status sync::resolve(std::string_view name, choice c) {
  if (savekit::status valid = slots::check_name(name); !valid) return valid;
  impl& i = *impl_;
#ifdef __EMSCRIPTEN__
  if (i.async_running) return error{errc::locked, 0, "a run of this sync is under way: resolve when it has ended"};
#endif
  std::lock_guard lock(i.run_mutex);
  result<state_document> doc = i.files.load_state();
  if (!doc) return std::move(doc).error();
  const std::string key{name};
  auto it = doc->slots.find(key);
  if (it == doc->slots.end() || !it->second.conflict)
    return error{errc::not_found, 0, "slot '" + key + "' has no open conflict"};
  if (c == choice::later) return {};
  const held_conflict held = *it->second.conflict;
  result<std::string> file = i.files.read_held(held.held_file);
  if (!file) return std::move(file).error();
  // (A call of the game's, which cannot wait: in the browser the slot is loaded first,
  // slots::load_async, or this is errc::not_loaded.)
  result<std::optional<slot_snapshot>> snap = slot_sync_access::newest(*i.folder, name);
  if (!snap) return std::move(snap).error();
  impl::run_state rs;
  rs.doc = std::move(*doc);
  if (result<std::vector<slot_info>> here = i.folder->list())
    for (slot_info& s : *here) rs.local[s.name] = std::move(s);
  slot_report said;
  if (!*snap) {  // the local slot went meanwhile: the remote save is all there is
    result<std::uint64_t> written = i.write_remote(key, *file, 0);
    if (!written) return std::move(written).error();
    rs.doc.slots[key].base = baseline{held.remote.version, held.remote.content, *written, 0, held.remote.saved_at_us};
    i.files.drop_held(held.held_file);
    rs.doc.slots[key].conflict.reset();
  } else {
    i.settle(rs, key, **snap, held.remote, *file, c, said, false);
    if (said.what == outcome::failed && said.error) return *said.error;
    if (said.settled == choice::later && said.error) return *said.error;
  }
  return i.save_state(rs);
}

const std::string& sync::device_id() const { return impl_->device_id; }

// ---- reports and names ------------------------------------------------------------------------

bool report::all_synced() const {
  return unreadable_entries.empty() && std::none_of(slots.begin(), slots.end(), [](const slot_report& s) {
           return s.what == outcome::failed || (s.what == outcome::conflict && s.settled == choice::later) || s.error;
         });
}

std::size_t report::count(outcome what) const {
  return static_cast<std::size_t>(
      std::count_if(slots.begin(), slots.end(), [&](const slot_report& s) { return s.what == what; }));
}

const slot_report* report::find(std::string_view name) const {
  for (const slot_report& s : slots)
    if (s.name == name) return &s;
  return nullptr;
}

std::string_view to_string(sync_state s) {
  switch (s) {
    case sync_state::local_only:
      return "local_only";
    case sync_state::pending:
      return "pending";
    case sync_state::synced:
      return "synced";
    case sync_state::remote_only:
      return "remote_only";
    case sync_state::conflict:
      return "conflict";
  }
  return "?";
}

std::string_view to_string(outcome o) {
  switch (o) {
    case outcome::pushed:
      return "pushed";
    case outcome::pulled:
      return "pulled";
    case outcome::deleted:
      return "deleted";
    case outcome::conflict:
      return "conflict";
    case outcome::unchanged:
      return "unchanged";
    case outcome::failed:
      return "failed";
  }
  return "?";
}

std::string_view to_string(choice c) {
  switch (c) {
    case choice::keep_local:
      return "keep_local";
    case choice::keep_remote:
      return "keep_remote";
    case choice::keep_both:
      return "keep_both";
    case choice::later:
      return "later";
  }
  return "?";
}

std::string_view to_string(cloud::policy p) {
  switch (p) {
    case policy::keep_both:
      return "keep_both";
    case policy::prefer_local:
      return "prefer_local";
    case policy::prefer_remote:
      return "prefer_remote";
    case policy::newest:
      return "newest";
    case policy::callback:
      return "callback";
    case policy::ask:
      return "ask";
  }
  return "?";
}

std::optional<cloud::policy> policy_named(std::string_view name) {
  for (policy p :
       {policy::keep_both, policy::prefer_local, policy::prefer_remote, policy::newest, policy::callback, policy::ask})
    if (to_string(p) == name) return p;
  return std::nullopt;
}

}  // namespace savekit::cloud
