// The IndexedDB prefs backend (savekit/indexeddb.hpp), over the bridge to the JavaScript
// half (idb_bridge.hpp). A record per key: [u8 value_type][value bytes].
//
// Every commit tells the JavaScript half how many records the database holds after it
// (sent_keys_); fewer — other code deleted some — fails it with errc::store_replaced, and
// everything committed and in flight is written back before its caller hears the outcome.
#include <emscripten/emscripten.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#include "idb_bridge.hpp"
#include "savekit/indexeddb.hpp"

// Implemented in savekit_indexeddb.js.
extern "C" {
void savekit_idb_settle_promise(int id, int ok, const char* message);
}

namespace savekit::web {
namespace {

class indexeddb_backend;

struct registry {
  std::set<indexeddb_backend*> hidden_savers;  // backends that commit when the page is hidden
  std::function<void(const std::string&, const status&)> autosave_listener;
  std::function<void(const autosave_event&)> autosave_observer;
};
registry& the_registry() {
  static registry r;  // the browser runs savekit on one thread
  return r;
}

class indexeddb_backend final : public backend, public detail::connection_owner {
  struct owned_changes;

 public:
  indexeddb_backend(std::string name, int connection, loaded_state state, const indexeddb_options& options)
      : name_(std::move(name)), connection_(connection), state_(std::move(state)), options_(options) {
    detail::set_owner(connection_, this);
  }
  ~indexeddb_backend() override {
    // Closed while the database is being reopened after another script upgraded or deleted
    // it: the write-back must not depend on this object, which is going — queue the whole
    // state (what is committed, and what is still in flight) to go out before the close.
    if (!options_.read_only && detail::is_reconnecting(connection_)) {
      committed_state everything = committed_;
      for (const auto& changes : in_flight_) changes->apply_to(everything);
      send(write_all(everything), everything.size(), [](status) {});
    }
    the_registry().hidden_savers.erase(this);
    detail::set_owner(connection_, nullptr);
    detail::close_connection(connection_);  // also releases the Web Lock and stops the autosave
  }

  result<loaded_state> load() override {
    committed_ = state_.entries;
    for (const auto& [key, value] : committed_) sent_keys_.insert(key);
    return std::move(state_);
  }

  void commit(const change_set& changes, std::function<void(status)> done) override {
    if (options_.read_only)
      return done(error{errc::io_error, 0, "savekit:" + name_ + " was opened read-only: nothing is saved"});
    // A copy of the change set, applied to the kept committed state once the browser says
    // the transaction completed (the change set's views die when this returns).
    auto applied = std::make_shared<owned_changes>(changes);
    in_flight_.push_back(applied);
    applied->apply_to_keys(sent_keys_);
    send(changes, sent_keys_.size(), completion(applied, std::move(done)));
  }

