// The bridge between savekit's C++ and its JavaScript half (savekit_indexeddb.js), shared
// by the IndexedDB prefs backend and the IndexedDB slots. The JavaScript half owns the
// database connections; the two talk through integer ids and byte buffers in a simple
// length-prefixed layout (little-endian u32 lengths):
//   loaded records ([u32 key size][key][u32 record size][record])*
//   change set     [u8 clear_all] ([u8 op: 1 put, 2 delete][u32 key size][key]
//                                  (put: [u32 record size][record]))*
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "savekit/error.hpp"
#include "savekit/indexeddb.hpp"

namespace savekit::web::detail {

// The database a store or a slots folder lives in; also its Web Lock's name.
inline std::string prefs_database(const std::string& name) { return "savekit:" + name; }
inline std::string slots_database(const std::string& name) { return "savekit-slots:" + name; }

// What owns an open connection hears of it here.
class connection_owner {
 public:
  virtual ~connection_owner() = default;
  // The database came back after other code upgraded or deleted it; emptied: its records are gone.
  virtual void reconnected(bool emptied) = 0;
  virtual void autosave_tick() {}  // savekit_idb_autosave's interval
  virtual void soon() {}           // request_soon's callback: the JavaScript task has ended
};

// Opened: connection (0 on failure), the loaded records, the outcome, the storage answer.
using opened_fn = std::function<void(int connection, std::string_view records, status opened, const storage_info&)>;
void open_database(const std::string& database, opened_fn done, bool request_persistence, bool exclusive,
                   bool wait_for_lock);
void delete_database(const std::string& database, std::function<void(status)> done);

// Routes a connection's reconnect, autosave and soon calls to owner (nullptr: stops).
void set_owner(int connection, connection_owner* owner);
void close_connection(int connection);  // also releases the Web Lock
bool is_reconnecting(int connection);
void start_autosave(int connection, int milliseconds);
void request_soon(int connection);  // owner->soon() once the running JavaScript task ends

// Builds a change set.
class change_writer {
 public:
  explicit change_writer(bool clear_all) { buffer_.push_back(clear_all ? 1 : 0); }
  // A record of two parts (a prefs value's type byte, then its bytes), stored as one.
  void put(std::string_view key, std::string_view record_prefix, std::string_view record);
  void erase(std::string_view key);
  const std::string& bytes() const { return buffer_; }

 private:
  std::string buffer_;
};
// Sends a change set as one readwrite transaction (durability "strict"); done gets the
// outcome once the browser reports the transaction completed or failed. Transactions
// sent on one connection run in the order they were sent.
void send_changes(int connection, const change_writer& changes, std::function<void(status)> done);

// Reads [u32 size][bytes] from the front of in; false if the buffer ends first.
bool take_sized(std::string_view& in, std::string_view& out);

}  // namespace savekit::web::detail
