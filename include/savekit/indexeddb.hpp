// savekit/indexeddb.hpp — saves kept in the browser's IndexedDB (WebAssembly builds).
//
//   savekit::web::open_indexeddb("player", [](savekit::result<savekit::prefs> p,
//                                             const savekit::web::storage_info& storage) {
//     if (!p) return show(p.error());        // storage_unavailable, locked, corrupt_store...
//     if (storage.persisted != savekit::web::persistence::granted) warn_may_be_evicted();
//     game.store = std::move(*p);
//   });
//   ...
//   game.store->save_async([](savekit::status s) { /* the transaction has completed */ });
//
// One IndexedDB database per store ("savekit:" + name) holds a record per key, so a commit
// writes only the keys that changed, in one readwrite transaction with durability "strict":
// save_async reports success only once the browser says the transaction completed, and a
// failed transaction (QuotaExceededError → errc::storage_full, abort, closed connection →
// errc::io_error) changes nothing that was committed — the changes stay pending for a retry.
//
// Opening is asynchronous (IndexedDB has no blocking calls), so it takes a callback. It
// requests persistent storage (navigator.storage.persist()) and reports the answer, holds a
// Web Lock so that a second tab gets errc::locked instead of overwriting the first one's
// saves, and reports a browser without IndexedDB (disabled storage, opaque origins) as
// errc::storage_unavailable — never a silent memory-only store.
//
// Pending changes are committed when the page is hidden (visibilitychange) and on pagehide:
// the last moments a browser reliably gives a page — and, with autosave_every, at an
// interval, because a browser the OS quits or a tab that is killed gives none.
//
// A second tab gets errc::locked, or waits for the store (wait_for_lock), or opens it to
// read (read_only). A database that other code on the site opened first — without a
// version, or with one of its own — still opens: savekit adds its stores if they are
// missing; only a database written by a newer savekit (its meta.format) is refused.
//
// Available only when compiled with Emscripten; the JavaScript half is
// src/web/savekit_indexeddb.js, linked by the savekit::savekit target.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "savekit/error.hpp"
#include "savekit/prefs.hpp"
#include "savekit/slots.hpp"

