// The SQLite driver: one database file in WAL mode with synchronous=FULL (a commit is on
// disk when it returns), one connection behind a mutex (SQLite has one writer at a time
// anyway), every write one BEGIN IMMEDIATE transaction.
#include <sqlite3.h>

#include <algorithm>
#include <mutex>
#include <utility>

#include "slot_store.hpp"
#include "store_schema.hpp"

namespace savekit::server {
namespace {

class statement {
 public:
  statement() = default;
  statement(sqlite3* db, const char* sql, std::string& problem) {
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr) != SQLITE_OK)
      problem = std::string{"SQLite could not prepare a statement: "} + sqlite3_errmsg(db);
  }
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;
  statement(statement&& other) noexcept : stmt_(std::exchange(other.stmt_, nullptr)) {}
  statement& operator=(statement&& other) noexcept {
    std::swap(stmt_, other.stmt_);
    return *this;
  }
  ~statement() { sqlite3_finalize(stmt_); }

  // Binds ?1, ?2, ... in order.
  template <class... Args>
  statement& bind(const Args&... args) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    int at = 1;
    (bind_one(at++, args), ...);
    return *this;
  }
  int step() { return sqlite3_step(stmt_); }
  std::int64_t integer(int column) { return sqlite3_column_int64(stmt_, column); }
  std::string text(int column) {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))) : std::string{};
  }
  std::string blob(int column) {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, column));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))) : std::string{};
  }
  void reset() { sqlite3_reset(stmt_); }

 private:
  void bind_one(int at, std::int64_t v) { sqlite3_bind_int64(stmt_, at, v); }
  void bind_one(int at, std::string_view v) {  // an empty view may have no data: that would bind NULL
    sqlite3_bind_text(stmt_, at, v.empty() ? "" : v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  struct blob_arg {
    std::string_view bytes;
  };

 public:
  static blob_arg as_blob(std::string_view bytes) { return {bytes}; }

 private:
  void bind_one(int at, blob_arg v) {
    sqlite3_bind_blob(stmt_, at, v.bytes.empty() ? "" : v.bytes.data(), static_cast<int>(v.bytes.size()),
                      SQLITE_TRANSIENT);
  }
  sqlite3_stmt* stmt_ = nullptr;
};

// Columns of slot_columns (store_schema.hpp) from column `first` on.
slot_entry entry_from(statement& s, std::string name, int first = 0) {
  slot_entry e;
  e.name = std::move(name);
  e.version = s.integer(first);
  e.deleted = s.integer(first + 1) != 0;
  e.bytes = s.integer(first + 2);
  e.meta = s.text(first + 3);
  e.saved_at_us = s.integer(first + 4);
  e.write_id = s.text(first + 5);
  return e;
}

// Rolls back a transaction still open when a write leaves by an exception (every other
// way out commits or rolls back itself): the next BEGIN must not fail, nor commit it.
class transaction_guard {
 public:
  explicit transaction_guard(sqlite3* db) : db_(db) {}
  transaction_guard(const transaction_guard&) = delete;
  transaction_guard& operator=(const transaction_guard&) = delete;
  ~transaction_guard() {
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }

 private:
  sqlite3* db_;
};

class sqlite_store final : public slot_store {
 public:
  static constexpr int busy_timeout_ms = 10000;  // another process's write transaction, at most

  ~sqlite_store() override {
    statements_.clear();
    sqlite3_close_v2(db_);
  }

  bool open(const std::string& path, std::string& problem) {
    // SQLite's temporary and in-memory databases would answer 201 and lose it all at the
    // next start (a URI filename, file:…, is not taken either: it could say mode=memory).
    if (path.empty() || path == ":memory:" || path.rfind("file:", 0) == 0) {
      problem = "--db sqlite:PATH names a database file (not \"" + path + "\")";
      return false;
    }
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK) {
      problem = "SQLite could not open " + path + ": " + (db_ ? sqlite3_errmsg(db_) : "out of memory");
      return false;
    }
    sqlite3_extended_result_codes(db_, 1);
    // The write-ahead log is cut back to 64 MiB after a checkpoint (one 16 MiB save would
    // otherwise leave it at that size for good).
    {
      // The journal mode SQLite took (a file system without shared memory keeps another).
      statement wal(db_, "PRAGMA journal_mode=WAL", problem);
      if (!problem.empty()) return false;
      if (wal.step() != SQLITE_ROW || wal.text(0) != "wal") {
        problem = "SQLite could not put " + path + " in WAL mode (it stays " + wal.text(0) + ")";
        return false;
      }
    }
    for (const char* pragma : {"PRAGMA synchronous=FULL", "PRAGMA journal_size_limit=67108864"})
      if (!exec(pragma, problem)) return false;
    sqlite3_busy_timeout(db_, busy_timeout_ms);
    if (!migrate(problem)) return false;
    for (const char* text : sql::statement_text) {
      statements_.emplace_back(db_, text, problem);
      if (!problem.empty()) return false;
    }
    return true;
  }

  store_result<std::vector<slot_entry>> list(std::string_view player) override {
    std::lock_guard lock(mutex_);
    auto& s = statements_[sql::list_id].bind(player);
    std::vector<slot_entry> out;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) out.push_back(entry_from(s, s.text(0), 1));
    s.reset();
    if (rc != SQLITE_DONE) return failed("list");
    note_answer();
    return out;
  }

  store_result<std::optional<slot_entry>> info(std::string_view player, std::string_view name) override {
    std::lock_guard lock(mutex_);
    return info_locked(player, name);
  }

  store_result<std::optional<slot_bytes>> read(std::string_view player, std::string_view name,
                                               std::optional<std::int64_t> version) override {
    std::lock_guard lock(mutex_);
    auto& s = version ? statements_[sql::read_version_id].bind(player, name, *version)
                      : statements_[sql::read_current_id].bind(player, name);
    const int rc = s.step();
    std::optional<slot_bytes> out;
    if (rc == SQLITE_ROW) out = slot_bytes{entry_from(s, std::string{name}), s.blob(6)};
    s.reset();
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return failed("read");
    note_answer();
    return out;
  }

  store_result<write_outcome> put(const put_request& r) override {
    std::lock_guard lock(mutex_);
    if (!begin()) return failed("begin");
    transaction_guard guard(db_);
    // A write id sent again: the first answer. (Looked up inside the transaction: another
    // process on the same file cannot come between the lookup and the write.)
    if (!r.write_id.empty()) {
      auto earlier = find_write(r.player, r.name, r.write_id, r.digest);
      if (!earlier) return rollback_with(earlier.failure());
      if (*earlier) {
        rollback_quietly();
        return std::move(**earlier);
      }
    }
    std::optional<std::int64_t> version;
    if (r.expected_version) {
      version = single_integer(statements_[sql::replace_id].bind(r.player, r.name, std::int64_t(r.body.size()), r.meta,
                                                                 r.saved_at_us, r.write_id, *r.expected_version));
    } else {
      version = single_integer(statements_[sql::create_id].bind(r.player, r.name, std::int64_t(r.body.size()), r.meta,
                                                                r.saved_at_us, r.write_id));
      if (version) {
        if (!step_done(statements_[sql::add_player_id].bind(r.player))) return rollback("add a player");
        if (!single_integer(statements_[sql::count_slot_id].bind(r.player, std::int64_t{r.max_slots}))) {
          if (!failed_step_) {
            rollback_quietly();
            return write_outcome{write_outcome::too_many_slots, std::nullopt};
          }
          return rollback("count the slot");
        }
      }
    }
    if (!version) {
      if (failed_step_) return rollback("write");
      rollback_quietly();
      return moved(r.player, r.name);
    }
    fail_here_if_asked(r.name);
    const bool creates = !r.expected_version;
    if (!step_done(statements_[sql::add_version_id].bind(r.player, r.name, *version, statement::as_blob(r.body),
                                                         std::int64_t(r.body.size()), r.meta, r.saved_at_us, r.write_id,
                                                         r.digest, std::int64_t{creates})))
      return rollback("keep the version");
    if (!step_done(statements_[sql::prune_id].bind(r.player, r.name, std::int64_t{r.keep_versions})))
      return rollback("prune old versions");
    slot_entry e{std::string{r.name},     *version, std::int64_t(r.body.size()), r.saved_at_us, std::string{r.meta},
                 std::string{r.write_id}, false};
    if (!remember_write(r.player, r.write_id, e, r.digest, creates, r.forget_writes_before_us, r.keep_write_ids))
      return rollback("keep the write id");
    if (auto problem = commit()) return *problem;
    writes_failing_.clear();
    note_answer();
    return write_outcome{creates ? write_outcome::created : write_outcome::replaced, std::move(e)};
  }

  store_result<write_outcome> remove(const remove_request& r) override {
    std::lock_guard lock(mutex_);
    if (!begin()) return failed("begin");
    transaction_guard guard(db_);
    const std::string digest = deletion_digest(r.expected_version);
    if (!r.write_id.empty()) {
      auto earlier = find_write(r.player, r.name, r.write_id, digest);
      if (!earlier) return rollback_with(earlier.failure());
      if (*earlier) {
        rollback_quietly();
        return std::move(**earlier);
      }
    }
    auto version = single_integer(
        statements_[sql::remove_id].bind(r.player, r.name, r.expected_version, r.saved_at_us, r.write_id));
    if (!version) {
      if (failed_step_) return rollback("delete");
      rollback_quietly();
      return moved(r.player, r.name);
    }
    if (!step_done(statements_[sql::uncount_slot_id].bind(r.player))) return rollback("count the slot");
    slot_entry e{std::string{r.name}, *version, 0, r.saved_at_us, "{}", std::string{r.write_id}, true};
    if (!remember_write(r.player, r.write_id, e, digest, false, r.forget_writes_before_us, r.keep_write_ids))
      return rollback("keep the write id");
    if (auto problem = commit()) return *problem;
    writes_failing_.clear();
    note_answer();
    return write_outcome{write_outcome::deleted, std::move(e)};
  }

  store_result<std::vector<slot_entry>> versions(std::string_view player, std::string_view name) override {
    std::lock_guard lock(mutex_);
    auto& s = statements_[sql::versions_id].bind(player, name);
    std::vector<slot_entry> out;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) out.push_back(entry_from(s, std::string{name}));
    s.reset();
    if (rc != SQLITE_DONE) return failed("list versions");
    return out;
  }

  store_result<std::optional<remembered_write>> remembered(std::string_view player, std::string_view name,
                                                           std::string_view write_id) override {
    std::lock_guard lock(mutex_);
    auto& s = statements_[sql::find_write_id].bind(player, name, write_id);
    const int rc = s.step();
    std::optional<remembered_write> out;
    if (rc == SQLITE_ROW) out = remembered_write{entry_from(s, std::string{name}), s.text(6), s.integer(7) != 0};
    s.reset();
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return failed("look up the write id");
    note_answer();
    return out;
  }

  store_result<bool> ping() override {
    std::lock_guard lock(mutex_);
    std::string problem;
    if (!exec("SELECT 1", problem)) return store_failure{store_failure::internal, problem};
    // Writes failed for a reason that lasts (a full disk, an I/O error). Waiting for a write
    // to show it has passed would never end behind a load balancer that follows /healthz:
    // the check writes itself, one small transaction a call (the monitor's: once a second),
    // only while writes fail.
    if (!writes_failing_.empty() && !writes_again()) return store_failure{store_failure::unavailable, writes_failing_};
    return true;
  }

  pool_stats stats() const override { return {1, 0, 0, 0}; }
  std::string_view driver() const override { return "sqlite"; }

 private:
  bool exec(const char* sql, std::string& problem) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) == SQLITE_OK) return true;
    problem = std::string{"SQLite: "} + (message ? message : sqlite3_errmsg(db_));
    sqlite3_free(message);
    return false;
  }

  // Creates the schema, or moves it to this server's version (store_schema.hpp).
  bool migrate(std::string& problem) {
    if (!exec(sql::sqlite::schema_table, problem) || !exec("BEGIN IMMEDIATE", problem)) return false;
    std::int64_t at = 0;
    {
      statement read(db_, "SELECT version FROM savekit_schema WHERE id = 1", problem);
      if (!problem.empty()) return exec("ROLLBACK", problem), false;
      if (read.step() == SQLITE_ROW) at = read.integer(0);
    }
    if (at > sql::schema_version) {
      exec("ROLLBACK", problem);
      problem = "the database's schema is version " + std::to_string(at) + ", newer than this server's (" +
                std::to_string(sql::schema_version) + "): run a newer savekit-server";
      return false;
    }
    for (std::int64_t step = at; step < sql::schema_version; ++step)
      if (!exec(sql::sqlite::migrations[step], problem)) return exec("ROLLBACK", problem), false;
    const std::string set = "INSERT INTO savekit_schema (id, version) VALUES (1, " +
                            std::to_string(sql::schema_version) +
                            ") ON CONFLICT (id) DO UPDATE SET version = excluded.version";
    if (!exec(set.c_str(), problem)) return exec("ROLLBACK", problem), false;
    return exec("COMMIT", problem);
  }

  store_result<std::optional<slot_entry>> info_locked(std::string_view player, std::string_view name) {
    auto& s = statements_[sql::info_id].bind(player, name);
    const int rc = s.step();
    std::optional<slot_entry> out;
    if (rc == SQLITE_ROW) out = entry_from(s, std::string{name});
    s.reset();
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return failed("read");
    return out;
  }

  // The answer a write id already had, if it is remembered: the same write (same digest)
  // is repeated, another write under the same id is refused.
  store_result<std::optional<write_outcome>> find_write(std::string_view player, std::string_view name,
                                                        std::string_view write_id, std::string_view digest) {
    auto& s = statements_[sql::find_write_id].bind(player, name, write_id);
    const int rc = s.step();
    std::optional<write_outcome> out;
    if (rc == SQLITE_ROW) {
      slot_entry e = entry_from(s, std::string{name});
      const bool same = s.text(6) == digest;
      out = write_outcome{same ? write_outcome::repeated : write_outcome::write_id_reused, std::move(e),
                          s.integer(7) != 0};
    }
    s.reset();
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return failed("look up the write id");
    return out;
  }

  // Keeps what a write id made (if the write has one), and forgets the slot's old ones.
  bool remember_write(std::string_view player, std::string_view write_id, const slot_entry& e, std::string_view digest,
                      bool created, std::int64_t forget_before_us, std::uint32_t keep) {
    if (!write_id.empty() &&
        !step_done(statements_[sql::add_write_id].bind(player, e.name, write_id, e.version, std::int64_t{e.deleted},
                                                       e.bytes, e.meta, e.saved_at_us, digest, std::int64_t{created})))
      return false;
    return step_done(statements_[sql::prune_old_writes_id].bind(player, e.name, forget_before_us)) &&
           step_done(statements_[sql::prune_many_writes_id].bind(player, e.name, e.version - std::int64_t{keep}));
  }

  // A write whose precondition failed: the slot as it is.
  store_result<write_outcome> moved(std::string_view player, std::string_view name) {
    auto now = info_locked(player, name);
    if (!now) return now.failure();
    return write_outcome{write_outcome::version_moved, std::move(*now)};
  }

  // The one integer a RETURNING statement gives, or nullopt (no row; failed_step_ tells
  // whether that was an error).
  std::optional<std::int64_t> single_integer(statement& s) {
    failed_step_ = false;
    const int rc = s.step();
    std::optional<std::int64_t> out;
    if (rc == SQLITE_ROW) {
      out = s.integer(0);
      if (s.step() != SQLITE_DONE) failed_step_ = true, out.reset();
    } else if (rc != SQLITE_DONE) {
      failed_step_ = true;
    }
    s.reset();
    return out;
  }
  bool step_done(statement& s) {
    const int rc = s.step();
    s.reset();
    return rc == SQLITE_DONE;
  }

  // Whether a write commits again: a row added to the schema's table and taken away in one
  // transaction, which writes a page to the log as every write does (an update to the same
  // value would not: SQLite leaves an unchanged page alone). On success writes_failing_ is
  // cleared; on a lasting failure it says the new reason.
  bool writes_again() {
    // Not waiting on another process's write (with the mutex held, requests would): the
    // next round tries again.
    sqlite3_busy_timeout(db_, 0);
    const bool began = begin();
    sqlite3_busy_timeout(db_, busy_timeout_ms);
    if (!began) {
      failed("begin");
      return false;
    }
    transaction_guard guard(db_);
    std::string ignored;
    if (!exec("DELETE FROM savekit_schema WHERE id = -1; INSERT INTO savekit_schema (id, version) VALUES (-1, 0); "
              "DELETE FROM savekit_schema WHERE id = -1",
              ignored)) {
      rollback("write");
      return false;
    }
    if (commit()) return false;
    writes_failing_.clear();
    note_answer();
    return true;
  }

  bool begin() {
    std::string problem;
    return exec("BEGIN IMMEDIATE", problem);
  }
  // Nothing, or why the commit failed (read before the rollback, which would replace it).
  std::optional<store_failure> commit() {
    std::string problem;
    if (exec("COMMIT", problem)) return std::nullopt;
    store_failure f = failed("commit");
    rollback_quietly();
    return f;
  }
  void rollback_quietly() {
    std::string ignored;
    exec("ROLLBACK", ignored);
  }
  // A busy or locked database (another process writes), a full disk or an I/O error: the
  // client may try again later (503), nothing was written.
  // A full disk or an I/O error lasts until someone acts: /healthz says so too (ping) until
  // a write goes through again, so that a load balancer stops sending writes here.
  store_failure failed(const char* what) {
    const int code = sqlite3_extended_errcode(db_) & 0xff;
    const bool lasting = code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_CANTOPEN;
    const bool transient = lasting || code == SQLITE_BUSY || code == SQLITE_LOCKED || code == SQLITE_PROTOCOL;
    store_failure f{transient ? store_failure::unavailable : store_failure::internal,
                    std::string{"SQLite could not "} + what + ": " + sqlite3_errmsg(db_)};
    if (lasting) writes_failing_ = f.message;
    return f;
  }
  store_failure rollback(const char* what) { return rollback_with(failed(what)); }
  store_failure rollback_with(store_failure f) {
    rollback_quietly();
    return f;
  }

  sqlite3* db_ = nullptr;
  std::mutex mutex_;
  std::vector<statement> statements_;
  bool failed_step_ = false;
  std::string writes_failing_;  // why the last write failed, while it lasts (a full disk)
};

}  // namespace

std::unique_ptr<slot_store> open_sqlite_store(const std::string& path, std::string& problem) {
  auto store = std::make_unique<sqlite_store>();
  if (!store->open(path, problem)) return nullptr;
  return store;
}

}  // namespace savekit::server
