// Slots in the browser (savekit::web::open_slots): the slots of savekit/slots.hpp on a
// file system kept in memory and mirrored to IndexedDB, a record per file.
//
// A folder opens on its generation files' heads (the header, name, metadata and thumbnail:
// the load menu), kept beside each file's record. The rest of a file is fetched when
// slots::load_async asks (file_system::fetch); a read past the head before that is
// errc::not_loaded — a read cannot wait in the browser. Files that are not generations (the
// cloud sync's state) have no head and are loaded whole at open, as are format 1's files
// (whose heads are then written).
//
// The slots write a generation as a temporary file, rename it into place and remove the
// generations past the kept ones. Here a temporary file lives in memory only; a rename
// into place is a put of the file's record (and a delete of the old name's), a remove a
// delete. The changes made in one JavaScript task go out as one readwrite transaction when
// the task ends; one transaction is in flight at a time, the changes made meanwhile wait
// for it and go out together. A failed transaction undoes its changes in memory, and those
// waiting behind it (which were made on top of them): memory is again what IndexedDB holds.
//
// Invariants:
// 1. The files' bytes are kept by the JavaScript half (kept_bytes), never all in the
//    WebAssembly heap: an acknowledged folder of any size opens again. A file being written
//    is in the heap until it is renamed into place. Loaded are the files written here and
//    those fetched; a generation's bytes are let go once a newer generation of its slot
//    has been committed (history and restore fetch them again).
// 2. Every transaction tells how many records must be there after it (the files in memory);
//    fewer — other code deleted records — comes back as errc::store_replaced (its changes
//    are in): everything is then written back before its waiters hear "ok".
// 3. Until a write-back owed (records deleted, the database reopened emptied) has completed,
//    nothing is reported durable. A write-back puts back what is loaded; a file not loaded
//    that other code deleted is gone: it leaves memory and is reported (take_failure).
// 4. A file renamed without its bytes here is moved inside the commit, from the key its
//    bytes are under once the commits before have completed (stored_file::stored_under,
//    shared by the renamed copies and moved forward only when a commit completes); a fetch
//    waits for the commits made before it.
#include <emscripten/emscripten.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "../slot_format.hpp"
#include "idb_bridge.hpp"
#include "savekit/indexeddb.hpp"