  // The database came back after other code upgraded or deleted it; if its saves are gone
  // (emptied), everything committed is written again, before any commit made meanwhile.
  // Otherwise a transaction checks that the records are all there.
  void reconnected(bool emptied) override {
    if (options_.read_only) return;
    if (emptied) return send(write_all(committed_), committed_.size(), report_write_back());
    send(change_set{}, committed_.size(), [this, alive = std::weak_ptr<int>(alive_)](status outcome) {
      if (alive.expired() || outcome || outcome.error().code() != errc::store_replaced) return;
      committed_state everything = everything_sent();
      send(write_all(everything), everything.size(), report_write_back());
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
      detail::start_autosave(connection_, static_cast<int>(std::min<std::int64_t>(every, 0x7FFFFFFF)));
  }

  void autosave_tick() override { autosave(autosave_trigger::interval); }

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
  // What a commit's caller hears: the outcome, once the changes are in the database —
  // written back with everything else if other code had deleted records.
  std::function<void(status)> completion(std::shared_ptr<owned_changes> applied, std::function<void(status)> done) {
    return [this, alive = std::weak_ptr<int>(alive_), applied, done = std::move(done)](status outcome) {
      if (alive.expired()) return done(std::move(outcome));
      if (!outcome && outcome.error().code() == errc::store_replaced && !applied->written_back) {
        emscripten_log(EM_LOG_CONSOLE | EM_LOG_WARN, "savekit: %s; writing every entry of %s back",
                       outcome.error().message().c_str(), name_.c_str());
        applied->written_back = true;
        committed_state everything = everything_sent();
        return send(write_all(everything), everything.size(), completion(applied, done));
      }
      if (outcome) applied->apply_to(committed_);
      std::erase(in_flight_, applied);
      if (!outcome) {  // what was sent is no longer what the database will hold: counted again
        sent_keys_.clear();
        for (const auto& [key, value] : everything_sent()) sent_keys_.insert(key);
      }
      done(std::move(outcome));
    };
  }
  std::function<void(status)> report_write_back() const {
    return [name = name_](status outcome) {
      if (!outcome)
        emscripten_log(EM_LOG_CONSOLE | EM_LOG_ERROR,
                       "savekit: writing %s back after other code deleted its saves failed: %s", name.c_str(),
                       outcome.error().message().c_str());
    };
  }
  // What the database holds once every commit sent has completed.
  committed_state everything_sent() const {
    committed_state everything = committed_;
    for (const auto& changes : in_flight_) changes->apply_to(everything);
    return everything;
  }

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
    void apply_to_keys(std::set<std::string, std::less<>>& keys) const {
      if (clear_all) keys.clear();
      for (const auto& e : entries) {
        if (e.erase)
          keys.erase(e.key);
        else
          keys.insert(e.key);
      }
    }
    struct owned_change {
      std::string key;
      value_type type;
      std::string value;
      bool erase;
    };
    bool clear_all;
    std::vector<owned_change> entries;
    bool written_back = false;  // failed for deleted records, and sent again within everything
  };

  // A change set that empties the database and writes state into it.
  static change_set write_all(const committed_state& state) {
    change_set everything;
    everything.clear_all = true;
    for (const auto& [key, value] : state) everything.changes.push_back(change{key, value.type, value.bytes, false});
    return everything;
  }

  void send(const change_set& changes, std::size_t expected_records, std::function<void(status)> done) {
    detail::change_writer out(changes.clear_all, expected_records);
    for (const change& c : changes.changes) {
      if (c.erase) {
        out.erase(c.key);
        continue;
      }
      const char type = static_cast<char>(c.type);
      out.put(c.key, std::string_view{&type, 1}, c.value);
    }
    detail::send_changes(connection_, out, std::move(done));
  }

  std::string name_;
  int connection_;
  loaded_state state_;
  indexeddb_options options_;
  commit_request request_;
  committed_state committed_;                              // what the database holds, to write back if it is deleted
  std::vector<std::shared_ptr<owned_changes>> in_flight_;  // commits sent, not yet completed
  std::set<std::string, std::less<>> sent_keys_;           // the keys once every commit sent completes
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);  // for completions after the store is gone
};

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

namespace {

// The store's records, as the JavaScript half loaded them, opened as a prefs store.
result<prefs> open_loaded(const std::string& name, int connection, std::string_view records,
                          const indexeddb_options& options) {
  // Records that cannot be read (a foreign writer, damage) are left in the database, untouched,
  // and reported: the store opens with everything else.
  loaded_state state;
  std::string_view in = records;
  std::uint64_t skipped = 0;
  while (!in.empty()) {
    std::string_view key, record;
    if (!detail::take_sized(in, key) || !detail::take_sized(in, record)) {
      detail::close_connection(connection);
      return error{errc::corrupt_store, records.size() - in.size(), "IndexedDB records arrived truncated"};
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
  return prefs::open(std::make_unique<indexeddb_backend>(name, connection, std::move(state), options));
}

}  // namespace

void open_indexeddb(const std::string& name, open_callback done, indexeddb_options options) {
  const bool exclusive = options.exclusive && !options.read_only;
  detail::open_database(
      detail::prefs_database(name),
      [name, options, done = std::move(done)](int connection, std::string_view records, status opened,
                                              const storage_info& storage) {
        if (!opened) return done(std::move(opened).error(), storage);
        done(open_loaded(name, connection, records, options), storage);
      },
      options.request_persistence, exclusive, options.wait_for_lock);
}

void delete_indexeddb(const std::string& name, std::function<void(status)> done) {
  detail::delete_database(detail::prefs_database(name), std::move(done));
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

extern "C" {

EMSCRIPTEN_KEEPALIVE void savekit_idb_page_hidden() {
  using savekit::web::the_registry;
  // Copied: a commit's callback may close a store (and leave the set) synchronously.
  std::vector<savekit::web::indexeddb_backend*> savers(the_registry().hidden_savers.begin(),
                                                       the_registry().hidden_savers.end());
  for (auto* saver : savers)
    if (the_registry().hidden_savers.count(saver)) saver->autosave(savekit::web::autosave_trigger::page_hidden);
}

}  // extern "C"
