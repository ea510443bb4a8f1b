// The file backend: an append-only log of checksummed commit records (docs/store-format.md).
#include "savekit/file_backend.hpp"

#include <algorithm>
#include <string>

#include "store_format.hpp"

namespace savekit {
namespace {

using lock_mode = file_system::lock_mode;
using open_mode = file_system::open_mode;

std::string parent_directory(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Refuses, before anything is created, a path that cannot name a store file.
status check_store_path(const std::string& path) {
  if (path.empty()) return error{errc::invalid_path, 0, "empty store path"};
  std::string name = path.substr(path.find_last_of('/') + 1);
  if (name.empty() || name == "." || name == "..")
    return error{errc::invalid_path, 0, "'" + path + "' names a folder, not a store file"};
  return {};
}

error with_path(const std::string& path, error e) { return error{e.code(), e.offset(), path + ": " + e.message()}; }

class file_backend final : public backend {
 public:
  file_backend(std::string path, file_system& fs, file_backend_options options)
      : given_path_(std::move(path)), path_(given_path_), fs_(fs), options_(options) {
    options_.max_store_bytes = std::min(options_.max_store_bytes, detail::max_record_payload);
  }

  ~file_backend() override {
    // A record whose commit failed (its sync, say) may be whole in the file: cut it off, so
    // that a failed save does not come back when the store is opened again.
    // Only from the file this store wrote: if another program has replaced or rewritten it
    // since, that content is someone's restore, and must not be cut.
    if (needs_truncate_ && handle_ >= 0 && verify_file()) (void)cut_tail();
    close_handle();
  }

  std::string describe() const override { return "file " + path_; }
  // An append and an fdatasync (a compaction now and then): save_async runs them on a worker.
  bool commits_in_background() const override { return true; }

  status maintenance() const override { return maintenance_; }

  result<loaded_state> load() override {
    if (status valid = check_store_path(given_path_); !valid) return std::move(valid).error();
    const bool may_create = options_.create_if_missing && !options_.read_only;
    if (may_create) {
      if (status made = make_folders(parent_directory(given_path_)); !made) return std::move(made).error();
    }
    // From here on the store is its real, absolute path: a chdir or a link changes nothing.
    auto resolved = fs_.resolve(given_path_);
    if (!resolved) return with_path(given_path_, std::move(resolved).error());
    path_ = std::move(*resolved);
    directory_ = parent_directory(path_);
    const lock_mode mode = options_.read_only ? lock_mode::shared : lock_mode::exclusive;
    // What cannot be a store is refused before anything (a lock file) is created beside it.
    if (auto existing = fs_.stat(path_); existing && !existing->regular)
      return error{errc::invalid_path, 0, path_ + " is not a regular file"};
    else if (!existing && existing.error().code() == errc::not_found && !may_create)
      return with_path(path_, std::move(existing).error());

    auto lock = fs_.lock(path_ + ".lock", mode, !options_.read_only);
    if (lock) {
      lock_ = std::move(*lock);
    } else if (!options_.read_only || lock.error().code() == errc::locked) {
      return std::move(lock).error();
    }  // read-only, and no lock file (no writer ever opened the store) or one it may not read: nothing to wait for

    loaded_state loaded;
    auto opened = fs_.open(path_, options_.read_only ? open_mode::read : open_mode::append);
    if (!opened) {
      if (opened.error().code() != errc::not_found || !may_create) return std::move(opened).error();
      if (status created = write_snapshot_file(state_, sequence_); !created) return std::move(created).error();
      recount_live_bytes();
      return loaded;
    }
    handle_ = *opened;
    // A second name for the same file (a hard link) has another lock file: lock the file too.
    if (status held = fs_.lock(handle_, mode); !held) return std::move(held).error();
    auto info = fs_.stat(handle_);
    if (!info) return std::move(info).error();
    file_ = *info;
    auto content = fs_.read(handle_, options_.max_store_bytes);
    if (!content) return with_path(path_, std::move(content).error());

    auto parsed = detail::parse_store(*content);
    if (!parsed) return with_path(path_, std::move(parsed).error());
    state_ = std::move(parsed->state);
    sequence_ = parsed->last_sequence;
    loaded.report.commits_loaded = parsed->commits;
    file_size_ = parsed->valid_end;
    remember_last_record(std::string_view{*content}.substr(parsed->last_record_at), parsed->last_record_at);
    recount_live_bytes();
    if (parsed->torn_tail || parsed->damaged) {
      recovery_report& report = loaded.report;
      report.recovered = true;
      report.bytes_discarded = content->size() - parsed->valid_end;
      report.detail = parsed->problem;
      if (options_.read_only) {
        // Report only; the file stays as it is.
      } else if (parsed->damaged) {
        // Keep the damaged file for inspection, then rewrite the store from what was intact.
        auto copy = keep_damaged_copy(*content);
        if (!copy) return std::move(copy).error();
        report.damaged_copy = std::move(*copy);
        if (status rewritten = write_snapshot_file(state_, sequence_); !rewritten) return std::move(rewritten).error();
      } else {
        // An interrupted append: cut it off so that the next record follows an intact one.
        needs_truncate_ = true;
        unacknowledged_ = content->substr(parsed->valid_end);
        if (status cut = cut_tail(); !cut) return std::move(cut).error();
      }
    }
    loaded.entries = state_;
    return loaded;
  }

  void commit(const change_set& changes, std::function<void(status)> done) override {
    if (options_.read_only) return done(error{errc::io_error, 0, path_ + " was opened read-only"});
    if (status ready = prepare_to_append(); !ready) return done(std::move(ready));

    std::uint64_t payload = detail::commit_payload_size(changes);
    if (payload > detail::max_record_payload ||
        file_size_ + detail::record_header_size + payload > options_.max_store_bytes)
      return done(commit_by_snapshot(changes));

    record_.clear();
    detail::encode_commit_record(record_, sequence_ + 1, changes);
    if (status written = fs_.write(handle_, record_.data(), record_.size()); !written) {
      note_failed_append();  // part of the record may be in the file
      return done(std::move(written));
    }
    if (status synced = fs_.sync(handle_); !synced) {
      note_failed_append();
      return done(std::move(synced));
    }
    // Durable: this is the commit point.
    ++sequence_;
    remember_last_record(record_, file_size_);
    file_size_ += record_.size();
    apply(changes);
    compact_if_due();
    done({});
  }

 private:
  // Creates the store's folder; a new folder's name is durable once its parent is synced.
  status make_folders(const std::string& folder) {
    auto created = fs_.create_directories(folder);
    if (!created) return std::move(created).error();
    for (const std::string& made : *created)
      if (status synced = fs_.sync_directory(parent_directory(made)); !synced) return synced;
    return {};
  }

  // Everything that must hold before a record may be appended.
  status prepare_to_append() {
    if (handle_ < 0) {  // a compaction renamed the file but could not reopen it
      if (status reopened = reopen(); !reopened) return reopened;
    }
    if (status ours = check_file_is_ours(); !ours) return ours;
    if (directory_sync_pending_) {
      // A compaction renamed the file but could not sync the folder: until it can, the
      // new name (and so anything appended to it) may not survive a power cut.
      if (status synced = fs_.sync_directory(directory_); !synced) return synced;
      directory_sync_pending_ = false;
    }
    if (needs_truncate_) return cut_tail();
    return {};
  }

  // A sync tool or a restore may delete or replace the store file while the game runs;
  // appending to the orphaned file would acknowledge saves no one will ever read.
  status check_file_is_ours() {
    status verified = verify_file();
    // Deleted or moved away: everything committed is in memory; write it back first.
    if (!verified && verified.error().code() == errc::not_found) return write_snapshot_file(state_, sequence_);
    return verified;
  }

  // Whether the file at the store's path is the one this store wrote: the same file (not
  // deleted: errc::not_found; not replaced), of the size it wrote, with the last record it
  // wrote — past which may lie only a part of the append that failed (or the interrupted
  // append found at open). Anything else was written by another program (a restore with
  // cp, a sync tool writing in place): errc::store_replaced. Changes nothing.
  status verify_file() {
    auto at_path = fs_.stat(path_);
    if (!at_path) return std::move(at_path).error();
    if (at_path->device != file_.device || at_path->inode != file_.inode) return replaced("replaced");
    auto ours = fs_.stat(handle_);
    if (!ours) return std::move(ours).error();
    if (ours->size < file_size_) return replaced("changed");
    if (std::uint64_t extra = ours->size - file_size_; extra > 0) {
      if (!needs_truncate_ || extra > unacknowledged_.size()) return replaced("changed");
      auto tail = fs_.read_at(handle_, file_size_, static_cast<std::size_t>(extra));
      if (!tail) return std::move(tail).error();
      if (*tail != std::string_view{unacknowledged_}.substr(0, static_cast<std::size_t>(extra)))
        return replaced("changed");
    }
    if (last_record_at_ > 0) {
      auto head = fs_.read_at(handle_, last_record_at_, last_record_head_.size());
      if (!head) return std::move(head).error();
      if (*head != last_record_head_) return replaced("changed");
    }
    return {};
  }

  void note_failed_append() {
    needs_truncate_ = true;
    unacknowledged_ = record_;
  }

  error replaced(const char* how) const {
    return error{errc::store_replaced, 0,
                 path_ + " was " + how +
                     " by another program while the store was open; nothing was written to it (reopen the store "
                     "to use the file as it is now)"};
  }

  // The last record's header (length and checksum), to recognise the file as it was written.
  // (`at` 0: no record known.)
  void remember_last_record(std::string_view record, std::uint64_t at) {
    last_record_at_ = at;
    last_record_head_.assign(record.substr(0, detail::record_header_size));
  }

  // A commit too large to append: the whole state with it, written as a new file.
  status commit_by_snapshot(const change_set& changes) {
    committed_state next = state_;
    apply_changes(next, changes);
    std::uint64_t size = detail::store_header_size + detail::record_header_size + detail::minimum_payload_size + 9;
    for (const auto& [key, value] : next) size += detail::encoded_entry_size(key, value.bytes);
    if (size > options_.max_store_bytes)
      return error{errc::store_too_large, 0,
                   path_ + ": the store would take " + std::to_string(size) + " bytes, more than its limit of " +
                       std::to_string(options_.max_store_bytes) + " (file_backend_options::max_store_bytes)"};
    bool renamed = false;
    status written = write_snapshot_file(next, sequence_ + 1, &renamed);
    if (renamed) {  // the file holds the new state, durable or not: keep in step with it
      state_ = std::move(next);
      ++sequence_;
      recount_live_bytes();
    }
    return written;
  }

  void compact_if_due() {
    if (file_size_ <= options_.compact_min_bytes ||
        static_cast<double>(file_size_) <= options_.compact_ratio * static_cast<double>(live_bytes_) ||
        file_size_ < next_compaction_at_)
      return;
    // A failed compaction loses nothing (the log is intact, only longer): the commit stands,
    // the failure is kept for maintenance(), and the next try waits for the log to grow.
    maintenance_ = write_snapshot_file(state_, sequence_);
    next_compaction_at_ = maintenance_ ? 0 : file_size_ + std::max(options_.compact_min_bytes, file_size_ / 2);
  }

  void apply(const change_set& changes) {
    if (changes.clear_all) {
      apply_changes(state_, changes);
      return recount_live_bytes();
    }
    for (const change& c : changes.changes)
      if (auto it = state_.find(c.key); it != state_.end())
        live_bytes_ -= detail::encoded_entry_size(it->first, it->second.bytes);
    apply_changes(state_, changes);
    for (const change& c : changes.changes)
      if (!c.erase) live_bytes_ += detail::encoded_entry_size(c.key, c.value);
  }

  void recount_live_bytes() {
    live_bytes_ = detail::store_header_size + detail::record_header_size + 16;
    for (const auto& [key, value] : state_) live_bytes_ += detail::encoded_entry_size(key, value.bytes);
  }

  status cut_tail() {
    if (status cut = fs_.truncate(handle_, file_size_); !cut) return cut;
    if (status synced = fs_.sync(handle_); !synced) return synced;
    needs_truncate_ = false;
    unacknowledged_.clear();
    return {};
  }

  void close_handle() {
    if (handle_ >= 0) fs_.close(handle_);
    handle_ = -1;
  }

  // Opens the store file for appending again, locks it, and checks it is the one written.
  status reopen() {
    auto opened = fs_.open(path_, open_mode::append);
    if (!opened) return std::move(opened).error();
    handle_ = *opened;
    if (status held = fs_.lock(handle_, lock_mode::exclusive); !held) {
      close_handle();
      return held;
    }
    auto info = fs_.stat(handle_);
    if (!info || info->device != file_.device || info->inode != file_.inode) {
      close_handle();
      if (!info) return std::move(info).error();
      return error{errc::store_replaced, 0, path_ + " was replaced by another program while the store was open"};
    }
    return {};
  }

  // Writes path with content and syncs it, through a new temporary file and a rename.
  // renamed tells whether path now names the new file (even if a later step failed);
  // written (if given) receives the new file's identity.
  status write_whole_file(const std::string& path, const std::string& content, bool& renamed,
                          file_system::file_info* written = nullptr) {
    renamed = false;
    // A name of savekit's own (NAME.tmp could be another store of the game's).
    std::string temporary = path + ".savekit-tmp";
    // Never through what someone left or planted there (a link to another file).
    if (status cleared = fs_.remove(temporary); !cleared) return cleared;
    auto opened = fs_.open(temporary, open_mode::create_new, file_.regular ? file_.permissions : 0644);
    if (!opened) return std::move(opened).error();
    status done = file_.regular ? fs_.copy_permissions(*opened, file_) : status{};
    if (done) done = fs_.write(*opened, content.data(), content.size());
    if (done) done = fs_.sync(*opened);
    if (done && written) {
      auto info = fs_.stat(*opened);
      if (info)
        *written = *info;
      else
        done = std::move(info).error();
    }
    fs_.close(*opened);
    if (done) done = fs_.rename(temporary, path);
    if (!done) {
      (void)fs_.remove(temporary);
      return done;
    }
    renamed = true;
    // The rename is durable once the folder is synced.
    status synced = fs_.sync_directory(directory_);
    directory_sync_pending_ = !synced;
    return synced;
  }

  // Replaces the store with a header and one record holding state.
  status write_snapshot_file(const committed_state& state, std::uint64_t sequence, bool* renamed_out = nullptr) {
    std::string content = detail::encode_store_header();
    detail::encode_snapshot_record(content, sequence, state);
    bool renamed = false;
    file_system::file_info written_info;
    status written = write_whole_file(path_, content, renamed, &written_info);
    if (renamed_out) *renamed_out = renamed;
    if (!renamed) return written;
    // The old handle points at the replaced file: reopen, whatever came after the rename.
    close_handle();
    file_ = written_info;
    file_size_ = content.size();
    remember_last_record(std::string_view{content}.substr(detail::store_header_size), detail::store_header_size);
    needs_truncate_ = false;
    unacknowledged_.clear();
    if (status reopened = reopen(); !reopened) return reopened;
    return written;
  }

  // Copies a damaged file beside the store under a name no earlier copy has.
  result<std::string> keep_damaged_copy(const std::string& content) {
    constexpr int max_copies = 1000;
    for (int n = 1; n <= max_copies; ++n) {
      std::string name = path_ + ".damaged" + (n == 1 ? std::string{} : "-" + std::to_string(n));
      auto existing = fs_.stat(name);
      if (existing) continue;
      if (existing.error().code() != errc::not_found) return std::move(existing).error();
      bool renamed = false;
      if (status kept = write_whole_file(name, content, renamed); !kept) return std::move(kept).error();
      return name;
    }
    return error{errc::io_error, 0,
                 path_ + " is damaged, and " + std::to_string(max_copies) +
                     " damaged copies beside it already: move them away to let it be repaired"};
  }

  std::string given_path_;
  std::string path_;  // resolved at load: absolute, no symbolic links
  std::string directory_;
  file_system& fs_;
  file_backend_options options_;
  std::unique_ptr<file_system::lock_token> lock_;
  int handle_ = -1;
  file_system::file_info file_;       // the store file: identity, permissions, owner
  std::uint64_t last_record_at_ = 0;  // where the last committed record starts (0: unknown)
  std::string last_record_head_;      // its length and checksum, as written
  committed_state state_;             // the committed state (compaction writes it)
  std::uint64_t sequence_ = 0;
  std::uint64_t file_size_ = 0;   // bytes up to the end of the last committed record
  std::uint64_t live_bytes_ = 0;  // what a compacted file would take
  std::uint64_t next_compaction_at_ = 0;
  status maintenance_;
  bool needs_truncate_ = false;
  std::string unacknowledged_;  // what may follow file_size_: a failed append's bytes (or a torn tail)
  bool directory_sync_pending_ = false;
  std::string record_;  // reused encoding buffer
};

}  // namespace

result<store_check> check_store_file(const std::string& path, file_system& fs, std::uint64_t max_store_bytes) {
  if (status valid = check_store_path(path); !valid) return std::move(valid).error();
  auto resolved = fs.resolve(path);
  if (!resolved) return with_path(path, std::move(resolved).error());
  // A writer may be in the middle of a commit: what it holds would look torn.
  auto lock = fs.lock(*resolved + ".lock", lock_mode::shared, false);
  if (!lock && lock.error().code() == errc::locked) return std::move(lock).error();
  auto opened = fs.open(*resolved, open_mode::read);
  if (!opened) return std::move(opened).error();
  int handle = *opened;
  status held = fs.lock(handle, lock_mode::shared);
  auto content = held ? fs.read(handle, max_store_bytes) : result<std::string>(held.error());
  fs.close(handle);
  if (!content) return with_path(path, std::move(content).error());

  store_check check;
  check.file_bytes = content->size();
  auto parsed = detail::parse_store(*content);
  if (!parsed) {
    check.problem = parsed.error().message();
    if (parsed.error().code() == errc::unsupported_version) {
      check.newer_version = true;
      for (int i = 11; i >= 8; --i) check.version = (check.version << 8) | static_cast<unsigned char>((*content)[i]);
    }
    return check;
  }
  check.header_ok = true;
  check.version = detail::store_format_version;
  check.intact_bytes = parsed->valid_end;
  check.commits = parsed->commits;
  check.entries = parsed->state.size();
  check.torn_tail = parsed->torn_tail;
  check.damaged = parsed->damaged;
  check.intact_records_after_damage = parsed->intact_records_after_damage;
  check.problem = parsed->problem;
  return check;
}

std::unique_ptr<backend> make_file_backend(std::string path, file_system& fs, file_backend_options options) {
  return std::make_unique<file_backend>(std::move(path), fs, options);
}

}  // namespace savekit