namespace savekit::web {
namespace {

using detail::kept_bytes;
namespace format = savekit::detail;  // the slot files' (src/slot_format.hpp)

// A file renamed into place. Its size and head never change; its bytes arrive when fetched
// and go when let go (invariant 1).
struct stored_file {
  std::uint64_t size = 0;
  std::string head;                           // the file's first bytes (empty: not a generation file)
  std::shared_ptr<const kept_bytes> whole;    // every byte, or nullptr: not loaded
  std::shared_ptr<std::string> stored_under;  // its key in IndexedDB (invariant 4); nullptr: not stored yet
  // The head record stored beside it: [u64 size][head], or empty.
  std::string head_record() const {
    if (head.empty()) return {};
    std::string out;
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((size >> (8 * i)) & 0xFF));
    return out + head;
  }
};
using file_content = std::shared_ptr<stored_file>;

// What a head holds: the first 4 KB (the slots read that much at once) and everything before
// the payload, for a generation file (BASE.N.slot, BASE.N.damaged); nothing for others.
std::string head_of(std::string_view name, std::uint64_t size, const std::function<std::string(std::size_t)>& first) {
  std::optional<format::slot_file_name> file = format::parse_slot_file_name(name);
  if (!file || file->kind == format::slot_file_kind::temporary) return {};
  constexpr std::uint64_t first_read = 4096;
  std::uint64_t n = std::min(size, first_read);
  std::string bytes = first(static_cast<std::size_t>(n));
  std::uint64_t wanted = std::min<std::uint64_t>(size, format::slot_header_bytes_to_check(bytes, size));
  if (bytes.size() >= format::slot_header_size) {
    format::slot_header h;
    std::string header = wanted > bytes.size() ? first(static_cast<std::size_t>(wanted)) : bytes;
    if (format::parse_slot_header(header, size, h).damage == format::slot_damage::none)
      wanted = std::max(wanted, std::min(size, h.payload_at()));
  }
  return wanted > bytes.size() ? first(static_cast<std::size_t>(wanted)) : bytes;
}

file_content stored_from(std::string_view name, std::shared_ptr<const kept_bytes> whole) {
  auto file = std::make_shared<stored_file>();
  file->size = whole->size();
  file->head = head_of(name, file->size, [&](std::size_t n) { return whole->read(0, n); });
  file->whole = std::move(whole);
  return file;
}

class indexeddb_file_system final : public file_system, public detail::connection_owner {
 public:
  // heads_owed: files loaded whole that have none (format 1's); files_gone: heads whose
  // file other code deleted — a save lost, reported (take_failure), its head tidied away.
  indexeddb_file_system(std::string folder, int connection, std::map<std::string, file_content> files, bool read_only,
                        bool on_demand, std::vector<std::string> heads_owed, std::vector<std::string> files_gone)
      : folder_(std::move(folder)),
        connection_(connection),
        files_(std::move(files)),
        read_only_(read_only),
        on_demand_(on_demand) {
    detail::set_owner(connection_, this);
    if (!files_gone.empty()) {
      std::string names;
      for (const std::string& name : files_gone) names += (names.empty() ? "" : ", ") + name;
      failure_ = error{errc::store_replaced, 0,
                       "other code on this site deleted saves of " + folder_ + ", which are gone: " + names};
      emscripten_log(EM_LOG_CONSOLE | EM_LOG_ERROR, "savekit: %s", failure_->message().c_str());
    }
    if (read_only_ || (heads_owed.empty() && files_gone.empty())) return;
    waiting_batch().heads = std::move(heads_owed);  // with the next transaction
    waiting_batch().stale_heads = std::move(files_gone);
    request_soon();
  }
  ~indexeddb_file_system() override {
    // Changes not sent yet still go, before the connection closes (IndexedDB finishes
    // the transactions made before a close).
    // (Built on the one in flight, they go after it; should it fail, they may still
    // commit: each slot then holds its newest save, with fewer older generations.)
    // A write-back owed, or perhaps owed (reconnecting: whether the records are gone is not
    // known yet), goes last.
    const bool owed = !read_only_ && (rewrite_all_ || detail::is_reconnecting(connection_)) &&
                      !(in_flight_ && in_flight_->rewrites_all);
    if (owed) waiting_batch();
    if (pending_) {
      auto last = std::move(pending_);
      last->rewrites_all = owed;
      send(*last, [last](status outcome, std::vector<std::string> missing) {
        for (const std::string& name : missing)  // nothing is left open to report it to
          emscripten_log(EM_LOG_CONSOLE | EM_LOG_ERROR, "savekit: %s is gone from IndexedDB", name.c_str());
        call(last->waiters, outcome);
      });
    }
    detail::set_owner(connection_, nullptr);
    detail::close_connection(connection_);
  }

  // ---- file_system ----

  result<int> open(const std::string& path, open_mode mode, std::uint32_t) override {
    result<std::string> name = file_of(path);
    if (!name) return std::move(name).error();
    open_file file{*name, nullptr, false};
    switch (mode) {
      case open_mode::read:
        if (auto found = files_.find(*name); found != files_.end())
          file.content = found->second;
        else if (auto temporary = temporaries_.find(*name); temporary != temporaries_.end())
          file.content = stored_from(*name, kept_bytes::keep(temporary->second));
        else
          return error{errc::not_found, 0, path + " does not exist"};
        break;
      case open_mode::append:
        return error{errc::io_error, 0, "files in IndexedDB are written whole, never appended to"};
      case open_mode::create_new:
        if (read_only_) return error{errc::io_error, 0, folder_ + " was opened read-only"};
        if (files_.count(*name) || temporaries_.count(*name)) return error{errc::already_exists, 0, path + " exists"};
        temporaries_[*name];
        file.temporary = true;
        break;
    }
    const int handle = next_handle_++;
    handles_.emplace(handle, std::move(file));
    return handle;
  }

