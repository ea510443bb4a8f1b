// The PostgreSQL driver (libpq): a pool of connections, each with the statements prepared;
// a write is one transaction whose compare-and-set is a single UPDATE or INSERT … ON
// CONFLICT on the slot's row, so two writers of one version can never both succeed. The
// server keeps nothing else: any number of server processes may share the database. The
// reads and writes themselves are the transaction script (slot_transactions.hpp); this file
// is the session it runs on, the pool, and how a failure is judged.
#include <libpq-fe.h>

#include <poll.h>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>

#include "slot_store.hpp"
#include "slot_transactions.hpp"
#include "store_schema.hpp"

namespace savekit::server {
namespace {

// SQLite's ?N spelled as PostgreSQL's $N.
std::string dollar_parameters(const char* text) {
  std::string out = text;
  for (char& c : out)
    if (c == '?') c = '$';
  return out;
}

// A statement's parameter as libpq takes it: text (sent NUL-terminated, typed by the
// statement) or bytes.
struct param {
  std::string text;
  std::string_view bytes;
  bool binary = false;
  explicit param(const sql_value& v) {
    if (v.kind == sql_value::integer)
      text = std::to_string(v.number);
    else if (v.kind == sql_value::text)
      text = v.chars;
    else
      bytes = v.chars, binary = true;
  }
};

std::int64_t big_endian_integer(const char* p, int length) {
  std::uint64_t v = 0;
  for (int i = 0; i < length; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  if (length < 8 && length > 0 && (static_cast<unsigned char>(p[0]) & 0x80))  // sign-extend SMALLINT and INT
    v |= ~std::uint64_t{0} << (8 * length);
  return static_cast<std::int64_t>(v);
}

// A result, freed when it goes; columns read from binary results.
class pg_result {
 public:
  explicit pg_result(PGresult* r = nullptr) : r_(r) {}
  pg_result(pg_result&& o) noexcept : r_(std::exchange(o.r_, nullptr)) {}
  pg_result& operator=(pg_result&& o) noexcept {
    std::swap(r_, o.r_);
    return *this;
  }
  ~pg_result() { PQclear(r_); }
  PGresult* get() const { return r_; }
  int rows() const { return PQntuples(r_); }
  std::int64_t integer(int row, int column) const {
    return big_endian_integer(PQgetvalue(r_, row, column), PQgetlength(r_, row, column));
  }
  std::string bytes(int row, int column) const {
    return std::string(PQgetvalue(r_, row, column), static_cast<std::size_t>(PQgetlength(r_, row, column)));
  }
  std::string sqlstate() const {
    const char* s = r_ ? PQresultErrorField(r_, PG_DIAG_SQLSTATE) : nullptr;
    return s ? s : "";
  }

 private:
  PGresult* r_;
};

// A row of a binary result.
class pg_row final : public sql_row {
 public:
  pg_row(const pg_result& r, int row) : r_(r), row_(row) {}
  std::int64_t integer(int column) const override { return r_.integer(row_, column); }
  std::string text(int column) const override { return r_.bytes(row_, column); }

 private:
  const pg_result& r_;
  int row_;
};

// Statements are prepared on every connection under their numbers (sql::statement_id).
using sql::statement_count;
using sql::statement_id;
using sql::statement_text;

// What went wrong in a statement: whether the transaction may simply be tried again
// (serialization failure, deadlock), and whether the database is unreachable.
struct pg_problem {
  bool retry = false;
  bool unavailable = false;
  std::string message;
};

// SQLSTATEs after which the client may try again later (503 with Retry-After): nothing was
// written and the cause passes. Connection exceptions (08), an administrator's shutdown or
// a server starting or stopping (57P), this side's statement timeout (57014: a stuck lock,
// a slow disk), a lock not available (55P03), a read-only transaction (25006: a standby,
// a failover in progress), insufficient resources (53: disk full, out of memory, too many
// connections), a system I/O error (58), a serialization failure or deadlock that outlived
// its retries (40001, 40P01); and no state at all (the connection broke).
bool try_again_later(const std::string& state) {
  for (const char* prefix : {"08", "57P", "53", "58"})
    if (state.rfind(prefix, 0) == 0) return true;
  return state.empty() || state == "57014" || state == "55P03" || state == "25006" || state == "40001" ||
         state == "40P01";
}

class connection {
 public:
  connection(std::string conninfo, std::chrono::milliseconds timeout)
      : conninfo_(std::move(conninfo)), timeout_(timeout) {}
  ~connection() { PQfinish(conn_); }

  // The node this connection reached, "host:port" (of a multi-host string, the one it took).
  std::string node() const {
    if (!conn_) return {};
    const std::string host = PQhost(conn_) ? PQhost(conn_) : "";
    const char* port = PQport(conn_);
    // An IPv6 address in brackets, as in a URL; a Unix socket is its folder.
    return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + (port ? port : "");
  }

  // Connected, with the statements prepared (once the schema is there: prepare = false
  // before the migration); false (and why) if the database does not answer.
  bool ready(std::string& problem, bool& reconnected, bool prepare = true) {
    reconnected = false;
    if (conn_ && PQstatus(conn_) == CONNECTION_OK) return !prepare || prepared_ || prepare_all(problem);
    drop();
    conn_ = PQconnectdb(conninfo_.c_str());  // bounded by connect_timeout (open_postgres_store)
    if (PQstatus(conn_) != CONNECTION_OK) {
      problem = std::string{"PostgreSQL does not answer: "} + PQerrorMessage(conn_);
      drop();
      return false;
    }
    reconnected = true;
    PQsetNoticeReceiver(conn_, &connection::on_notice, this);
    // The database's own limit, a second before this side's: a stuck lock or a slow disk
    // ends in an error the database reports, and the connection stays usable.
    const auto server_limit = std::max<std::int64_t>(1000, timeout_.count() - 1000);
    pg_problem ignored;
    simple(("SET statement_timeout = " + std::to_string(server_limit)).c_str(), ignored);
    return conn_ && (!prepare || prepare_all(problem));
  }

  bool prepare_all(std::string& problem) {
    for (int i = 0; i < statement_count; ++i) {
      pg_problem p;
      if (!conn_ ||
          !PQsendPrepare(conn_, std::to_string(i).c_str(), dollar_parameters(statement_text[i]).c_str(), 0, nullptr) ||
          !await(p)) {
        problem = "PostgreSQL could not prepare a statement: " + p.message;
        drop();
        return false;
      }
    }
    prepared_ = true;
    return true;
  }

  // A prepared statement, binary results; nullopt and problem on failure.
  std::optional<pg_result> run(statement_id id, std::initializer_list<sql_value> given, pg_problem& problem) {
    std::vector<param> params;
    params.reserve(given.size());
    for (const sql_value& v : given) params.emplace_back(v);
    std::vector<const char*> values;
    std::vector<int> lengths, formats;
    for (const param& p : params) {
      values.push_back(p.binary ? (p.bytes.empty() ? "" : p.bytes.data()) : p.text.c_str());
      lengths.push_back(p.binary ? static_cast<int>(p.bytes.size()) : 0);
      formats.push_back(p.binary ? 1 : 0);
    }
    if (!conn_ || !PQsendQueryPrepared(conn_, std::to_string(id).c_str(), static_cast<int>(params.size()),
                                       values.data(), lengths.data(), formats.data(), 1))
      return broken(problem);
    return await(problem);
  }

  // A transaction left open by a failed request is rolled back before the connection is
  // used again.
  // Called whenever a connection goes back to the pool: a transaction left open (work
  // that failed or threw half way) is rolled back — or the connection dropped — so that
  // the next user's BEGIN cannot commit it.
  void end_open_transaction() {
    if (conn_ && PQstatus(conn_) == CONNECTION_OK && PQtransactionStatus(conn_) != PQTRANS_IDLE) {
      pg_problem ignored;
      if (!simple("ROLLBACK", ignored) || PQtransactionStatus(conn_) != PQTRANS_IDLE) drop();
    }
  }

  bool simple(const char* text, pg_problem& problem) { return text_query(text, problem).has_value(); }

  // COMMIT, and whether it is known to be on a synchronous standby. PostgreSQL commits on the
  // primary first, then waits for the standby; when that wait is cancelled (this side's
  // statement_timeout, the server shutting down) COMMIT still succeeds, with only a WARNING
  // to say the transaction "might not have been replicated". Such a commit is a failure here
  // (503): a 2xx must mean on the primary and a standby. (What it wrote is there: a replay of
  // its write id is answered once make_durable confirms it.)
  bool commit(pg_problem& problem) {
    sync_wait_cancelled_ = false;
    if (!simple("COMMIT", problem)) return false;
    if (!sync_wait_cancelled_) return true;
    problem.unavailable = true;
    problem.retry = false;
    problem.message =
        "PostgreSQL committed on the primary, but its wait for a synchronous standby was cancelled: the write is not "
        "known to be on a standby";
    return false;
  }

  // Statements with text results (the schema migration).
  std::optional<pg_result> text_query(const char* text, pg_problem& problem) {
    if (!conn_ || !PQsendQuery(conn_, text)) return broken(problem);
    return await(problem);
  }

 private:
  // The result of what was just sent, within the deadline. libpq's blocking calls would
  // wait for a database that is stopped or cut off for as long as it is (TCP keeps such a
  // connection open): past the deadline the connection is dropped — the database rolls
  // its transaction back when it notices — and the database counts as unavailable.
  std::optional<pg_result> await(pg_problem& problem) {
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    auto wait_for = [&](short events) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) return false;
      pollfd p{PQsocket(conn_), events, 0};
      return ::poll(&p, 1, static_cast<int>(left)) > 0;
    };
    for (int flushed; (flushed = PQflush(conn_)) != 0;) {
      if (flushed < 0) return broken(problem);
      if (!wait_for(POLLIN | POLLOUT)) return timed_out(problem);
      if (!PQconsumeInput(conn_)) return broken(problem);
    }
    pg_result last;
    for (;;) {
      while (PQisBusy(conn_)) {
        if (!wait_for(POLLIN)) return timed_out(problem);
        if (!PQconsumeInput(conn_)) return broken(problem);
      }
      PGresult* r = PQgetResult(conn_);
      if (!r) break;
      // Of several statements the first failure stands (the rest did not run).
      if (!last.get() || PQresultStatus(last.get()) == PGRES_COMMAND_OK ||
          PQresultStatus(last.get()) == PGRES_TUPLES_OK)
        last = pg_result(r);
      else
        PQclear(r);
    }
    return checked(std::move(last), problem);
  }

