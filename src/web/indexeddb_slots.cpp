// Slots in the browser (savekit::web::open_slots): the slots of savekit/slots.hpp on a
// file system kept in memory and mirrored to IndexedDB, a record per file.
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
//    is in the heap until it is renamed into place.
// 2. Every transaction tells how many records must be there after it (the files in memory);
//    fewer — other code deleted records — comes back as errc::store_replaced (its changes
//    are in): everything is then written back before its waiters hear "ok".
// 3. Until a write-back owed (records deleted, the database reopened emptied) has completed,
//    nothing is reported durable.
#include <emscripten/emscripten.h>

#include <iterator>
#include <map>
#include <set>

#include "idb_bridge.hpp"
#include "savekit/indexeddb.hpp"

namespace savekit::web {
namespace {

using detail::kept_bytes;
using file_content = std::shared_ptr<const kept_bytes>;  // immutable once renamed into place

class indexeddb_file_system final : public file_system, public detail::connection_owner {
 public:
  indexeddb_file_system(std::string folder, int connection, std::map<std::string, file_content> files, bool read_only)
      : folder_(std::move(folder)), connection_(connection), files_(std::move(files)), read_only_(read_only) {
    detail::set_owner(connection_, this);
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
      send(*last, [last](status outcome) { call(last->waiters, outcome); });
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
          file.content = kept_bytes::keep(temporary->second);
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
    if (!found->second.temporary) return found->second.content->read(offset, n);
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
    if (auto found = files_.find(*name); found != files_.end()) return regular_file(found->second->size());
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
      file_content content = kept_bytes::keep(temporary->second);  // out of the heap (invariant 1)
      temporaries_.erase(temporary);
      change(*target, std::move(content));
      return {};
    }
    auto found = files_.find(*source);
    if (found == files_.end()) return error{errc::not_found, 0, from + " does not exist"};
    file_content content = found->second;
    change(*target, std::move(content));  // one transaction: never both names, never neither
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

  // ---- connection_owner ----

  void soon() override {
    soon_requested_ = false;
    send_pending();
  }

  // Other code on the site deleted the database (or dropped its records): the next
  // transaction empties it and writes every file (with the changes it carries). Until one
  // such transaction has completed nothing is durable: when_durable and the callbacks wait
  // for it, and hear of its failure.
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
    std::vector<std::function<void(status)>> waiters;
    bool rewrites_all = false;  // sent as: empty the database, write every file
    bool checks = false;        // sent even without changes: to check the records are there
  };
  static void call(std::vector<std::function<void(status)>>& waiters, const status& outcome) {
    for (auto& w : waiters) w(outcome);
  }
  batch& waiting_batch() {
    if (!pending_) pending_ = std::make_shared<batch>();
    return *pending_;
  }

  static file_info regular_file(std::size_t size) {
    file_info info;
    info.regular = true;
    info.size = size;
    info.links = 1;
    info.permissions = 0644;
    return info;
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
    if (!found->second.temporary) return std::uint64_t{found->second.content->size()};
    auto temporary = temporaries_.find(found->second.name);
    if (temporary == temporaries_.end()) return error{errc::io_error, 0, found->second.name + " was removed"};
    return std::uint64_t{temporary->second.size()};
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
    if (!soon_requested_) {
      soon_requested_ = true;
      detail::request_soon(connection_);
    }
  }

  void send_pending() {
    if (in_flight_ || !pending_) return;
    if (pending_->changes.empty() && !rewrite_all_ && !pending_->checks) {  // only waiters: all before is durable
      auto done = std::move(pending_);
      call(done->waiters, status{});
      return;
    }
    in_flight_ = std::move(pending_);
    in_flight_->rewrites_all = rewrite_all_;
    // The batch goes with the completion: closed meanwhile, its waiters still hear.
    send(*in_flight_, [this, alive = std::weak_ptr<int>(alive_), sent = in_flight_](status outcome) {
      if (!alive.expired())
        completed(std::move(outcome));
      else
        call(sent->waiters, outcome);
    });
  }