  result<std::string> read(int handle, std::uint64_t max_bytes) override {
    result<std::uint64_t> size = size_of(handle);
    if (!size) return std::move(size).error();
    if (*size > max_bytes) return error{errc::store_too_large, 0, "a file of " + std::to_string(*size) + " bytes"};
    return read_at(handle, 0, static_cast<std::size_t>(*size));
  }

  result<std::string> read_at(int handle, std::uint64_t offset, std::size_t n) override {
    auto found = handles_.find(handle);
    if (found == handles_.end()) return error{errc::io_error, 0, "not an open file"};
    if (!found->second.temporary) {
      const stored_file& file = *found->second.content;
      if (offset >= file.size) return std::string{};
      const std::uint64_t end = offset + std::min<std::uint64_t>(n, file.size - offset);
      if (end <= file.head.size()) return file.head.substr(static_cast<std::size_t>(offset), end - offset);
      if (file.whole) return file.whole->read(offset, n);
      return error{errc::not_loaded, static_cast<std::size_t>(offset),
                   folder_ + "/" + found->second.name +
                       ": this save is still in IndexedDB; slots::load_async loads it (reads cannot wait here)"};
    }
    auto temporary = temporaries_.find(found->second.name);
    if (temporary == temporaries_.end()) return error{errc::io_error, 0, found->second.name + " was removed"};
    if (offset >= temporary->second.size()) return std::string{};
    return temporary->second.substr(static_cast<std::size_t>(offset), n);
  }

  status write(int handle, const void* data, std::size_t n) override {
    result<std::string*> file = temporary_of(handle);
    if (!file) return std::move(file).error();
    (*file)->append(static_cast<const char*>(data), n);
    return {};
  }

  status truncate(int handle, std::uint64_t size) override {
    result<std::string*> file = temporary_of(handle);
    if (!file) return std::move(file).error();
    (*file)->resize(static_cast<std::size_t>(size));
    return {};
  }

  // Durability is the transaction's: when_durable.
  status sync(int) override { return {}; }
  status sync_directory(const std::string&) override { return {}; }
  void close(int handle) override { handles_.erase(handle); }

  result<file_info> stat(int handle) override {
    result<std::uint64_t> size = size_of(handle);
    if (!size) return std::move(size).error();
    return regular_file(*size);
  }

  result<file_info> stat(const std::string& path) override {
    if (path == folder_) {
      file_info info;
      info.directory = true;
      return info;
    }
    result<std::string> name = file_of(path);
    if (!name) return std::move(name).error();
    if (auto found = files_.find(*name); found != files_.end()) return regular_file(found->second->size);
    if (auto temporary = temporaries_.find(*name); temporary != temporaries_.end())
      return regular_file(temporary->second.size());
    return error{errc::not_found, 0, path + " does not exist"};
  }

  status copy_permissions(int, const file_info&) override { return {}; }

  status rename(const std::string& from, const std::string& to) override {
    result<std::string> source = file_of(from);
    if (!source) return std::move(source).error();
    result<std::string> target = file_of(to);
    if (!target) return std::move(target).error();
    if (read_only_) return error{errc::io_error, 0, folder_ + " was opened read-only"};
    if (*source == *target) return {};
    temporaries_.erase(*target);
    if (auto temporary = temporaries_.find(*source); temporary != temporaries_.end()) {
      file_content content = stored_from(*target, kept_bytes::keep(temporary->second));  // out of the heap
      temporaries_.erase(temporary);
      change(*target, std::move(content));
      return {};
    }
    auto found = files_.find(*source);
    if (found == files_.end()) return error{errc::not_found, 0, from + " does not exist"};
    // A copy under the new name: its head is the new name's (a .damaged file keeps one), and
    // without its bytes here it is moved inside the commit (invariant 4).
    const stored_file& old = *found->second;
    auto moved = std::make_shared<stored_file>();
    moved->size = old.size;
    moved->whole = old.whole;
    moved->head =
        old.head.empty() ? head_of(*target, old.size, [&](std::size_t n) { return first_bytes(old, n); }) : old.head;
    if (!moved->whole) moved->stored_under = old.stored_under;
    change(*target, std::move(moved));  // one transaction: never both names, never neither
    change(*source, nullptr);
    return {};
  }