  std::optional<pg_result> timed_out(pg_problem& problem) {
    drop();
    problem.unavailable = true;
    problem.retry = false;
    problem.message = "PostgreSQL did not answer within " + std::to_string(timeout_.count()) + " ms";
    return std::nullopt;
  }
  std::optional<pg_result> broken(pg_problem& problem) {
    problem.unavailable = true;
    problem.retry = false;
    problem.message = std::string{"PostgreSQL: "} + (conn_ ? PQerrorMessage(conn_) : "no connection");
    drop();
    return std::nullopt;
  }
  void drop() {
    PQfinish(conn_);
    conn_ = nullptr;
    prepared_ = false;
  }

  std::optional<pg_result> checked(pg_result r, pg_problem& problem) {
    const ExecStatusType status = PQresultStatus(r.get());
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return r;
    const std::string state = r.sqlstate();
    problem.message = std::string{"PostgreSQL: "} + PQerrorMessage(conn_);
    // 23505: two attempts under one write id for different writes raced past the lookup;
    // tried again, the lookup finds the winner's (409 write_id_reused, not 500).
    problem.retry = state == "40001" || state == "40P01" || state == "23505";
    problem.unavailable = PQstatus(conn_) != CONNECTION_OK || try_again_later(state);
    if (PQstatus(conn_) != CONNECTION_OK) drop();
    return std::nullopt;
  }