namespace savekit::web {

// navigator.storage.persist()'s answer: whether the browser promised not to evict the saves.
enum class persistence : std::uint8_t {
  not_requested,  // indexeddb_options::request_persistence was false
  granted,        // the saves are kept until the player deletes them
  denied,         // the browser may evict them under storage pressure (what ordinary profiles answer
                  // too: it does not tell private browsing apart)
  unsupported,    // no Storage API (navigator.storage): nothing is known
};
std::string_view to_string(persistence p) noexcept;

struct storage_info {
  persistence persisted = persistence::not_requested;
  std::uint64_t usage = 0;  // navigator.storage.estimate(): bytes this origin uses, 0 if unknown
  std::uint64_t quota = 0;  // and may use, 0 if unknown
};

struct indexeddb_options {
  bool request_persistence = true;  // call navigator.storage.persist() while opening
  bool save_when_hidden = true;     // commit pending changes on visibilitychange (hidden) and pagehide
  bool exclusive = true;            // hold a Web Lock: a second open (another tab) gets errc::locked
  // With exclusive: instead of errc::locked, wait until the tab that has the store closes it
  // (or is closed), then open — the way a second tab takes over.
  bool wait_for_lock = false;
  // Open to show the saves, not to change them: no lock (another tab may have the store and
  // go on saving; this is a snapshot), and every commit fails with errc::io_error.
  bool read_only = false;
  // Commit pending changes this often while there are any (zero: never). A tab killed or a
  // browser quit by the operating system (logout, shutdown: SIGTERM) fires no page event,
  // so without it everything since the last save is lost; with it, at most this much play.
  std::chrono::milliseconds autosave_every{0};
};

using open_callback = std::function<void(result<prefs> store, const storage_info& storage)>;

// Opens (creating if missing) the store `name`; calls done once its committed state is loaded.
void open_indexeddb(const std::string& name, open_callback done, indexeddb_options options = {});

// Deletes the store's database (a "new game", tests). Fails with errc::locked while it is open.
void delete_indexeddb(const std::string& name, std::function<void(status)> done);

// What made savekit commit on its own, and what came of it.
enum class autosave_trigger : std::uint8_t {
  page_hidden,  // visibilitychange (hidden) or pagehide
  interval,     // indexeddb_options::autosave_every
};
struct autosave_event {
  std::string name;  // the store
  autosave_trigger trigger = autosave_trigger::page_hidden;
  bool committed = false;  // false: nothing was pending, nothing was written (outcome is ok)
  status outcome;          // the commit's outcome, when there was one
};

// Called after every automatic commit (name, outcome): such a commit has no caller to
// report to. Only when something was pending: a hide with nothing to save is not "saved".
// Failures are also written to the console.
void set_autosave_listener(std::function<void(const std::string& name, const status& outcome)> listener);
// The same, for every automatic attempt, with its trigger and "nothing to commit" told apart.
void on_autosave(std::function<void(const autosave_event& event)> listener);

// ---- slots ----------------------------------------------------------------------------------
//
//   savekit::web::open_slots("player", [](savekit::result<savekit::slots> s, const savekit::web::storage_info&) {
//     if (!s) return show(s.error());
//     for (const savekit::slot_info& slot : s->list()) ...        // the load menu, at once
//     s->load_async("slot1", [&](savekit::status loaded) {          // the save, from IndexedDB
//       if (loaded) game = s->read<Game>("slot1").value();
//     });
//     s->write_async("slot1", game, meta, [](savekit::status saved) { /* in IndexedDB, or not */ });
//   });
//
// The same slots (savekit/slots.hpp) in IndexedDB: database "savekit-slots:" + name, a
// record per generation file, in the format of the files on a disk (docs/slot-format.md),
// and beside each its head (header, name, metadata, thumbnail). IndexedDB has no blocking
// calls: the slots open on the heads — the load menu, thumbnails, info and history are at
// hand at once — and a save's bytes are fetched by slots::load_async; a read of a save not
// loaded is errc::not_loaded. A save written here stays loaded; an older generation lets
// go of its bytes once a newer one of its slot is in IndexedDB. A change is made in memory
// at once and sent to IndexedDB when the calling JavaScript task ends, the changes of one
// call (a write and the pruning of its oldest generation, a rename) in one readwrite
// transaction, durability "strict". write_async's callback runs when the browser has
// completed that transaction. A failed transaction (QuotaExceededError →
// errc::storage_full) undoes its changes in memory too, and those of the transactions
// queued behind it: the slots read as IndexedDB holds them.
enum class slot_loading {
  on_demand,           // heads at open; load_async fetches a save (memory: the saves loaded)
  everything_at_open,  // every kept generation at open, every read at once (memory: all of them; tools)
};
struct indexeddb_slots_options {
  slots_options slots = {};         // encoding, keep_generations, read_only, ... (its fs is not used)
  bool request_persistence = true;  // as indexeddb_options
  bool exclusive = true;            // a Web Lock: a second tab gets errc::locked
  bool wait_for_lock = false;       // ... or waits for the tab that has the slots
  slot_loading load = slot_loading::on_demand;
};
using open_slots_callback = std::function<void(result<slots> opened, const storage_info& storage)>;
void open_slots(const std::string& name, open_slots_callback done, indexeddb_slots_options options = {});
// Deletes the slots' database; errc::locked while they are open (with exclusive, the default).
void delete_slots(const std::string& name, std::function<void(status)> done);

// Resolves (or rejects, with an Error whose message is "code: message") the JavaScript promise that
// Module.savekitPromise(fn) created and handed to fn as `id`: how a C++ function exported to
// JavaScript gives the page a promise of a save's outcome.
void settle_js_promise(int id, const status& outcome);

}  // namespace savekit::web