  status remove(const std::string& path) override {
    result<std::string> name = file_of(path);
    if (!name) return std::move(name).error();
    if (temporaries_.erase(*name)) return {};
    if (!files_.count(*name)) return {};
    if (read_only_) return error{errc::io_error, 0, folder_ + " was opened read-only"};
    change(*name, nullptr);
    return {};
  }

  result<std::vector<std::string>> create_directories(const std::string& directory) override {
    if (directory != folder_) return error{errc::invalid_path, 0, directory + " is not " + folder_};
    return std::vector<std::string>{};
  }

  result<std::vector<std::string>> list_directory(const std::string& directory) override {
    if (directory != folder_) return error{errc::not_found, 0, directory + " is not " + folder_};
    std::vector<std::string> names;
    names.reserve(files_.size() + temporaries_.size());
    for (const auto& [name, content] : files_) names.push_back(name);
    for (const auto& [name, content] : temporaries_) names.push_back(name);
    return names;
  }

  result<std::string> resolve(const std::string& path) override {
    if (path == folder_) return folder_;
    result<std::string> name = file_of(path);
    if (!name) return std::move(name).error();
    return path;
  }

  // The Web Lock taken at open is the lock.
  result<std::unique_ptr<lock_token>> lock(const std::string&, lock_mode, bool) override {
    return std::make_unique<lock_token>();
  }
  status lock(int, lock_mode) override { return {}; }

  void when_durable(std::function<void(status)> done) override {
    if (pending_) {
      pending_->waiters.push_back(std::move(done));
    } else if (in_flight_) {
      in_flight_->waiters.push_back(std::move(done));
    } else if (read_only_) {
      done(status{});
    } else {  // nothing under way: a transaction still checks that the records are all there
      // (a write-back owed after a deletion is tried again with it)
      verify(std::move(done));
    }
  }

  std::optional<error> take_failure() override { return std::exchange(failure_, std::nullopt); }

  bool fetches() const override { return true; }

  void fetch(const std::string& path, std::function<void(status)> done) override {
    result<std::string> name = file_of(path);
    if (!name) return done(std::move(name).error());
    auto found = files_.find(*name);
    if (found == files_.end())
      return done(temporaries_.count(*name) ? status{} : status{error{errc::not_found, 0, path + " does not exist"}});
    file_content file = found->second;
    if (file->whole) return done(status{});
    if (moving(*file)) {  // after the commit that moves its bytes (invariant 4)
      auto again = [this, alive = std::weak_ptr<int>(alive_), path, done = std::move(done)](status) mutable {
        if (alive.expired()) return done(error{errc::io_error, 0, path + ": the slots were closed"});
        fetch(path, std::move(done));
      };
      (pending_ ? pending_ : in_flight_)->waiters.push_back(std::move(again));
      return;
    }
    detail::fetch_record(connection_, *file->stored_under,
                         [this, alive = std::weak_ptr<int>(alive_), name = *name, file,
                          done = std::move(done)](result<std::shared_ptr<const kept_bytes>> got) {
                           if (!got) return done(std::move(got).error());
                           if (alive.expired()) return done(error{errc::io_error, 0, name + ": the slots were closed"});
                           done(arrived(name, file, std::move(*got)));
                         });
  }

  // ---- connection_owner ----

  void soon() override {
    soon_requested_ = false;
    send_pending();
  }

  // Other code on the site deleted the database (or dropped its records): the next
  // transaction writes every file back (with the changes it carries). Until one such
  // transaction has completed nothing is durable: when_durable and the callbacks wait for
  // it, and hear of its failure.
  // Reopened with its records (emptied false): what other code did meanwhile may still have
  // deleted some — the next transaction checks (invariant 2); none under way, one is sent.
  void reconnected(bool emptied) override {
    if (read_only_) return;
    if (emptied) {
      rewrite_all_ = true;
      waiting_batch();
      send_pending();
    } else if (!in_flight_ && !pending_) {
      verify(nullptr);
    }
  }

