// The SQLite driver: one database file in WAL mode with synchronous=FULL (a commit is on
// disk when it returns), one connection behind a mutex (SQLite has one writer at a time
// anyway), every write one BEGIN IMMEDIATE transaction. The reads and writes themselves are
// the transaction script (slot_transactions.hpp); this file is the session it runs on.
#include <sqlite3.h>

#include <algorithm>
#include <mutex>
#include <utility>

#include "slot_store.hpp"
#include "slot_transactions.hpp"
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
  void bind_all(std::initializer_list<sql_value> values) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    int at = 1;
    for (const sql_value& v : values) {
      // An empty view may have no data: that would bind NULL.
      const char* chars = v.chars.empty() ? "" : v.chars.data();
      const int size = static_cast<int>(v.chars.size());
      if (v.kind == sql_value::integer)
        sqlite3_bind_int64(stmt_, at, v.number);
      else if (v.kind == sql_value::text)
        sqlite3_bind_text(stmt_, at, chars, size, SQLITE_TRANSIENT);
      else
        sqlite3_bind_blob(stmt_, at, chars, size, SQLITE_TRANSIENT);
      ++at;
    }
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
  sqlite3_stmt* stmt_ = nullptr;
};

// A row of a statement being stepped.
class sqlite_row final : public sql_row {
 public:
  explicit sqlite_row(statement& s) : s_(s) {}
  std::int64_t integer(int column) const override { return s_.integer(column); }
  std::string text(int column) const override { return s_.blob(column); }

 private:
  statement& s_;
};

// Rolls back a transaction a write left open — a statement failed (the transaction script
// leaves that to its driver) or an exception left it: the next BEGIN must not fail, nor
// commit it.
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

class sqlite_store final : public slot_store, private sql_session {
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

  store_result<std::vector<slot_entry>> list(std::string_view player, bool with_deleted) override {
    std::lock_guard lock(mutex_);
    return answered(transactions::list(*this, player, with_deleted));
  }

  store_result<std::optional<slot_entry>> info(std::string_view player, std::string_view name) override {
    std::lock_guard lock(mutex_);
    return answered(transactions::info(*this, player, name));
  }

  store_result<std::optional<slot_bytes>> read(std::string_view player, std::string_view name,
                                               std::optional<std::int64_t> version) override {
    std::lock_guard lock(mutex_);
    return answered(transactions::read(*this, player, name, version));
  }

  store_result<write_outcome> put(const put_request& request) override {
    std::lock_guard lock(mutex_);
    transaction_guard guard(db_);
    return written(transactions::put(*this, request));
  }

  store_result<write_outcome> remove(const remove_request& request) override {
    std::lock_guard lock(mutex_);
    transaction_guard guard(db_);
    return written(transactions::remove(*this, request));
  }

  store_result<std::vector<slot_entry>> versions(std::string_view player, std::string_view name) override {
    std::lock_guard lock(mutex_);
    return answered(transactions::versions(*this, player, name));
  }

  store_result<std::optional<remembered_write>> remembered(std::string_view player, std::string_view name,
                                                           std::string_view write_id) override {
    std::lock_guard lock(mutex_);
    return answered(transactions::remembered(*this, player, name, write_id));
  }

  store_result<std::string> ping() override {
    std::lock_guard lock(mutex_);
    std::string problem;
    if (!exec("SELECT 1", problem)) return store_failure{store_failure::internal, problem};
    // Writes failed for a reason that lasts (a full disk, an I/O error). Waiting for a write
    // to show it has passed would never end behind a load balancer that follows /healthz:
    // the check writes itself, one small transaction a call (the monitor's: once a second),
    // only while writes fail.
    if (!writes_failing_.empty() && !writes_again()) return store_failure{store_failure::unavailable, writes_failing_};
    return std::string{};  // one file, one machine: nothing to name
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

  // ---- the session the transaction script runs on ----

  bool run(const char* what, sql::statement_id id, std::initializer_list<sql_value> params,
           const row_reader& each_row) override {
    statement& s = statements_[id];
    s.bind_all(params);
    int rc;
    while ((rc = s.step()) == SQLITE_ROW)
      if (each_row) each_row(sqlite_row{s});
    if (rc != SQLITE_DONE) {
      failure_ = failed(what);  // read before the reset, which may replace the message
      s.reset();
      return false;
    }
    s.reset();
    return true;
  }
  bool begin() override {
    std::string problem;
    if (exec("BEGIN IMMEDIATE", problem)) return true;
    failure_ = failed("begin");
    return false;
  }
  // Why a commit failed is read before the rollback, which would replace it.
  bool commit() override {
    std::string problem;
    if (exec("COMMIT", problem)) return true;
    failure_ = failed("commit");
    rollback();
    return false;
  }
  // A failed ROLLBACK leaves the transaction to transaction_guard, which tries again.
  bool rollback() override {
    std::string ignored;
    exec("ROLLBACK", ignored);
    return true;
  }

  // A script's answer, or the failure its session kept.
  template <class T>
  store_result<T> answered(std::optional<T> out) {
    if (!out) return failure_;
    note_answer();
    return std::move(*out);
  }
  // Only a write that committed says writes go through again: one that changed nothing (a
  // failed precondition, a write id sent again) needed no disk, and leaves /healthz as it is.
  store_result<write_outcome> written(std::optional<write_outcome> out) {
    if (out && (out->kind == write_outcome::created || out->kind == write_outcome::replaced ||
                out->kind == write_outcome::deleted))
      writes_failing_.clear();
    return answered(std::move(out));
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
    if (!began) return false;
    transaction_guard guard(db_);
    std::string ignored;
    if (!exec("DELETE FROM savekit_schema WHERE id = -1; INSERT INTO savekit_schema (id, version) VALUES (-1, 0); "
              "DELETE FROM savekit_schema WHERE id = -1",
              ignored)) {
      failed("write");
      return false;
    }
    if (!commit()) return false;
    writes_failing_.clear();
    note_answer();
    return true;
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
  sqlite3* db_ = nullptr;
  std::mutex mutex_;
  std::vector<statement> statements_;
  store_failure failure_;       // why the session's last call failed
  std::string writes_failing_;  // why the last write failed, while it lasts (a full disk)
};

}  // namespace

std::unique_ptr<slot_store> open_sqlite_store(const std::string& path, std::string& problem) {
  auto store = std::make_unique<sqlite_store>();
  if (!store->open(path, problem)) return nullptr;
  return store;
}

}  // namespace savekit::server
