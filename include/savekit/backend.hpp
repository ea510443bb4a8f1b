// savekit/backend.hpp — where a prefs store's committed bytes live.
//
// A backend loads the last committed state when the store opens and commits batches of
// changes. commit() may complete later (an IndexedDB transaction does): it calls `done`
// exactly once, with the outcome, possibly after returning. Backends that finish inside
// commit() say so with completes_synchronously(), and prefs::save() then returns the
// outcome directly.
//
// Backends shipped: the file backend (savekit/file_backend.hpp, the desktop default) and
// the memory backend below (tests; games that keep the bytes themselves).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "savekit/error.hpp"

namespace savekit {

// What an entry holds. The numbers are stored in files: never renumber.
enum class value_type : std::uint8_t {
  integer = 1,          // a MessagePack integer (set_int)
  floating = 2,         // a MessagePack float64 (set_float)
  string = 3,           // raw bytes (set_string)
  bytes = 4,            // raw bytes (set_bytes)
  msgpack = 5,          // an object, MessagePack map form (set)
  msgpack_compact = 6,  // an object, MessagePack compact form
  json = 7,             // an object, JSON
  sealed = 8,           // a sealed save (savekit/seal.hpp) of [u8 value_type][bytes] (set_sealed)
  // One past the last known type: a new type goes above this line, and is_known and
  // every switch over value_type (none has a default) name the places to handle it.
  end_of_known_types,
};

// Whether a stored tag names a type this savekit knows. A tag it does not know was
// written by a newer savekit: readers refuse such a store instead of treating it as damage.
constexpr bool is_known(value_type type) noexcept {
  auto tag = static_cast<std::uint8_t>(type);
  return tag >= static_cast<std::uint8_t>(value_type::integer) &&
         tag < static_cast<std::uint8_t>(value_type::end_of_known_types);
}

std::string_view to_string(value_type type) noexcept;

// What every backend can hold, and so what prefs accepts: keys of 1 to max_key_size
// bytes, values of up to max_value_size bytes. A store holding anything else was not
// written by savekit.
inline constexpr std::size_t max_key_size = 1024;
inline constexpr std::size_t max_value_size = std::size_t{256} << 20;  // 256 MiB

// One change in a commit. The views stay valid only until commit() returns: an
// asynchronous backend copies what it needs before that.
struct change {
  std::string_view key;
  value_type type = value_type::bytes;
  std::string_view value;
  bool erase = false;  // true: the key was deleted (type and value unused)
};

// Everything a save() commits, atomically: if clear_all, the state is emptied first.
struct change_set {
  bool clear_all = false;
  std::vector<change> changes;
};

// A committed entry, as loaded.
struct stored_value {
  value_type type = value_type::bytes;
  std::string bytes;
};

// The committed state of a store: every key and its entry, sorted by key.
using committed_state = std::map<std::string, stored_value, std::less<>>;

// Applies a change set to a committed state (what every backend does when a commit lands).
void apply_changes(committed_state& state, const change_set& changes);

// What opening found. A store that needed no repair has recovered == false.
struct recovery_report {
  bool recovered = false;             // something was damaged or cut off and left out
  std::uint64_t commits_loaded = 0;   // commits applied (a compacted store counts as one)
  std::uint64_t bytes_discarded = 0;  // bytes after the last intact commit
  std::string detail;                 // what was wrong, for a log or the player
  std::string damaged_copy;           // where the damaged file was kept, if it was
};

struct loaded_state {
  committed_state entries;
  recovery_report report;
};

class backend {
 public:
  virtual ~backend() = default;

  // Reads the committed state (called once, by prefs::open).
  virtual result<loaded_state> load() = 0;

  // Commits a change set: all of it or nothing. Calls done exactly once.
  virtual void commit(const change_set& changes, std::function<void(status)> done) = 0;

  virtual bool completes_synchronously() const { return true; }

  // True if prefs::save_async should run this (synchronous) backend's commits on a worker
  // thread, so that the caller does not wait for the disk: the file backend. Such a commit
  // may run while other threads call describe() (maintenance() waits for it).
  virtual bool commits_in_background() const { return false; }

  // True if a commit may start while earlier ones are in flight: they complete in the order
  // they were made, each applied on top of the previous (IndexedDB orders readwrite
  // transactions over the same object store this way). prefs then never makes a save wait.
  virtual bool orders_commits() const { return false; }

  // Called once by prefs::open with a function that commits the store's pending changes
  // (as save_async does). A backend that must commit at moments of its own choosing uses it:
  // the IndexedDB backend does when the page is hidden and on its autosave interval. The
  // function returns false, and does not call done, when nothing is pending (or the store
  // is gone): a caller can tell "committed" from "nothing to commit".
  using commit_request = std::function<bool(std::function<void(status)> done)>;
  virtual void attach(commit_request /*request*/) {}

  // A short description for errors and tools ("file saves/player.prefs").
  virtual std::string describe() const = 0;

  // The outcome of the backend's own upkeep after commits (the file backend's compaction).
  // A failure there loses nothing — the commit stands and the store stays intact — but it
  // should not go unnoticed: the file backend's log keeps growing until a retry succeeds.
  virtual status maintenance() const { return {}; }
};

// ---- memory backend ----------------------------------------------------------------------

// The committed bytes of a memory backend. Share one between backends to "reopen" a
// store; set fail_commits to make commits fail (for tests).
struct memory_storage {
  std::mutex mutex;
  committed_state committed;
  std::uint64_t commits = 0;
  bool fail_commits = false;
};

std::unique_ptr<backend> make_memory_backend(std::shared_ptr<memory_storage> storage = nullptr);

}  // namespace savekit