 private:
  struct open_file {
    std::string name;
    file_content content;  // read: what was there when opened
    bool temporary = false;
  };
  // One file's change, with what it replaced, to undo it.
  struct file_change {
    std::string name;
    file_content after;  // nullptr: removed
    file_content before;
  };
  struct batch {
    std::vector<file_change> changes;
    std::vector<std::string> heads;        // files whose heads are owed (format 1's)
    std::vector<std::string> stale_heads;  // heads whose files other code deleted
    std::vector<std::function<void(status)>> waiters;
    bool rewrites_all = false;  // sent as: every file written back
    bool checks = false;        // sent even without changes: to check the records are there
  };
  static void call(std::vector<std::function<void(status)>>& waiters, const status& outcome) {
    for (auto& w : waiters) w(outcome);
  }
  batch& waiting_batch() {
    if (!pending_) pending_ = std::make_shared<batch>();
    return *pending_;
  }
  void request_soon() {
    if (soon_requested_) return;
    soon_requested_ = true;
    detail::request_soon(connection_);
  }

  static file_info regular_file(std::uint64_t size) {
    file_info info;
    info.regular = true;
    info.size = size;
    info.links = 1;
    info.permissions = 0644;
    return info;
  }

  static std::string first_bytes(const stored_file& file, std::size_t n) {
    if (n <= file.head.size()) return file.head.substr(0, n);
    return file.whole ? file.whole->read(0, n) : file.head;
  }

  result<std::string> file_of(const std::string& path) const {
    if (path.size() <= folder_.size() + 1 || path.compare(0, folder_.size(), folder_) != 0 ||
        path[folder_.size()] != '/' || path.find('/', folder_.size() + 1) != std::string::npos)
      return error{errc::invalid_path, 0, path + " is not a file in " + folder_};
    return path.substr(folder_.size() + 1);
  }

  result<std::uint64_t> size_of(int handle) {
    auto found = handles_.find(handle);
    if (found == handles_.end()) return error{errc::io_error, 0, "not an open file"};
    if (!found->second.temporary) return found->second.content->size;
    auto temporary = temporaries_.find(found->second.name);
    if (temporary == temporaries_.end()) return error{errc::io_error, 0, found->second.name + " was removed"};
    return std::uint64_t{temporary->second.size()};
  }

  // A fetched file's bytes. Gone (other code deleted the record, or put something that is not
  // bytes): the file is gone from memory too, a read walks past it, and the loss is reported
  // (take_failure). Other bytes than its head says (other code replaced the record): taken
  // as they now are, with their own head, and their checksums judge them.
  // The fetch's outcome: the loss, so that a load ends with it rather than fall back in
  // silence to an older save (the cloud sync would take that for the player's progress).
  // In a read-only folder a file gone is one the writer pruned: nothing lost.
  status arrived(const std::string& name, const file_content& file, std::shared_ptr<const kept_bytes> bytes) {
    auto found = files_.find(name);
    const bool current = found != files_.end() && found->second == file;
    if (!bytes) {
      if (!current) return {};
      files_.erase(found);
      if (read_only_) return {};
      error lost{errc::store_replaced, 0,
                 folder_ + "/" + name +
                     " is no longer in IndexedDB: other code on this site deleted it (or put there what is not bytes)"};
      emscripten_log(EM_LOG_CONSOLE | EM_LOG_ERROR, "savekit: %s", lost.message().c_str());
      if (!failure_) failure_ = lost;
      return lost;
    }
    if (bytes->size() == file->size && bytes->read(0, file->head.size()) == file->head) {
      if (!file->whole) file->whole = std::move(bytes);
      return {};
    }
    if (!current) return {};
    file_content replaced = stored_from(name, std::move(bytes));
    replaced->stored_under = file->stored_under;
    found->second = std::move(replaced);
    return {};
  }

  // A transaction without changes: checks the records are all there (invariant 2).
  void verify(std::function<void(status)> done) {
    batch& b = waiting_batch();
    b.checks = true;
    if (done) b.waiters.push_back(std::move(done));
    send_pending();
  }

  result<std::string*> temporary_of(int handle) {
    auto found = handles_.find(handle);
    if (found == handles_.end() || !found->second.temporary)
      return error{errc::io_error, 0, "not a file being written"};
    auto temporary = temporaries_.find(found->second.name);
    if (temporary == temporaries_.end()) return error{errc::io_error, 0, found->second.name + " was removed"};
    return &temporary->second;
  }