  // The WARNING a cancelled wait for synchronous replication gives: by its words ("canceling
  // wait for synchronous replication", in the server's lc_messages: English by default),
  // or its SQLSTATE when the wait ended in the server shutting down (57P01).
  static void on_notice(void* self, const PGresult* notice) {
    const char* severity = PQresultErrorField(notice, PG_DIAG_SEVERITY_NONLOCALIZED);
    const char* message = PQresultErrorField(notice, PG_DIAG_MESSAGE_PRIMARY);
    const char* state = PQresultErrorField(notice, PG_DIAG_SQLSTATE);
    if (!severity || std::string_view{severity} != "WARNING") return;
    if ((message && std::string_view{message}.find("synchronous replication") != std::string_view::npos) ||
        (state && std::string_view{state} == "57P01"))
      static_cast<connection*>(self)->sync_wait_cancelled_ = true;
  }

  std::string conninfo_;
  std::chrono::milliseconds timeout_;
  PGconn* conn_ = nullptr;
  bool prepared_ = false;
  bool sync_wait_cancelled_ = false;  // during the last COMMIT (on_notice)
};

// The session the transaction script runs on: one leased connection, its failure kept in
// the caller's pg_problem (the pool judges it: try again, 503 or 500).
class pg_session final : public sql_session {
 public:
  pg_session(connection& c, pg_problem& p) : c_(c), p_(p) {}
  bool run(const char*, statement_id id, std::initializer_list<sql_value> params, const row_reader& each_row) override {
    std::optional<pg_result> r = c_.run(id, params, p_);
    if (!r) return false;
    if (each_row)
      for (int row = 0; row < r->rows(); ++row) each_row(pg_row{*r, row});
    return true;
  }
  bool begin() override { return c_.simple("BEGIN", p_); }
  bool commit() override { return c_.commit(p_); }
  // A transaction that writes (a row rewritten as it is: WAL, and a commit record after every
  // earlier commit's) waits at COMMIT for a synchronous standby to have all of them. (One that
  // only takes a transaction id writes no WAL before its commit record, and does not wait.)
  // The row is the player's: a player with no row has no version to name, and then the
  // schema's row is rewritten instead.
  bool make_durable(std::string_view player) override {
    if (!c_.simple("BEGIN", p_)) return false;
    std::optional<pg_result> touched = c_.run(sql::lock_player_id, {player}, p_);
    if (!touched) return false;
    if (touched->rows() == 0 && !c_.simple("UPDATE savekit_schema SET version = version WHERE id = 1", p_))
      return false;
    return c_.commit(p_);
  }
  bool rollback() override { return c_.simple("ROLLBACK", p_); }