  // Sends the net effect of a batch on each file (the last change of each name); a
  // rewrite sends every file as memory holds it.
  void send(const batch& b, std::function<void(status)> done) {
    // Memory holds what the database holds after b: b is the last batch made (invariant 2).
    detail::change_writer out(b.rewrites_all, files_.size());
    if (b.rewrites_all) {
      for (const auto& [name, content] : files_) out.put(name, *content);
    } else {
      std::set<std::string> seen;
      for (auto c = b.changes.rbegin(); c != b.changes.rend(); ++c) {
        if (!seen.insert(c->name).second) continue;
        if (c->after)
          out.put(c->name, *c->after);
        else
          out.erase(c->name);
      }
    }
    detail::send_changes(connection_, out, std::move(done));
  }

  void completed(status outcome) {
    std::shared_ptr<batch> done = std::move(in_flight_);
    if (outcome) {
      if (done->rewrites_all) rewrite_all_ = false;
      send_pending();
      call(done->waiters, status{});
      return;
    }
    if (outcome.error().code() == errc::store_replaced && !done->rewrites_all) {
      // Other code deleted records (invariant 2). This batch's changes are in; everything
      // goes again, with the changes made since, and this batch's waiters hear of that.
      emscripten_log(EM_LOG_CONSOLE | EM_LOG_WARN, "savekit: %s; writing every save of %s back",
                     outcome.error().message().c_str(), folder_.c_str());
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

  std::string folder_;
  int connection_;
  std::map<std::string, file_content> files_;  // what reads see: IndexedDB, plus the batches below
  std::map<std::string, std::string> temporaries_;
  std::map<int, open_file> handles_;
  int next_handle_ = 1;
  bool read_only_;
  std::shared_ptr<batch> in_flight_;  // sent, not completed
  std::shared_ptr<batch> pending_;    // made since, to go once in_flight_ completes
  bool rewrite_all_ = false;          // the database was emptied underneath: write everything
  bool soon_requested_ = false;
  std::optional<error> failure_;                           // for take_failure
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);  // for completions after the file system is gone
};

}  // namespace

void open_slots(const std::string& name, open_slots_callback done, indexeddb_slots_options options) {
  std::string database = detail::slots_database(name);
  while (database.size() > 1 && database.back() == '/') database.pop_back();  // as slots::open does
  const bool read_only = options.slots.read_only;
  const bool exclusive = options.exclusive && !read_only;
  detail::open_database(
      detail::slots_database(name),
      [database, options = std::move(options), done = std::move(done)](int connection, std::string_view records,
                                                                       status opened, const storage_info& storage) {
        if (!opened) return done(std::move(opened).error(), storage);
        std::map<std::string, file_content> files;
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
          if (record.size() != 8) continue;
          auto u32_at = [&](std::size_t at) {
            std::uint32_t v = 0;
            for (int i = 0; i < 4; ++i) v |= std::uint32_t{static_cast<unsigned char>(record[at + i])} << (8 * i);
            return v;
          };
          auto content = std::make_shared<const kept_bytes>(u32_at(0), u32_at(4));  // released if left out
          if (key.empty() || key.find('/') != std::string_view::npos) continue;
          files.emplace(std::string{key}, std::move(content));
        }
        auto fs =
            std::make_shared<indexeddb_file_system>(database, connection, std::move(files), options.slots.read_only);
        slots_options slots_settings = options.slots;
        slots_settings.fs = nullptr;
        slots_settings.create_if_missing = true;
        done(slots::open(database, std::move(slots_settings), std::move(fs)), storage);
      },
      options.request_persistence, exclusive, options.wait_for_lock, /*keep_in_javascript=*/true);
}

void delete_slots(const std::string& name, std::function<void(status)> done) {
  detail::delete_database(detail::slots_database(name), std::move(done));
}

}  // namespace savekit::web