  // Makes a change in memory, to go out when the running JavaScript task ends.
  void change(const std::string& name, file_content after) {
    file_change c{name, std::move(after), nullptr};
    if (auto found = files_.find(name); found != files_.end()) c.before = found->second;
    if (c.after)
      files_[name] = c.after;
    else
      files_.erase(name);
    waiting_batch().changes.push_back(std::move(c));
    request_soon();
  }

  void send_pending() {
    if (in_flight_ || !pending_) return;
    if (pending_->changes.empty() && pending_->heads.empty() && pending_->stale_heads.empty() && !rewrite_all_ &&
        !pending_->checks) {  // only waiters: all before is durable
      auto done = std::move(pending_);
      call(done->waiters, status{});
      return;
    }
    in_flight_ = std::move(pending_);
    in_flight_->rewrites_all = rewrite_all_;
    // The batch goes with the completion: closed meanwhile, its waiters still hear.
    send(*in_flight_, [this, alive = std::weak_ptr<int>(alive_), sent = in_flight_](status outcome,
                                                                                    std::vector<std::string> missing) {
      if (!alive.expired())
        completed(std::move(outcome), std::move(missing));
      else
        call(sent->waiters, outcome);
    });
  }

  // The last change of each name in a batch, newest first.
  static std::vector<const file_change*> net_changes(const batch& b) {
    std::vector<const file_change*> out;
    std::set<std::string> seen;
    for (auto c = b.changes.rbegin(); c != b.changes.rend(); ++c)
      if (seen.insert(c->name).second) out.push_back(&*c);
    return out;
  }

  // Sends the net effect of a batch on each file; a write-back adds every other file in
  // memory, put again where it is gone (invariant 3).
  // The bytes of every file sent go with the completion: the JavaScript half reads them
  // until the transaction's last request (a write-back's, after a lookup), and a close
  // meanwhile must not release them.
  void send(const batch& b, detail::commit_done done) {
    // Memory holds what the database holds after b: b is the last batch made (invariant 2).
    detail::change_writer out(false, files_.size());
    std::set<std::string> sent;
    std::vector<std::shared_ptr<const kept_bytes>> held;
    for (const file_change* c : net_changes(b)) {
      sent.insert(c->name);
      if (!c->after) {
        out.erase(c->name);
      } else if (c->after->whole) {
        out.put_file(c->name, *c->after->whole, c->after->head_record());
        held.push_back(c->after->whole);
      } else {
        out.move_file(c->name, key_after_in_flight(b, *c->after), c->after->head_record());
      }
    }
    if (b.rewrites_all) {
      for (const auto& [name, file] : files_)
        if (!sent.count(name)) {
          out.ensure_file(name, file->whole.get(), file->head_record());
          if (file->whole) held.push_back(file->whole);
        }
    } else {
      for (const std::string& name : b.heads)
        if (auto found = files_.find(name); found != files_.end() && !sent.count(name))
          out.put_head(name, found->second->head_record());
    }
    for (const std::string& name : b.stale_heads)
      if (!files_.count(name) && !sent.count(name)) out.erase(name);
    detail::send_changes(connection_, out,
                         [held = std::move(held), done = std::move(done)](status s, std::vector<std::string> missing) {
                           done(std::move(s), std::move(missing));
                         });
  }

  // Where a file not loaded is in IndexedDB once the transaction in flight has completed:
  // stored_under moves forward at completion, and a close sends the batch behind it before
  // (invariant 4).
  std::string key_after_in_flight(const batch& sending, const stored_file& file) const {
    if (in_flight_ && in_flight_.get() != &sending)
      for (const file_change* c : net_changes(*in_flight_))
        if (c->after && !c->after->whole && c->after->stored_under == file.stored_under) return c->name;
    return *file.stored_under;
  }

  // Whether a change not yet completed moves this file's bytes to another key.
  bool moving(const stored_file& file) const {
    for (const batch* b : {in_flight_.get(), pending_.get()}) {
      if (!b) continue;
      for (const file_change& c : b->changes)
        if (c.after && !c.after->whole && c.after->stored_under == file.stored_under) return true;
    }
    return false;
  }

