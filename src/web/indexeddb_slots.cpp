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
#include <emscripten/emscripten.h>

#include <map>
#include <set>

#include "idb_bridge.hpp"
#include "savekit/indexeddb.hpp"

namespace savekit::web {
namespace {

using file_content = std::shared_ptr<const std::string>;  // immutable once renamed into place

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
    if (rewrite_all_ && !(in_flight_ && in_flight_->rewrites_all)) waiting_batch();  // the write-back owed
    if (pending_) {
      auto last = std::move(pending_);
      last->rewrites_all = rewrite_all_ && !(in_flight_ && in_flight_->rewrites_all);
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
          file.content = std::make_shared<const std::string>(temporary->second);
        else
          return error{errc::not_found, 0, path + " does not exist"};
        break;
      case open_mode::append:
        return error{errc::io_error, 0, "files in IndexedDB are written whole, never appended to"};
      case open_mode::create_new:
        if (read_only_) return error{errc::io_error, 0, folder_ + " was opened read-only"};
        if (files_.count(*name) || temporaries_.count(*name)) return error{errc::io_error, 0, path + " exists"};
        temporaries_[*name];
        file.temporary = true;
        break;
    }
    const int handle = next_handle_++;
    handles_.emplace(handle, std::move(file));
    return handle;
  }

  result<std::string> read(int handle, std::uint64_t max_bytes) override {
    result<std::string_view> bytes = content_of(handle);
    if (!bytes) return std::move(bytes).error();
    if (bytes->size() > max_bytes)
      return error{errc::store_too_large, 0, "a file of " + std::to_string(bytes->size()) + " bytes"};
    return std::string{*bytes};
  }

  result<std::string> read_at(int handle, std::uint64_t offset, std::size_t n) override {
    result<std::string_view> bytes = content_of(handle);
    if (!bytes) return std::move(bytes).error();
    if (offset >= bytes->size()) return std::string{};
    return std::string{bytes->substr(static_cast<std::size_t>(offset), n)};
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
    result<std::string_view> bytes = content_of(handle);
    if (!bytes) return std::move(bytes).error();
    return regular_file(bytes->size());
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
      auto content = std::make_shared<const std::string>(std::move(temporary->second));
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
    } else if (rewrite_all_) {  // a write-back owed after a deletion: tried again now
      waiting_batch().waiters.push_back(std::move(done));
      send_pending();
    } else {
      done(status{});
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
  void reconnected(bool emptied) override {
    if (!emptied || read_only_) return;
    rewrite_all_ = true;
    waiting_batch();
    send_pending();
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

  result<std::string_view> content_of(int handle) {
    auto found = handles_.find(handle);
    if (found == handles_.end()) return error{errc::io_error, 0, "not an open file"};
    if (!found->second.temporary) return std::string_view{*found->second.content};
    auto temporary = temporaries_.find(found->second.name);
    if (temporary == temporaries_.end()) return error{errc::io_error, 0, found->second.name + " was removed"};
    return std::string_view{temporary->second};
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
    if (pending_->changes.empty() && !rewrite_all_) {  // only waiters: everything before them is durable
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
    detail::change_writer out(b.rewrites_all);
    if (b.rewrites_all) {
      for (const auto& [name, content] : files_) out.put(name, {}, *content);
    } else {
      std::set<std::string> seen;
      for (auto c = b.changes.rbegin(); c != b.changes.rend(); ++c) {
        if (!seen.insert(c->name).second) continue;
        if (c->after)
          out.put(c->name, {}, *c->after);
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
          if (key.empty() || key.find('/') != std::string_view::npos || record.empty()) continue;
          files.emplace(std::string{key}, std::make_shared<const std::string>(record));
        }
        auto fs =
            std::make_shared<indexeddb_file_system>(database, connection, std::move(files), options.slots.read_only);
        slots_options slots_settings = options.slots;
        slots_settings.fs = nullptr;
        slots_settings.create_if_missing = true;
        done(slots::open(database, std::move(slots_settings), std::move(fs)), storage);
      },
      options.request_persistence, exclusive, options.wait_for_lock);
}

void delete_slots(const std::string& name, std::function<void(status)> done) {
  detail::delete_database(detail::slots_database(name), std::move(done));
}

}  // namespace savekit::web