 private:
  connection& c_;
  pg_problem& p_;
};

class postgres_store final : public slot_store {
 public:
  postgres_store(std::string conninfo, const store_options& options) : options_(options) {
    for (std::uint32_t i = 0; i < std::max<std::uint32_t>(1, options.pool_size); ++i) {
      connections_.push_back(
          std::make_unique<connection>(conninfo, std::chrono::milliseconds(options.query_timeout_ms)));
      idle_.push_back(connections_.back().get());
    }
  }

  // Connects one connection and brings the schema to this server's version, waiting for a
  // database that is still starting up to 30 s.
  bool open(std::string& problem, bool& unavailable) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (;;) {
      lease c = acquire();
      bool reconnected = false;
      if (c.get() && c.get()->ready(problem, reconnected, false))
        return migrate(*c.get(), problem, unavailable) && c.get()->prepare_all(problem);
      if (std::chrono::steady_clock::now() > deadline) {
        unavailable = true;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  }

  store_result<std::vector<slot_entry>> list(std::string_view player, bool with_deleted) override {
    return with_session([&](pg_session& db) { return transactions::list(db, player, with_deleted); });
  }

  store_result<std::optional<slot_entry>> info(std::string_view player, std::string_view name) override {
    return with_session([&](pg_session& db) { return transactions::info(db, player, name); });
  }

  store_result<std::optional<slot_bytes>> read(std::string_view player, std::string_view name,
                                               std::optional<std::int64_t> version) override {
    return with_session([&](pg_session& db) { return transactions::read(db, player, name, version); });
  }

  store_result<write_outcome> put(const put_request& request) override {
    return with_transaction([&](pg_session& db) { return transactions::put(db, request); });
  }

  store_result<write_outcome> remove(const remove_request& request) override {
    return with_transaction([&](pg_session& db) { return transactions::remove(db, request); });
  }

  store_result<std::vector<slot_entry>> versions(std::string_view player, std::string_view name) override {
    return with_session([&](pg_session& db) { return transactions::versions(db, player, name); });
  }

  store_result<std::optional<remembered_write>> remembered(std::string_view player, std::string_view name,
                                                           std::string_view write_id) override {
    return with_session([&](pg_session& db) { return transactions::remembered(db, player, name, write_id); });
  }

  store_result<std::string> ping() override {
    return with_connection([&](connection& c, pg_problem& p) -> std::optional<std::string> {
      // Answering is not enough: a standby (or a primary demoted in a failover) answers
      // and refuses every write.
      auto r = c.text_query("SELECT pg_is_in_recovery(), current_setting('transaction_read_only')", p);
      if (!r) return std::nullopt;
      if (std::string_view{PQgetvalue(r->get(), 0, 0)} != "f" ||
          std::string_view{PQgetvalue(r->get(), 0, 1)} != "off") {
        p.message = "PostgreSQL answers but does not take writes (a standby, or read-only)";
        p.unavailable = true;
        return std::nullopt;
      }
      return c.node();
    });
  }

  store_result<bool> make_durable(std::string_view player) override {
    return with_session([&](pg_session& db) -> std::optional<bool> {
      if (!db.make_durable(player)) return std::nullopt;
      return true;
    });
  }

  pool_stats stats() const override {
    std::lock_guard lock(mutex_);
    return {static_cast<std::uint32_t>(connections_.size()),
            static_cast<std::uint32_t>(connections_.size() - idle_.size()), waits_, reconnects_};
  }
  std::string_view driver() const override { return "postgresql"; }

 private:
  // A connection taken from the pool, given back when it goes.
  class lease {
   public:
    lease(postgres_store* owner, connection* c) : owner_(owner), c_(c) {}
    lease(lease&& o) noexcept : owner_(o.owner_), c_(std::exchange(o.c_, nullptr)) {}
    lease& operator=(lease&&) = delete;
    ~lease() {
      if (c_) owner_->give_back(c_);
    }
    connection* get() const { return c_; }

   private:
    postgres_store* owner_;
    connection* c_;
  };

  lease acquire() {
    std::unique_lock lock(mutex_);
    if (idle_.empty()) {
      ++waits_;
      if (!available_.wait_for(lock, std::chrono::milliseconds(options_.acquire_timeout_ms),
                               [&] { return !idle_.empty(); }))
        return lease(this, nullptr);
    }
    connection* c = idle_.back();
    idle_.pop_back();
    return lease(this, c);
  }
  void give_back(connection* c) {
    {
      std::lock_guard lock(mutex_);
      idle_.push_back(c);
    }
    available_.notify_one();
  }

  // Runs work on a ready connection; a failure becomes unavailable (503) or internal (500).
  template <class Work>
  auto with_connection(Work work)
      -> store_result<typename std::invoke_result_t<Work, connection&, pg_problem&>::value_type> {
    lease c = acquire();
    if (!c.get()) return store_failure{store_failure::unavailable, "every database connection stayed busy"};
    std::string problem;
    bool reconnected = false;
    if (!c.get()->ready(problem, reconnected)) return store_failure{store_failure::unavailable, problem};
    if (reconnected) count_reconnect();
    pg_problem p;
    std::optional<typename std::invoke_result_t<Work, connection&, pg_problem&>::value_type> out;
    try {
      out = work(*c.get(), p);
    } catch (const std::exception& e) {  // std::bad_alloc under a large body, say: nothing is committed
      c.get()->end_open_transaction();
      return store_failure{store_failure::internal, std::string{"the database call failed: "} + e.what()};
    }
    c.get()->end_open_transaction();
    if (out) note_answer();
    if (!out) return store_failure{p.unavailable ? store_failure::unavailable : store_failure::internal, p.message};
    return std::move(*out);
  }

  // The transaction script's call on a session over a ready connection.
  template <class Work>
  auto with_session(Work work) -> store_result<typename std::invoke_result_t<Work, pg_session&>::value_type> {
    return with_connection([&](connection& c, pg_problem& p) {
      pg_session db{c, p};
      return work(db);
    });
  }

  // A write (which runs its own BEGIN … COMMIT), tried again after a serialization failure
  // or a deadlock, at most 5 times.
  template <class Work>
  store_result<write_outcome> with_transaction(Work work) {
    for (int attempt = 0;; ++attempt) {
      bool retry = false;
      auto out = with_connection([&](connection& c, pg_problem& p) -> std::optional<write_outcome> {
        pg_session db{c, p};
        std::optional<write_outcome> done = work(db);
        if (!done) retry = p.retry;
        return done;
      });
      if (out || !retry || attempt == 4) return out;
    }
  }

  bool migrate(connection& c, std::string& problem, bool& unavailable) {
    pg_problem p;
    // Servers starting together race to create the table: one wins, the others see it.
    for (int attempt = 0; attempt < 5 && !c.simple(sql::postgres::schema_table, p); ++attempt)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto fail = [&] {
      problem = p.message;
      unavailable = p.unavailable;
      return false;
    };
    if (!c.simple("BEGIN", p) ||
        !c.simple("INSERT INTO savekit_schema (id, version) VALUES (1, 0) ON CONFLICT (id) DO NOTHING", p))
      return fail();
    auto at_result = c.text_query("SELECT version FROM savekit_schema WHERE id = 1 FOR UPDATE", p);
    if (!at_result) return fail();
    const std::int64_t at = std::atoll(PQgetvalue(at_result->get(), 0, 0));
    if (at > sql::schema_version) {
      c.simple("ROLLBACK", p);
      problem = "the database's schema is version " + std::to_string(at) + ", newer than this server's (" +
                std::to_string(sql::schema_version) + "): run a newer savekit-server";
      return false;
    }
    for (std::int64_t step = at; step < sql::schema_version; ++step)
      if (!c.simple(sql::postgres::migrations[step], p)) return fail();
    const std::string set =
        "UPDATE savekit_schema SET version = " + std::to_string(sql::schema_version) + " WHERE id = 1";
    if (!c.simple(set.c_str(), p) || !c.simple("COMMIT", p)) return fail();
    return true;
  }

  void count_reconnect() {
    std::lock_guard lock(mutex_);
    ++reconnects_;
  }

  store_options options_;
  std::vector<std::unique_ptr<connection>> connections_;
  mutable std::mutex mutex_;
  std::condition_variable available_;
  std::vector<connection*> idle_;
  std::uint64_t waits_ = 0;
  std::uint64_t reconnects_ = 0;
};

// The URI with libpq's connection deadline and TCP keepalives added where the user gave
// none, so that an unreachable database is found out, not waited for.
std::string with_client_limits(std::string uri) {
  // target_session_attrs: of several hosts, the one that takes writes (after a failover too).
  for (const char* setting : {"connect_timeout=5", "keepalives=1", "keepalives_idle=10", "keepalives_interval=5",
                              "keepalives_count=3", "tcp_user_timeout=15000", "target_session_attrs=read-write"}) {
    const std::string key = std::string{setting}.substr(0, std::string{setting}.find('=') + 1);
    const std::size_t query = uri.find('?');
    if (query != std::string::npos &&
        (uri.find("?" + key, query) != std::string::npos || uri.find("&" + key, query) != std::string::npos))
      continue;
    uri += query == std::string::npos ? '?' : '&';
    uri += setting;
  }
  return uri;
}

}  // namespace

std::unique_ptr<slot_store> open_postgres_store(const std::string& conninfo, const store_options& options,
                                                std::string& problem, bool& unavailable) {
  auto store = std::make_unique<postgres_store>(with_client_limits(conninfo), options);
  if (!store->open(problem, unavailable)) return nullptr;
  return store;
}

}  // namespace savekit::server
