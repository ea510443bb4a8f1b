// What the transaction script (slot_transactions.hpp) needs of a database: one connection
// that runs the prepared statements of store_schema.hpp, and BEGIN, COMMIT and ROLLBACK.
// Each driver implements it over its own library (SQLite, libpq); how a failure is judged
// (503 or 500, whether to try the transaction again) stays the driver's, kept in the
// session until the driver asks.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

#include "store_schema.hpp"

namespace savekit::server {

// A statement's parameter: an integer, text, or bytes (a blob: BLOB, BYTEA).
struct sql_value {
  enum kind_t { integer, text, blob } kind;
  std::int64_t number = 0;
  std::string_view chars;
  sql_value(std::int64_t v) : kind(integer), number(v) {}
  sql_value(std::string_view v) : kind(text), chars(v) {}
  sql_value(const std::string& v) : kind(text), chars(v) {}
  static sql_value bytes(std::string_view v) {
    sql_value out{v};
    out.kind = blob;
    return out;
  }
};

// One row of a statement's result, read by column (numbered from 0).
class sql_row {
 public:
  virtual std::int64_t integer(int column) const = 0;
  virtual std::string text(int column) const = 0;  // text or bytes, byte for byte

 protected:
  ~sql_row() = default;
};

class sql_session {
 public:
  using row_reader = std::function<void(const sql_row&)>;
  // Runs statement `id` with its parameters (?1, ?2, … in order), calling each_row for each
  // row it returns. False when it failed: the session keeps why, naming `what` was being done.
  virtual bool run(const char* what, sql::statement_id id, std::initializer_list<sql_value> params,
                   const row_reader& each_row = {}) = 0;
  virtual bool begin() = 0;  // a write transaction (SQLite: BEGIN IMMEDIATE)
  virtual bool commit() = 0;
  virtual bool rollback() = 0;  // of a transaction the script ends without a change
  // Returns once everything this database has committed is as durable as a commit of this
  // session's own (outside a transaction). A replicated PostgreSQL commits on the primary
  // before a synchronous standby confirms: a write whose first answer was lost may be there
  // and on no standby yet, and its replay must not be answered 2xx until it is. SQLite, and
  // one PostgreSQL, have nothing to wait for.
  // The small write is one of the player's own (their `players` row rewritten as it is), so
  // that these waits queue per player, not on one row for everyone.
  virtual bool make_durable(std::string_view player) {
    (void)player;
    return true;
  }

 protected:
  ~sql_session() = default;
};

}  // namespace savekit::server
