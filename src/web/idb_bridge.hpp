// The bridge between savekit's C++ and its JavaScript half (savekit_indexeddb.js), shared
// by the IndexedDB prefs backend and the IndexedDB slots. The JavaScript half owns the
// database connections; the two talk through integer ids and byte buffers in a simple
// length-prefixed layout (little-endian u32 lengths):
//   loaded records ([u32 key size][key][u32 record size][record])*
//                  a store's record is its bytes; a slots folder's is
//                  [u8 1][head record] (a generation file not loaded: see below), or
//                  [u8 2: head stored, 3: none][u32 blob id][u32 size] (loaded, kept in JavaScript),
//                  or [u8 4] (a head whose file is gone)
//   head record    [u64 file size][the file's first bytes] (empty: the file has none)
//   change set     [u8 clear_all][u32 records expected after it]
//                  ([u8 op][u32 key size][key] then, by op:
//                     1 put          [u32 record size][record]
//                     2 delete       (the entry, and a file's head)
//                     3 put file     [u32 blob id][u32 size][head record]
//                     4 move file    [u32 size][key it is under][u32 size][head record]
//                     5 ensure file  [u32 blob id, 0: not loaded][u32 size][head record]
//                     6 put head     [u32 size][head record]
//                  )*
// A commit that finds fewer records than expected after its changes (other code deleted
// some) completes, but reports errc::store_replaced: the owner then writes everything back.
// A move or an ensure that finds a file not loaded gone reports its key (commit_done).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

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
enum class open_contents {
  records,     // a store's: every record, in the WebAssembly heap
  slot_heads,  // a slots folder's: heads, and whole the files that have none (kept_bytes)
  slot_files,  // a slots folder's: every file whole (kept_bytes)
};
void open_database(const std::string& database, opened_fn done, bool request_persistence, bool exclusive,
                   bool wait_for_lock, open_contents contents = open_contents::records);
void delete_database(const std::string& database, std::function<void(status)> done);

// Routes a connection's reconnect, autosave and soon calls to owner (nullptr: stops).
void set_owner(int connection, connection_owner* owner);
void close_connection(int connection);  // also releases the Web Lock
bool is_reconnecting(int connection);
void start_autosave(int connection, int milliseconds);
void request_soon(int connection);  // owner->soon() once the running JavaScript task ends

// Bytes the JavaScript half keeps, outside the WebAssembly heap (whose 2 GB would otherwise
// have to hold every kept generation of a slots folder, twice while opening): immutable,
// released when the last reference goes. Reads copy into the heap.
class kept_bytes {
 public:
  kept_bytes(std::uint32_t id, std::size_t size) : id_(id), size_(size) {}  // adopts id
  static std::shared_ptr<const kept_bytes> keep(std::string_view bytes);
  ~kept_bytes();
  kept_bytes(const kept_bytes&) = delete;
  kept_bytes& operator=(const kept_bytes&) = delete;

  std::uint32_t id() const { return id_; }
  std::size_t size() const { return size_; }
  std::string read(std::uint64_t offset, std::size_t n) const;  // up to n bytes from offset

 private:
  std::uint32_t id_;
  std::size_t size_;
};

// Reads a slot file's entry, after the transactions sent before; done gets its bytes, or
// nullptr when there is no such record (or it is not bytes).
using fetched_fn = std::function<void(result<std::shared_ptr<const kept_bytes>>)>;
void fetch_record(int connection, std::string_view key, fetched_fn done);

// Builds a change set. expected_records: how many records the database holds after it, as
// far as savekit knows (other code's records make it more, never fewer).
class change_writer {
 public:
  change_writer(bool clear_all, std::size_t expected_records);
  // A record of two parts (a prefs value's type byte, then its bytes), stored as one.
  void put(std::string_view key, std::string_view record_prefix, std::string_view record);
  void erase(std::string_view key);
  // Slot files: with the head record to store beside (empty: none).
  void put_file(std::string_view key, const kept_bytes& file, std::string_view head);
  void move_file(std::string_view key, std::string_view stored_under, std::string_view head);
  void ensure_file(std::string_view key, const kept_bytes* loaded, std::string_view head);
  void put_head(std::string_view key, std::string_view head);
  const std::string& bytes() const { return buffer_; }

 private:
  void start(std::uint8_t op, std::string_view key);
  std::string buffer_;
};
// Sends a change set as one readwrite transaction (durability "strict"); done gets the
// outcome once the browser reports the transaction completed or failed, with the keys of
// the files not loaded that it found gone. Transactions sent on one connection run in the
// order they were sent.
using commit_done = std::function<void(status, std::vector<std::string> missing)>;
void send_changes(int connection, const change_writer& changes, commit_done done);
void send_changes(int connection, const change_writer& changes, std::function<void(status)> done);

// Reads [u32 size][bytes] from the front of in; false if the buffer ends first.
bool take_sized(std::string_view& in, std::string_view& out);

}  // namespace savekit::web::detail
