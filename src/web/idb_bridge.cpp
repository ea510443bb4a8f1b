// The C++ end of the bridge to savekit_indexeddb.js (see idb_bridge.hpp).
#include "idb_bridge.hpp"

#include <emscripten/emscripten.h>

#include <algorithm>
#include <unordered_map>

// Implemented in savekit_indexeddb.js.
extern "C" {
void savekit_idb_open(const char* database, int request, int request_persistence, int exclusive, int wait_for_lock,
                      int contents);
void savekit_idb_fetch(int connection, int request, const char* key, std::size_t key_size);
std::uint32_t savekit_idb_blob_keep(const char* data, std::size_t size);
void savekit_idb_blob_read(std::uint32_t id, double offset, std::size_t n, char* out);
void savekit_idb_blob_release(std::uint32_t id);
void savekit_idb_autosave(int connection, int milliseconds);
int savekit_idb_is_reconnecting(int connection);
void savekit_idb_commit(int connection, int request, const std::uint8_t* data, std::size_t size);
void savekit_idb_close(int connection);
void savekit_idb_delete(const char* database, int request);
void savekit_idb_soon(int connection);
}

namespace savekit::web::detail {
namespace {

// What the JavaScript half reports; mirrors SAVEKIT_IDB.kind in savekit_indexeddb.js.
enum class outcome_kind : int { ok = 0, unavailable = 1, full = 2, io = 3, locked = 4, newer_format = 5, lost = 6 };

status to_status(int kind, const char* message) {
  std::string text = message ? message : "";
  switch (static_cast<outcome_kind>(kind)) {
    case outcome_kind::ok:
      return {};
    case outcome_kind::unavailable:
      return error{errc::storage_unavailable, 0, text};
    case outcome_kind::full:
      return error{errc::storage_full, 0, text};
    case outcome_kind::locked:
      return error{errc::locked, 0, text};
    case outcome_kind::newer_format:
      return error{errc::unsupported_version, 0, text};
    case outcome_kind::lost:
      return error{errc::store_replaced, 0, text};
    case outcome_kind::io:
      break;
  }
  return error{errc::io_error, 0, text};
}

void put_u32(std::string& out, std::size_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

persistence to_persistence(int code) {
  switch (code) {
    case 1:
      return persistence::granted;
    case 2:
      return persistence::denied;
    case 3:
      return persistence::unsupported;
    default:
      return persistence::not_requested;
  }
}

struct registry {
  int next_request = 1;
  std::unordered_map<int, commit_done> waiting;               // commits and deletions
  std::unordered_map<int, std::vector<std::string>> missing;  // what a commit found gone, until it finishes
  std::unordered_map<int, opened_fn> opens;
  std::unordered_map<int, fetched_fn> fetches;
  std::unordered_map<int, connection_owner*> owners;
};
registry& the_registry() {
  static registry r;  // the browser runs savekit on one thread
  return r;
}

connection_owner* owner_of(int connection) {
  auto& owners = the_registry().owners;
  auto found = owners.find(connection);
  return found == owners.end() ? nullptr : found->second;
}

}  // namespace

void open_database(const std::string& database, opened_fn done, bool request_persistence, bool exclusive,
                   bool wait_for_lock, open_contents contents) {
  registry& r = the_registry();
  int request = r.next_request++;
  r.opens.emplace(request, std::move(done));
  savekit_idb_open(database.c_str(), request, request_persistence, exclusive, wait_for_lock,
                   static_cast<int>(contents));
}

void fetch_record(int connection, std::string_view key, fetched_fn done) {
  registry& r = the_registry();
  int request = r.next_request++;
  r.fetches.emplace(request, std::move(done));
  savekit_idb_fetch(connection, request, key.data(), key.size());
}

void delete_database(const std::string& database, std::function<void(status)> done) {
  registry& r = the_registry();
  int request = r.next_request++;
  r.waiting.emplace(request, [done = std::move(done)](status s, std::vector<std::string>) { done(std::move(s)); });
  savekit_idb_delete(database.c_str(), request);
}

void set_owner(int connection, connection_owner* owner) {
  if (owner)
    the_registry().owners[connection] = owner;
  else
    the_registry().owners.erase(connection);
}

void close_connection(int connection) { savekit_idb_close(connection); }
bool is_reconnecting(int connection) { return savekit_idb_is_reconnecting(connection) != 0; }
void start_autosave(int connection, int milliseconds) { savekit_idb_autosave(connection, milliseconds); }
void request_soon(int connection) { savekit_idb_soon(connection); }

std::shared_ptr<const kept_bytes> kept_bytes::keep(std::string_view bytes) {
  return std::make_shared<const kept_bytes>(savekit_idb_blob_keep(bytes.data(), bytes.size()), bytes.size());
}
kept_bytes::~kept_bytes() { savekit_idb_blob_release(id_); }
std::string kept_bytes::read(std::uint64_t offset, std::size_t n) const {
  if (offset >= size_) return {};
  n = static_cast<std::size_t>(std::min<std::uint64_t>(n, size_ - offset));
  std::string out(n, '\0');
  if (n) savekit_idb_blob_read(id_, static_cast<double>(offset), n, out.data());
  return out;
}

change_writer::change_writer(bool clear_all, std::size_t expected_records) {
  buffer_.push_back(clear_all ? 1 : 0);
  put_u32(buffer_, expected_records);
}

void change_writer::start(std::uint8_t op, std::string_view key) {
  buffer_.push_back(static_cast<char>(op));
  put_u32(buffer_, key.size());
  buffer_.append(key);
}

void change_writer::put(std::string_view key, std::string_view record_prefix, std::string_view record) {
  start(1, key);
  put_u32(buffer_, record_prefix.size() + record.size());
  buffer_.append(record_prefix);
  buffer_.append(record);
}

void change_writer::erase(std::string_view key) { start(2, key); }

void change_writer::put_file(std::string_view key, const kept_bytes& file, std::string_view head) {
  start(3, key);
  put_u32(buffer_, file.id());
  put_u32(buffer_, head.size());
  buffer_.append(head);
}

void change_writer::move_file(std::string_view key, std::string_view stored_under, std::string_view head) {
  start(4, key);
  put_u32(buffer_, stored_under.size());
  buffer_.append(stored_under);
  put_u32(buffer_, head.size());
  buffer_.append(head);
}

void change_writer::ensure_file(std::string_view key, const kept_bytes* loaded, std::string_view head) {
  start(5, key);
  put_u32(buffer_, loaded ? loaded->id() : 0);
  put_u32(buffer_, head.size());
  buffer_.append(head);
}

void change_writer::put_head(std::string_view key, std::string_view head) {
  start(6, key);
  put_u32(buffer_, head.size());
  buffer_.append(head);
}

void send_changes(int connection, const change_writer& changes, std::function<void(status)> done) {
  send_changes(connection, changes,
               [done = std::move(done)](status s, std::vector<std::string>) { done(std::move(s)); });
}

void send_changes(int connection, const change_writer& changes, commit_done done) {
  registry& r = the_registry();
  int request = r.next_request++;
  r.waiting.emplace(request, std::move(done));
  const std::string& bytes = changes.bytes();
  // The JavaScript half copies the buffer before returning and reports later.
  savekit_idb_commit(connection, request, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

bool take_sized(std::string_view& in, std::string_view& out) {
  if (in.size() < 4) return false;
  std::uint32_t size = 0;
  for (int i = 0; i < 4; ++i) size |= std::uint32_t{static_cast<unsigned char>(in[i])} << (8 * i);
  in.remove_prefix(4);
  if (in.size() < size) return false;
  out = in.substr(0, size);
  in.remove_prefix(size);
  return true;
}

}  // namespace savekit::web::detail

// ---- called by savekit_indexeddb.js --------------------------------------------------------

using namespace savekit;
using namespace savekit::web::detail;

extern "C" {

// Buffers for what the JavaScript half hands over (strings, loaded records).
EMSCRIPTEN_KEEPALIVE char* savekit_idb_alloc(std::size_t size) { return new char[size]; }
EMSCRIPTEN_KEEPALIVE void savekit_idb_free(char* buffer) { delete[] buffer; }

EMSCRIPTEN_KEEPALIVE void savekit_idb_opened(int request, int connection, const char* records, std::size_t size,
                                             int kind, const char* message, int persisted, double usage, double quota) {
  registry& r = the_registry();
  auto found = r.opens.find(request);
  if (found == r.opens.end()) return;
  opened_fn done = std::move(found->second);
  r.opens.erase(found);
  web::storage_info storage{to_persistence(persisted), static_cast<std::uint64_t>(usage),
                            static_cast<std::uint64_t>(quota)};
  done(connection, std::string_view(records ? records : "", size), to_status(kind, message), storage);
}

// What a commit found gone ([u32 size][key])*, just before it finishes.
EMSCRIPTEN_KEEPALIVE void savekit_idb_commit_missing(int request, const char* keys, std::size_t size) {
  std::vector<std::string>& missing = the_registry().missing[request];
  std::string_view in(keys, size), key;
  while (take_sized(in, key)) missing.emplace_back(key);
}

// A commit or a deletion has finished.
EMSCRIPTEN_KEEPALIVE void savekit_idb_finished(int request, int kind, const char* message) {
  registry& r = the_registry();
  std::vector<std::string> missing;
  if (auto gone = r.missing.find(request); gone != r.missing.end()) {
    missing = std::move(gone->second);
    r.missing.erase(gone);
  }
  auto found = r.waiting.find(request);
  if (found == r.waiting.end()) return;
  auto done = std::move(found->second);
  r.waiting.erase(found);
  done(to_status(kind, message), std::move(missing));
}

// A fetch has finished: blob 0 is no such record.
EMSCRIPTEN_KEEPALIVE void savekit_idb_fetched(int request, std::uint32_t blob, double size, int kind,
                                              const char* message) {
  registry& r = the_registry();
  auto found = r.fetches.find(request);
  if (found == r.fetches.end()) {
    if (blob) kept_bytes adopted(blob, 0);  // released
    return;
  }
  fetched_fn done = std::move(found->second);
  r.fetches.erase(found);
  status outcome = to_status(kind, message);
  if (!outcome) return done(std::move(outcome).error());
  std::shared_ptr<const kept_bytes> bytes;
  if (blob) bytes = std::make_shared<const kept_bytes>(blob, static_cast<std::size_t>(size));
  done(std::move(bytes));
}

EMSCRIPTEN_KEEPALIVE void savekit_idb_reconnected(int connection, int emptied) {
  if (connection_owner* owner = owner_of(connection)) owner->reconnected(emptied != 0);
}

EMSCRIPTEN_KEEPALIVE void savekit_idb_autosave_tick(int connection) {
  if (connection_owner* owner = owner_of(connection)) owner->autosave_tick();
}

EMSCRIPTEN_KEEPALIVE void savekit_idb_soon_tick(int connection) {
  if (connection_owner* owner = owner_of(connection)) owner->soon();
}

}  // extern "C"