  void completed(status outcome, std::vector<std::string> missing) {
    std::shared_ptr<batch> done = std::move(in_flight_);
    forget_missing(missing);
    if (outcome) {
      if (done->rewrites_all) rewrite_all_ = false;
      stored(*done, /*let_go=*/!rewrite_all_);
      send_pending();
      call(done->waiters, status{});
      return;
    }
    if (outcome.error().code() == errc::store_replaced && !done->rewrites_all) {
      // Other code deleted records (invariant 2). This batch's changes are in; everything
      // goes again, with the changes made since, and this batch's waiters hear of that.
      emscripten_log(EM_LOG_CONSOLE | EM_LOG_WARN, "savekit: %s; writing every save of %s back",
                     outcome.error().message().c_str(), folder_.c_str());
      stored(*done, /*let_go=*/false);  // a write-back follows: it needs every byte held
      rewrite_all_ = true;
      batch& next = waiting_batch();
      next.waiters.insert(next.waiters.begin(), std::make_move_iterator(done->waiters.begin()),
                          std::make_move_iterator(done->waiters.end()));
      send_pending();
      return;
    }
    // Undone, newest first: the changes waiting, then those of the failed transaction.
    for (batch* b : {pending_.get(), done.get()}) {
      if (!b) continue;
      for (auto c = b->changes.rbegin(); c != b->changes.rend(); ++c) {
        if (c->before)
          files_[c->name] = c->before;
        else
          files_.erase(c->name);
      }
    }
    std::vector<std::function<void(status)>> waiters = std::move(done->waiters);
    if (pending_)
      for (auto& w : pending_->waiters) waiters.push_back(std::move(w));
    pending_.reset();
    error failed{
        outcome.error().code(), 0,
        "saving to IndexedDB " + folder_ +
            " failed, and the changes since the last completed save are undone: " + outcome.error().message() +
            (rewrite_all_ ? " (other code deleted the database: everything is written again with the next save)" : "")};
    emscripten_log(EM_LOG_CONSOLE | EM_LOG_ERROR, "savekit: %s", failed.message().c_str());
    if (!failure_) failure_ = failed;
    call(waiters, failed);
  }

  // A committed batch: its files are under their names now (invariant 4), and the older
  // generations of the slots it wrote let go of their bytes (invariant 1) — not while a
  // write-back is owed, which puts back what is held.
  void stored(const batch& b, bool let_go) {
    for (const file_change* c : net_changes(b)) {
      if (!c->after) continue;
      if (c->after->stored_under)
        *c->after->stored_under = c->name;
      else
        c->after->stored_under = std::make_shared<std::string>(c->name);
      if (std::optional<format::slot_file_name> file = format::parse_slot_file_name(c->name))
        if (let_go && on_demand_ && file->kind == format::slot_file_kind::generation) let_go_older(*file);
    }
  }

  // (Not in a hashed base: several slots' generations share its numbers.)
  void let_go_older(const format::slot_file_name& newer) {
    if (newer.base.find('~') != std::string::npos) return;
    auto referenced = [&](const file_content& f) {  // by a change not committed yet
      if (!pending_) return false;
      return std::any_of(pending_->changes.begin(), pending_->changes.end(),
                         [&](const file_change& c) { return c.after == f; });
    };
    for (auto& [name, f] : files_) {
      std::optional<format::slot_file_name> file = format::parse_slot_file_name(name);
      if (!file || file->base != newer.base || file->generation >= newer.generation || !f->whole || !f->stored_under ||
          f->head.empty() || referenced(f))
        continue;
      f->whole.reset();
    }
  }

  // Files a commit found gone that were not loaded: gone here too, and said (invariant 3).
  void forget_missing(const std::vector<std::string>& missing) {
    if (missing.empty()) return;
    std::string names;
    for (const std::string& name : missing) {
      auto found = files_.find(name);
      if (found == files_.end() || found->second->whole) continue;
      files_.erase(found);
      names += (names.empty() ? "" : ", ") + name;
    }
    if (names.empty()) return;
    error lost{errc::store_replaced, 0,
               "other code on this site deleted saves of " + folder_ +
                   " this page had not loaded, so they are gone: " + names};
    emscripten_log(EM_LOG_CONSOLE | EM_LOG_ERROR, "savekit: %s", lost.message().c_str());
    if (!failure_) failure_ = lost;
  }

