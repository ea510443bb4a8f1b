// The IndexedDB backend: the C++ half. The JavaScript half (savekit_indexeddb.js) owns the
// database connections; the two talk through the savekit_idb_* functions below, with
// integer request ids instead of function pointers, and byte buffers in a simple
// length-prefixed layout (little-endian u32 lengths):
//   loaded state   ([u32 key size][key][u32 record size][record])*
//   change set     [u8 clear_all] ([u8 op: 1 put, 2 delete][u32 key size][key]
//                                  (put: [u32 record size][record]))*
//   record         [u8 value_type][value bytes]      (what IndexedDB stores per key)
#include <emscripten/emscripten.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#include "savekit/indexeddb.hpp"

// Implemented in savekit_indexeddb.js.
extern "C" {
void savekit_idb_open(const char* name, int request, int request_persistence, int exclusive, int wait_for_lock);
void savekit_idb_autosave(int connection, int milliseconds);
int savekit_idb_is_reconnecting(int connection);
void savekit_idb_commit(int connection, int request, const std::uint8_t* data, std::size_t size);
void savekit_idb_close(int connection);
void savekit_idb_delete(const char* name, int request);
void savekit_idb_settle_promise(int id, int ok, const char* message);
}

namespace savekit::web {
namespace {

// What the JavaScript half reports; mirrors SAVEKIT_IDB.kind in savekit_indexeddb.js.
enum class outcome_kind : int { ok = 0, unavailable = 1, full = 2, io = 3, locked = 4, newer_format = 5 };

status to_status(int kind, const char* message) {
  std::string text = message ? message : "";
  switch (static_cast<outcome_kind>(kind)) {
    case outcome_kind::ok:
      return {};
    case outcome_kind::unavailable:
      return error{errc::storage_unavailable, 0, text};
    case outcome_kind::full:
      return error{errc::storage_full, 0, text};
    case outcome_kind::locked:
      return error{errc::locked, 0, text};
    case outcome_kind::newer_format:
      return error{errc::unsupported_version, 0, text};
    case outcome_kind::io:
      break;
  }
  return error{errc::io_error, 0, text};
}

void put_u32(std::string& out, std::size_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

// Reads [u32 size][bytes]; false if the buffer ends first.
bool take_sized(std::string_view& in, std::string_view& out) {
  if (in.size() < 4) return false;
  std::uint32_t size = 0;
  for (int i = 0; i < 4; ++i) size |= std::uint32_t{static_cast<unsigned char>(in[i])} << (8 * i);
  in.remove_prefix(4);
  if (in.size() < size) return false;
  out = in.substr(0, size);
  in.remove_prefix(size);
  return true;
}

class indexeddb_backend;

struct registry {
  int next_request = 1;
  std::unordered_map<int, std::function<void(status)>> waiting;  // commits and deletions
  struct pending_open {
    std::string name;
    open_callback done;
    indexeddb_options options;
  };
  std::unordered_map<int, pending_open> opens;
  std::set<indexeddb_backend*> hidden_savers;                 // backends that commit when the page is hidden
  std::unordered_map<int, indexeddb_backend*> by_connection;  // for autosave ticks
  std::function<void(const std::string&, const status&)> autosave_listener;
  std::function<void(const autosave_event&)> autosave_observer;
};
registry& the_registry() {
  static registry r;  // the browser runs savekit on one thread
  return r;
}

class indexeddb_backend final : public backend {
 public:
  indexeddb_backend(std::string name, int connection, loaded_state state, const indexeddb_options& options)
      : name_(std::move(name)), connection_(connection), state_(std::move(state)), options_(options) {
    the_registry().by_connection[connection_] = this;
  }
  ~indexeddb_backend() override {
    // Closed while the database is being reopened after another script upgraded or deleted
    // it: the write-back must not depend on this object, which is going — queue the whole
    // state (what is committed, and what is still in flight) to go out before the close.
    if (!options_.read_only && savekit_idb_is_reconnecting(connection_)) {
      committed_state everything = committed_;
      for (const auto& changes : in_flight_) changes->apply_to(everything);
      send(write_all(everything), [](status) {});
    }
    the_registry().hidden_savers.erase(this);
    the_registry().by_connection.erase(connection_);
    savekit_idb_close(connection_);  // also releases the Web Lock and stops the autosave
  }

  result<loaded_state> load() override {
    committed_ = state_.entries;
    return std::move(state_);
  }

  void commit(const change_set& changes, std::function<void(status)> done) override {
    if (options_.read_only)
      return done(error{errc::io_error, 0, "savekit:" + name_ + " was opened read-only: nothing is saved"});
    // A copy of the change set, applied to the kept committed state once the browser says
    // the transaction completed (the change set's views die when this returns).
    auto applied = std::make_shared<owned_changes>(changes);
    in_flight_.push_back(applied);
    send(changes, [this, alive = std::weak_ptr<int>(alive_), applied, done = std::move(done)](status outcome) {
      if (!alive.expired()) {
        if (outcome) applied->apply_to(committed_);
        std::erase(in_flight_, applied);
      }
      done(std::move(outcome));
    });
  }

  // The database came back after other code upgraded or deleted it; if its saves are gone
  // (emptied), everything committed is written again, before any commit made meanwhile.
  void reconnected(bool emptied) {
    if (!emptied || options_.read_only) return;
    send(write_all(committed_), [name = name_](status outcome) {
      if (!outcome)
        emscripten_log(EM_LOG_CONSOLE | EM_LOG_ERROR,
                       "savekit: writing %s back after its database was deleted failed: %s", name.c_str(),
                       outcome.error().message().c_str());
    });
  }

  bool completes_synchronously() const override { return false; }
  // IndexedDB runs readwrite transactions over one object store in the order they were made.
  bool orders_commits() const override { return true; }
  std::string describe() const override { return "IndexedDB savekit:" + name_; }

  void attach(commit_request request) override {
    request_ = std::move(request);
    if (options_.read_only) return;
    if (options_.save_when_hidden) the_registry().hidden_savers.insert(this);
    if (auto every = options_.autosave_every.count(); every > 0)
      savekit_idb_autosave(connection_, static_cast<int>(std::min<std::int64_t>(every, 0x7FFFFFFF)));
  }

  // Commits what is pending, if anything, and tells the listeners.
  void autosave(autosave_trigger trigger) {
    bool started = request_([name = name_, trigger](status outcome) {
      if (!outcome)
        emscripten_log(EM_LOG_CONSOLE | EM_LOG_ERROR, "savekit: saving %s automatically failed: %s", name.c_str(),
                       outcome.error().message().c_str());
      // Copies: a listener may replace itself.
      if (auto listener = the_registry().autosave_listener) listener(name, outcome);
      if (auto observer = the_registry().autosave_observer) observer(autosave_event{name, trigger, true, outcome});
    });
    if (!started)
      if (auto observer = the_registry().autosave_observer) observer(autosave_event{name_, trigger, false, {}});
  }

 private:
  // A change set that owns its bytes.
  struct owned_changes {
    explicit owned_changes(const change_set& changes) : clear_all(changes.clear_all) {
      for (const change& c : changes.changes)
        entries.push_back({std::string{c.key}, c.type, std::string{c.value}, c.erase});
    }
    void apply_to(committed_state& state) const {
      change_set view;
      view.clear_all = clear_all;
      for (const auto& e : entries) view.changes.push_back(change{e.key, e.type, e.value, e.erase});
      apply_changes(state, view);
    }
    struct owned_change {
      std::string key;
      value_type type;
      std::string value;
      bool erase;
    };
    bool clear_all;
    std::vector<owned_change> entries;
  };

  // A change set that empties the database and writes state into it.
  static change_set write_all(const committed_state& state) {
    change_set everything;
    everything.clear_all = true;
    for (const auto& [key, value] : state) everything.changes.push_back(change{key, value.type, value.bytes, false});
    return everything;
  }

  void send(const change_set& changes, std::function<void(status)> done) {
    std::string buffer;
    buffer.push_back(changes.clear_all ? 1 : 0);
    for (const change& c : changes.changes) {
      buffer.push_back(c.erase ? 2 : 1);
      put_u32(buffer, c.key.size());
      buffer.append(c.key);
      if (c.erase) continue;
      put_u32(buffer, c.value.size() + 1);
      buffer.push_back(static_cast<char>(c.type));
      buffer.append(c.value);
    }
    registry& r = the_registry();
    int request = r.next_request++;
    r.waiting.emplace(request, std::move(done));
    // The JavaScript half copies the buffer before returning and reports later.
    savekit_idb_commit(connection_, request, reinterpret_cast<const std::uint8_t*>(buffer.data()), buffer.size());
  }

  std::string name_;
  int connection_;
  loaded_state state_;
  indexeddb_options options_;
  commit_request request_;
  committed_state committed_;                              // what the database holds, to write back if it is deleted
  std::vector<std::shared_ptr<owned_changes>> in_flight_;  // commits sent, not yet completed
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);  // for completions after the store is gone
};

persistence to_persistence(int code) {
  switch (code) {
    case 1:
      return persistence::granted;
    case 2:
      return persistence::denied;
    case 3:
      return persistence::unsupported;
    default:
      return persistence::not_requested;
  }
}

}  // namespace

std::string_view to_string(persistence p) noexcept {
  switch (p) {
    case persistence::not_requested:
      return "not_requested";
    case persistence::granted:
      return "granted";
    case persistence::denied:
      return "denied";
    case persistence::unsupported:
      return "unsupported";
  }
  return "unknown";
}

void open_indexeddb(const std::string& name, open_callback done, indexeddb_options options) {
  registry& r = the_registry();
  int request = r.next_request++;
  r.opens.emplace(request, registry::pending_open{name, std::move(done), options});
  bool exclusive = options.exclusive && !options.read_only;
  savekit_idb_open(name.c_str(), request, options.request_persistence, exclusive, options.wait_for_lock);
}

void delete_indexeddb(const std::string& name, std::function<void(status)> done) {
  registry& r = the_registry();
  int request = r.next_request++;
  r.waiting.emplace(request, std::move(done));
  savekit_idb_delete(name.c_str(), request);
}

void set_autosave_listener(std::function<void(const std::string&, const status&)> listener) {
  the_registry().autosave_listener = std::move(listener);
}

void on_autosave(std::function<void(const autosave_event&)> listener) {
  the_registry().autosave_observer = std::move(listener);
}

void settle_js_promise(int id, const status& outcome) {
  std::string text;
  if (!outcome) text = std::string{to_string(outcome.error().code())} + ": " + outcome.error().message();
  savekit_idb_settle_promise(id, outcome ? 1 : 0, text.c_str());
}

}  // namespace savekit::web

