// Where savekit-server keeps slots: an interface with two drivers, SQLite (one machine,
// the default) and PostgreSQL (any number of server processes on one database). Both run
// the same conformance suite (tests/server). Every write is a compare-and-set on the
// slot's version inside one transaction; docs/server.md, "Storage", has the schema.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace savekit::server {

// A slot as a list shows it (or one kept version of it).
struct slot_entry {
  std::string name;
  std::int64_t version = 0;
  std::int64_t bytes = 0;
  std::int64_t saved_at_us = 0;  // Unix microseconds, the server's clock at the write
  std::string meta = "{}";       // a JSON object's text
  std::string write_id;          // Savekit-Write-Id of the write that made this version, if any
  bool deleted = false;          // the newest version is a deletion
};

struct slot_bytes {
  slot_entry entry;
  std::string body;
};

// Why a store call did not answer: the database is unreachable or restarting (503 and
// Retry-After: the client tries again), or something else went wrong (500).
struct store_failure {
  enum kind_t { unavailable, internal } kind = internal;
  std::string message;
};

template <class T>
class store_result {
 public:
  store_result(T value) : v_(std::move(value)) {}
  store_result(store_failure failure) : v_(std::move(failure)) {}
  explicit operator bool() const { return v_.index() == 0; }
  T& operator*() { return std::get<0>(v_); }
  T* operator->() { return &std::get<0>(v_); }
  const store_failure& failure() const { return std::get<1>(v_); }

 private:
  std::variant<T, store_failure> v_;
};

struct put_request {
  std::string_view player, name, body, meta, write_id;
  std::string_view digest;  // of the precondition, metadata and bytes: with a write id, what it names
  std::optional<std::int64_t> expected_version;  // nullopt: create only (If-None-Match: *)
  std::int64_t saved_at_us = 0;
  std::uint32_t keep_versions = 5;           // the newest kept for restore
  std::uint32_t max_slots = 100;             // live slots per player
  std::uint64_t max_player_bytes = 0;        // what a player keeps (player_bytes); 0: no limit
  std::int64_t forget_writes_before_us = 0;  // write ids of writes older than this are forgotten
  std::uint32_t keep_write_ids = 1000;       // and those of versions older than the newest this many
};

struct remove_request {
  std::string_view player, name, write_id;
  std::int64_t expected_version = 0;
  std::int64_t saved_at_us = 0;
  bool drop_versions = false;  // with a quota: the deletion frees the slot's kept versions
  std::int64_t forget_writes_before_us = 0;
  std::uint32_t keep_write_ids = 1000;
};

// What a deletion is, for its write id (plain text, unlike a put's hash: schema 2's
// migration writes it in SQL).
inline std::string deletion_digest(std::int64_t expected_version) {
  return "delete:" + std::to_string(expected_version);
}

struct write_outcome {
  enum kind_t {
    created,          // a new slot, or one recreated after a deletion (201)
    replaced,         // (200)
    deleted,          // (204)
    repeated,         // a write id sent again for the same write: answered as the first time
    write_id_reused,  // a write id sent again for another write (409)
    version_moved,    // the precondition failed (412); slot: as it is now, if it exists
    too_many_slots,   // (409)
    over_quota,       // the player would keep more than max_player_bytes (409)
  } kind = created;
  std::optional<slot_entry> slot;  // after the write, or as it is (repeated: the version it made)
  bool created_slot = false;       // repeated: the first answer was a creation (201)
};

// What a write id made, as remembered: the version's entry, the digest of the write (its
// precondition, metadata and bytes), and whether it created the slot.
struct remembered_write {
  slot_entry made;
  std::string digest;
  bool created = false;
};

struct pool_stats {
  std::uint32_t size = 0;
  std::uint32_t in_use = 0;
  std::uint64_t waits = 0;       // acquisitions that found every connection busy
  std::uint64_t reconnects = 0;  // connections opened again after a failure
};

class slot_store {
 public:
  virtual ~slot_store() = default;
  // Live slots of a player; with_deleted: the deleted ones too (their deletion's entry,
  // deleted set), for a sync client to tell "deleted elsewhere" from "never synced".
  virtual store_result<std::vector<slot_entry>> list(std::string_view player, bool with_deleted = false) = 0;
  // The newest version (deleted or not) of a slot, without its bytes; nullopt if it never was.
  virtual store_result<std::optional<slot_entry>> info(std::string_view player, std::string_view name) = 0;
  // A live slot's bytes: its newest version, or a kept one.
  virtual store_result<std::optional<slot_bytes>> read(std::string_view player, std::string_view name,
                                                       std::optional<std::int64_t> version) = 0;
  virtual store_result<write_outcome> put(const put_request& request) = 0;
  virtual store_result<write_outcome> remove(const remove_request& request) = 0;
  // The kept versions, newest first (a deleted slot's too); empty if the slot never was.
  virtual store_result<std::vector<slot_entry>> versions(std::string_view player, std::string_view name) = 0;
  // What a write id made, if it is remembered: a look outside any write (before 100
  // Continue); a write looks again inside its own transaction.
  virtual store_result<std::optional<remembered_write>> remembered(std::string_view player, std::string_view name,
                                                                   std::string_view write_id) = 0;
  // Whether the database answers and takes writes; what it is, for /healthz: on a replicated
  // PostgreSQL, the node ("host:port") the pool last reached the primary on.
  virtual store_result<std::string> ping() = 0;
  // Returns once everything the database has committed is as durable as a write's commit
  // (sql_session::make_durable): before an answer names a version read outside a write.
  virtual store_result<bool> make_durable(std::string_view player) {
    (void)player;
    return true;
  }
  virtual pool_stats stats() const = 0;
  virtual std::string_view driver() const = 0;  // "sqlite" or "postgresql"

  // Whether a call of any kind got the database's answer after `asked`: a health check
  // stuck behind busy requests does not make a busy database look dead.
  bool answered_since(std::chrono::steady_clock::time_point asked) const {
    return last_answer_.load(std::memory_order_relaxed) > asked.time_since_epoch().count();
  }

 protected:
  void note_answer() {
    last_answer_.store(std::chrono::steady_clock::now().time_since_epoch().count(), std::memory_order_relaxed);
  }

 private:
  std::atomic<std::chrono::steady_clock::rep> last_answer_{0};
};

struct store_options {
  std::uint32_t pool_size = 8;              // PostgreSQL connections
  std::uint32_t acquire_timeout_ms = 5000;  // waiting for a free connection: then unavailable
  std::uint32_t query_timeout_ms = 10000;   // waiting for the database's answer: then unavailable
};

// "sqlite:PATH" or "postgresql://…" / "postgres://…" (a libpq connection URI). Opens the
// database, creating or migrating its schema; a schema newer than this server refuses.
store_result<std::unique_ptr<slot_store>> open_slot_store(std::string_view url, const store_options& options);

// For the fault tests only: throws when slot_name is the environment's
// SAVEKIT_SERVER_TEST_FAULT_SLOT (the drivers call it inside a write, after its
// compare-and-set, where an exception — std::bad_alloc under a large body — could come).
void fail_here_if_asked(std::string_view slot_name);

std::unique_ptr<slot_store> open_sqlite_store(const std::string& path, std::string& problem);
std::unique_ptr<slot_store> open_postgres_store(const std::string& conninfo, const store_options& options,
                                                std::string& problem, bool& unavailable);

}  // namespace savekit::server