  std::string folder_;
  int connection_;
  std::map<std::string, file_content> files_;  // what reads see: IndexedDB, plus the batches below
  std::map<std::string, std::string> temporaries_;
  std::map<int, open_file> handles_;
  int next_handle_ = 1;
  bool read_only_;
  bool on_demand_;                    // slot_loading::on_demand: older generations let go of their bytes
  std::shared_ptr<batch> in_flight_;  // sent, not completed
  std::shared_ptr<batch> pending_;    // made since, to go once in_flight_ completes
  bool rewrite_all_ = false;          // the database was emptied underneath: write everything
  bool soon_requested_ = false;
  std::optional<error> failure_;                           // for take_failure
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);  // for completions after the file system is gone
};

std::uint32_t u32_at(std::string_view bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
  return v;
}

}  // namespace

void open_slots(const std::string& name, open_slots_callback done, indexeddb_slots_options options) {
  std::string database = detail::slots_database(name);
  while (database.size() > 1 && database.back() == '/') database.pop_back();  // as slots::open does
  const bool read_only = options.slots.read_only;
  const bool exclusive = options.exclusive && !read_only;
  const detail::open_contents contents = options.load == slot_loading::everything_at_open
                                             ? detail::open_contents::slot_files
                                             : detail::open_contents::slot_heads;
  detail::open_database(
      detail::slots_database(name),
      [database, options = std::move(options), done = std::move(done)](int connection, std::string_view records,
                                                                       status opened, const storage_info& storage) {
        if (!opened) return done(std::move(opened).error(), storage);
        std::map<std::string, file_content> files;
        std::vector<std::string> heads_owed, files_gone;
        std::string_view in = records;
        while (!in.empty()) {
          std::string_view key, record;
          if (!detail::take_sized(in, key) || !detail::take_sized(in, record)) {
            detail::close_connection(connection);
            return done(error{errc::corrupt_store, records.size() - in.size(), "IndexedDB records arrived truncated"},
                        storage);
          }
          // A key savekit does not write (not a file name), or a value that is not bytes
          // (passed as empty: no file is), is left alone, unseen.
          if (record.empty()) continue;
          const char tag = record[0];
          record.remove_prefix(1);
          if (tag == 4) {  // a head without its file
            if (!key.empty() && key.find('/') == std::string_view::npos) files_gone.emplace_back(key);
            continue;
          }
          file_content file;
          if ((tag == 2 || tag == 3) && record.size() == 8) {
            file = stored_from(key, std::make_shared<const kept_bytes>(u32_at(record, 0), u32_at(record, 4)));
            if (tag == 3 && !file->head.empty()) heads_owed.emplace_back(key);
          } else if (tag == 1 && record.size() >= 8) {  // [u64 size][head]
            file = std::make_shared<stored_file>();
            for (int i = 0; i < 8; ++i) file->size |= std::uint64_t{static_cast<unsigned char>(record[i])} << (8 * i);
            file->head = std::string{record.substr(8)};
            if (file->head.size() > file->size) continue;  // not what savekit wrote
          } else {
            continue;
          }
          if (key.empty() || key.find('/') != std::string_view::npos) continue;
          file->stored_under = std::make_shared<std::string>(key);
          files.emplace(std::string{key}, std::move(file));
        }
        auto fs = std::make_shared<indexeddb_file_system>(
            database, connection, std::move(files), options.slots.read_only, options.load == slot_loading::on_demand,
            std::move(heads_owed), std::move(files_gone));
        slots_options slots_settings = options.slots;
        slots_settings.fs = nullptr;
        slots_settings.create_if_missing = true;
        done(slots::open(database, std::move(slots_settings), std::move(fs)), storage);
      },
      options.request_persistence, exclusive, options.wait_for_lock, contents);
}

void delete_slots(const std::string& name, std::function<void(status)> done) {
  detail::delete_database(detail::slots_database(name), std::move(done));
}

}  // namespace savekit::web