// ---- called by savekit_indexeddb.js --------------------------------------------------------

using namespace savekit;
using namespace savekit::web;

extern "C" {

// Buffers for what the JavaScript half hands over (strings, loaded records).
EMSCRIPTEN_KEEPALIVE char* savekit_idb_alloc(std::size_t size) { return new char[size]; }
EMSCRIPTEN_KEEPALIVE void savekit_idb_free(char* buffer) { delete[] buffer; }

EMSCRIPTEN_KEEPALIVE void savekit_idb_opened(int request, int connection, const char* records, std::size_t size,
                                             int kind, const char* message, int persisted, double usage, double quota) {
  registry& r = the_registry();
  auto found = r.opens.find(request);
  if (found == r.opens.end()) return;
  auto [name, done, options] = std::move(found->second);
  r.opens.erase(found);

  storage_info storage{to_persistence(persisted), static_cast<std::uint64_t>(usage), static_cast<std::uint64_t>(quota)};
  if (status opened = to_status(kind, message); !opened) return done(std::move(opened).error(), storage);

  // Records that cannot be read (a foreign writer, damage) are left in the database, untouched,
  // and reported: the store opens with everything else.
  loaded_state state;
  std::string_view in(records ? records : "", size);
  std::uint64_t skipped = 0;
  while (!in.empty()) {
    std::string_view key, record;
    if (!take_sized(in, key) || !take_sized(in, record)) {
      savekit_idb_close(connection);
      return done(error{errc::corrupt_store, size - in.size(), "IndexedDB records arrived truncated"}, storage);
    }
    if (record.empty() || !is_known(static_cast<value_type>(record[0])) || key.empty() ||
        key.size() > prefs::max_key_size) {
      ++skipped;
      continue;
    }
    state.entries.emplace(std::string{key},
                          stored_value{static_cast<value_type>(record[0]), std::string{record.substr(1)}});
  }
  if (skipped) {
    state.report.recovered = true;
    state.report.detail = std::to_string(skipped) + " IndexedDB record(s) of an unknown kind were left out";
  }
  state.report.commits_loaded = 1;
  auto store = prefs::open(std::make_unique<indexeddb_backend>(name, connection, std::move(state), options));
  done(std::move(store), storage);
}

// A commit or a deletion has finished.
EMSCRIPTEN_KEEPALIVE void savekit_idb_finished(int request, int kind, const char* message) {
  registry& r = the_registry();
  auto found = r.waiting.find(request);
  if (found == r.waiting.end()) return;
  auto done = std::move(found->second);
  r.waiting.erase(found);
  done(to_status(kind, message));
}

EMSCRIPTEN_KEEPALIVE void savekit_idb_page_hidden() {
  // Copied: a commit's callback may close a store (and leave the set) synchronously.
  std::vector<indexeddb_backend*> savers(the_registry().hidden_savers.begin(), the_registry().hidden_savers.end());
  for (auto* saver : savers)
    if (the_registry().hidden_savers.count(saver)) saver->autosave(autosave_trigger::page_hidden);
}

EMSCRIPTEN_KEEPALIVE void savekit_idb_reconnected(int connection, int emptied) {
  auto& stores = the_registry().by_connection;
  if (auto found = stores.find(connection); found != stores.end()) found->second->reconnected(emptied != 0);
}

EMSCRIPTEN_KEEPALIVE void savekit_idb_autosave_tick(int connection) {
  auto& stores = the_registry().by_connection;
  if (auto found = stores.find(connection); found != stores.end()) found->second->autosave(autosave_trigger::interval);
}

}  // extern "C"
